package embedded

import (
	"fmt"

	"github.com/ovn-org/libovsdb/ovsdb"
)

// The server keeps referential integrity itself (RFC 7047, 3.2 and 4.1.3;
// ovsdb-server's order: strong references, garbage collection, weak
// references). A row's strong references are a count and its weak
// referrers a set, so that a transaction costs what it changes: n rows
// referring to one row (the flows of a datapath group, the switches of a
// load balancer group) cost n, not n² as when each row keeps a list of its
// referrers.

// refTarget is what the keys or values of a column refer to.
type refTarget struct {
	table  string
	strong bool
}

// refSource is one place a row is referred to from: a column of a row, a
// map's value or not.
type refSource struct {
	table  *table
	column *column
	row    string
	value  bool
}

// refIndex is who refers to each row of a database.
type refIndex struct {
	strong map[string]int // row → strong references to it
	weak   map[string]map[refSource]int
}

func newRefIndex() *refIndex {
	return &refIndex{strong: map[string]int{}, weak: map[string]map[refSource]int{}}
}

// targetOf is what a base type refers to, nil if it is no reference.
func targetOf(bt *ovsdb.BaseType) *refTarget {
	if bt == nil || bt.Type != ovsdb.TypeUUID {
		return nil
	}
	table, err := bt.RefTable()
	if err != nil || table == "" {
		return nil
	}
	rt, _ := bt.RefType()
	return &refTarget{table: table, strong: rt != ovsdb.Weak}
}

// refTxn is the reference bookkeeping of one transaction: the changes it
// makes to the index.
type refTxn struct {
	x      *refIndex
	t      *txn
	strong map[string]int // row → change in strong references to it
	weak   map[string]map[refSource]int
	// tables are the tables of the rows referred to; firstRef a new
	// strong reference to each, for the error when it does not exist.
	tables   map[string]*table
	firstRef map[string]refSource
	unowned  []string // rows of non-root tables that may have lost their last strong reference
}

// refer counts, with sign, the references r (a row of tb) makes.
func (rt *refTxn) refer(tb *table, r *row, sign int) {
	if r == nil {
		return
	}
	for _, c := range tb.refCols {
		d := r.cols[c.index]
		if c.keyRef != nil {
			for _, a := range d.keys {
				rt.count(tb, c, r.uuid, a.s, c.keyRef, false, sign)
			}
		}
		if c.valueRef != nil {
			for _, a := range d.vals {
				rt.count(tb, c, r.uuid, a.s, c.valueRef, true, sign)
			}
		}
	}
}

// count counts one reference from the row from (of tb, in column c) to
// the row to.
func (rt *refTxn) count(tb *table, c *column, from, to string, target *refTarget, value bool, sign int) {
	targetTable := rt.t.db.tables[target.table]
	if targetTable == nil {
		return
	}
	rt.tables[to] = targetTable
	if !target.strong {
		src := refSource{table: tb, column: c, row: from, value: value}
		if rt.weak[to] == nil {
			rt.weak[to] = map[refSource]int{}
		}
		rt.weak[to][src] += sign
		return
	}
	rt.strong[to] += sign
	if sign > 0 {
		if _, ok := rt.firstRef[to]; !ok {
			rt.firstRef[to] = refSource{table: tb, column: c, row: from}
		}
	} else if !targetTable.root {
		rt.unowned = append(rt.unowned, to)
	}
}

// exists reports whether the transaction leaves the row uuid of tb.
func (rt *refTxn) exists(tb *table, uuid string) bool {
	return tb != nil && rt.t.current(tb, uuid) != nil
}

// set makes now the row uuid of tb as the transaction leaves it, counting
// the references that change.
func (rt *refTxn) set(tb *table, uuid string, now *row) {
	rt.refer(tb, rt.t.current(tb, uuid), -1)
	rt.t.replace(tb, uuid, now)
	rt.refer(tb, now, 1)
}

// referentialIntegrity completes a transaction as ovsdb-server would
// commit it: rows of non-root tables that no row refers to strongly any
// more are deleted, and weak references to rows that do not exist are
// removed; it fails when a strong reference is left to a row that does not
// exist. It returns the transaction's changes to the index, for
// commitRefs.
func referentialIntegrity(t *txn) (*refTxn, error) {
	rt := &refTxn{x: t.db.refs, t: t, strong: map[string]int{}, weak: map[string]map[refSource]int{},
		tables: map[string]*table{}, firstRef: map[string]refSource{}}
	for uuid, c := range t.changes {
		if c.old == nil && !c.table.root {
			rt.tables[uuid] = c.table
			rt.unowned = append(rt.unowned, uuid)
		}
		rt.refer(c.table, c.old, -1)
		rt.refer(c.table, c.new, 1)
	}
	for {
		rt.collectGarbage()
		removed, err := rt.removeWeakReferences()
		if err != nil {
			return nil, &opErr{"constraint violation", err.Error()}
		}
		if !removed {
			break
		}
	}
	if err := rt.checkStrong(); err != nil {
		return nil, &opErr{"referential integrity violation", err.Error()}
	}
	return rt, nil
}

