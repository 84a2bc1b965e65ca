package rules

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
	"pgregory.net/rapid"
)

// nbState is the current NB database of a property test: rows by table and
// _uuid, and the chassis features. Every change goes to the state and to the
// program under test.
type nbState struct {
	rows     map[string]map[string]model.Model
	features relations.Features
	igmp     map[relations.IGMPEntry]bool // SB IGMP_Group entries (igmp_incremental_test.go)
	next     int
}

func newNBState() *nbState {
	return &nbState{rows: map[string]map[string]model.Model{}, features: relations.AllFeatures}
}

func (s *nbState) uuid() string {
	s.next++
	return fmt.Sprintf("00000000-0000-0000-0000-%012d", s.next)
}

// set replaces (or inserts, or with row == nil deletes) one row and feeds the
// change to p.
func (s *nbState) set(t *rapid.T, p *Program, table, id string, row model.Model) {
	if s.rows[table] == nil {
		s.rows[table] = map[string]model.Model{}
	}
	old, had := s.rows[table][id]
	var oldRow model.Model
	if had {
		oldRow = old
	}
	if row == nil {
		if !had {
			return
		}
		delete(s.rows[table], id)
	} else {
		s.rows[table][id] = row
	}
	if err := p.NB.Apply(table, oldRow, row); err != nil {
		t.Fatalf("apply %s %s: %v", table, id, err)
	}
}

func (s *nbState) ids(table string) []string {
	return slices.Sorted(maps.Keys(s.rows[table]))
}

// pick draws one row id of table, or "" when the table is empty.
func pick(t *rapid.T, s *nbState, table, label string) string {
	ids := s.ids(table)
	if len(ids) == 0 {
		return ""
	}
	return rapid.SampledFrom(ids).Draw(t, label)
}

// pickOrNew draws the id of a row of table to rewrite, or a new id to
// insert a row with.
func pickOrNew(t *rapid.T, s *nbState, table, label string) string {
	if len(s.rows[table]) > 0 && rapid.Bool().Draw(t, "existing") {
		return pick(t, s, table, label)
	}
	return s.uuid()
}

// edit replaces row id of table by what change makes of a copy.
func edit[M any](t *rapid.T, s *nbState, p *Program, table, id string, change func(*M)) {
	row := *s.rows[table][id].(*M)
	change(&row)
	s.set(t, p, table, id, &row)
}

// deleteRow is the change that deletes a random row of table.
func deleteRow(table string) nbChange {
	return func(t *rapid.T, s *nbState, p *Program) {
		if id := pick(t, s, table, "row"); id != "" {
			s.set(t, p, table, id, nil)
		}
	}
}

// load feeds the whole state to a fresh program: the full recompute.
func (s *nbState) load(t *rapid.T) *Program {
	p := New()
	p.Features.Set(s.features)
	for e := range s.igmp {
		p.NB.SetIGMPEntry(e, true)
	}
	for table, rows := range s.rows {
		for _, row := range rows {
			if err := p.NB.Apply(table, nil, row); err != nil {
				t.Fatalf("apply %s: %v", table, err)
			}
		}
	}
	p.Step()
	return p
}

var (
	genMAC = rapid.Custom(func(t *rapid.T) string {
		return fmt.Sprintf("00:00:00:00:%02x:%02x", rapid.IntRange(0, 3).Draw(t, "m1"), rapid.IntRange(0, 255).Draw(t, "m2"))
	})
	genIPv4 = rapid.Custom(func(t *rapid.T) string {
		return fmt.Sprintf("10.0.%d.%d", rapid.IntRange(0, 3).Draw(t, "n"), rapid.IntRange(1, 254).Draw(t, "h"))
	})
	// genAddresses draws Logical_Switch_Port.addresses shapes, malformed ones included.
	genAddresses = rapid.Custom(func(t *rapid.T) []string {
		var out []string
		for range rapid.IntRange(0, 2).Draw(t, "n") {
			switch rapid.IntRange(0, 6).Draw(t, "shape") {
			case 0:
				out = append(out, genMAC.Draw(t, "mac"))
			case 1:
				out = append(out, genMAC.Draw(t, "mac")+" "+genIPv4.Draw(t, "ip"))
			case 2:
				out = append(out, genMAC.Draw(t, "mac")+" "+genIPv4.Draw(t, "ip")+" fd00::"+fmt.Sprint(rapid.IntRange(1, 9).Draw(t, "h6")))
			case 3:
				out = append(out, "unknown")
			case 4:
				out = append(out, "router")
			case 5:
				out = append(out, "dynamic")
			case 6:
				out = append(out, "00:00:zz "+genIPv4.Draw(t, "ip"))
			}
		}
		return out
	})
)

