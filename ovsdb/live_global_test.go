package ovsdb

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLiveMissingNBGlobal: an NB without its NB_Global row, as 23.03 finds
// it: northd creates the row and computes the SB.
func TestLiveMissingNBGlobal(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	s.run("ovn-nbctl", "destroy", "NB_Global", ".")
	s.run("ovn-nbctl", "ls-add", "sw0")
	runNorthd(t, s)
	waitFor(t, "Datapath_Binding sw0 is in the SB", func() bool {
		return strings.Contains(s.run("ovn-sbctl", "--bare", "--columns=external_ids", "list", "Datapath_Binding"), "name=sw0")
	})
	if got := s.run("ovn-nbctl", "--bare", "--columns=_uuid", "list", "NB_Global"); strings.Count(got, "\n") != 1 {
		t.Fatalf("NB_Global rows: %q, want one", got)
	}
	s.sync()
	if n := strings.Count(s.run("ovn-sbctl", "--bare", "--columns=_uuid", "list", "Logical_Flow"), "\n\n"); n == 0 {
		t.Fatal("no logical flows")
	}
}

// TestLiveProbeInterval: NB_Global's northd_probe_interval makes northd
// drop a frozen SB server (SIGSTOP) within two intervals; on unix: sockets
// there is no probe by default, as in ovn-northd.
func TestLiveProbeInterval(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	l := runNorthd(t, s)
	s.run("ovn-nbctl", "set", "NB_Global", ".", "options:northd_probe_interval=1000")
	s.sync()
	if got := l.probeFor(s.SBRemote()); got != time.Second {
		t.Fatalf("probe %v, want 1 s", got)
	}
	pid := s.procs["sb"].Pid()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	start := time.Now()
	waitFor(t, "the frozen SB is dropped", func() bool { return !l.Active() })
	took := time.Since(start)
	t.Logf("frozen SB dropped after %v", took.Round(time.Millisecond))
	if took < time.Second || took > 3*time.Second {
		t.Errorf("dropped after %v, want between one and two intervals and a tick", took)
	}
}

// TestLiveWaitTimes: `ovn-nbctl --wait=sb --print-wait-time` reads from
// NB_Global when the northd's run that took its change began
// (nb_cfg_timestamp, "delay before processing") and when the SB had
// committed that run's transaction (sb_cfg_timestamp, "completion"): both
// within the command, in that order.
func TestLiveWaitTimes(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	runNorthd(t, s)
	s.sync()
	start := time.Now()
	out := s.run("ovn-nbctl", "--wait=sb", "--print-wait-time", "ls-add", "sw0")
	wall := time.Since(start)
	ms := func(label string) time.Duration {
		_, after, ok := strings.Cut(out, label)
		n, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(after, "ms", 2)[0]))
		if !ok || err != nil {
			t.Fatalf("no %q in %q", label, out)
		}
		return time.Duration(n) * time.Millisecond
	}
	delay, done := ms("ovn-northd delay before processing:"), ms("ovn-northd completion:")
	if delay < 0 || delay > done || done > wall {
		t.Errorf("delay before processing %v, completion %v: want 0 <= delay <= completion <= the command's wall %v (output %q)", delay, done, wall, out)
	}
}
