package rules_test

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
	"pgregory.net/rapid"
)

// Stages of the tests' own, one in each pipeline of each datapath kind.
var (
	testSwitchIn  = rules.NewStage(rules.Switch, rules.Ingress, "ls_in_test_after_lb")
	testSwitchOut = rules.NewStage(rules.Switch, rules.Egress, "ls_out_test_before_qos")
	testRouterIn  = rules.NewStage(rules.Router, rules.Ingress, "lr_in_test_first")
	testRouterOut = rules.NewStage(rules.Router, rules.Egress, "lr_out_test_before_snat")
)

// TestStagePlacement: a placed stage takes the table after (or of) its
// anchor, the stages after it move up one, those before keep theirs, and
// its name is the declared one.
func TestStagePlacement(t *testing.T) {
	base := rules.StagesOf(schema.OVN2303)
	placed, err := base.With(rules.After(rules.LSInLB, testSwitchIn), rules.Before(rules.LRInAdmission, testRouterIn))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		custom, anchor rules.Stage
		after          bool
	}{{testSwitchIn, rules.LSInLB, true}, {testRouterIn, rules.LRInAdmission, false}} {
		want := base.Table(c.anchor)
		if c.after {
			want++
		}
		if got := placed.Table(c.custom); got != want {
			t.Errorf("%s is table %d; want %d", c.custom, got, want)
		}
		for _, s := range base.Stages(c.custom.Kind()) {
			if s.Pipeline() != c.custom.Pipeline() {
				continue
			}
			shift := 0
			if base.Table(s) >= want {
				shift = 1
			}
			if placed.Table(s) != base.Table(s)+shift {
				t.Errorf("%s moved from table %d to %d", s, base.Table(s), placed.Table(s))
			}
		}
		if s, ok := placed.Lookup(c.custom.Kind(), c.custom.Pipeline(), want); !ok || s != c.custom || s.Name() != c.custom.String() {
			t.Errorf("Lookup of %s's table: %v %v", c.custom, s, ok)
		}
	}
	if base.Has(testSwitchIn) {
		t.Errorf("placing a stage changed the release's table")
	}
}

// TestStagePlacementRefused: what ovn-controller would not run, or what
// names no place, is refused when the table is built, saying why.
func TestStagePlacementRefused(t *testing.T) {
	for _, c := range []struct {
		release schema.Release
		place   []rules.Placement
		want    string
	}{
		// 26.03's switch pipelines use all of ovn-controller's 34
		// ingress and 16 egress tables.
		{schema.OVN2603, []rules.Placement{rules.After(rules.LSInLB, testSwitchIn)},
			"26.03's switch ingress pipeline has 34 stages, and ovn-controller 26.03 runs at most 34 logical tables in an ingress pipeline"},
		{schema.OVN2603, []rules.Placement{rules.Before(rules.LSOutCheckPortSec, testSwitchOut)},
			"26.03's switch egress pipeline has 16 stages, and ovn-controller 26.03 runs at most 16 logical tables in an egress pipeline"},
		// 23.03's switch ingress has 27 of 29: two fit, a third not.
		{schema.OVN2303, []rules.Placement{rules.After(rules.LSInLB, testSwitchIn), rules.Before(rules.LSInLB, rules.NewStage(rules.Switch, rules.Ingress, "ls_in_test_two")),
			rules.Before(rules.LSInLB, rules.NewStage(rules.Switch, rules.Ingress, "ls_in_test_three"))},
			"placing ls_in_test_three: 23.03's switch ingress pipeline has 29 stages, and ovn-controller 23.03 runs at most 29"},
		{schema.OVN2303, []rules.Placement{rules.After(rules.LSInACLEval, testSwitchIn)}, "23.03 has no stage ls_in_acl_eval"},
		{schema.OVN2303, []rules.Placement{rules.After(rules.LSOutQoSMark, testSwitchIn)}, "they are stages of different pipelines"},
		{schema.OVN2303, []rules.Placement{rules.After(rules.LSInLB, rules.LSInHairpin)}, "only a stage declared with NewStage can be placed"},
		{schema.OVN2303, []rules.Placement{rules.After(rules.LSInLB, testSwitchIn), rules.After(rules.LSInHairpin, testSwitchIn)}, "it is in the table already"},
	} {
		_, err := rules.StagesOf(c.release).With(c.place...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v; want one saying %q", c.release, c.place, err, c.want)
		}
	}
	for _, r := range []schema.Release{schema.OVN2303, schema.OVN2603} {
		if _, err := rules.StagesOf(r).With(rules.After(rules.LRInAdmission, testRouterIn), rules.Before(rules.LROutSNAT, testRouterOut)); err != nil {
			t.Errorf("%s: router stages that fit refused: %v", r, err)
		}
	}
}

