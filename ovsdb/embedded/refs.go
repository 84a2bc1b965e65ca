package embedded

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/ovn-org/libovsdb/model"
	"github.com/ovn-org/libovsdb/ovsdb"
	"github.com/ovn-org/libovsdb/updates"
)

// The server keeps referential integrity itself (RFC 7047, 3.2 and 4.1.3;
// ovsdb-server's order: strong references, garbage collection, weak
// references) rather than leave it to libovsdb's transaction, which keeps
// every row's referrers in a slice and merges each change into it by
// reflection: a transaction that adds n rows referring to one row (the
// flows of a datapath group, the switches of a load balancer group) costs
// n², and each later change costs the number of referrers. Here a row's
// strong references are a count and its weak referrers a set, so a
// transaction costs what it changes. libovsdb's store gets the schema
// without references and with every table a root (libovsdbSchema), so that
// its own tracking finds nothing to do.

// refTarget is what the keys or values of a column refer to.
type refTarget struct {
	table  string
	strong bool
}

// refColumn is a column that holds references: its atoms, set elements or
// map keys refer to key's table, its map values to value's; nil for none.
type refColumn struct {
	name       string
	key, value *refTarget
}

// refSource is one place a row is referred to from: a column of a row, a
// map's value or not.
type refSource struct {
	table, column, row string
	value              bool
}

// refIndex is who refers to each row of a database.
type refIndex struct {
	columns map[string][]refColumn // table → its columns that hold references
	root    map[string]bool        // table → part of the root set
	strong  map[string]int         // row → strong references to it
	weak    map[string]map[refSource]int
}

func newRefIndex(schema *ovsdb.DatabaseSchema) (*refIndex, error) {
	x := &refIndex{columns: map[string][]refColumn{}, root: map[string]bool{}, strong: map[string]int{}, weak: map[string]map[refSource]int{}}
	for name, ts := range schema.Tables {
		root, err := schema.IsRoot(name)
		if err != nil {
			return nil, err
		}
		x.root[name] = root
		for _, c := range allColumns(&ts) {
			ct := ts.Columns[c].TypeObj
			if ct == nil {
				continue
			}
			rc := refColumn{name: c, key: targetOf(ct.Key), value: targetOf(ct.Value)}
			if rc.key != nil || rc.value != nil {
				x.columns[name] = append(x.columns[name], rc)
			}
		}
	}
	return x, nil
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

// libovsdbSchema is schema without references and with every table a
// root, for libovsdb's store (see above).
func libovsdbSchema(schema ovsdb.DatabaseSchema) (ovsdb.DatabaseSchema, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return ovsdb.DatabaseSchema{}, err
	}
	var generic map[string]any
	if err := json.Unmarshal(b, &generic); err != nil {
		return ovsdb.DatabaseSchema{}, err
	}
	tables, _ := generic["tables"].(map[string]any)
	for _, t := range tables {
		t := t.(map[string]any)
		t["isRoot"] = true
		dropReferences(t["columns"])
	}
	if b, err = json.Marshal(generic); err != nil {
		return ovsdb.DatabaseSchema{}, err
	}
	var out ovsdb.DatabaseSchema
	err = json.Unmarshal(b, &out)
	return out, err
}

// dropReferences removes refTable and refType from every type in v.
func dropReferences(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "refTable")
		delete(v, "refType")
		for _, e := range v {
			dropReferences(e)
		}
	case []any:
		for _, e := range v {
			dropReferences(e)
		}
	}
}

// eachUUID calls fn with every uuid in a column's native value (libovsdb's
// Go form: a string, a pointer to one, a slice or a map), value telling a
// map's values from its keys.
func eachUUID(native any, fn func(uuid string, value bool)) {
	switch v := native.(type) {
	case string:
		if v != "" {
			fn(v, false)
		}
	case *string:
		if v != nil {
			fn(*v, false)
		}
	case []string:
		for _, u := range v {
			fn(u, false)
		}
	default:
		rv := reflect.ValueOf(native)
		if rv.Kind() != reflect.Map {
			return
		}
		for it := rv.MapRange(); it.Next(); {
			if k := it.Key(); k.Kind() == reflect.String {
				fn(k.String(), false)
			}
			if e := it.Value(); e.Kind() == reflect.String {
				fn(e.String(), true)
			}
		}
	}
}

// rowState is a row a transaction changed: its table and its model now,
// nil once deleted.
type rowState struct {
	table string
	now   model.Model
}

// refTxn is the reference bookkeeping of one transaction: the changes it
// makes to the index, and the rows it changed.
type refTxn struct {
	x      *refIndex
	db     *database
	get    func(table, uuid string) model.Model // a row as committed, nil if none
	has    func(table, uuid string) bool        // whether a row is committed
	rows   map[string]*rowState
	strong map[string]int // row → change in strong references to it
	weak   map[string]map[refSource]int
	// tables are the tables of the rows referred to; firstRef a new
	// strong reference to each, for the error when it does not exist.
	tables   map[string]string
	firstRef map[string]refSource
	unowned  []string // rows of non-root tables that may have lost their last strong reference
}

