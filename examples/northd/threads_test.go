package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

// threadOptions are --n-threads values as ovn-northd reads them in turn
// (strtoul into an int): out of range both ways, signed, past 32 bits,
// with trailing text; the last one, 3, stands.
var threadOptions = []string{"0", "300", "+3", "-2", "4294967297", "3x"}

// threadCommands are parallel-build commands in turn, good and bad
// values (atoi), missing and extra arguments.
var threadCommands = [][]string{
	{"get-n-threads"},
	{"set-n-threads", "3"},
	{"set-n-threads", "4"},
	{"set-n-threads", "4"},
	{"set-n-threads", "8"},
	{"set-n-threads", "1"},
	{"set-n-threads", "1"},
	{"get-n-threads"},
	{"set-n-threads", "0"},
	{"set-n-threads", "-1"},
	{"set-n-threads", "300"},
	{"set-n-threads", "abc"},
	{"set-n-threads", "3x"},
	{"set-n-threads", "+2"},
	{"get-n-threads"},
	{"set-n-threads", "4294967297"},
	{"set-n-threads", "99999999999999999999"},
	{"set-n-threads", " 5"},
	{"get-n-threads"},
	{"set-n-threads"},
	{"set-n-threads", "1", "2"},
	{"get-n-threads", "1"},
}

// threadLine picks a log line about the thread count: the options'
// (ovn_northd) and the pool's (ovn_parallel_hmap), without time and
// sequence number.
var threadLine = regexp.MustCompile(`\|(ovn_parallel_hmap\|.*|ovn_northd\|[A-Z]+\|.*threads?\b.*)$`)

// TestThreads2603 starts 26.03.2's ovn-northd and this northd, each on its
// own 26.03.2 NB and SB, with the same --n-threads options, asks both the
// same parallel-build commands with 26.03.2's ovn-appctl, then exits them:
// the replies, exit statuses and the log lines about the thread count must
// be the reference's.
func TestThreads2603(t *testing.T) {
	b := reference.BuildOf(schema.OVN2603)
	b.Require(t)
	northd, err := b.Tool("ovn-northd")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "northlog")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	appctl := filepath.Join(filepath.Dir(northd), "ovn-appctl")
	want, wantLog := threadAnswers(t, b, northd, appctl)
	got, gotLog := threadAnswers(t, b, bin, appctl)
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("answers (-26.03.2 +northlog):\n%s", d)
	}
	if d := gocmp.Diff(wantLog, gotLog); d != "" {
		t.Errorf("log lines (-26.03.2 +northlog):\n%s", d)
	}
}

// threadAnswers runs program as the northd of a directory of its own with
// threadOptions, asks it threadCommands, has it exit, and returns the
// answers (exit status, output with the control socket's path as CTL) and
// its log lines about the thread count.
func threadAnswers(t *testing.T, b *reference.Build, program, appctl string) ([]string, []string) {
	dir := reference.Dir{Path: t.TempDir(), Build: b}
	for _, db := range []string{"nb", "sb"} {
		if err := dir.CreateDB(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		s, err := dir.StartServer(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
	}
	args := []string{"--ovnnb-db=" + dir.NBRemote(), "--ovnsb-db=" + dir.SBRemote()}
	for _, n := range threadOptions {
		args = append(args, "--n-threads="+n)
	}
	d, err := dir.StartDaemon(program, "northd", args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	ctl := filepath.Join(dir.Path, "northd.ctl")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if out, err := dir.Command(ctx, "ovn-nbctl", "--wait=sb", "sync").CombinedOutput(); err != nil {
		t.Fatalf("%s: ovn-nbctl --wait=sb sync: %v\n%s", program, err, out)
	}
	var answers []string
	for _, c := range append(threadCommands, []string{"exit"}) {
		args := append([]string{"-t", ctl}, c...)
		if c[0] != "exit" {
			args[2] = "parallel-build/" + c[0]
		}
		out, err := dir.Command(ctx, appctl, args...).CombinedOutput()
		var exit *exec.ExitError
		code := 0
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", appctl, err)
		}
		answers = append(answers, fmt.Sprintf("%q: exit %d: %s", args[2:], code, strings.ReplaceAll(string(out), ctl, "CTL")))
	}
	select {
	case <-d.Done():
	case <-ctx.Done():
		t.Fatalf("%s did not exit", program)
	}
	text, err := os.ReadFile(filepath.Join(dir.Path, "northd.log"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for l := range strings.SplitSeq(string(text), "\n") {
		if m := threadLine.FindStringSubmatch(l); m != nil {
			lines = append(lines, m[1])
		}
	}
	return answers, lines
}
