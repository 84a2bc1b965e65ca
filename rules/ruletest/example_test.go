package ruletest_test

import (
	"fmt"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
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

// quarantinedInput is the name of the embedding program's own table
// beside the NB: the names of ports to cut off (from Kubernetes objects,
// say).
const quarantinedInput = "quarantined"

// quarantinedFlows drops, in ls_in_check_port_sec, the traffic of the
// switch ports that the program's own input names.
func quarantinedFlows(n *relations.NB) engine.Rel[rules.Flow] {
	_, names := engine.NewInput[string](n.Circuit, quarantinedInput)
	named := engine.IndexBy(names, func(name string) string { return name })
	ports := engine.IndexBy(n.PortsOnSwitches, func(sp relations.SwitchPort) string { return sp.Port.Name })
	return engine.Join(named, ports, func(name, _ string, sp relations.SwitchPort) rules.Flow {
		return rules.Flow{Datapath: sp.Switch, Stage: rules.LSInCheckPortSec, Priority: 110,
			Match: "inport == " + strconv.Quote(name), Actions: "drop;"}
	})
}

// quarantine puts a random port's name in the input, or takes a name out.
func quarantine(t *rapid.T, s *ruletest.State) {
	if names := ruletest.Input[string](s, quarantinedInput); len(names) > 0 && rapid.Bool().Draw(t, "release") {
		ruletest.SetInput(t, s, quarantinedInput, rapid.SampledFrom(names).Draw(t, "name"), false)
	} else if id := s.Pick(t, nb.LogicalSwitchPortTable, "port"); id != "" {
		ruletest.SetInput(t, s, quarantinedInput, s.Row(nb.LogicalSwitchPortTable, id).(*nb.LogicalSwitchPort).Name, true)
	}
}

// A property test of a rule that joins an input of the program's own
// with the NB: the change to the input goes through SetInput, which feeds
// the program under test and gives each recompute the whole input, as it
// gives it the NB.
func ExampleSetInput() {
	changes := ruletest.Changes(ruletest.Topology)
	changes["quarantine"] = quarantine
	cfg := ruletest.Config{Changes: changes, Steps: 20,
		Program: func() *rules.Program { return rules.NewFrom(schema.OVN2303, quarantinedFlows) }}
	rapid.Custom(func(t *rapid.T) bool { ruletest.Run(t, cfg); return true }).Example(1)
	fmt.Println("incremental = recompute")
	// Output: incremental = recompute
}
