package embedded

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/schema"
)

// startServers starts embedded servers of 23.03's schemas in a fresh
// directory for one test.
func startServers(t testing.TB) *Servers {
	t.Helper()
	return startServersOf(t, schema.OVN2303)
}

// startServersOf starts embedded servers of release's schemas in a fresh
// directory for one test. The Go client's models (relations/nb and sb,
// every release's tables and columns) fit only the newest's.
func startServersOf(t testing.TB, release schema.Release) *Servers {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s, err := Start(ctx, t.TempDir(), release, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// rawClient speaks JSON-RPC to a server with no OVSDB logic of its own, so
// the tests see the protocol exactly as a stock client does.
type rawClient struct {
	t       testing.TB
	conn    net.Conn
	mu      sync.Mutex
	nextID  int
	replies map[int]chan wire.Message // by request id, until the reply comes
	notes   chan wire.Message
	// early lists the monitors (whose id is the id of the request that
	// made them) that got an update before the reply with their initial
	// contents.
	early []int
}

func dialRaw(t testing.TB, remote string) *rawClient {
	t.Helper()
	conn, err := net.Dial("unix", strings.TrimPrefix(remote, "unix:"))
	if err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, conn: conn, replies: map[int]chan wire.Message{}, notes: make(chan wire.Message, 100)}
	t.Cleanup(func() { conn.Close() })
	go func() {
		_ = wire.ReadMessages(conn, func(m wire.Message) {
			if m.Method != "" {
				var params []json.RawMessage
				var monitorID int
				if json.Unmarshal(m.Params, &params) == nil && len(params) > 0 && json.Unmarshal(params[0], &monitorID) == nil {
					c.mu.Lock()
					if _, pending := c.replies[monitorID]; pending {
						c.early = append(c.early, monitorID)
					}
					c.mu.Unlock()
				}
				c.notes <- m
				return
			}
			var id int
			if err := json.Unmarshal(m.ID, &id); err != nil {
				return
			}
			c.mu.Lock()
			ch := c.replies[id]
			delete(c.replies, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		})
	}()
	return c
}

// call sends a request and waits for its reply; it returns the result, or
// the error the server answered with.
func (c *rawClient) call(method string, params ...any) (json.RawMessage, error) {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan wire.Message, 1)
	c.replies[id] = ch
	c.mu.Unlock()
	if params == nil {
		params = []any{}
	}
	b, err := json.Marshal(map[string]any{"method": method, "params": params, "id": id})
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.conn.Write(b); err != nil {
		c.t.Fatal(err)
	}
	select {
	case m := <-ch:
		if !wire.IsNull(m.Error) {
			return nil, fmt.Errorf("%s", m.Error)
		}
		return m.Result, nil
	case <-time.After(10 * time.Second):
		c.t.Fatalf("no reply to %s", method)
		return nil, nil
	}
}

// mustCall is call for requests that must succeed; it decodes the result
// into a generic JSON value.
func (c *rawClient) mustCall(method string, params ...any) any {
	c.t.Helper()
	raw, err := c.call(method, params...)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return decode(c.t, raw)
}

// note waits for the next notification and checks its method.
func (c *rawClient) note(method string) []any {
	c.t.Helper()
	select {
	case m := <-c.notes:
		if m.Method != method {
			c.t.Fatalf("got notification %s %s, want %s", m.Method, m.Params, method)
		}
		return decode(c.t, m.Params).([]any)
	case <-time.After(10 * time.Second):
		c.t.Fatalf("no %s notification", method)
		return nil
	}
}

func decode(t testing.TB, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}

// jsonValue parses a JSON literal of a test.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	return decode(t, json.RawMessage(s))
}

// insertSwitch inserts a Logical_Switch and returns its uuid.
func insertSwitch(t *testing.T, c *rawClient, name string) string {
	t.Helper()
	res := c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "insert", "table": "Logical_Switch", "row": map[string]any{"name": name}})
	return res.([]any)[0].(map[string]any)["uuid"].([]any)[1].(string)
}

