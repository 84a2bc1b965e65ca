package embedded

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations/schema"
)

// TestReferencesAsOvsdbServer runs transactions that test referential
// integrity (garbage collection of non-root rows, weak references to deleted
// and never-existing rows, strong references that would dangle) on the
// embedded NB and on a stock ovsdb-server, and expects the same outcome of
// each operation and the same rows after each transaction.
func TestReferencesAsOvsdbServer(t *testing.T) {
	requireTools(t, "ovsdb-tool", "ovsdb-server")
	const missing = "00000000-0000-0000-0000-00000000beef"
	named, set := ovsNamed, ovsSet
	byName := func(n string) []any { return []any{[]any{"name", "==", n}} }
	insert := func(table, uuidName string, row map[string]any) map[string]any {
		return map[string]any{"op": "insert", "table": table, "uuid-name": uuidName, "row": row}
	}
	txns := []struct {
		what string
		ops  []any
	}{
		{"a port nobody refers to", []any{insert("Logical_Switch_Port", "o", map[string]any{"name": "orphan"})}},
		{"a switch of two ports, a group of two load balancers, a port group", []any{
			insert("Logical_Switch_Port", "p1", map[string]any{"name": "p1"}),
			insert("Logical_Switch_Port", "p2", map[string]any{"name": "p2"}),
			insert("Logical_Switch", "sw", map[string]any{"name": "sw", "ports": set(named("p1"), named("p2"))}),
			insert("Load_Balancer", "lb1", map[string]any{"name": "lb1"}),
			insert("Load_Balancer", "lb2", map[string]any{"name": "lb2"}),
			insert("Load_Balancer_Group", "g", map[string]any{"name": "g", "load_balancer": set(named("lb1"), named("lb2"))}),
			insert("Port_Group", "pg", map[string]any{"name": "pg", "ports": set(named("p1"), named("p2"))}),
		}},
		{"a port dropped from its switch", nil}, // filled in below: the port's uuid differs per server
		{"a load balancer deleted", []any{map[string]any{"op": "delete", "table": "Load_Balancer", "where": byName("lb1")}}},
		{"a switch of a port that does not exist", []any{insert("Logical_Switch", "bad", map[string]any{"name": "bad", "ports": set([]any{"uuid", missing})})}},
		{"a port deleted that its switch still has", []any{map[string]any{"op": "delete", "table": "Logical_Switch_Port", "where": byName("p2")}}},
		{"a port group of a port that does not exist", []any{insert("Port_Group", "pg2", map[string]any{"name": "pg2", "ports": set([]any{"uuid", missing})})}},
		{"the switch deleted", []any{map[string]any{"op": "delete", "table": "Logical_Switch", "where": byName("sw")}}},
	}
	servers := map[string]*rawClient{
		"embedded":     dialRaw(t, startServersOf(t, schema.Newest).NBRemote()),
		"ovsdb-server": dialRaw(t, startRefServers(t).NBRemote()),
	}
	got := map[string][]string{}
	for name, c := range servers {
		for _, txn := range txns {
			ops := txn.ops
			if ops == nil {
				ops = []any{map[string]any{"op": "mutate", "table": "Logical_Switch", "where": byName("sw"),
					"mutations": []any{[]any{"ports", "delete", set(portUUID(t, c, "p1"))}}}}
			}
			res := c.mustCall("transact", append([]any{"OVN_Northbound"}, ops...)...).([]any)
			got[name] = append(got[name], txn.what+": "+outcomes(res), txn.what+": "+nbState(t, c))
		}
	}
	if diff := cmp.Diff(got["ovsdb-server"], got["embedded"]); diff != "" {
		t.Errorf("embedded server differs from ovsdb-server (-ovsdb-server +embedded):\n%s", diff)
	}
}

// portUUID is the uuid of the port named name, as ["uuid", UUID].
func portUUID(t *testing.T, c *rawClient, name string) []any {
	t.Helper()
	for _, r := range selectAll(t, c, "OVN_Northbound", "Logical_Switch_Port", "_uuid", "name").([]any) {
		if r := r.(map[string]any); r["name"] == name {
			return r["_uuid"].([]any)
		}
	}
	t.Fatalf("no port %s", name)
	return nil
}

// outcomes is each operation's outcome: ok, its error, or not run.
func outcomes(results []any) string {
	var out []string
	for _, r := range results {
		switch r := r.(type) {
		case nil:
			out = append(out, "not run")
		case map[string]any:
			if e, failed := r["error"]; failed {
				out = append(out, fmt.Sprint(e))
			} else {
				out = append(out, "ok")
			}
		}
	}
	return strings.Join(out, ", ")
}

// nbState names the rows the test's tables hold and whom their references
// name.
func nbState(t *testing.T, c *rawClient) string {
	t.Helper()
	names := map[string]string{} // uuid → name
	var lines []string
	for _, table := range []string{"Logical_Switch_Port", "Load_Balancer", "Logical_Switch", "Load_Balancer_Group", "Port_Group"} {
		for _, r := range selectAll(t, c, "OVN_Northbound", table, "_uuid", "name").([]any) {
			r := r.(map[string]any)
			names[r["_uuid"].([]any)[1].(string)] = r["name"].(string)
		}
	}
	for _, q := range []struct{ table, column string }{
		{"Logical_Switch_Port", ""}, {"Load_Balancer", ""},
		{"Logical_Switch", "ports"}, {"Load_Balancer_Group", "load_balancer"}, {"Port_Group", "ports"},
	} {
		columns := []string{"name"}
		if q.column != "" {
			columns = append(columns, q.column)
		}
		for _, r := range selectAll(t, c, "OVN_Northbound", q.table, columns...).([]any) {
			r := r.(map[string]any)
			line := q.table + " " + r["name"].(string)
			if q.column != "" {
				var refs []string
				for _, u := range uuidsOf(r[q.column]) {
					refs = append(refs, names[u])
				}
				slices.Sort(refs)
				line += " " + q.column + "=" + strings.Join(refs, ",")
			}
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "; ")
}

// uuidsOf lists the uuids of a set or a single ["uuid", U] in OVSDB's JSON.
func uuidsOf(v any) []string {
	a, _ := v.([]any)
	if len(a) != 2 {
		return nil
	}
	switch a[0] {
	case "uuid":
		return []string{a[1].(string)}
	case "set":
		var out []string
		for _, e := range a[1].([]any) {
			out = append(out, uuidsOf(e)...)
		}
		return out
	}
	return nil
}
