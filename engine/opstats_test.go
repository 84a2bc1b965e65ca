package engine

import (
	"strings"
	"testing"
)

// TestStepRunsWhatChanged checks, with the operators' counts, that a step
// runs an input's operator and an output only when they have a change, and
// that an output not run in a step reports no change for it.
func TestStepRunsWhatChanged(t *testing.T) {
	c := NewCircuit()
	ports, rp := NewInput[port](c, "ports")
	_, rs := NewInput[sw](c, "switches")
	po := NewOutput(Filter(rp, func(p port) bool { return p.Switch != "" }), func(a, b port) int { return strings.Compare(a.Name, b.Name) })
	so := NewOutput(rs, func(a, b sw) int { return strings.Compare(a.Name, b.Name) })
	c.Step()
	c.CountOps()
	ports.Insert(port{"p1", "s1"})
	check(t, c, po, ins(port{"p1", "s1"}), []port{{"p1", "s1"}})
	check(t, c, po, nil, []port{{"p1", "s1"}})
	if len(so.Delta()) != 0 {
		t.Errorf("switches' output changed: %v", so.Delta())
	}
	// The ports' input, Filter and Output once each, in the first step,
	// each reading the port and emitting it (an Output emits nothing).
	stats := c.OpStats()
	if len(stats) != 3 {
		t.Fatalf("%d operators ran, want 3: %+v", len(stats), stats)
	}
	for i, want := range []OpStats{{Runs: 1, In: 1, Out: 1}, {Runs: 1, In: 1, Out: 1}, {Runs: 1, In: 1}} {
		if got := stats[i]; got.Runs != want.Runs || got.In != want.In || got.Out != want.Out {
			t.Errorf("operator %d: %+v, want runs, in and out of %+v", i, got, want)
		}
	}
}