func TestServerDatabaseDescribesDataDatabase(t *testing.T) {
	s := startServers(t)
	c := dialRaw(t, s.NBRemote())
	if got, want := c.mustCall("list_dbs"), jsonValue(t, `["OVN_Northbound","_Server"]`); !cmp.Equal(got, want) {
		t.Errorf("list_dbs = %v, want %v", got, want)
	}
	res := c.mustCall("transact", "_Server", map[string]any{
		"op": "select", "table": "Database", "where": []any{[]any{"name", "==", "OVN_Northbound"}},
		"columns": []string{"name", "model", "connected", "leader", "schema", "cid"},
	})
	rows := res.([]any)[0].(map[string]any)["rows"].([]any)
	if len(rows) != 1 {
		t.Fatalf("_Server rows for OVN_Northbound: %v", rows)
	}
	row := rows[0].(map[string]any)
	for col, want := range map[string]any{"model": "standalone", "connected": true, "leader": true, "cid": jsonValue(t, `["set",[]]`)} {
		if !cmp.Equal(row[col], want) {
			t.Errorf("Database.%s = %v, want %v", col, row[col], want)
		}
	}
	if row["schema"] != string(schema.OVN2303.NB()) {
		t.Errorf("Database.schema is not the NB schema text")
	}
	if got := c.mustCall("get_schema", "OVN_Northbound").(map[string]any)["cksum"]; got != "94023179 33468" {
		t.Errorf("get_schema cksum = %v", got)
	}
	if _, err := c.call("transact", "_Server", map[string]any{"op": "delete", "table": "Database", "where": []any{}}); err != nil {
		t.Fatal(err)
	}
	if got := c.mustCall("transact", "_Server", map[string]any{"op": "select", "table": "Database", "where": []any{}, "columns": []string{"name"}}); len(got.([]any)[0].(map[string]any)["rows"].([]any)) != 2 {
		t.Errorf("a client changed the read-only _Server database: %v", got)
	}
}

func TestMonitorCondArrayRequests(t *testing.T) {
	s := startServers(t)
	c := dialRaw(t, s.NBRemote())
	// The OVS IDL's form: an array of requests for one table, here with
	// columns split between two of them.
	initial := c.mustCall("monitor_cond", "OVN_Northbound", "m1", map[string]any{
		"Logical_Switch": []any{
			map[string]any{"columns": []string{"name"}},
			map[string]any{"columns": []string{"ports"}},
		},
	})
	if !cmp.Equal(initial, map[string]any{}) {
		t.Errorf("initial contents of an empty database = %v", initial)
	}
	uuid := insertSwitch(t, c, "sw0")
	want := jsonValue(t, fmt.Sprintf(`["m1", {"Logical_Switch": {%q: {"insert": {"name": "sw0"}}}}]`, uuid))
	if got := c.note("update2"); !cmp.Equal(got, want) {
		t.Errorf("insert update2 = %v, want %v", got, want)
	}

	// A change to a column nobody monitors sends nothing; the next
	// notification is the one for the change after it.
	c.mustCall("transact", "OVN_Northbound", map[string]any{
		"op": "mutate", "table": "Logical_Switch", "where": []any{[]any{"_uuid", "==", []any{"uuid", uuid}}},
		"mutations": []any{[]any{"other_config", "insert", []any{"map", []any{[]any{"k", "v"}}}}},
	})
	lsp := "11111111-2222-3333-4444-555555555555"
	c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": lsp, "row": map[string]any{"name": "p1"}},
		map[string]any{"op": "update", "table": "Logical_Switch", "where": []any{[]any{"name", "==", "sw0"}},
			"row": map[string]any{"name": "sw0-renamed", "ports": []any{"uuid", lsp}}},
	)
	want = jsonValue(t, fmt.Sprintf(`["m1", {"Logical_Switch": {%q: {"modify": {"name": "sw0-renamed", "ports": ["uuid", %q]}}}}]`, uuid, lsp))
	if got := c.note("update2"); !cmp.Equal(got, want) {
		t.Errorf("modify update2 = %v, want %v", got, want)
	}
}

