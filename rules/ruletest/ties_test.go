package ruletest_test

import (
	"strings"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
	"pgregory.net/rapid"
)

// aclSwitch makes a switch with an ACL, on which ls_in_acl has the
// built-in service monitor flow at 34000.
func aclSwitch(t *rapid.T, s *ruletest.State) {
	acl := s.UUID()
	s.Set(t, nb.ACLTable, acl, &nb.ACL{UUID: acl, Direction: nb.ACLDirectionFromLport, Priority: 1000, Match: "ip4", Action: nb.ACLActionAllow})
	sw := s.UUID()
	s.Set(t, nb.LogicalSwitchTable, sw, &nb.LogicalSwitch{UUID: sw, Name: "sw0", ACLs: []string{acl}})
}

// aclFlowAt is a rule of one flow in every switch's ls_in_acl at priority.
func aclFlowAt(priority int) rules.Rule {
	return func(n *relations.NB) engine.Rel[rules.Flow] {
		return engine.Map(n.SwitchDatapaths, func(sw relations.Switch) rules.Flow {
			return rules.Flow{Datapath: sw.UUID, Stage: rules.LSInACL, Priority: priority, Match: "ip4.dst == 10.0.0.1", Actions: "drop;"}
		})
	}
}

// TestTies: a flow of one's own at 34000 in ls_in_acl ties with the
// service monitor's flow of a switch with ACLs, and Ties says so; at
// 34001 it ties with none. Every run starts with the tie, so a few runs
// do: each recomputes the whole built-in program.
func TestTies(t *testing.T) {
	expectFailures(t)
	setFlag(t, "rapid.checks", "10")
	for _, c := range []struct {
		priority int
		ties     bool
	}{{34000, true}, {34001, false}} {
		rule := aclFlowAt(c.priority)
		f := &failures{T: t}
		ruletest.Check(f, ruletest.Config{Changes: ruletest.Changes(ruletest.Topology), Setup: aclSwitch, Steps: 2, ChangesPerStep: 1,
			Program: func() *rules.Program { return rules.New(rule) }, Outputs: []ruletest.Output{ruletest.Ties(rule)}})
		msgs := strings.Join(f.msgs, "\n")
		if found := strings.Contains(msgs, "ls_in_acl priority 34000 (ip4.dst == 10.0.0.1) is also the priority of the built-in flow (eth.dst == $svc_monitor_mac)"); found != c.ties || f.Failed() != c.ties {
			t.Errorf("priority %d: tie reported %v, want %v: %q", c.priority, f.Failed(), c.ties, msgs)
		}
	}
}