// nbChange is one random NB change of the property test.
type nbChange func(t *rapid.T, s *nbState, p *Program)

var nbChanges = map[string]nbChange{
	"addSwitch": func(t *rapid.T, s *nbState, p *Program) {
		id := s.uuid()
		ls := &nb.LogicalSwitch{UUID: id, Name: "ls" + id[len(id)-3:]}
		if rapid.Bool().Draw(t, "passthru") {
			ls.OtherConfig = map[string]string{"vlan-passthru": "true"}
		}
		s.set(t, p, nb.LogicalSwitchTable, id, ls)
	},
	// A deleted switch's ports stay, unreferenced, as they do in a real NB
	// until garbage collected.
	"delSwitch": deleteRow(nb.LogicalSwitchTable),
	"addPort": func(t *rapid.T, s *nbState, p *Program) {
		lsID := pick(t, s, nb.LogicalSwitchTable, "ls")
		if lsID == "" {
			return
		}
		id := s.uuid()
		lsp := &nb.LogicalSwitchPort{UUID: id, Name: "p" + id[len(id)-3:], Addresses: genAddresses.Draw(t, "addrs")}
		if rapid.Bool().Draw(t, "disabled") {
			f := false
			lsp.Enabled = &f
		}
		s.set(t, p, nb.LogicalSwitchPortTable, id, lsp)
		edit(t, s, p, nb.LogicalSwitchTable, lsID, func(ls *nb.LogicalSwitch) { ls.Ports = append(slices.Clone(ls.Ports), id) })
	},
	"delPort": delListed(nb.LogicalSwitchPortTable, nb.LogicalSwitchTable, func(x *nb.LogicalSwitch) *[]string { return &x.Ports }),

	"setAddresses": func(t *rapid.T, s *nbState, p *Program) {
		if id := pick(t, s, nb.LogicalSwitchPortTable, "lsp"); id != "" {
			edit(t, s, p, nb.LogicalSwitchPortTable, id, func(lsp *nb.LogicalSwitchPort) {
				lsp.Addresses = genAddresses.Draw(t, "addrs")
				lsp.PortSecurity = genAddresses.Draw(t, "ps")
			})
		}
	},
	"addRouter": func(t *rapid.T, s *nbState, p *Program) {
		id := s.uuid()
		s.set(t, p, nb.LogicalRouterTable, id, &nb.LogicalRouter{UUID: id, Name: "lr" + id[len(id)-3:]})
	},
	"addRouterPort": func(t *rapid.T, s *nbState, p *Program) {
		lrID := pick(t, s, nb.LogicalRouterTable, "lr")
		if lrID == "" {
			return
		}
		id := s.uuid()
		net := fmt.Sprintf("10.%d.0.1/24", rapid.IntRange(0, 3).Draw(t, "net"))
		s.set(t, p, nb.LogicalRouterPortTable, id, &nb.LogicalRouterPort{UUID: id, Name: "rp" + id[len(id)-3:], MAC: genMAC.Draw(t, "mac"), Networks: []string{net}})
		edit(t, s, p, nb.LogicalRouterTable, lrID, func(lr *nb.LogicalRouter) { lr.Ports = append(slices.Clone(lr.Ports), id) })
	},
	"delRouter": deleteRow(nb.LogicalRouterTable),
}

// TestIncrementalEqualsRecompute feeds random NB changes, several per step,
// and checks after every step that the incrementally maintained flows equal a
// full recompute of the current NB, and that the step's delta is exactly the
// difference from the previous flows.
func TestIncrementalEqualsRecompute(t *testing.T) {
	checkIncremental(t, slices.Collect(maps.Keys(nbChanges)), 12, 4)
}

