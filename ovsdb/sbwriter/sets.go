package sbwriter

import (
	"iter"
	"maps"
	"slices"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// setTable keeps one SB table of named string sets (Address_Set with its
// addresses, Port_Group with its ports) equal to the program's
// rules.SBNamedSet and rules.SBSetMember outputs. A set is found by name;
// its members change by OVSDB mutate insert and delete of just the members
// that differ, so that adding a port to a group of thousands writes one
// port, not the whole column.
//
// A desired name may hold KeyRefs (the switch key of KEY_pg, the router
// key of _rtr_lb_KEY_ip4); it is resolved to its SB name with the keys the
// transaction or the SB gives.
type setTable struct {
	table, column string

	sets    map[string]bool            // desired names
	members map[string]map[string]bool // desired name -> members
	// keyUsers are the desired names that hold the tunnel key of an NB
	// row; resolved maps a desired name to the SB name it was last
	// written under, byResolved back.
	keyUsers   map[string]map[string]bool
	resolved   map[string]string
	byResolved map[string]string

	rows   map[string]*setRow  // SB row -> contents
	byName map[string][]string // SB name -> rows, sorted

	// dirtyNames are desired names to resolve again; dirty are SB names
	// whose rows to check.
	dirtyNames map[string]bool
	dirty      memberDirt[string]
}

// setRow is an SB row of a set table as the mirror holds it.
type setRow struct {
	name    string
	members map[string]bool
}

// setDirt is what to check of one SB set: every member, or those listed.
type setDirt struct {
	whole   bool
	members map[string]bool
}

// memberDirt is what to check of some SB sets, by the key of each set.
type memberDirt[K comparable] map[K]*setDirt

// markWhole marks every member of set k.
func (d memberDirt[K]) markWhole(k K) {
	d[k] = &setDirt{whole: true}
}

// markMember marks member m of set k.
func (d memberDirt[K]) markMember(k K, m string) {
	sd := d[k]
	if sd == nil {
		sd = &setDirt{members: map[string]bool{}}
		d[k] = sd
	}
	if !sd.whole {
		sd.members[m] = true
	}
}

// memberMutations are the mutations of a set column that bring the members
// in checked (which may repeat) from have to want: a delete of those have
// holds and want lacks, an insert of those want holds and have lacks, each
// sorted; set makes a column value of some members.
func memberMutations(column string, checked iter.Seq[string], want, have func(string) bool, set func([]string) lovsdb.OvsSet) []lovsdb.Mutation {
	var add, del []string
	for m := range checked {
		switch w, h := want(m), have(m); {
		case w && !h:
			add = append(add, m)
		case !w && h:
			del = append(del, m)
		}
	}
	var muts []lovsdb.Mutation
	if len(del) > 0 {
		slices.Sort(del)
		muts = append(muts, *lovsdb.NewMutation(column, lovsdb.MutateOperationDelete, set(slices.Compact(del))))
	}
	if len(add) > 0 {
		slices.Sort(add)
		muts = append(muts, *lovsdb.NewMutation(column, lovsdb.MutateOperationInsert, set(slices.Compact(add))))
	}
	return muts
}

// memberSet holds the members of a list, for membership in constant time.
type memberSet map[string]bool

func setOf(members []string) memberSet {
	s := make(memberSet, len(members))
	for _, m := range members {
		s[m] = true
	}
	return s
}

func (s memberSet) has(m string) bool { return s[m] }

func newSetTable(table, column string) *setTable {
	s := &setTable{table: table, column: column,
		sets: map[string]bool{}, members: map[string]map[string]bool{}, keyUsers: map[string]map[string]bool{},
		resolved: map[string]string{}, byResolved: map[string]string{}}
	s.resetSB()
	s.clearDirt()
	return s
}

// resetSB forgets the SB rows, for a new SB connection's initial contents.
func (s *setTable) resetSB() {
	s.rows, s.byName = map[string]*setRow{}, map[string][]string{}
}

func (s *setTable) clearDirt() {
	s.dirtyNames, s.dirty = cleared(s.dirtyNames), cleared(s.dirty)
}

// applyProgram takes the last step's changes of the sets and members.
func (s *setTable) applyProgram(sets []engine.Change[rules.SBNamedSet], members []engine.Change[rules.SBSetMember]) {
	for _, c := range sets {
		name := c.Tuple.Name
		if c.Weight > 0 {
			s.sets[name] = true
		} else {
			delete(s.sets, name)
		}
		s.dirtyNames[name] = true
		for _, u := range keyRefsOf(name) {
			setindex.Put(s.keyUsers, u, name, c.Weight > 0)
		}
	}
	for _, c := range members {
		m := c.Tuple
		setindex.Put(s.members, m.Set, m.Member, c.Weight > 0)
		if r, ok := s.resolved[m.Set]; ok {
			s.dirty.markMember(r, m.Member)
		} else {
			s.dirtyNames[m.Set] = true
		}
	}
}

// applySB records an SB row change and marks what it touches.
func (s *setTable) applySB(c wire.Change) {
	var old *setRow
	if c.Old != nil {
		old = s.rows[c.UUID]
		if old != nil {
			s.byName[old.name] = deleteSorted(s.byName[old.name], c.UUID)
			if len(s.byName[old.name]) == 0 {
				delete(s.byName, old.name)
			}
			delete(s.rows, c.UUID)
		}
	}
	if c.New == nil {
		if old != nil {
			s.dirty.markWhole(old.name)
		}
		return
	}
	var name string
	var list []string
	switch r := c.New.(type) {
	case *sb.AddressSet:
		name, list = r.Name, r.Addresses
	case *sb.PortGroup:
		name, list = r.Name, r.Ports
	}
	row := &setRow{name: name, members: make(map[string]bool, len(list))}
	for _, m := range list {
		row.members[m] = true
	}
	s.rows[c.UUID] = row
	s.byName[name] = insertSorted(s.byName[name], c.UUID)
	if old == nil || old.name != name {
		if old != nil {
			s.dirty.markWhole(old.name)
		}
		s.dirty.markWhole(name)
		return
	}
	// Only the members that changed: the row's two versions differ by
	// what a transaction mutated.
	for m := range row.members {
		if !old.members[m] {
			s.dirty.markMember(name, m)
		}
	}
	if len(old.members) != len(row.members) || s.dirty[name] != nil {
		for m := range old.members {
			if !row.members[m] {
				s.dirty.markMember(name, m)
			}
		}
	}
}

// markAll marks every set, desired or in the SB.
func (s *setTable) markAll() {
	for name := range s.sets {
		s.dirtyNames[name] = true
	}
	for name := range s.byName {
		s.dirty.markWhole(name)
	}
}

// markKeyUsers marks the sets whose names hold the tunnel key of NB row u.
func (s *setTable) markKeyUsers(u string) {
	for name := range s.keyUsers[u] {
		s.dirtyNames[name] = true
	}
}

// keyRefsOf lists the NB _uuids whose tunnel keys text holds.
func keyRefsOf(text string) []string {
	var refs []string
	rules.ResolveKeys(text, func(u string) string {
		refs = append(refs, u)
		return ""
	})
	return refs
}

// reconcile adds to t the operations that bring the dirty sets to their
// desired contents, and clears the marks. key gives the tunnel key of an
// NB row in the transaction, 0 when it has none.
func (s *setTable) reconcile(t *Txn, key func(u string) int) {
	for name := range s.dirtyNames {
		old, had := s.resolved[name]
		if had {
			delete(s.resolved, name)
			if s.byResolved[old] == name {
				delete(s.byResolved, old)
			}
			s.dirty.markWhole(old)
		}
		if !s.sets[name] {
			continue
		}
		ok := true
		sbName := rules.ResolveKeys(name, func(u string) string {
			if k := key(u); k != 0 {
				return strconv.Itoa(k)
			}
			ok = false
			return ""
		})
		if !ok {
			continue
		}
		s.resolved[name], s.byResolved[sbName] = sbName, name
		s.dirty.markWhole(sbName)
	}
	for _, sbName := range sortedKeys(s.dirty) {
		d := s.dirty[sbName]
		name, wanted := s.byResolved[sbName]
		rows := s.byName[sbName]
		keep := t.keepFirst(s.table, rows, wanted)
		if !wanted {
			continue
		}
		want := s.members[name]
		if keep == "" {
			t.Insert(s.table, lovsdb.Row{"name": sbName, s.column: wire.StrSet(slices.Sorted(maps.Keys(want)))})
			continue
		}
		have := s.rows[keep].members
		checked := maps.Keys(d.members)
		if d.whole {
			checked = func(yield func(string) bool) {
				for m := range want {
					if !yield(m) {
						return
					}
				}
				for m := range have {
					if !want[m] && !yield(m) {
						return
					}
				}
			}
		}
		if muts := memberMutations(s.column, checked, func(m string) bool { return want[m] }, func(m string) bool { return have[m] }, wire.StrSet); len(muts) > 0 {
			t.mutate(s.table, keep, muts...)
		}
	}
	s.clearDirt()
}
