package ruletest

import (
	"slices"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/rules"
	"pgregory.net/rapid"
)

// A Change is one random NB change: it draws what to change from t and
// applies it to s (and so to the program under test).
type Change func(t *rapid.T, s *State)

// Config says what Check draws and compares.
type Config struct {
	// Changes are the changes drawn from, by name (Changes, Select, or
	// the caller's own).
	Changes map[string]Change
	// Steps is the most steps of a run (default 12), ChangesPerStep the
	// most changes in one step (default 4).
	Steps, ChangesPerStep int
	// Program builds the program under test and each recompute's
	// (default rules.New). A program of the caller's rules alone
	// (rules.NewFrom(schema.OVN2303, myRule)) makes each recompute cheap.
	Program func() *rules.Program
	// Setup, if set, makes the rows every run starts from.
	Setup Change
	// Outputs are compared after every step (default DefaultOutputs).
	Outputs []Output
}

// An Output is what Check checks of a program after every step: one
// output compared with a recompute's (OutputOf), or the priorities of an
// embedding program's flows (Ties).
type Output struct {
	// Name names it in failures.
	Name string
	// start makes the check of one run, which keeps the previous
	// contents.
	start func() outputCheck
}

// outputCheck checks one step: full is the recompute of state s, inc the
// program under test.
type outputCheck func(t *rapid.T, s *State, full, inc *rules.Program)

// OutputOf is the output of, named name, checked after every step:
// incremental contents equal to a recompute's, and a delta that leads
// from the previous contents to the current ones with no change that is
// not a real insert or delete (MinimalDelta).
func OutputOf[T comparable](name string, of func(*rules.Program) *engine.Output[T]) Output {
	return Output{Name: name, start: func() outputCheck {
		var prev []T
		return func(t *rapid.T, _ *State, full, inc *rules.Program) {
			cur := of(inc).Contents()
			if d := cmp.Diff(of(full).Contents(), cur); d != "" {
				t.Fatalf("%s: incremental != recompute (-full +incremental):\n%s", name, d)
			}
			MinimalDelta(t, prev, of(inc).Delta(), cur)
			prev = cur
		}
	}}
}

// DefaultOutputs are the logical flows, datapath sets and multicast
// groups with their members.
func DefaultOutputs() []Output {
	return []Output{
		OutputOf("Logical_Flow", func(p *rules.Program) *engine.Output[rules.Flow] { return p.Flows }),
		OutputOf("datapath sets", func(p *rules.Program) *engine.Output[rules.DatapathSetMember] { return p.DatapathSets }),
		OutputOf("Multicast_Group", func(p *rules.Program) *engine.Output[rules.MulticastGroup] { return p.MulticastGroups }),
		OutputOf("Multicast_Group ports", func(p *rules.Program) *engine.Output[rules.MulticastGroupMember] { return p.MulticastGroupMembers }),
	}
}

// Check runs Run under rapid.Check (t is a *testing.T, or any rapid.TB):
// random runs of cfg, a failing one
// shrunk to a small sequence of changes, which rapid replays first next
// time (testdata/rapid).
func Check(t rapid.TB, cfg Config) {
	t.Helper()
	rapid.Check(t, func(t *rapid.T) { Run(t, cfg) })
}

// Run is one random run of cfg, for a caller's own rapid.Check: up to
// Steps steps of one to ChangesPerStep changes drawn from Changes; after
// every step each output maintained incrementally must equal a recompute
// of the whole state, and its delta be minimal.
func Run(t *rapid.T, cfg Config) {
	outs := cfg.Outputs
	if outs == nil {
		outs = DefaultOutputs()
	}
	checks := make([]outputCheck, len(outs))
	for i, o := range outs {
		checks[i] = o.start()
	}
	newProgram := cfg.Program
	if newProgram == nil {
		newProgram = func() *rules.Program { return rules.New() }
	}
	steps, perStep := orDefault(cfg.Steps, 12), orDefault(cfg.ChangesPerStep, 4)
	// rapid replays a failure only if the choices are in a fixed order.
	names := make([]string, 0, len(cfg.Changes))
	for name := range cfg.Changes {
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) == 0 {
		t.Fatalf("ruletest: no changes to draw from")
	}
	s := NewState(newProgram())
	if cfg.Setup != nil {
		cfg.Setup(t, s)
	}
	for range rapid.IntRange(1, steps).Draw(t, "steps") {
		for range rapid.IntRange(1, perStep).Draw(t, "changes") {
			cfg.Changes[rapid.SampledFrom(names).Draw(t, "change")](t, s)
		}
		s.Program.Step()
		full := s.Load(t, newProgram())
		for _, check := range checks {
			check(t, s, full, s.Program)
		}
	}
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Fatalf is what MinimalDelta needs of a test: *testing.T and *rapid.T
// both have it.
type Fatalf interface {
	Fatalf(format string, args ...any)
}

// MinimalDelta asserts that prev plus delta is cur, with every change a
// real insert (weight 1, of a tuple not in prev) or delete (-1, of one in
// prev).
func MinimalDelta[T comparable](t Fatalf, prev []T, delta []engine.Change[T], cur []T) {
	have := map[T]bool{}
	for _, x := range prev {
		have[x] = true
	}
	for _, c := range delta {
		switch {
		case c.Weight == 1 && !have[c.Tuple]:
			have[c.Tuple] = true
		case c.Weight == -1 && have[c.Tuple]:
			delete(have, c.Tuple)
		default:
			t.Fatalf("delta %+v does not apply to the previous contents", c)
		}
	}
	if len(have) != len(cur) {
		t.Fatalf("previous contents + delta has %d tuples, current has %d", len(have), len(cur))
	}
	for _, x := range cur {
		if !have[x] {
			t.Fatalf("current tuple %+v missing from previous contents + delta", x)
		}
	}
}