func TestMonitorV1AndDiffs(t *testing.T) {
	s := startServers(t)
	c := dialRaw(t, s.NBRemote())
	uuid := insertSwitch(t, c, "sw0")
	setOtherConfig := func(m string) {
		c.mustCall("transact", "OVN_Northbound", map[string]any{
			"op": "update", "table": "Logical_Switch", "where": []any{[]any{"_uuid", "==", []any{"uuid", uuid}}},
			"row": map[string]any{"other_config": jsonValue(t, m)},
		})
	}
	setOtherConfig(`["map", [["a", "1"], ["b", "2"]]]`)

	v1 := c.mustCall("monitor", "OVN_Northbound", nil, map[string]any{"Logical_Switch": map[string]any{"columns": []string{"name", "other_config"}}})
	want := jsonValue(t, fmt.Sprintf(`{"Logical_Switch": {%q: {"new": {"name": "sw0", "other_config": ["map", [["a", "1"], ["b", "2"]]]}}}}`, uuid))
	if !cmp.Equal(v1, want, mapPairsUnordered) {
		t.Errorf("monitor initial = %v, want %v", v1, want)
	}
	c.mustCall("monitor_cond", "OVN_Northbound", "v2", map[string]any{"Logical_Switch": []any{map[string]any{"columns": []string{"other_config"}}}})

	// a changes, b goes, c comes: update2 carries a and c with their new
	// values and b with its old one.
	setOtherConfig(`["map", [["a", "10"], ["c", "3"]]]`)
	got := map[string]any{}
	for range 2 {
		select {
		case m := <-c.notes:
			got[m.Method] = decode(t, m.Params)
		case <-time.After(10 * time.Second):
			t.Fatal("missing notifications")
		}
	}
	want = map[string]any{
		"update": jsonValue(t, fmt.Sprintf(`[null, {"Logical_Switch": {%q: {
			"old": {"other_config": ["map", [["a", "1"], ["b", "2"]]]},
			"new": {"name": "sw0", "other_config": ["map", [["a", "10"], ["c", "3"]]]}}}}]`, uuid)),
		"update2": jsonValue(t, fmt.Sprintf(`["v2", {"Logical_Switch": {%q: {
			"modify": {"other_config": ["map", [["a", "10"], ["b", "2"], ["c", "3"]]]}}}}]`, uuid)),
	}
	if diff := cmp.Diff(want, got, mapPairsUnordered); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}

// mapPairsUnordered compares ["map", pairs] values whatever the order of
// their pairs: the server builds them from Go maps.
var mapPairsUnordered = cmp.FilterValues(func(a, b []any) bool { return isMapValue(a) && isMapValue(b) },
	cmp.Transformer("mapPairs", func(v []any) map[string]any {
		m := map[string]any{}
		for _, p := range v[1].([]any) {
			kv := p.([]any)
			m[fmt.Sprint(kv[0])] = kv[1]
		}
		return m
	}))

func isMapValue(v []any) bool {
	if len(v) != 2 || v[0] != "map" {
		return false
	}
	_, ok := v[1].([]any)
	return ok
}

func TestMonitorConditionsAndCondChange(t *testing.T) {
	s := startServers(t)
	c := dialRaw(t, s.NBRemote())
	a := insertSwitch(t, c, "a")
	b := insertSwitch(t, c, "b")
	initial := c.mustCall("monitor_cond", "OVN_Northbound", 7, map[string]any{
		"Logical_Switch": []any{map[string]any{"columns": []string{"name"}, "where": []any{[]any{"name", "==", "a"}}}},
	})
	want := jsonValue(t, fmt.Sprintf(`{"Logical_Switch": {%q: {"initial": {"name": "a"}}}}`, a))
	if !cmp.Equal(initial, want) {
		t.Errorf("initial = %v, want %v", initial, want)
	}
	c.mustCall("monitor_cond_change", 7, 8, map[string]any{
		"Logical_Switch": []any{map[string]any{"where": []any{[]any{"name", "==", "b"}, false}}},
	})
	want = jsonValue(t, fmt.Sprintf(`[8, {"Logical_Switch": {%q: {"delete": null}, %q: {"insert": {"name": "b"}}}}]`, a, b))
	if got := c.note("update2"); !cmp.Equal(got, want) {
		t.Errorf("cond change update2 = %v, want %v", got, want)
	}
	// Renaming b to a makes it leave the condition: a delete.
	c.mustCall("transact", "OVN_Northbound", map[string]any{
		"op": "update", "table": "Logical_Switch", "where": []any{[]any{"name", "==", "b"}}, "row": map[string]any{"name": "a"},
	})
	want = jsonValue(t, fmt.Sprintf(`[8, {"Logical_Switch": {%q: {"delete": null}}}]`, b))
	if got := c.note("update2"); !cmp.Equal(got, want) {
		t.Errorf("update2 = %v, want %v", got, want)
	}
	if _, err := c.call("monitor_cond_change", 7, 9, map[string]any{}); err == nil {
		t.Error("monitor_cond_change accepted a replaced monitor id")
	}
	c.mustCall("monitor_cancel", 8)
	if _, err := c.call("monitor_cancel", 8); err == nil {
		t.Error("monitor_cancel accepted a cancelled monitor")
	}
}