// collectGarbage deletes the rows of non-root tables that lost their last
// strong reference or were inserted without one.
func (rt *refTxn) collectGarbage() {
	for len(rt.unowned) > 0 {
		uuid := rt.unowned[len(rt.unowned)-1]
		rt.unowned = rt.unowned[:len(rt.unowned)-1]
		if rt.x.strong[uuid]+rt.strong[uuid] > 0 {
			continue
		}
		if tb := rt.tables[uuid]; rt.exists(tb, uuid) {
			rt.set(tb, uuid, nil)
		}
	}
}

// removeWeakReferences removes from the rows the transaction leaves their
// weak references to rows that do not exist (deleted, or never there), and
// reports whether it removed any.
func (rt *refTxn) removeWeakReferences() (bool, error) {
	gone := map[refSource][]atom{} // a column of a row → the uuids to remove from it
	check := func(to string) {
		if rt.exists(rt.tables[to], to) {
			return
		}
		for src, n := range rt.x.weak[to] {
			if n+rt.weak[to][src] > 0 {
				gone[src] = append(gone[src], atom{s: to})
			}
		}
		for src, n := range rt.weak[to] {
			if _, committed := rt.x.weak[to][src]; !committed && n > 0 {
				gone[src] = append(gone[src], atom{s: to})
			}
		}
	}
	for to := range rt.weak {
		check(to)
	}
	for uuid, c := range rt.t.changes {
		if _, checked := rt.weak[uuid]; !checked && c.new == nil && len(rt.x.weak[uuid]) > 0 {
			rt.tables[uuid] = c.table
			check(uuid)
		}
	}
	for src, uuids := range gone {
		r := rt.t.current(src.table, src.row)
		if r == nil {
			continue
		}
		c := src.column
		d := removeRefs(c, r.cols[c.index], uuids, src.value)
		if d.len() < c.min {
			return false, fmt.Errorf("deletion of a weak reference to a deleted (or never-existing) row from column %s in %s row %s leaves it with %d values, fewer than its minimum of %d", c.name, src.table.name, src.row, d.len(), c.min)
		}
		w := r.clone()
		w.cols[c.index] = d
		rt.set(src.table, src.row, w)
	}
	return len(gone) > 0, nil
}

// removeRefs is d without the elements, or the pairs whose key (or value,
// as value says), are one of uuids.
func removeRefs(c *column, d datum, uuids []atom, value bool) datum {
	drop := make(map[string]bool, len(uuids))
	for _, u := range uuids {
		drop[u.s] = true
	}
	out := datum{}
	for i, k := range d.keys {
		if !value && drop[k.s] || value && drop[d.vals[i].s] {
			continue
		}
		out.keys = append(out.keys, k)
		if c.isMap {
			out.vals = append(out.vals, d.vals[i])
		}
	}
	return out
}

// checkStrong fails when a strong reference is left to a row the
// transaction deleted or that never existed.
func (rt *refTxn) checkStrong() error {
	for to, d := range rt.strong {
		if d == 0 {
			continue
		}
		n := rt.x.strong[to] + d
		if n <= 0 || rt.exists(rt.tables[to], to) {
			continue
		}
		if c, ok := rt.t.changes[to]; ok && c.new == nil && rt.x.strong[to] > 0 {
			return fmt.Errorf("cannot delete %s row %s because of %d remaining reference(s)", c.table.name, to, n)
		}
		src := rt.firstRef[to]
		return fmt.Errorf("Table %s column %s row %s references nonexistent row %s in table %s", src.table.name, src.column.name, src.row, to, rt.tables[to].name)
	}
	for uuid, c := range rt.t.changes {
		if n := rt.x.strong[uuid] + rt.strong[uuid]; c.new == nil && n > 0 {
			return fmt.Errorf("cannot delete %s row %s because of %d remaining reference(s)", c.table.name, uuid, n)
		}
	}
	return nil
}

// commitRefs applies a committed transaction's changes to the index.
func (x *refIndex) commitRefs(rt *refTxn) {
	for to, d := range rt.strong {
		if n := x.strong[to] + d; n > 0 {
			x.strong[to] = n
		} else {
			delete(x.strong, to)
		}
	}
	for to, srcs := range rt.weak {
		for src, d := range srcs {
			if d == 0 {
				continue
			}
			if x.weak[to] == nil {
				x.weak[to] = map[refSource]int{}
			}
			if n := x.weak[to][src] + d; n > 0 {
				x.weak[to][src] = n
			} else {
				delete(x.weak[to], src)
			}
		}
		if len(x.weak[to]) == 0 {
			delete(x.weak, to)
		}
	}
}