// refer counts, with sign, the references m (a row of table) makes.
func (t *refTxn) refer(table, uuid string, m model.Model, sign int) error {
	cols := t.x.columns[table]
	if m == nil || len(cols) == 0 {
		return nil
	}
	r := t.db.codecs[table].row(m)
	for _, c := range cols {
		native := r.native(c.name)
		if native == nil {
			continue // a column of the served schema the models lack
		}
		eachUUID(native, func(to string, value bool) {
			target := c.key
			if value {
				target = c.value
			}
			if target == nil {
				return
			}
			t.tables[to] = target.table
			if !target.strong {
				src := refSource{table: table, column: c.name, row: uuid, value: value}
				if t.weak[to] == nil {
					t.weak[to] = map[refSource]int{}
				}
				t.weak[to][src] += sign
				return
			}
			t.strong[to] += sign
			if sign > 0 {
				if _, ok := t.firstRef[to]; !ok {
					t.firstRef[to] = refSource{table: table, column: c.name, row: uuid}
				}
			} else if !t.x.root[target.table] {
				t.unowned = append(t.unowned, to)
			}
		})
	}
	return nil
}

// exists reports whether the transaction leaves the row uuid of table,
// so far.
func (t *refTxn) exists(table, uuid string) bool {
	if r, ok := t.rows[uuid]; ok {
		return r.now != nil
	}
	return t.has(table, uuid)
}

// current is a row as the transaction leaves it so far, nil if there is
// none.
func (t *refTxn) current(table, uuid string) model.Model {
	if r, ok := t.rows[uuid]; ok {
		return r.now
	}
	return t.get(table, uuid)
}

// change records that the row uuid of table went from old to now.
func (t *refTxn) change(table, uuid string, old, now model.Model) error {
	if r, ok := t.rows[uuid]; ok {
		r.now = now
	} else {
		t.rows[uuid] = &rowState{table: table, now: now}
	}
	if err := t.refer(table, uuid, old, -1); err != nil {
		return err
	}
	return t.refer(table, uuid, now, 1)
}

// referentialIntegrity completes the transaction's update mu as
// ovsdb-server would commit it: rows of non-root tables that no row
// refers to strongly any more are deleted, and weak references to rows
// that do not exist are removed; it fails when a strong reference is left
// to a row that does not exist. It returns the transaction's changes to
// the index, for commitRefs.
func (s *server) referentialIntegrity(db *database, mu *updates.ModelUpdates) (*refTxn, *ovsdb.OperationResult) {
	t := &refTxn{x: db.refs, db: db, rows: map[string]*rowState{}, strong: map[string]int{}, weak: map[string]map[refSource]int{},
		tables: map[string]string{}, firstRef: map[string]refSource{},
		get: func(table, uuid string) model.Model {
			m, err := s.store.Get(db.name, table, uuid)
			if err != nil {
				return nil
			}
			return m
		},
		has: func(table, uuid string) bool { return s.store.has(db.name, table, uuid) }}
	fail := func(err error) *ovsdb.OperationResult {
		return &ovsdb.OperationResult{Error: "referential integrity violation", Details: err.Error()}
	}
	for _, table := range mu.GetUpdatedTables() {
		err := mu.ForEachModelUpdate(table, func(uuid string, old, new model.Model) error {
			if old == nil && !db.refs.root[table] {
				t.unowned = append(t.unowned, uuid)
			}
			return t.change(table, uuid, old, new)
		})
		if err != nil {
			return nil, fail(err)
		}
	}
	for {
		if err := t.collectGarbage(mu); err != nil {
			return nil, fail(err)
		}
		removed, err := t.removeWeakReferences(mu)
		if err != nil {
			return nil, &ovsdb.OperationResult{Error: "constraint violation", Details: err.Error()}
		}
		if !removed {
			break
		}
	}
	if err := t.checkStrong(); err != nil {
		return nil, fail(err)
	}
	return t, nil
}

// collectGarbage deletes the rows of non-root tables that lost their last
// strong reference or were inserted without one.
func (t *refTxn) collectGarbage(mu *updates.ModelUpdates) error {
	for len(t.unowned) > 0 {
		uuid := t.unowned[len(t.unowned)-1]
		t.unowned = t.unowned[:len(t.unowned)-1]
		table := t.tables[uuid]
		if r, ok := t.rows[uuid]; ok {
			table = r.table
		}
		if t.x.strong[uuid]+t.strong[uuid] > 0 {
			continue
		}
		if !t.exists(table, uuid) {
			continue
		}
		m := t.current(table, uuid)
		if err := mu.AddOperation(t.db.model, table, uuid, m, &ovsdb.Operation{Op: ovsdb.OperationDelete, Table: table}); err != nil {
			return err
		}
		if err := t.change(table, uuid, m, nil); err != nil {
			return err
		}
	}
	return nil
}