// TestMonitorsAmidCommits creates monitors while another client commits
// changes to the rows they watch: each monitor's initial contents must reach
// the client before any update for it.
func TestMonitorsAmidCommits(t *testing.T) {
	s := startServers(t)
	writer, watcher := dialRaw(t, s.NBRemote()), dialRaw(t, s.NBRemote())
	insertSwitch(t, writer, "sw0")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 300 {
			writer.mustCall("transact", "OVN_Northbound", map[string]any{
				"op": "update", "table": "Logical_Switch", "where": []any{[]any{"name", "==", "sw0"}},
				"row": map[string]any{"other_config": []any{"map", []any{[]any{"n", fmt.Sprint(i)}}}},
			})
		}
	}()
	// Drain notifications so the client never blocks.
	go func() {
		for range watcher.notes {
		}
	}()
	for monitors := 0; ; monitors++ {
		select {
		case <-done:
			watcher.mu.Lock()
			defer watcher.mu.Unlock()
			if len(watcher.early) > 0 {
				t.Errorf("%d of %d monitors got updates before their initial contents", len(watcher.early), monitors)
			}
			return
		default:
		}
		watcher.mu.Lock()
		id := watcher.nextID + 1
		watcher.mu.Unlock()
		watcher.mustCall("monitor_cond", "OVN_Northbound", id, map[string]any{"Logical_Switch": map[string]any{}})
		watcher.mustCall("monitor_cancel", id)
	}
}

func TestMonitorCondSince(t *testing.T) {
	s := startServers(t)
	c := dialRaw(t, s.SBRemote())
	req := map[string]any{"SB_Global": []any{map[string]any{"columns": []string{"nb_cfg"}}}}
	res := c.mustCall("monitor_cond_since", "OVN_Southbound", "m", req, zeroTxnID).([]any)
	if res[0] != false || res[1] != zeroTxnID || !cmp.Equal(res[2], map[string]any{}) {
		t.Errorf("monitor_cond_since on an empty database = %v", res)
	}
	c.mustCall("transact", "OVN_Southbound", map[string]any{"op": "insert", "table": "SB_Global", "row": map[string]any{"nb_cfg": 5}})
	up := c.note("update3")
	txn := up[1].(string)
	if txn == zeroTxnID {
		t.Fatalf("update3 carries no transaction id: %v", up)
	}

	// A client that saw the last transaction gets nothing again; one that
	// did not gets everything.
	c2 := dialRaw(t, s.SBRemote())
	res = c2.mustCall("monitor_cond_since", "OVN_Southbound", "m", req, txn).([]any)
	if res[0] != true || res[1] != txn || !cmp.Equal(res[2], map[string]any{}) {
		t.Errorf("monitor_cond_since from the last transaction = %v", res)
	}
	res = c2.mustCall("monitor_cond_since", "OVN_Southbound", "m2", req, "aaaaaaaa-0000-0000-0000-000000000000").([]any)
	rows := res[2].(map[string]any)["SB_Global"].(map[string]any)
	if res[0] != false || len(rows) != 1 {
		t.Errorf("monitor_cond_since from an unknown transaction = %v", res)
	}
	if _, err := c2.call("monitor_cond_since", "OVN_Southbound", "m", req, txn); err == nil {
		t.Error("a duplicate monitor id was accepted")
	}
}

