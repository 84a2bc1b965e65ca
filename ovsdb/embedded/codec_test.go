package embedded

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations/schema"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// TestUpdatesAndFileAsOvsdbServer runs the same transactions on the
// embedded NB and on a stock ovsdb-server, each watched by a "monitor"
// (update) and a "monitor_cond" (update2) of every column of three tables,
// and expects the same notifications: the rows the codec writes (atoms,
// uuids, sets of one and of many, maps, optional values, defaults left out
// of update2 inserts, strings that need escapes) and the differences of
// modified rows. Then the embedded server's file, served by a stock
// ovsdb-server, and by the embedded server after a restart, must hold what
// the stock server holds.
func TestUpdatesAndFileAsOvsdbServer(t *testing.T) {
	requireTools(t, "ovsdb-tool", "ovsdb-server")
	const (
		sw   = "10000000-0000-0000-0000-000000000001"
		p1   = "20000000-0000-0000-0000-000000000001"
		p2   = "20000000-0000-0000-0000-000000000002"
		lb   = "30000000-0000-0000-0000-000000000001"
		name = "sw \"0\" \\ \n\t<&> é \x01"
	)
	uuid, set, smap, byUUID, update := ovsUUID, ovsSet, ovsMap, whereUUID, updateRow
	txns := [][]any{
		{
			map[string]any{"op": "insert", "table": "Load_Balancer", "uuid": lb, "row": map[string]any{
				"name": "lb", "vips": smap("10.0.0.1:80", "10.0.1.1:8080,10.0.1.2:8080"), "protocol": "tcp"}},
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": p1, "row": map[string]any{
				"name": "p1", "addresses": set("00:00:00:00:00:01 10.0.0.1", "router"), "tag_request": 7,
				"options": smap("a", "1"), "up": false}},
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": p2, "row": map[string]any{"name": "p2", "enabled": true}},
			map[string]any{"op": "insert", "table": "Logical_Switch", "uuid": sw, "row": map[string]any{
				"name": name, "ports": set(uuid(p1), uuid(p2)), "load_balancer": uuid(lb),
				"other_config": smap("a", "1", "b", "2")}},
		},
		{
			update("Logical_Switch", sw, map[string]any{"other_config": smap("a", "10", "c", "3")}),
			update("Logical_Switch_Port", p1, map[string]any{"addresses": "router", "up": true, "tag_request": set()}),
			update("Logical_Switch_Port", p2, map[string]any{"enabled": false, "type": "localnet"}),
		},
		{update("Logical_Switch", sw, map[string]any{"other_config": smap("a", "10", "c", "3")})}, // changes nothing
		{
			map[string]any{"op": "mutate", "table": "Logical_Switch", "where": byUUID(sw),
				"mutations": []any{[]any{"ports", "delete", uuid(p2)}, []any{"external_ids", "insert", smap("k", "v")}}},
			update("Load_Balancer", lb, map[string]any{"vips": smap("10.0.0.1:80", "10.0.1.3:8080")}),
		},
		{map[string]any{"op": "delete", "table": "Load_Balancer", "where": byUUID(lb)}},
	}
	tables := []string{"Logical_Switch", "Logical_Switch_Port", "Load_Balancer"}
	requests := map[string]any{}
	for _, table := range tables {
		ts := schemaOf(t).Table(table)
		requests[table] = map[string]any{"columns": allColumns(ts)}
	}

	embedded := startServersOf(t, schema.Newest)
	ref := startRefServers(t)
	got := map[string][]any{}
	for name, remote := range map[string]string{"embedded": embedded.NBRemote(), "ovsdb-server": ref.NBRemote()} {
		c := dialRaw(t, remote)
		var log []any
		log = append(log, normalize(c.mustCall("monitor", "OVN_Northbound", "v1", requests)))
		log = append(log, normalize(c.mustCall("monitor_cond", "OVN_Northbound", "v2", requests)))
		for i, ops := range txns {
			res := c.mustCall("transact", append([]any{"OVN_Northbound"}, ops...)...).([]any)
			log = append(log, fmt.Sprintf("transaction %d: %s", i, outcomes(res)))
			log = append(log, quietNotes(c)...)
		}
		got[name] = log
	}
	if diff := cmp.Diff(got["ovsdb-server"], got["embedded"]); diff != "" {
		t.Errorf("notifications differ (-ovsdb-server +embedded):\n%s", diff)
	}

	checkFileAsOvsdbServer(t, embedded, ref, tables)
}

