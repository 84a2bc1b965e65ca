package enginestats

import (
	"slices"
	"testing"
)

// TestEngineRun checks engine_run's rules on a small graph: a changed
// input without a handler recomputes, a handler that gives up recomputes,
// handled changes compute, a node whose inputs did not change is left
// alone, and a sink's recompute does not reach the nodes after it.
func TestEngineRun(t *testing.T) {
	var handled Result
	changed := map[string]bool{}
	leaf := func(name string) Leaf {
		return Leaf{Name: name, Changed: func(*Iteration) bool { return changed[name] }}
	}
	e := NewEngine("out", []Leaf{leaf("A"), leaf("B")}, []Node{
		{Name: "handled", Inputs: []Input{{"A", func(*Iteration) Result { return handled }}}},
		{Name: "plain", Inputs: []Input{{Node: "B"}}},
		{Name: "sink", Inputs: []Input{{Node: "B"}}, Sink: true},
		{Name: "after_sink", Inputs: []Input{{Node: "sink"}}},
		{Name: "out", Inputs: []Input{
			{"handled", func(*Iteration) Result { return Updated }},
			{"plain", func(*Iteration) Result { return Unchanged }},
			{Node: "after_sink"},
		}},
	})
	if got, want := e.Names(), []string{"A", "handled", "B", "plain", "sink", "after_sink", "out"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	for _, c := range []struct {
		name    string
		changed []string
		handled Result
		force   bool
		want    map[string]Stats
	}{
		{"handled", []string{"A"}, Updated, false, map[string]Stats{"handled": {Compute: 1}, "out": {Compute: 1}}},
		{"handled, unchanged", []string{"A"}, Unchanged, false, map[string]Stats{"handled": {Compute: 1}}},
		{"unhandled", []string{"A"}, Unhandled, false, map[string]Stats{"handled": {Recompute: 1}, "out": {Compute: 1}}},
		{"no handler", []string{"B"}, Updated, false, map[string]Stats{"plain": {Recompute: 1}, "sink": {Recompute: 1}, "out": {Compute: 1}}},
		{"forced", nil, Updated, true, map[string]Stats{"handled": {Recompute: 1}, "plain": {Recompute: 1}, "sink": {Recompute: 1},
			"after_sink": {Recompute: 1}, "out": {Recompute: 1}}},
	} {
		e.Clear()
		clear(changed)
		for _, n := range c.changed {
			changed[n] = true
		}
		handled = c.handled
		e.Run(&Iteration{}, c.force)
		for _, name := range e.Names() {
			got, _ := e.Stats(name)
			want := c.want[name]
			if name == "A" || name == "B" {
				want = Stats{Recompute: 1}
			}
			if got != want {
				t.Errorf("%s: %s %+v, want %+v", c.name, name, got, want)
			}
		}
	}
}