// nextTable is a next() action that names its table.
var nextTable = regexp.MustCompile(`next\(pipeline=(ingress|egress), ?table=(\d+)\)`)

// symbolicFlows is flows with their tables named by stage: the table
// every next(pipeline=..., table=N) names replaced by its stage's name in
// t, the flows of the program's own stages left out.
func symbolicFlows(t *rules.StageTable, flows []rules.Flow) []string {
	var out []string
	for _, f := range flows {
		if !f.Stage.Builtin() {
			continue
		}
		actions := nextTable.ReplaceAllStringFunc(f.Actions, func(m string) string {
			sub := nextTable.FindStringSubmatch(m)
			p := rules.Ingress
			if sub[1] == "egress" {
				p = rules.Egress
			}
			n, _ := strconv.Atoi(sub[2])
			s, ok := t.Lookup(f.Stage.Kind(), p, n)
			if !ok {
				return fmt.Sprintf("next(%s table %d: no stage)", p, n)
			}
			return "next(" + s.Name() + ")"
		})
		out = append(out, fmt.Sprintf("%s %s %d %s %s", f.Datapath, f.Stage, f.Priority, f.Match, actions))
	}
	slices.Sort(out)
	return out
}

// TestCustomStagesRenumber: a program with stages of its own in all four
// pipelines writes the built-in flows a program without them writes, and
// every next(pipeline=..., table=N) of them names, through the program's
// table, the stage the plain program's names; the flows of its own rule
// are on its stage. NB contents are random (ruletest), with the families
// whose actions name tables: reject ACLs, load balancers, hairpin, NAT,
// gateway MTU.
func TestCustomStagesRenumber(t *testing.T) {
	placed, err := rules.StagesOf(schema.OVN2303).With(rules.After(rules.LSInLB, testSwitchIn),
		rules.Before(rules.LSOutQoSMark, testSwitchOut), rules.Before(rules.LRInAdmission, testRouterIn),
		rules.Before(rules.LROutSNAT, testRouterOut))
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := rules.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		s := ruletest.NewState(rules.NewWith(placed, append(builtin, ownStageFlows)...))
		changes := ruletest.Changes(ruletest.Topology, ruletest.SwitchPorts, ruletest.Routers, ruletest.NAT, ruletest.LoadBalancers, ruletest.ACLs)
		names := slices.Sorted(maps.Keys(changes))
		for range rapid.IntRange(40, 80).Draw(rt, "changes") {
			changes[rapid.SampledFrom(names).Draw(rt, "change")](rt, s)
		}
		s.Program.Step()
		plain := s.Load(rt, rules.NewFor(schema.OVN2303))
		plain.Step()
		flows := s.Program.FlowsByDatapath()
		want, got := symbolicFlows(plain.Stages, plain.FlowsByDatapath()), symbolicFlows(placed, flows)
		if !slices.Equal(want, got) {
			rt.Fatalf("flows differ from the plain program's:\n%s", lineDiff(want, got))
		}
		own := map[string]bool{}
		for _, f := range flows {
			if !f.Stage.Builtin() {
				own[f.Datapath+" "+f.Stage.Name()] = true
			}
		}
		for _, f := range plain.FlowsByDatapath() {
			for _, s := range [][2]rules.Stage{{testSwitchIn, testSwitchOut}, {testRouterIn, testRouterOut}}[f.Stage.Kind()] {
				if !own[f.Datapath+" "+s.Name()] {
					rt.Fatalf("datapath %s has no flow on %s", f.Datapath, s)
				}
			}
		}
	})
}

// ownStageFlows is a rule of the test's own: a flow on each of its stages
// on every switch and router.
func ownStageFlows(n *relations.NB) engine.Rel[rules.Flow] {
	switches := engine.FlatMap(n.Switches.Rows, func(ls *nb.LogicalSwitch) []rules.Flow {
		return []rules.Flow{{Datapath: ls.UUID, Stage: testSwitchIn, Match: "1", Actions: "next;"},
			{Datapath: ls.UUID, Stage: testSwitchOut, Match: "1", Actions: "next;"}}
	})
	routers := engine.FlatMap(n.Routers.Rows, func(lr *nb.LogicalRouter) []rules.Flow {
		return []rules.Flow{{Datapath: lr.UUID, Stage: testRouterIn, Match: "1", Actions: "next;"},
			{Datapath: lr.UUID, Stage: testRouterOut, Match: "1", Actions: "next;"}}
	})
	return engine.Union(switches, routers)
}

// lineDiff lists the lines only one of two sorted lists has.
func lineDiff(want, got []string) string {
	var b strings.Builder
	for _, l := range want {
		if _, found := slices.BinarySearch(got, l); !found {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range got {
		if _, found := slices.BinarySearch(want, l); !found {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}
