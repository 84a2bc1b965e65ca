package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb"
)

// embeddedRun is the northd run with no database flags, in a test.
type embeddedRun struct {
	dir    string
	env    []string // OVN_NB_DB=..., OVN_SB_DB=...
	cancel context.CancelFunc
	done   chan int
}

// startDaemon runs the northd on embedded databases in a temporary
// directory and checks the export line it prints.
func startDaemon(t *testing.T, args ...string) *embeddedRun {
	t.Helper()
	reference.Require(t)
	d := &embeddedRun{dir: t.TempDir(), done: make(chan int, 1)}
	// No OVN run directory: the embedded databases, and a control socket
	// of the test's own.
	t.Setenv("OVN_RUNDIR", d.dir)
	t.Setenv("OVN_NB_DB", "")
	t.Setenv("OVN_SB_DB", "")
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	pr, pw := io.Pipe()
	go func() {
		d.done <- run(ctx, append([]string{"--state-dir", d.dir, "--log-level", "warn"}, args...), pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() { d.stop() })
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	want := "export OVN_NB_DB=unix:" + filepath.Join(d.dir, "nb.sock") + " OVN_SB_DB=unix:" + filepath.Join(d.dir, "sb.sock") + "\n"
	if line != want {
		t.Fatalf("printed %q, want %q", line, want)
	}
	d.env = strings.Fields(strings.TrimPrefix(line, "export "))
	return d
}

// stop stops the daemon and returns its exit code.
func (d *embeddedRun) stop() int {
	d.cancel()
	code, ok := <-d.done
	if ok {
		close(d.done)
	}
	return code
}

func (d *embeddedRun) nbctl(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ovn-nbctl", args...)
	cmd.Env = append(cmd.Environ(), d.env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ovn-nbctl %v: %v: %s", args, err, out)
	}
}

// TestEmbedded: stock ovn-nbctl --wait=sb works against the embedded
// databases, the SB then holds the flows computed offline from the NB
// file they keep, and the metrics count them and show the lock held, the
// members connected and Go's and the process's standard metrics.
func TestEmbedded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	d := startDaemon(t, "--metrics-address", addr)
	d.nbctl(t, "ls-add", "sw0")
	d.nbctl(t, "lsp-add", "sw0", "p1")
	d.nbctl(t, "--wait=sb", "sync")
	got, err := reference.DumpFlows(context.Background(), strings.TrimPrefix(d.env[1], "OVN_SB_DB="))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{fmt.Sprintf("northlog_logical_flows %d\n", len(got)), "northlog_sb_lock_held 1\n",
		`northlog_db_connected{database="OVN_Southbound",member="` + strings.TrimPrefix(d.env[1], "OVN_SB_DB=") + `"} 1` + "\n",
		`northlog_db_connects_total{database="OVN_Northbound"} 1` + "\n", "go_goroutines ", "process_cpu_seconds_total "} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("metrics lack %q:\n%s", want, metrics)
		}
	}
	if code := d.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	offline, err := ovsdb.ComputeFromFile(filepath.Join(d.dir, "nb.db"))
	if err != nil {
		t.Fatal(err)
	}
	if r := reference.Compare(offline.Canonical(), got); !r.Equal() {
		t.Errorf("SB flows differ from the offline ones:\n%s", r)
	}
}

// TestFlows: the flows subcommand prints what ComputeFromFile computes.
func TestFlows(t *testing.T) {
	d := startDaemon(t)
	d.nbctl(t, "ls-add", "sw0", "--", "lsp-add", "sw0", "p1", "--", "lr-add", "lr0")
	d.nbctl(t, "--wait=sb", "sync")
	d.stop()
	file := filepath.Join(d.dir, "nb.db")
	want, err := ovsdb.ComputeFromFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := flows([]string{file}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if got := strings.TrimSuffix(out.String(), "\n"); got != strings.Join(want.Canonical(), "\n") {
		t.Errorf("canonical output differs from ComputeFromFile:\n%s", got)
	}
	out.Reset()
	if code := flows([]string{"--format", "lflow-list", file}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if n := strings.Count(out.String(), "\n  table="); n != len(want.Flows) {
		t.Errorf("lflow-list printed %d flows, want %d", n, len(want.Flows))
	}
	if code := flows([]string{"--format", "json", file}, io.Discard, io.Discard); code != 2 {
		t.Errorf("unknown format: exit %d, want 2", code)
	}
}

// TestUnexpectedArgument: a stray argument, such as the FILE of
// "--log-file FILE", is named in the error, and nothing starts.
func TestUnexpectedArgument(t *testing.T) {
	var stderr strings.Builder
	if code := run(t.Context(), []string{"--log-file", "northd.log"}, io.Discard, &stderr); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), `unexpected argument "northd.log"`) {
		t.Errorf("stderr does not name the argument:\n%s", stderr.String())
	}
}

// TestCommandLine: ovn-northd's answers to bad and informational command
// lines: one line naming the bad option or vlog spec part and exit 1,
// help and version on stdout and exit 0.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"--foo"}, 1, "", ": unrecognized option '--foo'\n"},
		{[]string{"-q"}, 1, "", ": invalid option -- 'q'\n"},
		{[]string{"--n-threads"}, 1, "", ": option '--n-threads' requires an argument\n"},
		{[]string{"--detach=yes"}, 1, "", ": option '--detach' doesn't allow an argument\n"},
		{[]string{"-vfoo:bar"}, 1, "", `: processing "foo:bar": no destination, level, or module "foo"` + "\n"},
		{[]string{"-vconsole:file:off"}, 1, "", `: processing "console:file:off": cannot specify multiple destinations` + "\n"},
		{[]string{"--syslog-method=tcp:1.2.3.4"}, 1, "", ": unsupported syslog method 'tcp:1.2.3.4'\n"},
		{[]string{"-h"}, 0, "OVN northbound management daemon", ""},
		{[]string{"--vers"}, 0, " 26.03.2\nnorthlog, drop-in for ovn-northd 23.03.1, 26.03.2", ""},
		{[]string{"-V"}, 0, " 26.03.2\n", ""},
		{[]string{"--release=23.03", "-V"}, 0, " 23.03.1\nnorthlog, drop-in for ovn-northd 23.03.1\n", ""},
		{[]string{"--release=24.03"}, 1, "", `: unknown OVN release "24.03"; supported: 23.03.1 (NB schema 7.0.0), 26.03.2 (NB schema 7.18.0)` + "\n"},
	} {
		var stdout, stderr strings.Builder
		code := run(t.Context(), tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) ||
			tc.stderr == "" && stderr.Len() > 0 || !strings.HasSuffix(stderr.String(), tc.stderr) ||
			strings.Count(stderr.String(), "\n") > 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr ending %q",
				tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}
