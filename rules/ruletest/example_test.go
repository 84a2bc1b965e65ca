package ruletest_test

import (
	"fmt"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
	"pgregory.net/rapid"
)

// disabledPortFlows is the rule under test: a drop flow, above the
// built-in ones, for every disabled port of a switch.
func disabledPortFlows(nb *relations.NB) engine.Rel[rules.Flow] {
	disabled := engine.Filter(nb.PortsOnSwitches, func(sp relations.SwitchPort) bool {
		return sp.Port.Enabled != nil && !*sp.Port.Enabled
	})
	return engine.Map(disabled, func(sp relations.SwitchPort) rules.Flow {
		return rules.Flow{Datapath: sp.Switch, Stage: rules.LSInCheckPortSec, Priority: 110,
			Match: "inport == " + strconv.Quote(sp.Port.Name), Actions: "drop;"}
	})
}

// A property test of one rule: switches and ports come and go at random;
// after every step the rule's flows maintained incrementally must equal a
// recompute, and the step's delta be minimal. The programs hold the rule
// alone, so a recompute costs the rule, not the whole northd. In a test,
// ruletest.Check(t, cfg) runs 100 such runs and shrinks a failing one;
// here one run is drawn from a fixed seed.
func ExampleRun() {
	cfg := ruletest.Config{
		Changes: ruletest.Changes(ruletest.Topology),
		Program: func() *rules.Program { return rules.NewFrom(schema.OVN2303, disabledPortFlows) },
		Steps:   20,
	}
	rapid.Custom(func(t *rapid.T) bool { ruletest.Run(t, cfg); return true }).Example(1)
	fmt.Println("incremental = recompute")
	// Output: incremental = recompute
}
