package wire

import (
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// TestResultErrors: a transact reply's failed operations, the commit's
// error after them, and a reply shorter than the transaction.
func TestResultErrors(t *testing.T) {
	for _, c := range []struct {
		reply  string
		ops    int
		failed []string
		err    bool
	}{
		{reply: `[{"uuid":["uuid","6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01"]},{},{"count":1}]`, ops: 3},
		{reply: `[{"rows":[{"name":"error","details":"x"}]}]`, ops: 1},
		{reply: `[{},{"error":"constraint violation","details":"duplicate key"},null]`, ops: 3,
			failed: []string{"[op 1: constraint violation: duplicate key]"}},
		{reply: `[{},{"error":"referential integrity violation","details":"row r"}]`, ops: 1,
			failed: []string{"[op 1: referential integrity violation: row r]"}},
		{reply: `[{}]`, ops: 2, err: true},
		{reply: `[{"error":1}]`, ops: 1, err: true},
	} {
		failed, err := resultErrors([]byte(c.reply), c.ops)
		if (err != nil) != c.err || !slices.Equal(failed, c.failed) {
			t.Errorf("%s: %q, %v; want %q, error %v", c.reply, failed, err, c.failed, c.err)
		}
	}
}

// BenchmarkResultErrors reads the reply to a cold start's SB write at the
// bench size (43k inserts): with resultErrors, and decoded whole into
// libovsdb's results and checked by libovsdb, as before it.
func BenchmarkResultErrors(b *testing.B) {
	const n = 43131
	results := make([]string, n)
	ops := make([]lovsdb.Operation, n)
	for i := range results {
		results[i] = fmt.Sprintf(`{"uuid":["uuid","6b6e2ab4-7a1c-4bb8-9c4f-%012x"]}`, i)
		ops[i] = lovsdb.Operation{Op: lovsdb.OperationInsert}
	}
	reply := []byte("[" + strings.Join(results, ",") + "]")
	b.Run("resultErrors", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if failed, err := resultErrors(reply, n); err != nil || len(failed) > 0 {
				b.Fatal(failed, err)
			}
		}
	})
	b.Run("libovsdb", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var res []lovsdb.OperationResult
			if err := json.Unmarshal(reply, &res); err != nil {
				b.Fatal(err)
			}
			if _, err := lovsdb.CheckOperationResults(res, ops); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestSetProbeWakes: SetProbe wakes the prober when the interval changes,
// not when it is set again (northd sets it on every iteration).
func TestSetProbeWakes(t *testing.T) {
	c := &Conn{probeSet: make(chan struct{}, 1)}
	for i, step := range []struct {
		probe time.Duration
		wakes bool
	}{{0, false}, {time.Second, true}, {time.Second, false}, {-time.Second, true}, {0, false}, {2 * time.Second, true}} {
		c.SetProbe(step.probe)
		woke := false
		select {
		case <-c.probeSet:
			woke = true
		default:
		}
		if woke != step.wakes {
			t.Errorf("step %d, SetProbe(%v): woke the prober %v", i, step.probe, woke)
		}
	}
}

// TestProber: with no probe nothing is sent; SetProbe starts the probe of
// an idle connection, whose echoes, answered, keep it up; unanswered, the
// connection ends after a second probe interval.
func TestProber(t *testing.T) {
	client, server := net.Pipe()
	ac := &activityConn{Conn: client}
	ac.lastRead.Store(time.Now().UnixNano())
	c := &Conn{conn: ac, remote: "pipe", done: make(chan struct{}), probeSet: make(chan struct{}, 1)}
	c.rpc = newRPCConn(ac, nil, nil)
	defer c.rpc.Close()
	var answer atomic.Bool
	answer.Store(true)
	echoes := make(chan struct{}, 100)
	go func() {
		srv := &frameReader{r: server}
		for {
			b, err := nextWhole(srv)
			if err != nil {
				return
			}
			var req struct {
				Method string
				ID     json.RawMessage
			}
			if err := json.Unmarshal(b, &req); err != nil || req.Method != "echo" {
				t.Errorf("server read %s", b)
				return
			}
			echoes <- struct{}{}
			if answer.Load() {
				fmt.Fprintf(server, `{"id":%s,"result":[],"error":null}`, req.ID)
			}
		}
	}()
	nextEcho := func() {
		t.Helper()
		select {
		case <-echoes:
		case <-time.After(10 * time.Second):
			t.Fatal("no echo sent")
		}
	}
	go c.prober()
	select {
	case <-echoes:
		t.Fatal("echo sent with no probe")
	case <-time.After(300 * time.Millisecond):
	}
	const probe = 100 * time.Millisecond
	start := time.Now()
	c.SetProbe(probe)
	for range 4 {
		nextEcho()
	}
	if took := time.Since(start); took > 4*(probe+probe/2) {
		t.Errorf("4 echoes took %v at a probe of %v", took, probe)
	}
	select {
	case <-c.done:
		t.Fatalf("answered probes ended the connection: %v", c.err)
	default:
	}
	answer.Store(false)
	nextEcho()
	unanswered := time.Now()
	select {
	case <-c.done:
		if d := time.Since(unanswered); d < probe/2 || !strings.Contains(c.err.Error(), "nothing received") {
			t.Errorf("ended %v after an unanswered echo: %v", d, c.err)
		}
	case <-time.After(10 * probe):
		t.Fatal("unanswered probe did not end the connection")
	}
}