// removeWeakReferences removes from the rows the transaction leaves their
// weak references to rows that do not exist (deleted, or never there), and
// reports whether it removed any.
func (t *refTxn) removeWeakReferences(mu *updates.ModelUpdates) (bool, error) {
	gone := map[refSource][]string{} // a column of a row → the uuids to remove from it
	check := func(to string) {
		if t.exists(t.tables[to], to) {
			return
		}
		for src, n := range t.x.weak[to] {
			if n+t.weak[to][src] > 0 {
				gone[src] = append(gone[src], to)
			}
		}
		for src, n := range t.weak[to] {
			if _, committed := t.x.weak[to][src]; !committed && n > 0 {
				gone[src] = append(gone[src], to)
			}
		}
	}
	for to := range t.weak {
		check(to)
	}
	for uuid, r := range t.rows {
		if _, checked := t.weak[uuid]; !checked && r.now == nil && len(t.x.weak[uuid]) > 0 {
			check(uuid)
		}
	}
	for src, uuids := range gone {
		m := t.current(src.table, src.row)
		if m == nil {
			continue
		}
		mutation, err := t.removal(src, m, uuids)
		if err != nil {
			return false, err
		}
		op := &ovsdb.Operation{Op: ovsdb.OperationMutate, Table: src.table, Mutations: []ovsdb.Mutation{mutation}}
		if err := mu.AddOperation(t.db.model, src.table, src.row, m, op); err != nil {
			return false, err
		}
		if err := t.change(src.table, src.row, m, mu.GetModel(src.table, src.row)); err != nil {
			return false, err
		}
	}
	return len(gone) > 0, nil
}

// removal is the mutation that deletes uuids from the column of m that
// src names: the elements of a set, or the pairs of a map whose key (or
// value, as src says) is one of them.
func (t *refTxn) removal(src refSource, m model.Model, uuids []string) (ovsdb.Mutation, error) {
	r := t.db.codecs[src.table].row(m)
	drop := map[string]bool{}
	for _, u := range uuids {
		drop[u] = true
	}
	isDropped := func(v any) bool {
		u, ok := v.(ovsdb.UUID)
		return ok && drop[u.GoUUID]
	}
	switch v := r.value(src.column).(type) {
	case ovsdb.OvsMap:
		pairs := map[any]any{}
		for k, e := range v.GoMap {
			if !src.value && isDropped(k) || src.value && isDropped(e) {
				pairs[k] = e
			}
		}
		return *ovsdb.NewMutation(src.column, ovsdb.MutateOperationDelete, ovsdb.OvsMap{GoMap: pairs}), nil
	case ovsdb.OvsSet:
		var elems []any
		for _, u := range uuids {
			elems = append(elems, ovsdb.UUID{GoUUID: u})
		}
		return *ovsdb.NewMutation(src.column, ovsdb.MutateOperationDelete, ovsdb.OvsSet{GoSet: elems}), nil
	case ovsdb.UUID:
		return ovsdb.Mutation{}, fmt.Errorf("deletion of a weak reference to a deleted (or never-existing) row from column %s in %s row %s leaves it with no value, but it must have one", src.column, src.table, src.row)
	default:
		return ovsdb.Mutation{}, fmt.Errorf("table %s column %s holds no references", src.table, src.column)
	}
}

// checkStrong fails when a strong reference is left to a row the
// transaction deleted or that never existed.
func (t *refTxn) checkStrong() error {
	for to, d := range t.strong {
		if d == 0 {
			continue
		}
		n := t.x.strong[to] + d
		if n <= 0 || t.exists(t.tables[to], to) {
			continue
		}
		if r, ok := t.rows[to]; ok && r.now == nil && t.x.strong[to] > 0 {
			return fmt.Errorf("cannot delete %s row %s because of %d remaining reference(s)", r.table, to, n)
		}
		src := t.firstRef[to]
		return fmt.Errorf("Table %s column %s row %s references nonexistent row %s in table %s", src.table, src.column, src.row, to, t.tables[to])
	}
	for uuid, r := range t.rows {
		if n := t.x.strong[uuid] + t.strong[uuid]; r.now == nil && n > 0 {
			return fmt.Errorf("cannot delete %s row %s because of %d remaining reference(s)", r.table, uuid, n)
		}
	}
	return nil
}

// commitRefs applies a committed transaction's changes to the index.
func (x *refIndex) commitRefs(t *refTxn) {
	for to, d := range t.strong {
		if n := x.strong[to] + d; n > 0 {
			x.strong[to] = n
		} else {
			delete(x.strong, to)
		}
	}
	for to, srcs := range t.weak {
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