func TestTransactOperations(t *testing.T) {
	s := startServers(t)
	c := dialRaw(t, s.NBRemote())
	uuid := insertSwitch(t, c, "sw0")
	byUUID := []any{[]any{"_uuid", "==", []any{"uuid", uuid}}}

	// comment, a matching wait, select with every column, mutate and
	// update counts.
	res := c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "comment", "comment": "test"},
		map[string]any{"op": "wait", "table": "Logical_Switch", "where": byUUID, "columns": []string{"name"},
			"until": "==", "rows": []any{map[string]any{"name": "sw0"}}, "timeout": 0},
		map[string]any{"op": "select", "table": "Logical_Switch", "where": byUUID},
		map[string]any{"op": "mutate", "table": "Logical_Switch", "where": []any{[]any{"name", "==", "none"}},
			"mutations": []any{[]any{"other_config", "insert", []any{"map", []any{[]any{"k", "v"}}}}}},
		map[string]any{"op": "commit", "durable": false},
	)
	want := jsonValue(t, fmt.Sprintf(`[{}, {}, {"rows": [{"_uuid": ["uuid", %q], "name": "sw0", "acls": ["set", []],
		"copp": ["set", []], "dns_records": ["set", []], "external_ids": ["map", []], "forwarding_groups": ["set", []],
		"load_balancer": ["set", []], "load_balancer_group": ["set", []], "other_config": ["map", []],
		"ports": ["set", []], "qos_rules": ["set", []]}]}, {"count": 0}, {}]`, uuid))
	if !cmp.Equal(res, want) {
		t.Errorf("transact = %v, want %v", res, want)
	}

	// A wait that does not hold fails at once, and nothing after it runs
	// or commits.
	res = c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "wait", "table": "Logical_Switch", "where": byUUID, "columns": []string{"name"},
			"until": "==", "rows": []any{map[string]any{"name": "other"}}, "timeout": 10000},
		map[string]any{"op": "delete", "table": "Logical_Switch", "where": byUUID},
	)
	if got := res.([]any); got[0].(map[string]any)["error"] != "timed out" || got[1] != nil {
		t.Errorf("failed wait: %v", got)
	}
	// abort stops the transaction and undoes what came before it.
	res = c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "delete", "table": "Logical_Switch", "where": byUUID},
		map[string]any{"op": "abort"},
		map[string]any{"op": "comment", "comment": "not reached"},
	)
	if got := res.([]any); !cmp.Equal(got[0], map[string]any{"count": 1.0}) || got[1].(map[string]any)["error"] != "aborted" || got[2] != nil {
		t.Errorf("aborted transaction: %v", got)
	}
	res = c.mustCall("transact", "OVN_Northbound", map[string]any{"op": "select", "table": "Logical_Switch", "where": []any{}, "columns": []string{"name"}})
	if got := res.([]any)[0].(map[string]any)["rows"]; !cmp.Equal(got, []any{map[string]any{"name": "sw0"}}) {
		t.Errorf("after the failed transactions Logical_Switch = %v", got)
	}
	// Referential integrity: a port nobody references is not kept.
	c.mustCall("transact", "OVN_Northbound", map[string]any{"op": "insert", "table": "Logical_Switch_Port", "row": map[string]any{"name": "orphan"}})
	res = c.mustCall("transact", "OVN_Northbound", map[string]any{"op": "select", "table": "Logical_Switch_Port", "where": []any{}})
	if got := res.([]any)[0].(map[string]any)["rows"]; len(got.([]any)) != 0 {
		t.Errorf("an unreferenced Logical_Switch_Port was kept: %v", got)
	}
	// Values the schema forbids: an enum, an integer range. As in
	// ovsdb-server (TestOperationsAsOvsdbServer), the insert itself fails.
	for _, tc := range []struct {
		table, column string
		row           map[string]any
	}{
		{"ACL", "acls", map[string]any{"action": "bogus", "direction": "to-lport", "match": "1", "priority": 1}},
		{"Logical_Switch_Port", "ports", map[string]any{"name": "x", "tag_request": 4096}},
	} {
		res := c.mustCall("transact", "OVN_Northbound",
			map[string]any{"op": "insert", "table": tc.table, "uuid-name": "r", "row": tc.row},
			map[string]any{"op": "mutate", "table": "Logical_Switch", "where": byUUID,
				"mutations": []any{[]any{tc.column, "insert", []any{"named-uuid", "r"}}}})
		if got := res.([]any); len(got) != 2 || got[0].(map[string]any)["error"] != "constraint violation" || got[1] != nil {
			t.Errorf("insert of %s %v: %v", tc.table, tc.row, got)
		}
	}
	if _, err := c.call("transact", "No_Such_DB"); err == nil {
		t.Error("transact on an unknown database succeeded")
	}
	if _, err := c.call("no_such_method"); err == nil || !strings.Contains(err.Error(), "unknown method") {
		t.Errorf("unknown method: %v", err)
	}
	if got := c.mustCall("echo", "x", 1); !cmp.Equal(got, []any{"x", 1.0}) {
		t.Errorf("echo = %v", got)
	}
}

