package ruletest_test

import (
	"strings"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
	"pgregory.net/rapid"
)

// TestSetInput: a rule that joins an input of its own with the NB keeps
// incremental = recompute when its changes go through SetInput, and Check
// finds the difference when a change feeds the program under test alone,
// which its recomputes never see.
func TestSetInput(t *testing.T) {
	config := func(q ruletest.Change) ruletest.Config {
		changes := ruletest.Changes(ruletest.Topology)
		changes["quarantine"] = q
		return ruletest.Config{Changes: changes,
			Program: func() *rules.Program { return rules.NewFrom(schema.OVN2303, quarantinedFlows) }}
	}
	ruletest.Check(t, config(quarantine))
	expectFailures(t)
	f := &failures{T: t}
	ruletest.Check(f, config(func(t *rapid.T, s *ruletest.State) {
		if id := s.Pick(t, nb.LogicalSwitchPortTable, "port"); id != "" {
			engine.InputOf[string](s.Program.Circuit, quarantinedInput).Insert(s.Row(nb.LogicalSwitchPortTable, id).(*nb.LogicalSwitchPort).Name)
		}
	}))
	if msgs := strings.Join(f.msgs, "\n"); !strings.Contains(msgs, "Logical_Flow: incremental != recompute") {
		t.Errorf("an input change the state does not hold passed Check: %q", msgs)
	}
}
