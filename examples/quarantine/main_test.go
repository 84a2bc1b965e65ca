package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
	"pgregory.net/rapid"
)

// TestQuarantineFlows checks that the custom rule follows the port's
// external_ids incrementally, beside the built-in flows.
func TestQuarantineFlows(t *testing.T) {
	p := rules.New(QuarantineFlows)
	port := &nb.LogicalSwitchPort{UUID: "lsp1", Name: "vm1"}
	must(t, p.NB.Apply(nb.LogicalSwitchPortTable, nil, port))
	must(t, p.NB.Apply(nb.LogicalSwitchTable, nil, &nb.LogicalSwitch{UUID: "ls1", Name: "sw", Ports: []string{"lsp1"}}))
	p.Step()
	drop := rules.Flow{Datapath: "ls1", Stage: rules.LSInCheckPortSec, Priority: 110, Match: `inport == "vm1"`, Actions: "drop;"}
	if slices.Contains(p.Flows.Contents(), drop) {
		t.Fatalf("port without quarantine has the drop flow")
	}

	q := *port
	q.ExternalIDs = map[string]string{"quarantine": "true"}
	must(t, p.NB.Apply(nb.LogicalSwitchPortTable, port, &q))
	p.Step()
	if d := p.Flows.Delta(); len(d) == 0 || !slices.ContainsFunc(d, func(c engine.Change[rules.Flow]) bool { return c.Tuple == drop && c.Weight == 1 }) {
		t.Fatalf("quarantining the port did not insert the drop flow; delta %v", d)
	}
	for _, c := range p.Flows.Delta() {
		if c.Tuple != drop && !strings.Contains(c.Tuple.Match+c.Tuple.Actions, "vm1") {
			t.Errorf("quarantine changed an unrelated flow: %+v", c)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestQuarantinePriority: priority 110 ties with no built-in flow of
// ls_in_check_port_sec on any switch, whatever its ports.
func TestQuarantinePriority(t *testing.T) {
	changes := ruletest.Changes(ruletest.Topology, ruletest.SwitchPorts)
	changes["quarantine"] = func(t *rapid.T, s *ruletest.State) {
		if id := s.Pick(t, nb.LogicalSwitchPortTable, "port"); id != "" {
			ruletest.Edit(t, s, nb.LogicalSwitchPortTable, id, func(p *nb.LogicalSwitchPort) {
				p.ExternalIDs = map[string]string{"quarantine": "true"}
			})
		}
	}
	ruletest.Check(t, ruletest.Config{Changes: changes, Steps: 4,
		Program: func() *rules.Program { return rules.New(QuarantineFlows) },
		Outputs: []ruletest.Output{ruletest.Ties(QuarantineFlows)}})
}