func TestWait(t *testing.T) {
	s := startServers(t)
	c := dialRaw(t, s.NBRemote())
	a, b := "11111111-0000-0000-0000-000000000001", "11111111-0000-0000-0000-000000000002"
	c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": a, "row": map[string]any{"name": "a"}},
		map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": b, "row": map[string]any{"name": "b"}},
		map[string]any{"op": "insert", "table": "Logical_Switch", "row": map[string]any{"name": "sw",
			"ports": []any{"set", []any{[]any{"uuid", a}, []any{"uuid", b}}}}})
	wait := func(table string, where []any, until string, columns []string, rows ...map[string]any) map[string]any {
		return map[string]any{"op": "wait", "table": table, "where": where, "columns": columns, "until": until, "rows": rows, "timeout": 0}
	}
	sw := []any{[]any{"name", "==", "sw"}}
	for _, tc := range []struct {
		name string
		ops  []any
		ok   bool
	}{
		{"set in another order", []any{wait("Logical_Switch", sw, "==", []string{"ports"},
			map[string]any{"ports": []any{"set", []any{[]any{"uuid", b}, []any{"uuid", a}}}})}, true},
		{"empty set against a full one", []any{wait("Logical_Switch", sw, "==", []string{"ports"},
			map[string]any{"ports": []any{"set", []any{}}})}, false},
		{"subset", []any{wait("Logical_Switch", sw, "==", []string{"ports"}, map[string]any{"ports": []any{"uuid", a}})}, false},
		{"not equal", []any{wait("Logical_Switch", sw, "!=", []string{"name"}, map[string]any{"name": "other"})}, true},
		{"no rows", []any{wait("Logical_Switch", []any{[]any{"name", "==", "none"}}, "==", []string{"name"})}, true},
		{"two rows in any order", []any{wait("Logical_Switch_Port", []any{}, "==", []string{"name", "up"},
			map[string]any{"name": "b"}, map[string]any{"name": "a", "up": []any{"set", []any{}}})}, true},
		{"default integer", []any{wait("Logical_Switch_Port", []any{[]any{"name", "==", "a"}}, "==", []string{"tag_request"},
			map[string]any{"tag_request": 5})}, false},
		{"sees the transaction's own insert", []any{
			map[string]any{"op": "insert", "table": "Logical_Switch", "row": map[string]any{"name": "sw2", "other_config": []any{"map", []any{[]any{"k", "v"}}}}},
			wait("Logical_Switch", []any{[]any{"name", "==", "sw2"}}, "==", []string{"other_config"},
				map[string]any{"other_config": []any{"map", []any{[]any{"k", "v"}}}}),
			map[string]any{"op": "abort"}}, false},
	} {
		res := c.mustCall("transact", append([]any{"OVN_Northbound"}, tc.ops...)...).([]any)
		var errs []any
		for _, r := range res {
			if r, ok := r.(map[string]any); ok && r["error"] != nil {
				errs = append(errs, r["error"])
			}
		}
		switch {
		case tc.name == "sees the transaction's own insert":
			// Only the abort fails.
			if !cmp.Equal(errs, []any{"aborted"}) {
				t.Errorf("%s: %v", tc.name, res)
			}
		case tc.ok && len(errs) > 0, !tc.ok && !cmp.Equal(errs, []any{"timed out"}):
			t.Errorf("%s: %v", tc.name, res)
		}
	}
}

