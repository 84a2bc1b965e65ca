package embedded

import (
	"fmt"
	"strings"
	"testing"
)

// populateNB fills the NB with switches of ports, one transaction per
// switch, as a stock ovn-nbctl would.
func populateNB(b *testing.B, c *rawClient, switches, ports int) {
	b.Helper()
	for i := range switches {
		sw := fmt.Sprint("sw", i)
		ops := []any{"OVN_Northbound", map[string]any{"op": "insert", "table": "Logical_Switch", "row": map[string]any{"name": sw}}}
		for p := range ports {
			ops = append(ops, addPortOps(sw, fmt.Sprint(sw, "-p", p))...)
		}
		for _, r := range c.mustCall("transact", ops...).([]any) {
			if e, ok := r.(map[string]any)["error"]; ok {
				b.Fatalf("populating: %v: %v", e, r)
			}
		}
	}
}

// addPortOps are the operations that add a port to a switch.
func addPortOps(sw, port string) []any {
	uuidName := "p_" + strings.ReplaceAll(port, "-", "_")
	return []any{
		map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid-name": uuidName,
			"row": map[string]any{"name": port, "addresses": "00:00:00:00:00:01 10.0.0.1"}},
		map[string]any{"op": "mutate", "table": "Logical_Switch", "where": []any{[]any{"name", "==", sw}},
			"mutations": []any{[]any{"ports", "insert", []any{"named-uuid", uuidName}}}},
	}
}

// BenchmarkMonitorInitial measures a monitor_cond of every column of
// Logical_Switch and Logical_Switch_Port on an NB of 100 switches of 20
// ports: what each stock ovn-nbctl run starts with.
func BenchmarkMonitorInitial(b *testing.B) {
	c := dialRaw(b, startServers(b).NBRemote())
	populateNB(b, c, 100, 20)
	b.ResetTimer()
	for i := range b.N {
		c.mustCall("monitor_cond", "OVN_Northbound", i, map[string]any{"Logical_Switch_Port": map[string]any{}, "Logical_Switch": map[string]any{}})
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/2100, "µs/row")
}

// BenchmarkTransactAddPort measures adding one port to a switch of an NB
// of 100 switches of 20 ports, with one client monitoring both tables.
func BenchmarkTransactAddPort(b *testing.B) {
	c := dialRaw(b, startServers(b).NBRemote())
	populateNB(b, c, 100, 20)
	c.mustCall("monitor_cond", "OVN_Northbound", "m", map[string]any{"Logical_Switch_Port": map[string]any{}, "Logical_Switch": map[string]any{}})
	b.ResetTimer()
	for i := range b.N {
		c.mustCall("transact", append([]any{"OVN_Northbound"}, addPortOps("sw1", fmt.Sprint("x", i))...)...)
		c.note("update2")
	}
}

// flowsOfGroup are the operations that insert a Logical_DP_Group (a
// non-root row) and n logical flows that refer to it, as the SB's first
// transaction has thousands of flows of one datapath group.
func flowsOfGroup(n int, tag string) []any {
	ops := []any{"OVN_Southbound", map[string]any{"op": "insert", "table": "Logical_DP_Group", "uuid-name": "g", "row": map[string]any{}}}
	for i := range n {
		ops = append(ops, map[string]any{"op": "insert", "table": "Logical_Flow", "row": map[string]any{
			"logical_dp_group": []any{"named-uuid", "g"}, "pipeline": "ingress", "table_id": 1, "priority": 100,
			"match": fmt.Sprintf("%s.%d", tag, i), "actions": "next;"}})
	}
	return ops
}

// BenchmarkRowsReferringToOneRow measures the transactions that make many
// rows refer to one (the references a server tracks for garbage collection
// and referential integrity): "insert" inserts a group and n flows of it in
// one transaction; "change" adds a flow to a group that n flows refer to,
// and removes it, in two transactions.
func BenchmarkRowsReferringToOneRow(b *testing.B) {
	deleteFlows := []any{"OVN_Southbound", map[string]any{"op": "delete", "table": "Logical_Flow", "where": []any{}}}
	for _, n := range []int{1000, 4000, 16000} {
		b.Run(fmt.Sprint("insert/", n), func(b *testing.B) {
			c := dialRaw(b, startServers(b).SBRemote())
			for b.Loop() {
				c.mustCall("transact", flowsOfGroup(n, "f")...)
				b.StopTimer()
				c.mustCall("transact", deleteFlows...)
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
		})
		b.Run(fmt.Sprint("change/", n), func(b *testing.B) {
			c := dialRaw(b, startServers(b).SBRemote())
			res := c.mustCall("transact", flowsOfGroup(n, "f")...).([]any)
			group := res[0].(map[string]any)["uuid"]
			for i := 0; b.Loop(); i++ {
				match := fmt.Sprint("g.", i)
				res := c.mustCall("transact", "OVN_Southbound", map[string]any{"op": "insert", "table": "Logical_Flow", "row": map[string]any{
					"logical_dp_group": group, "pipeline": "ingress", "table_id": 1, "priority": 100, "match": match, "actions": "next;"}}).([]any)
				c.mustCall("transact", "OVN_Southbound", map[string]any{"op": "delete", "table": "Logical_Flow", "where": []any{[]any{"_uuid", "==", res[0].(map[string]any)["uuid"]}}})
			}
		})
	}
}
