package embedded

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations/schema"
)

// TestOperationsAsOvsdbServer runs the same transactions on the embedded NB
// and on a stock ovsdb-server, with a monitor_cond of the tables they
// write, and expects the same result of every operation (error tags, counts,
// selected rows), the same notifications and, at the end, the same rows,
// from the embedded server restarted on its file and from a stock
// ovsdb-server on that file. The transactions cover what the server runs
// itself: mutations of integers, sets and maps, conditions, column
// constraints, indexes, named uuids forward and backward, client-chosen
// uuids, and malformed operations.
func TestOperationsAsOvsdbServer(t *testing.T) {
	requireTools(t, "ovsdb-tool", "ovsdb-server")
	const (
		sw = "10000000-0000-0000-0000-000000000001"
		p1 = "20000000-0000-0000-0000-000000000001"
		p3 = "20000000-0000-0000-0000-000000000003"
		gl = "30000000-0000-0000-0000-000000000001"
	)
	uuid, named, set, smap, byUUID, update := ovsUUID, ovsNamed, ovsSet, ovsMap, whereUUID, updateRow
	mutate := func(table, u string, mutations ...any) map[string]any {
		return map[string]any{"op": "mutate", "table": table, "where": byUUID(u), "mutations": mutations}
	}
	sel := func(table string, where []any, columns ...string) map[string]any {
		return map[string]any{"op": "select", "table": table, "where": where, "columns": columns}
	}
	portToSwitch := func(n string) map[string]any {
		return mutate("Logical_Switch", sw, []any{"ports", "insert", named(n)})
	}
	txns := [][]any{
		{ // a reference to a port inserted later in the transaction
			map[string]any{"op": "insert", "table": "NB_Global", "uuid": gl, "row": map[string]any{"name": "g", "nb_cfg": 5}},
			map[string]any{"op": "insert", "table": "Logical_Switch", "uuid": sw, "row": map[string]any{"name": "sw", "ports": named("p2")}},
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "p2", "row": map[string]any{"name": "p2", "addresses": "x"}},
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": p1, "uuid-name": "p1", "row": map[string]any{
				"name": "p1", "addresses": set("a", "b"), "options": smap("a", "1", "b", "2")}},
			portToSwitch("p1"),
		},
		{
			mutate("NB_Global", gl, []any{"nb_cfg", "+=", 3}, []any{"nb_cfg", "*=", 7}, []any{"nb_cfg", "-=", 1}),
			mutate("NB_Global", gl, []any{"nb_cfg", "/=", 4}, []any{"nb_cfg", "%=", 5}),
			sel("NB_Global", []any{}, "nb_cfg"),
		},
		{mutate("NB_Global", gl, []any{"nb_cfg", "/=", 0})},
		{
			mutate("Logical_Switch_Port", p1, []any{"addresses", "insert", set("b", "c")}, []any{"addresses", "delete", "a"},
				[]any{"options", "insert", smap("a", "9", "c", "3")}),
			sel("Logical_Switch_Port", byUUID(p1), "addresses", "options"),
		},
		{
			mutate("Logical_Switch_Port", p1, []any{"options", "delete", smap("b", "2", "c", "999")}),
			sel("Logical_Switch_Port", byUUID(p1), "options"),
			mutate("Logical_Switch_Port", p1, []any{"options", "delete", set("c")}, []any{"external_ids", "insert", smap("k", "v")}),
			sel("Logical_Switch_Port", byUUID(p1), "options", "external_ids"),
		},
		{mutate("Logical_Switch_Port", p1, []any{"tag_request", "insert", set(1, 2)})},
		{mutate("Logical_Switch_Port", p1, []any{"tag_request", "insert", 7}), sel("Logical_Switch_Port", byUUID(p1), "tag_request")},
		{mutate("Logical_Switch_Port", p1, []any{"tag_request", "+=", 10}), sel("Logical_Switch_Port", byUUID(p1), "tag_request")},
		{ // an index: the name of a port that exists
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "d", "row": map[string]any{"name": "p1"}},
			portToSwitch("d"),
		},
		{ // an index: two new ports of one name
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "x1", "row": map[string]any{"name": "x"}},
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "x2", "row": map[string]any{"name": "x"}},
			portToSwitch("x1"), portToSwitch("x2"),
		},
		{ // two ports swap names
			update("Logical_Switch_Port", p1, map[string]any{"name": "p2"}),
			map[string]any{"op": "update", "table": "Logical_Switch_Port", "where": []any{[]any{"name", "==", "p2"}, []any{"_uuid", "!=", uuid(p1)}},
				"row": map[string]any{"name": "p1"}},
		},
		{
			sel("Logical_Switch_Port", []any{[]any{"addresses", "includes", "b"}}, "name"),
			sel("Logical_Switch_Port", []any{[]any{"addresses", "excludes", set("b", "x")}}, "name"),
			sel("Logical_Switch_Port", []any{[]any{"addresses", "includes", set()}}, "name"),
			sel("Logical_Switch_Port", []any{[]any{"options", "includes", smap("a", "1")}}, "name"),
			sel("Logical_Switch_Port", []any{[]any{"options", "excludes", smap("a", "2")}}, "name"),
			sel("Logical_Switch_Port", []any{[]any{"external_ids", "==", smap()}}, "name"),
			sel("Logical_Switch_Port", []any{[]any{"tag_request", "==", set()}}, "name"),
			sel("Logical_Switch_Port", []any{[]any{"tag_request", "!=", 17}}, "name"),
			sel("NB_Global", []any{[]any{"nb_cfg", "<", 5}, []any{"nb_cfg", ">=", 0}}, "name"),
			sel("NB_Global", []any{[]any{"nb_cfg", ">", 5}}, "name"),
			sel("Logical_Switch", []any{[]any{"ports", "includes", uuid(p1)}}, "name"),
		},
		{ // a port with a client-chosen uuid, then the same uuid again
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": p3, "row": map[string]any{"name": "p3", "enabled": false}},
			mutate("Logical_Switch", sw, []any{"ports", "insert", uuid(p3)}),
		},
		{map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": p3, "row": map[string]any{"name": "p4"}}},
		{
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "n", "row": map[string]any{"name": "n1"}},
			map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid-name": "n", "row": map[string]any{"name": "n2"}},
		},
		{map[string]any{"op": "insert", "table": "No_Such_Table", "row": map[string]any{}}},
		{update("Logical_Switch_Port", p1, map[string]any{"no_such_column": 1})},
		{sel("Logical_Switch_Port", []any{[]any{"no_such_column", "==", 1}}, "name")},
		{map[string]any{"op": "frobnicate", "table": "Logical_Switch_Port"}},
		{update("Logical_Switch_Port", p1, map[string]any{"addresses": 5})},
		{update("Logical_Switch_Port", p1, map[string]any{"type": set("a", "b")})},
		{ // values the column's type forbids
			update("Logical_Switch_Port", p1, map[string]any{"tag_request": 4096}),
		},
		{
			map[string]any{"op": "insert", "table": "ACL", "uuid-name": "acl", "row": map[string]any{"action": "bogus", "direction": "to-lport", "match": "1", "priority": 1}},
			mutate("Logical_Switch", sw, []any{"acls", "insert", named("acl")}),
		},
		{ // the ports with uuids the server chose left to garbage collection, a no-op update, a delete of nothing
			update("Logical_Switch", sw, map[string]any{"ports": set(uuid(p1), uuid(p3))}),
			update("Logical_Switch_Port", p1, map[string]any{"name": "p2"}),
			map[string]any{"op": "delete", "table": "NB_Global", "where": []any{[]any{"name", "==", "none"}}},
		},
	}
	tables := []string{"Logical_Switch", "Logical_Switch_Port", "NB_Global", "ACL"}
	requests := map[string]any{}
	for _, table := range tables {
		requests[table] = map[string]any{"columns": allColumns(schemaOf(t).Table(table))}
	}

	embedded := startServersOf(t, schema.Newest)
	ref := startRefServers(t)
	got := map[string][]any{}
	for name, remote := range map[string]string{"embedded": embedded.NBRemote(), "ovsdb-server": ref.NBRemote()} {
		c := dialRaw(t, remote)
		var log []any
		c.mustCall("monitor_cond", "OVN_Northbound", "m", requests)
		// Rows whose uuid the server chose are named by their
		// name in the notifications.
		labels := map[string]string{}
		for i, ops := range txns {
			res := c.mustCall("transact", append([]any{"OVN_Northbound"}, ops...)...).([]any)
			log = append(log, fmt.Sprintf("transaction %d: %s", i, opResults(res, sw, p1, p3, gl)))
			notes := quietNotes(c)
			for _, table := range tables {
				for _, r := range selectAll(t, c, "OVN_Northbound", table, "_uuid", "name").([]any) {
					r := r.(map[string]any)
					labels[r["_uuid"].([]any)[1].(string)] = fmt.Sprint(table, " ", r["name"])
				}
			}
			for i, n := range notes {
				text := n.(string)
				for u, label := range labels {
					text = strings.ReplaceAll(text, u, label)
				}
				// Sorted again: sets and rows were in uuid order.
				method, params, _ := strings.Cut(text, " ")
				b, _ := json.Marshal(normalize(decode(t, json.RawMessage(params))))
				notes[i] = method + " " + string(b)
			}
			slices.SortFunc(notes, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
			log = append(log, notes...)
		}
		got[name] = log
	}
	if diff := cmp.Diff(got["ovsdb-server"], got["embedded"]); diff != "" {
		t.Errorf("results differ (-ovsdb-server +embedded):\n%s", diff)
	}
	checkFileAsOvsdbServer(t, embedded, ref, tables)
}

// opResults is each operation's result, normalized: its error tag alone
// (details differ between servers), an insert's uuid as "uuid" unless it is
// one of fixed (the client chose it), rows sorted.
func opResults(results []any, fixed ...string) string {
	out := make([]any, len(results))
	for i, r := range results {
		m, ok := r.(map[string]any)
		switch {
		case !ok:
			out[i] = r
		case m["error"] != nil:
			out[i] = "error: " + fmt.Sprint(m["error"])
		case m["uuid"] != nil:
			u := m["uuid"].([]any)[1].(string)
			if !slices.Contains(fixed, u) {
				u = "uuid"
			}
			out[i] = "inserted " + u
		default:
			out[i] = normalize(m)
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