func TestLocks(t *testing.T) {
	s := startServers(t)
	a, b := dialRaw(t, s.SBRemote()), dialRaw(t, s.SBRemote())
	locked := func(v any) bool { return v.(map[string]any)["locked"].(bool) }
	assertLock := func(c *rawClient) string {
		res := c.mustCall("transact", "OVN_Southbound", map[string]any{"op": "assert", "lock": "northd"})
		if e, ok := res.([]any)[0].(map[string]any)["error"]; ok {
			return e.(string)
		}
		return ""
	}

	if !locked(a.mustCall("lock", "northd")) {
		t.Fatal("first lock was not granted")
	}
	if locked(b.mustCall("lock", "northd")) {
		t.Fatal("second lock was granted while held")
	}
	if got := assertLock(b); got != "not owner" {
		t.Errorf("assert by a waiter: %q, want not owner", got)
	}
	if got := assertLock(a); got != "" {
		t.Errorf("assert by the owner failed: %q", got)
	}
	if _, err := a.call("lock", "northd"); err == nil {
		t.Error("a second lock by the same session was accepted")
	}
	a.mustCall("unlock", "northd")
	if got := b.note("locked"); !cmp.Equal(got, []any{"northd"}) {
		t.Errorf("locked notification = %v", got)
	}
	if !locked(a.mustCall("steal", "northd")) {
		t.Fatal("steal was not granted")
	}
	if got := b.note("stolen"); !cmp.Equal(got, []any{"northd"}) {
		t.Errorf("stolen notification = %v", got)
	}
	// b waited with "lock", so it queues again and gets the lock back when
	// the thief goes away.
	a.conn.Close()
	b.note("locked")
	if got := assertLock(b); got != "" {
		t.Errorf("assert after the owner left: %q", got)
	}
	if _, err := b.call("unlock", "other"); err == nil {
		t.Error("unlock of a lock never asked for was accepted")
	}
}

func TestStartRefusesLiveSocket(t *testing.T) {
	s := startServers(t)
	dir := strings.TrimSuffix(strings.TrimPrefix(s.NBRemote(), "unix:"), "/nb.sock")
	if _, err := Start(context.Background(), dir, schema.OVN2303, nil); err == nil {
		t.Fatal("a second Start on the same directory succeeded")
	}
	// The first servers still answer.
	if got := dialRaw(t, s.NBRemote()).mustCall("echo"); !cmp.Equal(got, []any{}) {
		t.Errorf("echo = %v", got)
	}
	s.Close()
	// Their sockets are gone, so the directory can be used again.
	s2, err := Start(context.Background(), dir, schema.OVN2303, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
}

// TestServedSchemaOnly: a server of 23.03's schemas, whose models have
// every release's columns, shows and takes only 23.03's: a select of all
// columns returns none of 26.03's, and a write to one is refused.
func TestServedSchemaOnly(t *testing.T) {
	s := startServers(t)
	c := dialRaw(t, s.NBRemote())
	insertSwitch(t, c, "sw0")
	res := c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "insert", "table": "NAT", "row": map[string]any{"type": "snat", "logical_ip": "10.0.0.0/24", "external_ip": "192.0.2.1"}},
		map[string]any{"op": "select", "table": "NAT", "where": []any{}})
	rows := res.([]any)[1].(map[string]any)["rows"].([]any)
	if _, ok := rows[0].(map[string]any)["priority"]; len(rows) != 1 || ok {
		t.Errorf("NAT rows %v: want one, without 26.03's priority", rows)
	}
	res = c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "update", "table": "NAT", "where": []any{}, "row": map[string]any{"priority": 5}})
	if r := res.([]any)[0].(map[string]any); r["error"] != "unknown column" {
		t.Errorf("writing 26.03's NAT priority on 23.03's schema: %v; want an unknown column error", r)
	}
}
