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
