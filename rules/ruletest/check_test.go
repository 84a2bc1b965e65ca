package ruletest_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
)

// failures is a rapid.TB that records failures instead of failing the
// test, so that a test can require Check to fail.
type failures struct {
	*testing.T
	msgs []string
}

func (f *failures) Errorf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}
func (f *failures) Error(args ...any)                 { f.msgs = append(f.msgs, fmt.Sprint(args...)) }
func (f *failures) Fatalf(format string, args ...any) { f.Errorf(format, args...) }
func (f *failures) Fatal(args ...any)                 { f.Error(args...) }
func (f *failures) Fail()                             { f.msgs = append(f.msgs, "failed") }
func (f *failures) FailNow()                          { f.Fail() }
func (f *failures) Failed() bool                      { return len(f.msgs) > 0 }

// expectFailures readies rapid for Checks of t that are meant to fail:
// no fail file to replay, and a second to shrink the failure.
func expectFailures(t *testing.T) {
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.shrinktime", "1s")
}

// setFlag sets a flag for t.
func setFlag(t *testing.T, name, value string) {
	old := flag.Lookup(name).Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

// TestCheckFindsStatefulRule: a rule whose flows depend on how many
// switches it has seen so far, not on the current NB, is found out, and
// the failure names the output that differs.
func TestCheckFindsStatefulRule(t *testing.T) {
	seen := 0
	counting := func(nb *relations.NB) engine.Rel[rules.Flow] {
		return engine.Map(nb.SwitchDatapaths, func(sw relations.Switch) rules.Flow {
			seen++
			return rules.Flow{Datapath: sw.UUID, Stage: rules.LSInCheckPortSec, Priority: 110, Match: fmt.Sprint("reg0 == ", seen), Actions: "next;"}
		})
	}
	expectFailures(t)
	f := &failures{T: t}
	ruletest.Check(f, ruletest.Config{Changes: ruletest.Changes(ruletest.Topology),
		Program: func() *rules.Program { return rules.NewFrom(schema.OVN2303, counting) }})
	if !f.Failed() || !strings.Contains(strings.Join(f.msgs, "\n"), "Logical_Flow: incremental != recompute") {
		t.Fatalf("Check passed a rule that is not a function of the NB; reported: %q", f.msgs)
	}
}

// TestMinimalDelta: a delta that inserts a tuple already there, deletes
// one not there, or does not lead to the current contents is refused.
func TestMinimalDelta(t *testing.T) {
	for _, c := range []struct {
		prev  []int
		delta []engine.Change[int]
		cur   []int
		fails bool
	}{
		{[]int{1}, []engine.Change[int]{{Tuple: 2, Weight: 1}, {Tuple: 1, Weight: -1}}, []int{2}, false},
		{[]int{1}, []engine.Change[int]{{Tuple: 1, Weight: 1}}, []int{1}, true},
		{[]int{1}, []engine.Change[int]{{Tuple: 2, Weight: -1}}, []int{1}, true},
		{[]int{1}, nil, []int{1, 2}, true},
		{[]int{1}, []engine.Change[int]{{Tuple: 1, Weight: -1}, {Tuple: 1, Weight: 1}}, []int{1}, false},
	} {
		f := &failures{T: t}
		ruletest.MinimalDelta(f, c.prev, c.delta, c.cur)
		if f.Failed() != c.fails {
			t.Errorf("MinimalDelta(%v, %v, %v): failed %v, want %v (%q)", c.prev, c.delta, c.cur, f.Failed(), c.fails, f.msgs)
		}
	}
}
