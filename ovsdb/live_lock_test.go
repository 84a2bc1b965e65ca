package ovsdb

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/sb"
)

// lockTopology is a small NB whose flows the rules reproduce.
const lockTopology = `ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.1"
ovn-nbctl lr-add lr0 -- lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.254/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
ovn-nbctl ls-add sw1 -- lsp-add sw1 p2 -- lsp-set-addresses p2 "00:00:00:00:00:02 10.0.1.2"`

// logBuffer collects a northd's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// withLog sends a northd's info log to buf.
func withLog(buf *logBuffer) func(*Config) {
	return func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// rowsWritten is the number of SB rows a northd inserted, updated or
// deleted.
func rowsWritten(l *liveNorthd) int {
	n := 0
	for _, c := range l.Totals() {
		n += c[0] + c[1] + c[2]
	}
	return n
}

// TestLiveLockTwoInstances: of two northlog northds on one SB, the first
// takes the lock and writes; the second stays on standby and writes
// nothing while the NB changes. When the first goes away the second takes
// over, leaves the first's rows as they are, and follows later changes.
func TestLiveLockTwoInstances(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	var logA, logB logBuffer
	a := runNorthd(t, s, withLog(&logA))
	waitFor(t, "the first northd is active", a.Active)
	b := runNorthd(t, s, withLog(&logB))
	s.script(lockTopology)
	s.sync()
	if b.Active() || rowsWritten(b) != 0 {
		t.Fatalf("standby northd: active %v, wrote %v", b.Active(), b.Totals())
	}
	if rowsWritten(a) == 0 {
		t.Fatal("active northd wrote nothing")
	}
	if !strings.Contains(logA.String(), "This ovn-northd instance is now active.") ||
		strings.Contains(logB.String(), "now active") {
		t.Fatalf("logs:\nfirst:\n%s\nsecond:\n%s", logA.String(), logB.String())
	}
	before := snapshot(t, s)
	uuids := flowUUIDs(t, s.SBRemote())

	a.stop()
	waitFor(t, "the standby northd is active", b.Active)
	s.sync()
	if got := b.Totals(); len(got) > 1 || got[sb.SBGlobalTable][0]+got[sb.SBGlobalTable][2] != 0 {
		t.Errorf("take-over wrote more than SB_Global: %v", got)
	}
	if got := flowUUIDs(t, s.SBRemote()); !maps.Equal(got, uuids) {
		t.Errorf("Logical_Flow rows changed at take-over: %d before, %d after", len(uuids), len(got))
	}
	checkSB(t, s, before)
	s.script(`ovn-nbctl lsp-add sw1 p3 -- lsp-set-addresses p3 "00:00:00:00:00:03 10.0.1.3"
ovn-nbctl lsp-del p1`)
	s.sync()
	checkSB(t, s, before)
}

// TestLiveStarted: Started is closed once a northd has written the SB for
// the NB it found and, for a second northd on the same SB, once it finds
// itself on standby.
func TestLiveStarted(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	s.script(lockTopology)
	started := func(l *liveNorthd) {
		t.Helper()
		select {
		case <-l.Started():
		case <-time.After(10 * time.Second):
			t.Fatal("not started after 10 s")
		}
	}
	a := runNorthd(t, s)
	started(a)
	if len(flowUUIDs(t, s.SBRemote())) == 0 {
		t.Error("started with no flow in the SB")
	}
	b := runNorthd(t, s)
	started(b)
	if b.Active() {
		t.Error("the second northd is active")
	}
}

// TestLiveLockRealNorthd: while the real ovn-northd holds the lock,
// northlog writes nothing; killed, it leaves the SB to northlog, which
// takes it over without changing a Logical_Flow row and follows the NB.
// An SB server restart makes northlog ask for the lock again.
func TestLiveLockRealNorthd(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	s.start("northd")
	s.script(lockTopology)
	s.sync()
	var buf logBuffer
	l := runNorthd(t, s, withLog(&buf))
	waitFor(t, "northlog is connected", func() bool { return strings.Contains(buf.String(), "OVN_Southbound") })
	s.script(`ovn-nbctl lsp-add sw1 p3 -- lsp-set-addresses p3 "00:00:00:00:00:03 10.0.1.3"`)
	s.sync()
	if l.Active() || rowsWritten(l) != 0 {
		t.Fatalf("northlog beside ovn-northd: active %v, wrote %v", l.Active(), l.Totals())
	}
	if !reference.Compare(dumpFlows(t, s.SBRemote()), offlineFlows(t, s)).Equal() {
		t.Fatal("the rules do not reproduce ovn-northd's flows for the test topology")
	}
	uuids, rows := flowUUIDs(t, s.SBRemote()), sbRows(t, s.SBRemote(), true)

	s.kill("northd")
	waitFor(t, "northlog is active", l.Active)
	s.sync()
	if got := flowUUIDs(t, s.SBRemote()); !maps.Equal(got, uuids) {
		t.Errorf("Logical_Flow rows changed at take-over: %d before, %d after", len(uuids), len(got))
	}
	if r := reference.Compare(rows, sbRows(t, s.SBRemote(), true)); !r.Equal() {
		t.Errorf("SB rows changed at take-over:\n%s", r)
	}
	s.script(`ovn-nbctl lsp-del p2`)
	s.sync()
	snap := checkSB(t, s, liveSnapshot{rows: rows})

	s.kill("sb")
	waitFor(t, "northlog is on standby", func() bool { return !l.Active() })
	s.start("sb")
	waitFor(t, "northlog is active again", l.Active)
	s.script(`ovn-nbctl lsp-add sw0 p4`)
	s.sync()
	checkSB(t, s, snap)
	if n := strings.Count(buf.String(), "This ovn-northd instance is now on standby."); n != 1 {
		t.Errorf("%d standby log lines, want 1 (SB restart):\n%s", n, buf.String())
	}
}

// TestLiveLockStolen: a client that steals the lock (`ovsdb-client steal`)
// stops northlog's writes; when it goes away, northlog's claim, still
// queued, gives it the lock back and it catches up with the NB.
func TestLiveLockStolen(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	l := runNorthd(t, s)
	s.script(lockTopology)
	s.sync()
	snap := snapshot(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	thief := s.Command(ctx, "ovsdb-client", "steal", s.SBRemote(), LockName)
	if err := thief.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = thief.Wait()
	}()
	waitFor(t, "northlog loses the lock", func() bool { return !l.Active() })
	written := rowsWritten(l)
	s.script(`ovn-nbctl lsp-add sw1 p3 -- lsp-set-addresses p3 "00:00:00:00:00:03 10.0.1.3"`)
	if out, err := s.try("ovn-nbctl", "--timeout=1", "--wait=sb", "sync"); err == nil {
		t.Fatalf("--wait=sb returned with the lock stolen: %s", out)
	}
	if n := rowsWritten(l); n != written {
		t.Fatalf("northlog wrote %d rows without the lock", n-written)
	}
	cancel()
	_ = thief.Wait()
	waitFor(t, "northlog is active again", l.Active)
	s.sync()
	checkSB(t, s, snap)
	if got := dumpFlows(t, s.SBRemote()); !strings.Contains(strings.Join(got, "\n"), "p3") {
		t.Errorf("no flow of p3 after the lock came back (%d flows)", len(got))
	}
}