// checkFileAsOvsdbServer expects the rows of tables that the stock ref
// holds from the embedded server restarted on its file, and from a stock
// ovsdb-server on that file.
func checkFileAsOvsdbServer(t *testing.T, embedded *Servers, ref refServers, tables []string) {
	t.Helper()
	want := nbRows(t, dialRaw(t, ref.NBRemote()), tables)
	embedded.Close()
	restarted, err := Start(t.Context(), embedded.dir, schema.Newest, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, nbRows(t, dialRaw(t, restarted.NBRemote()), tables)); diff != "" {
		t.Errorf("rows after a restart (-ovsdb-server +embedded):\n%s", diff)
	}
	restarted.Close()

	dir := t.TempDir()
	if out, err := exec.Command("ovsdb-tool", "db-name", filepath.Join(embedded.dir, "nb.db")).CombinedOutput(); err != nil {
		t.Fatalf("ovsdb-tool db-name: %v %s", err, out)
	}
	daemon(t, dir, "ovsdb-server", "--no-chdir", "--remote=punix:"+filepath.Join(dir, "nb.sock"),
		"--unixctl="+filepath.Join(dir, "nb.ctl"), "--log-file="+filepath.Join(dir, "nb.log"), filepath.Join(embedded.dir, "nb.db"))
	eventually(t, "ovsdb-server socket", func() bool { _, err := os.Stat(filepath.Join(dir, "nb.sock")); return err == nil })
	if diff := cmp.Diff(want, nbRows(t, dialRaw(t, refServers{dir}.NBRemote()), tables)); diff != "" {
		t.Errorf("ovsdb-server on the embedded file (-ovsdb-server +embedded):\n%s", diff)
	}
}

// quietNotes are the notifications a client receives until none comes
// for a while, normalized and sorted.
func quietNotes(c *rawClient) []any {
	var notes []string
	for {
		select {
		case m := <-c.notes:
			b, _ := json.Marshal(normalize(decode(c.t, m.Params)))
			notes = append(notes, m.Method+" "+string(b))
		case <-time.After(300 * time.Millisecond):
			slices.Sort(notes)
			out := make([]any, len(notes))
			for i, n := range notes {
				out[i] = n
			}
			return out
		}
	}
}

// nbRows is every column of every row of tables, normalized.
func nbRows(t *testing.T, c *rawClient, tables []string) map[string]any {
	t.Helper()
	rows := map[string]any{}
	for _, table := range tables {
		columns := append(allColumns(schemaOf(t).Table(table)), "_uuid")
		rows[table] = normalize(selectAll(t, c, "OVN_Northbound", table, columns...))
	}
	return rows
}

// normalize sorts the elements of sets and the pairs of maps in a decoded
// OVSDB JSON value, and the rows of a select result by uuid, which either
// server may list in any order.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		if len(out) == 2 && (out[0] == "set" || out[0] == "map") {
			if elems, ok := out[1].([]any); ok {
				slices.SortFunc(elems, func(a, b any) int { return cmpJSON(a, b) })
			}
		} else if len(out) > 0 {
			if _, rows := out[0].(map[string]any); rows {
				slices.SortFunc(out, func(a, b any) int { return cmpJSON(a, b) })
			}
		}
		return out
	default:
		return v
	}
}

func cmpJSON(a, b any) int {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return slices.Compare(x, y)
}

// schemaOf is the newest release's NB schema.
func schemaOf(t *testing.T) *ovsdb.DatabaseSchema {
	t.Helper()
	var s ovsdb.DatabaseSchema
	if err := json.Unmarshal(schema.Newest.NB(), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// The OVSDB JSON notation of the tests' values.

func ovsUUID(u string) []any  { return []any{"uuid", u} }
func ovsNamed(n string) []any { return []any{"named-uuid", n} }
func ovsSet(elems ...any) []any {
	return []any{"set", append([]any{}, elems...)}
}

// ovsMap is the map of the pairs kv lists, key then value.
func ovsMap(kv ...any) []any {
	pairs := []any{}
	for i := 0; i < len(kv); i += 2 {
		pairs = append(pairs, []any{kv[i], kv[i+1]})
	}
	return []any{"map", pairs}
}

// whereUUID is the condition that selects the row u.
func whereUUID(u string) []any { return []any{[]any{"_uuid", "==", ovsUUID(u)}} }

// updateRow is the operation that sets row's columns in table's row u.
func updateRow(table, u string, row map[string]any) map[string]any {
	return map[string]any{"op": "update", "table": table, "where": whereUUID(u), "row": row}
}
