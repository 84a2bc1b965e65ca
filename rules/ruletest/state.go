package ruletest

import (
	"fmt"
	"maps"
	"slices"

	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
	"pgregory.net/rapid"
)

// State is the current NB database of a property test: rows by table and
// _uuid, the chassis features, the SB IGMP_Group entries, the claimed
// virtual ports (Port_Binding virtual_parent), the service monitors'
// status, the remote chassis and the program's own inputs (SetInput). Every change goes to the state and to Program, the program
// under test; Load feeds the whole state to a fresh program, the full
// recompute.
type State struct {
	// Program is the program under test, fed every change.
	Program  *rules.Program
	rows     map[string]map[string]model.Model
	features relations.Features
	igmp     map[relations.IGMPEntry]bool
	virtual  map[relations.VirtualParent]bool
	online   map[relations.ServiceMonitorKey]bool
	down     map[relations.ServiceMonitorKey]bool
	remote   map[string]bool
	learned  map[relations.LearnedRoute]bool
	inputs   map[string]ownInput
	next     int
}

// NewState is an empty NB, with every chassis feature supported, whose
// changes are fed to p.
func NewState(p *rules.Program) *State {
	return &State{Program: p, rows: map[string]map[string]model.Model{}, features: relations.AllFeatures,
		igmp: map[relations.IGMPEntry]bool{}, virtual: map[relations.VirtualParent]bool{},
		online: map[relations.ServiceMonitorKey]bool{}, down: map[relations.ServiceMonitorKey]bool{},
		remote: map[string]bool{}, learned: map[relations.LearnedRoute]bool{},
		inputs: map[string]ownInput{}}
}

// UUID is a fresh row _uuid.
func (s *State) UUID() string {
	s.next++
	return fmt.Sprintf("00000000-0000-0000-0000-%012d", s.next)
}

// Set replaces (or inserts, or with row == nil deletes) row id of table
// and feeds the change to the program.
func (s *State) Set(t *rapid.T, table, id string, row model.Model) {
	if s.rows[table] == nil {
		s.rows[table] = map[string]model.Model{}
	}
	old, had := s.rows[table][id]
	if row == nil {
		if !had {
			return
		}
		delete(s.rows[table], id)
	} else {
		s.rows[table][id] = row
	}
	if err := s.Program.NB.Apply(table, old, row); err != nil {
		t.Fatalf("apply %s %s: %v", table, id, err)
	}
}

// Row is row id of table, nil if there is none. Rows are fed to the
// program and must not be changed: copy one, change the copy, Set it.
func (s *State) Row(table, id string) model.Model { return s.rows[table][id] }

// Tables are the tables that have rows, sorted.
func (s *State) Tables() []string {
	var out []string
	for table, rows := range s.rows {
		if len(rows) > 0 {
			out = append(out, table)
		}
	}
	slices.Sort(out)
	return out
}

// IDs are the _uuids of table's rows, sorted.
func (s *State) IDs(table string) []string {
	return slices.Sorted(maps.Keys(s.rows[table]))
}

// SetFeatures sets the SB chassis features.
func (s *State) SetFeatures(f relations.Features) {
	s.features = f
	s.Program.Features.Set(f)
}

// SetIGMPEntry records whether an SB IGMP_Group entry is there.
func (s *State) SetIGMPEntry(e relations.IGMPEntry, in bool) {
	setindex.Member(s.igmp, e, in)
	s.Program.NB.SetIGMPEntry(e, in)
}

// HasIGMPEntry says whether e is there.
func (s *State) HasIGMPEntry(e relations.IGMPEntry) bool { return s.igmp[e] }

// SetVirtualParent records whether a parent claims a virtual port (the SB
// Port_Binding virtual_parent).
func (s *State) SetVirtualParent(v relations.VirtualParent, in bool) {
	setindex.Member(s.virtual, v, in)
	s.Program.NB.SetVirtualParent(v, in)
}

// SetMonitorOnline records whether an SB Service_Monitor is online.
func (s *State) SetMonitorOnline(k relations.ServiceMonitorKey, online bool) {
	setindex.Member(s.online, k, online)
	s.Program.NB.SetMonitorOnline(k, online)
}

