package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
)

// TestPortGroupMemberOnNoSwitch feeds what no NB database holds (port
// groups hold their ports by weak reference) but a library user may: a port
// group listing a port row that no switch lists and a _uuid with no row.
// Step reports both, as northd logs them, and the flows are those of the
// same NB without them, as the database would have it.
func TestPortGroupMemberOnNoSwitch(t *testing.T) {
	const (
		sw, vm1, ghost = "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002", "00000000-0000-0000-0000-000000000003"
		acl, pg, gone  = "00000000-0000-0000-0000-000000000004", "00000000-0000-0000-0000-000000000005", "00000000-0000-0000-0000-0000000000ff"
	)
	build := func(members ...string) (*Program, []*engine.Rejected) {
		p := New()
		for table, row := range map[string]model.Model{
			nb.LogicalSwitchTable:     &nb.LogicalSwitch{UUID: sw, Name: "sw0", Ports: []string{vm1}},
			nb.LogicalSwitchPortTable: &nb.LogicalSwitchPort{UUID: vm1, Name: "vm1", Addresses: []string{"00:00:00:00:00:01 10.0.0.11"}},
			nb.ACLTable:               &nb.ACL{UUID: acl, Direction: "to-lport", Priority: 1002, Match: "outport == @pg0 && ip4", Action: "allow-related"},
			nb.PortGroupTable:         &nb.PortGroup{UUID: pg, Name: "pg0", Ports: members, ACLs: []string{acl}},
		} {
			if err := p.NB.Apply(table, nil, row); err != nil {
				t.Fatal(err)
			}
		}
		// The port on no switch, in both databases.
		if err := p.NB.Apply(nb.LogicalSwitchPortTable, nil, &nb.LogicalSwitchPort{UUID: ghost, Name: "ghost"}); err != nil {
			t.Fatal(err)
		}
		return p, p.Step()
	}
	want, rejected := build(vm1)
	if len(rejected) != 0 {
		t.Fatalf("rejected %v", rejected)
	}
	got, rejected := build(vm1, ghost, gone)
	var reported []string
	for _, r := range rejected {
		if r.Op == "port group" {
			reported = append(reported, r.Err.Error())
		}
	}
	if len(reported) != 2 {
		t.Errorf("reported %q, want the two members on no switch", reported)
	}
	if d := cmp.Diff(want.Flows.Contents(), got.Flows.Contents()); d != "" {
		t.Errorf("members on no switch changed the flows (-without +with):\n%s", d)
	}
	if len(want.Flows.Contents()) == 0 {
		t.Error("no flows")
	}
}