// checkIncremental runs up to maxSteps steps of one to maxChanges random
// changes drawn from nbChanges[names], and checks after every step that
// the incrementally maintained flows (and datapath sets, multicast groups
// and their members) equal a full recompute and that the step's delta leads from the
// previous flows to the current ones.
func checkIncremental(t *testing.T, names []string, maxSteps, maxChanges int) {
	slices.Sort(names) // rapid replays a failure only if the choices are in a fixed order
	rapid.Check(t, func(t *rapid.T) {
		s, p := newNBState(), New()
		var prev []Flow
		var prevSets []DatapathSetMember
		for range rapid.IntRange(1, maxSteps).Draw(t, "steps") {
			for range rapid.IntRange(1, maxChanges).Draw(t, "changes") {
				nbChanges[rapid.SampledFrom(names).Draw(t, "change")](t, s, p)
			}
			p.Step()
			full := s.load(t)
			if d := cmp.Diff(full.Flows.Contents(), p.Flows.Contents()); d != "" {
				t.Fatalf("incremental != recompute (-full +incremental):\n%s", d)
			}
			if d := cmp.Diff(full.DatapathSets.Contents(), p.DatapathSets.Contents()); d != "" {
				t.Fatalf("datapath sets: incremental != recompute (-full +incremental):\n%s", d)
			}
			if d := cmp.Diff(full.MulticastGroups.Contents(), p.MulticastGroups.Contents()); d != "" {
				t.Fatalf("multicast groups: incremental != recompute (-full +incremental):\n%s", d)
			}
			if d := cmp.Diff(full.MulticastGroupMembers.Contents(), p.MulticastGroupMembers.Contents()); d != "" {
				t.Fatalf("multicast group members: incremental != recompute (-full +incremental):\n%s", d)
			}
			checkDelta(t, prev, p.Flows.Delta(), p.Flows.Contents())
			checkDelta(t, prevSets, p.DatapathSets.Delta(), p.DatapathSets.Contents())
			prev, prevSets = p.Flows.Contents(), p.DatapathSets.Contents()
		}
	})
}

// delListed is the change that deletes a random row of table after
// removing it from the refs column of the owners rows that list it.
func delListed[R any](table, owners string, refs func(*R) *[]string) nbChange {
	return func(t *rapid.T, s *nbState, p *Program) {
		id := pick(t, s, table, table)
		if id == "" {
			return
		}
		unlink(t, s, p, owners, id, refs)
		s.set(t, p, table, id, nil)
	}
}

// unlink removes id from the refs column of every row of table that lists
// it, as a client deleting a referenced row does.
func unlink[R any](t *rapid.T, s *nbState, p *Program, table, id string, refs func(*R) *[]string) {
	for _, owner := range s.ids(table) {
		row := *s.rows[table][owner].(*R)
		list := refs(&row)
		if i := slices.Index(*list, id); i >= 0 {
			*list = slices.Delete(slices.Clone(*list), i, i+1)
			s.set(t, p, table, owner, &row)
		}
	}
}

// checkDelta asserts that prev plus delta is cur, with every change a real
// insert or delete.
func checkDelta[T comparable](t *rapid.T, prev []T, delta []engine.Change[T], cur []T) {
	have := map[T]bool{}
	for _, x := range prev {
		have[x] = true
	}
	for _, c := range delta {
		switch {
		case c.Weight == 1 && !have[c.Tuple]:
			have[c.Tuple] = true
		case c.Weight == -1 && have[c.Tuple]:
			delete(have, c.Tuple)
		default:
			t.Fatalf("delta %+v does not apply to the previous contents", c)
		}
	}
	if len(have) != len(cur) {
		t.Fatalf("previous contents + delta has %d tuples, current has %d", len(have), len(cur))
	}
	for _, x := range cur {
		if !have[x] {
			t.Fatalf("current tuple %+v missing from previous contents + delta", x)
		}
	}
}
