//go:build linux

package main

import (
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

func TestParseReleases(t *testing.T) {
	for _, c := range []struct {
		list    string
		refHome bool
		want    []schema.Release
	}{
		{"", false, []schema.Release{schema.OVN2303}},
		{"", true, []schema.Release{schema.OVN2603}},
		{"26.03", false, []schema.Release{schema.OVN2603}},
		{"23.03, 26.03.2", true, []schema.Release{schema.OVN2303, schema.OVN2603}},
	} {
		got, err := parseReleases(c.list, c.refHome)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseReleases(%q, %v) = %v, %v; want %v", c.list, c.refHome, got, err, c.want)
		}
	}
	for _, bad := range []string{"24.03", "23.03,23.03.1", "26.03,"} {
		if got, err := parseReleases(bad, false); err == nil {
			t.Errorf("parseReleases(%q) = %v, want an error", bad, got)
		}
	}
}

func TestOneSideOnly(t *testing.T) {
	c := config{releases: []schema.Release{schema.OVN2303}, changes: 1, coldRuns: 1, refOnly: true, northlogOnly: true}
	if err := run(c, slog.New(slog.DiscardHandler), io.Discard); err == nil || !strings.Contains(err.Error(), "at most one") {
		t.Errorf("run with -ref-only and -northlog-only: %v, want an error", err)
	}
	c.northlogOnly, c.embedded = false, true
	if err := run(c, slog.New(slog.DiscardHandler), io.Discard); err == nil || !strings.Contains(err.Error(), "-embedded") {
		t.Errorf("run with -ref-only and -embedded: %v, want an error", err)
	}
}

// TestNorthdCompletion reads what the real ovn-nbctl prints with
// --print-wait-time after a change the real ovn-northd processed.
func TestNorthdCompletion(t *testing.T) {
	ref := reference.Start(t)
	nbctl, err := ref.Build().Tool("ovn-nbctl")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := exec.CommandContext(t.Context(), nbctl, "--db="+ref.NBRemote(), "--wait=sb", "--print-wait-time", "ls-add", "sw0").Output()
	wall := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	delay, done, err := waitTimes(out)
	if err != nil {
		t.Fatal(err)
	}
	if delay < 0 || delay > done || done > wall {
		t.Errorf("ovn-northd delay before processing %v and completion %v, want 0 <= delay <= completion <= the command's wall %v (output %q)", delay, done, wall, out)
	}
	if _, _, err := waitTimes([]byte("Time spent on processing nb_cfg 1:\n\tovn-northd delay before processing:\t1ms\n")); err == nil {
		t.Error("waitTimes of an output without the completion line: no error")
	}
}