// SetMonitorDown records whether an SB Service_Monitor is down (offline
// or in error).
func (s *State) SetMonitorDown(k relations.ServiceMonitorKey, down bool) {
	setindex.Member(s.down, k, down)
	s.Program.NB.SetMonitorDown(k, down)
}

// SetRemoteChassis records whether an SB Chassis of that name is remote
// (other_config:is-remote).
func (s *State) SetRemoteChassis(name string, remote bool) {
	setindex.Member(s.remote, name, remote)
	s.Program.NB.SetRemoteChassisName(name, remote)
}

// HasVirtualParent says whether v is there.
func (s *State) HasVirtualParent(v relations.VirtualParent) bool { return s.virtual[v] }

// SetLearnedRoute records whether an SB Learned_Route row is there.
func (s *State) SetLearnedRoute(r relations.LearnedRoute, in bool) {
	setindex.Member(s.learned, r, in)
	s.Program.NB.SetLearnedRoute(r, in)
}

// HasLearnedRoute says whether r is there.
func (s *State) HasLearnedRoute(r relations.LearnedRoute) bool { return s.learned[r] }

// Pick draws one row id of table, or "" when the table is empty.
func (s *State) Pick(t *rapid.T, table, label string) string {
	ids := s.IDs(table)
	if len(ids) == 0 {
		return ""
	}
	return rapid.SampledFrom(ids).Draw(t, label)
}

// PickOrNew draws the id of a row of table to rewrite, or a new id to
// insert a row with.
func (s *State) PickOrNew(t *rapid.T, table, label string) string {
	if len(s.rows[table]) > 0 && rapid.Bool().Draw(t, "existing") {
		return s.Pick(t, table, label)
	}
	return s.UUID()
}

// Load feeds the whole state to p, a fresh program, and steps it: the
// full recompute.
func (s *State) Load(t *rapid.T, p *rules.Program) *rules.Program {
	p.Features.Set(s.features)
	for e := range s.igmp {
		p.NB.SetIGMPEntry(e, true)
	}
	for v := range s.virtual {
		p.NB.SetVirtualParent(v, true)
	}
	for k := range s.online {
		p.NB.SetMonitorOnline(k, true)
	}
	for k := range s.down {
		p.NB.SetMonitorDown(k, true)
	}
	for name := range s.remote {
		p.NB.SetRemoteChassisName(name, true)
	}
	for r := range s.learned {
		p.NB.SetLearnedRoute(r, true)
	}
	for _, in := range s.inputs {
		in.load(t, p)
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

// Edit replaces row id of table, of model M, by what change makes of a
// copy.
func Edit[M any](t *rapid.T, s *State, table, id string, change func(*M)) {
	row := *s.rows[table][id].(*M)
	change(&row)
	s.Set(t, table, id, &row)
}

// DeleteRow is the change that deletes a random row of table.
func DeleteRow(table string) Change {
	return func(t *rapid.T, s *State) {
		if id := s.Pick(t, table, "row"); id != "" {
			s.Set(t, table, id, nil)
		}
	}
}

// DeleteListed is the change that deletes a random row of table after
// removing it from the refs column of the owners rows (of model R) that
// list it.
func DeleteListed[R any](table, owners string, refs func(*R) *[]string) Change {
	return func(t *rapid.T, s *State) {
		id := s.Pick(t, table, table)
		if id == "" {
			return
		}
		Unlink(t, s, owners, id, refs)
		s.Set(t, table, id, nil)
	}
}

// Unlink removes id from the refs column of every row of table that lists
// it, as a client deleting a referenced row does.
func Unlink[R any](t *rapid.T, s *State, table, id string, refs func(*R) *[]string) {
	for _, owner := range s.IDs(table) {
		row := *s.rows[table][owner].(*R)
		list := refs(&row)
		if i := slices.Index(*list, id); i >= 0 {
			*list = slices.Delete(slices.Clone(*list), i, i+1)
			s.Set(t, table, owner, &row)
		}
	}
}
