package relations

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/ovn-org/libovsdb/model"
)

// TestHmapMask compares hmapMask with OVS's hmap as northd fills its
// datapaths table: hmap_insert, then hmap_expand to calc_mask(n) whenever
// n/2 > mask (lib/hmap.c, include/openvswitch/hmap.h).
func TestHmapMask(t *testing.T) {
	calcMask := func(capacity uint32) uint32 {
		mask := capacity / 2
		mask |= mask >> 1
		mask |= mask >> 2
		mask |= mask >> 4
		mask |= mask >> 8
		mask |= mask >> 16
		mask |= (mask & 1) << 1
		return mask
	}
	var mask uint32
	for n := uint32(1); n <= 1<<17; n++ {
		if n/2 > mask {
			if m := calcMask(n); m > mask {
				mask = m
			}
		}
		if got := hmapMask(int(n)); got != mask {
			t.Fatalf("hmapMask(%d) = %d, hmap has mask %d", n, got, mask)
		}
	}
}

// duplicates returns the port ownership rejections of one step.
func duplicates(c *engine.Circuit) []*engine.Rejected {
	var out []*engine.Rejected
	for _, err := range c.Step() {
		var r *engine.Rejected
		if errors.As(err, &r) && r.Op == "port ownership" {
			out = append(out, r)
		}
	}
	return out
}

// TestDuplicatePortReportedOnce: a port listed by two switches is bound on
// the one northd's datapath walk meets first and its other claim reported
// once; unrelated switches report and rebind nothing until the eighth
// datapath grows the table to 8 buckets, which reorders the two switches:
// the port moves and the new losing claim is reported.
func TestDuplicatePortReportedOnce(t *testing.T) {
	c := engine.NewCircuit()
	n := NewNB(c, schema.OVN2303)
	out := engine.NewOutput(n.PortsOnSwitches, func(a, b SwitchPort) int {
		return cmp.Or(cmp.Compare(a.Switch, b.Switch), cmp.Compare(a.Port.UUID, b.Port.UUID))
	})
	insert := func(table string, row model.Model) {
		t.Helper()
		if err := n.Apply(table, nil, row); err != nil {
			t.Fatal(err)
		}
	}
	// step applies nothing more, steps, and returns the duplicate reports
	// and where p1 moved (the switches it left and joined).
	step := func() (reports int, left, joined []string) {
		for _, err := range c.Step() {
			var r *engine.Rejected
			if errors.As(err, &r) && r.Op == "port ownership" {
				reports++
			}
		}
		for _, ch := range out.Delta() {
			if ch.Weight < 0 {
				left = append(left, ch.Tuple.Switch)
			} else {
				joined = append(joined, ch.Tuple.Switch)
			}
		}
		return reports, left, joined
	}
	const swA, swB = "00000004-0000-4000-8000-00000000000a", "00000003-0000-4000-8000-00000000000b"
	port := &nb.LogicalSwitchPort{UUID: "5a000000-0000-4000-8000-000000000001", Name: "p1"}
	insert(nb.LogicalSwitchPortTable, port)
	insert(nb.LogicalSwitchTable, &nb.LogicalSwitch{UUID: swA, Name: "swA", Ports: []string{port.UUID}})
	insert(nb.LogicalSwitchTable, &nb.LogicalSwitch{UUID: swB, Name: "swB", Ports: []string{port.UUID}})
	// 4 buckets: swA in 0, swB in 3.
	if reports, _, joined := step(); reports != 1 || !slices.Equal(joined, []string{swA}) {
		t.Fatalf("two claims: %d reports, p1 bound on %v; want 1, on swA", reports, joined)
	}
	for i := range 5 {
		insert(nb.LogicalSwitchTable, &nb.LogicalSwitch{UUID: fmt.Sprintf("0000001%d-0000-4000-8000-000000000000", i), Name: fmt.Sprint("f", i)})
		if reports, left, joined := step(); reports != 0 || left != nil || joined != nil {
			t.Fatalf("datapath %d: %d reports, p1 left %v joined %v; want nothing", i+3, reports, left, joined)
		}
	}
	// 8 buckets: swA in 4, swB in 3.
	insert(nb.LogicalSwitchTable, &nb.LogicalSwitch{UUID: "00000020-0000-4000-8000-000000000000", Name: "f5"})
	if reports, left, joined := step(); reports != 1 || !slices.Equal(left, []string{swA}) || !slices.Equal(joined, []string{swB}) {
		t.Fatalf("eighth datapath: %d reports, p1 left %v joined %v; want 1, from swA to swB", reports, left, joined)
	}
}
