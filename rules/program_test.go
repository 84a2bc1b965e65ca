package rules_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
)

// onePortSwitch feeds a switch with one port to p and steps it.
func onePortSwitch(t *testing.T, p *rules.Program) []rules.Flow {
	for _, r := range []struct {
		table string
		row   model.Model
	}{
		{nb.LogicalSwitchPortTable, &nb.LogicalSwitchPort{UUID: "p1", Name: "vm1", Addresses: []string{"00:00:00:00:00:01 10.0.0.1"}}},
		{nb.LogicalSwitchTable, &nb.LogicalSwitch{UUID: "s1", Name: "sw0", Ports: []string{"p1"}}},
	} {
		if err := p.NB.Apply(r.table, nil, r.row); err != nil {
			t.Fatal(err)
		}
	}
	p.Step()
	return p.Flows.Contents()
}

// TestBuiltinWithout: the program of the built-in rules less one writes
// the flows of the whole program less that rule's, and a name that is no
// built-in rule is refused.
func TestBuiltinWithout(t *testing.T) {
	all, err := rules.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || rules.RuleName(rules.SwitchPortSecurityFlows) != "SwitchPortSecurityFlows" {
		t.Fatalf("%d built-in rules, first named %q", len(all), rules.RuleName(all[0]))
	}
	less, err := rules.Builtin("SwitchPortSecurityFlows")
	if err != nil || len(less) != len(all)-1 {
		t.Fatalf("Builtin less one: %d rules of %d, %v", len(less), len(all), err)
	}
	whole := onePortSwitch(t, rules.New())
	removed := onePortSwitch(t, rules.NewFrom(schema.OVN2303, rules.SwitchPortSecurityFlows))
	if len(removed) == 0 {
		t.Fatal("SwitchPortSecurityFlows wrote no flow for a switch with a port")
	}
	want := slices.DeleteFunc(slices.Clone(whole), func(f rules.Flow) bool { return slices.Contains(removed, f) })
	if d := cmp.Diff(want, onePortSwitch(t, rules.NewFrom(schema.OVN2303, less...))); d != "" {
		t.Errorf("built-in less SwitchPortSecurityFlows (-want +got):\n%s", d)
	}
	if _, err := rules.Builtin("NoSuchFlows", "SwitchPortSecurityFlows"); err == nil || !strings.Contains(err.Error(), "NoSuchFlows") {
		t.Errorf("unknown rule name: err %v", err)
	}
}
