package rules_test

import (
	"fmt"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"

	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// lsInAfterLB is Kube-OVN's stage, which its fork of ovn-northd puts after
// ls_in_lb.
var lsInAfterLB = rules.NewStage(rules.Switch, rules.Ingress, "ls_in_after_lb")

// A stage of one's own placed in 23.03's switch ingress pipeline: it takes
// the table after ls_in_lb, and every later stage moves one table on (so
// do the next(pipeline=ingress, table=N) actions that name them). A
// program built with the table (rules.NewWith) writes the stage's flows
// with its name. 26.03's switch ingress pipeline is full.
func ExampleStageTable_With() {
	stages, err := rules.StagesOf(schema.OVN2303).With(rules.After(rules.LSInLB, lsInAfterLB))
	if err != nil {
		panic(err)
	}
	for _, s := range []rules.Stage{rules.LSInLB, lsInAfterLB, rules.LSInL2Lkup} {
		fmt.Printf("%s: table %d (was %d)\n", s, stages.Table(s), rules.StagesOf(schema.OVN2303).Table(s))
	}
	_, err = rules.StagesOf(schema.OVN2603).With(rules.After(rules.LSInLB, lsInAfterLB))
	fmt.Println(err != nil)
	// Output:
	// ls_in_lb: table 12 (was 12)
	// ls_in_after_lb: table 13 (was -1)
	// ls_in_l2_lkup: table 26 (was 25)
	// true
}

// quarantineFlows is a rule of one's own: it drops, above port security,
// everything from a switch port whose external_ids:quarantine is "true".
func quarantineFlows(n *relations.NB) engine.Rel[rules.Flow] {
	q := engine.Filter(n.PortsOnSwitches, func(sp relations.SwitchPort) bool { return sp.Port.ExternalIDs["quarantine"] == "true" })
	return engine.Map(q, func(sp relations.SwitchPort) rules.Flow {
		return rules.Flow{Datapath: sp.Switch, Stage: rules.LSInCheckPortSec, Priority: 110,
			Match: "inport == " + strconv.Quote(sp.Port.Name), Actions: "drop;"}
	})
}

// A program of the built-in rules and one of one's own, fed NB rows by
// key (no previous version needed), computes the flows offline; after a
// change, Delta is the difference.
func ExampleNew() {
	p := rules.New(quarantineFlows)
	vm1 := &nb.LogicalSwitchPort{UUID: "p1", Name: "vm1", Addresses: []string{"00:00:00:00:00:01 10.0.0.1"}}
	p.NB.Upsert(nb.LogicalSwitchPortTable, vm1)
	p.NB.Upsert(nb.LogicalSwitchTable, &nb.LogicalSwitch{UUID: "s1", Name: "sw0", Ports: []string{"p1"}})
	p.Step()
	fmt.Println(len(p.Flows.Contents()) > 0)
	quarantined := *vm1
	quarantined.ExternalIDs = map[string]string{"quarantine": "true"}
	p.NB.Upsert(nb.LogicalSwitchPortTable, &quarantined)
	p.Step()
	for _, c := range p.Flows.Delta() {
		fmt.Printf("%+d %s %d %s %s\n", c.Weight, c.Tuple.Stage, c.Tuple.Priority, c.Tuple.Match, c.Tuple.Actions)
	}
	// Output:
	// true
	// +1 ls_in_check_port_sec 110 inport == "vm1" drop;
}

// The built-in rules less one family, plus a replacement of one's own:
// here port security that checks no source MAC.
func ExampleBuiltin() {
	less, err := rules.Builtin("SwitchPortSecurityFlows")
	if err != nil {
		panic(err)
	}
	noPortSecurity := func(n *relations.NB) engine.Rel[rules.Flow] {
		return engine.Map(n.SwitchDatapaths, func(sw relations.Switch) rules.Flow {
			return rules.Flow{Datapath: sw.UUID, Stage: rules.LSInCheckPortSec, Priority: 50, Match: "1", Actions: "next;"}
		})
	}
	p := rules.NewFrom(schema.OVN2303, append(less, noPortSecurity)...)
	p.NB.Upsert(nb.LogicalSwitchTable, &nb.LogicalSwitch{UUID: "s1", Name: "sw0"})
	p.Step()
	for _, f := range p.Flows.Contents() {
		if f.Stage == rules.LSInCheckPortSec {
			fmt.Println(f.Priority, f.Match, f.Actions)
		}
	}
	// Output:
	// 50 1 next;
}
