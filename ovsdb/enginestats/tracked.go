package enginestats

import (
	"iter"
	"maps"
	"reflect"
	"slices"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// Row is a row an iteration changed, as the IDL tracks it: inserted
// (Old nil), deleted (New nil), updated in the columns Updated names,
// or, with no column changed, tracked only because a row it refers to
// changed (add_tracked_change_for_references).
type Row struct {
	UUID     string
	Old, New model.Model
	changed  map[string]bool
}

// IsNew tells whether the row was inserted.
func (r *Row) IsNew() bool { return r.Old == nil }

// IsDeleted tells whether the row was deleted.
func (r *Row) IsDeleted() bool { return r.New == nil }

// IsModified tells whether the row was there before and after the
// iteration: updated, or tracked only through a reference.
func (r *Row) IsModified() bool { return r.Old != nil && r.New != nil }

// Updated tells whether column col of an existing row changed.
func (r *Row) Updated(col string) bool { return r.changed[col] }

// OnlyUpdated tells whether every column of the row that changed is one
// of cols.
func (r *Row) OnlyUpdated(cols ...string) bool {
	for col := range r.changed {
		if !slices.Contains(cols, col) {
			return false
		}
	}
	return true
}

// OnlyReferenced tells whether the row is tracked only because a row it
// refers to changed.
func (r *Row) OnlyReferenced() bool { return r.IsModified() && len(r.changed) == 0 }

// Current is the row as it is now, or as it was when deleted.
func (r *Row) Current() model.Model {
	if r.New != nil {
		return r.New
	}
	return r.Old
}

// Iteration is what one run of the engine sees: the tracked rows of each
// table of both databases.
type Iteration struct {
	NB, SB map[string][]*Row
	// nbByUUID are the tracked NB rows by UUID.
	nbByUUID map[string]*Row
}

// NBRow returns the tracked NB row of that UUID, if tracked.
func (it *Iteration) NBRow(uuid string) (*Row, bool) {
	r, ok := it.nbByUUID[uuid]
	return r, ok
}

// Tracker turns the row changes of the NB and SB feeds into Iterations.
// It keeps which rows refer to which, so that a change to a row also
// tracks the rows that refer to it, as OVS's IDL does.
type Tracker struct {
	nb, sb *refIndex
}

// refIndex follows one database's references: for each row, the rows
// that refer to it and their table, and the rows it refers to.
type refIndex struct {
	cols      *refColumns
	referrers map[string]referrers
	refs      map[string][]string
	// quiet are the columns northd does not track (ovsdb_idl_omit or
	// ovsdb_idl_omit_alert), by table.
	quiet map[string]map[string]bool
	// untracked are tables whose rows are never tracked: none of their
	// columns is (ovsdb_idl_omit_alert also stops the tracking of the
	// rows that refer to a changed row).
	untracked map[string]bool
	// tracked are, by model type, the fields of its columns that
	// trackedRow compares: not _uuid, not quiet.
	tracked map[reflect.Type][]trackedField
}

// trackedField is a model field and its column.
type trackedField struct {
	index  int
	column string
}

func newRefIndex(s *lovsdb.DatabaseSchema, quiet map[string]map[string]bool, untracked map[string]bool) *refIndex {
	return &refIndex{
		cols:      &refColumns{schema: s, byType: map[reflect.Type][]refColumn{}},
		referrers: map[string]referrers{},
		refs:      map[string][]string{},
		quiet:     quiet,
		untracked: untracked,
		tracked:   map[reflect.Type][]trackedField{},
	}
}

// NewTracker makes a Tracker for an NB and an SB of those schemas;
// nbQuiet, sbQuiet and sbSilent are the columns and tables northd does
// not track.
func NewTracker(nbSchema, sbSchema *lovsdb.DatabaseSchema, nbQuiet, sbQuiet map[string]map[string]bool, sbSilent map[string]bool) *Tracker {
	return &Tracker{
		nb: newRefIndex(nbSchema, nbQuiet, nil),
		sb: newRefIndex(sbSchema, sbQuiet, sbSilent),
	}
}

// Take makes the Iteration of NB and SB batches. initial tells whether
// one of them is a database's whole contents (a new connection). nbRow
// and sbRow are the databases as the northd holds them after the
// batches: the contents of the rows tracked only through a reference.
func (t *Tracker) Take(nbBatches, sbBatches []wire.Batch, nbRow, sbRow func(table, uuid string) model.Model) (it *Iteration, initial bool) {
	it = &Iteration{NB: map[string][]*Row{}, SB: map[string][]*Row{}, nbByUUID: map[string]*Row{}}
	initial = t.nb.take(nbBatches, it.NB, it.nbByUUID, nbRow)
	sbInitial := t.sb.take(sbBatches, it.SB, map[string]*Row{}, sbRow)
	return it, initial || sbInitial
}

// NBReferrers yields the NB rows that refer to row uuid: each one's _uuid
// and table.
func (t *Tracker) NBReferrers(uuid string) iter.Seq2[string, string] {
	return t.nb.referrers[uuid].all()
}

// referrers are the rows that refer to one row, with their tables: a short
// list, made a map once it is long. Most rows have one or two (a port its
// switch, a port binding its multicast groups), and a Go map costs about
// 300 bytes even for one entry: at 25,000 ports, 20 MB of the heap.
type referrers struct {
	few  []referrer
	many map[string]string
}

type referrer struct{ uuid, table string }

// fewReferrers is the longest list kept as one.
const fewReferrers = 8

func (r referrers) add(uuid, table string) referrers {
	if r.many != nil {
		r.many[uuid] = table
		return r
	}
	if i := slices.IndexFunc(r.few, func(f referrer) bool { return f.uuid == uuid }); i >= 0 {
		r.few[i].table = table
		return r
	}
	if len(r.few) < fewReferrers {
		r.few = append(r.few, referrer{uuid, table})
		return r
	}
	r.many = make(map[string]string, len(r.few)+1)
	for _, f := range r.few {
		r.many[f.uuid] = f.table
	}
	r.many[uuid] = table
	r.few = nil
	return r
}

func (r referrers) remove(uuid string) referrers {
	if r.many != nil {
		delete(r.many, uuid)
	} else {
		r.few = slices.DeleteFunc(r.few, func(f referrer) bool { return f.uuid == uuid })
	}
	return r
}

func (r referrers) len() int { return len(r.few) + len(r.many) }

// all yields each referrer's _uuid and table.
func (r referrers) all() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, f := range r.few {
			if !yield(f.uuid, f.table) {
				return
			}
		}
		for uuid, table := range r.many {
			if !yield(uuid, table) {
				return
			}
		}
	}
}

// take tracks the rows batches change, and those that refer to them,
// in tracked (by table) and byUUID.
func (x *refIndex) take(batches []wire.Batch, tracked map[string][]*Row, byUUID map[string]*Row, current func(table, uuid string) model.Model) (initial bool) {
	var direct []*Row
	reset := func() {
		initial = true
		clear(x.referrers)
		clear(x.refs)
	}
	eachChange(batches, reset, func(c wire.Change) {
		if x.untracked[c.Table] {
			return
		}
		r := x.trackedRow(c)
		if r == nil {
			return
		}
		if old, ok := byUUID[c.UUID]; ok {
			// Two transactions in one iteration: one change.
			old.New = r.New
			if old.changed == nil {
				old.changed = r.changed
			} else {
				maps.Copy(old.changed, r.changed)
			}
			return
		}
		byUUID[c.UUID] = r
		tracked[c.Table] = append(tracked[c.Table], r)
		direct = append(direct, r)
	})
	for _, r := range direct {
		if !r.IsNew() {
			x.trackReferrers(r.UUID, tracked, byUUID, current)
		}
	}
	// The batches again rather than a list of their changes: a cold
	// start's echo holds hundreds of thousands.
	eachChange(batches, nil, func(c wire.Change) {
		if initial || !x.reindexUpdate(c) {
			x.reindex(c)
		}
	})
	return initial
}

// eachChange calls change for each change of batches in order, and reset
// (when set) first at each batch that is a database's whole contents.
func eachChange(batches []wire.Batch, reset func(), change func(wire.Change)) {
	for _, b := range batches {
		if b.Initial && reset != nil {
			reset()
		}
		for _, c := range b.Changes {
			change(c)
		}
	}
}

// trackReferrers tracks, recursively, the rows that refer to uuid.
func (x *refIndex) trackReferrers(uuid string, tracked map[string][]*Row, byUUID map[string]*Row, current func(table, uuid string) model.Model) {
	for src, table := range x.referrers[uuid].all() {
		if _, ok := byUUID[src]; ok {
			continue
		}
		m := current(table, src)
		if m == nil {
			continue
		}
		r := &Row{UUID: src, Old: m, New: m}
		byUUID[src] = r
		tracked[table] = append(tracked[table], r)
		x.trackReferrers(src, tracked, byUUID, current)
	}
}

// reindex follows the references of a changed row. Only the references
// it gained or lost are indexed again, found by a merge of the sorted old
// and new lists: a switch's ports or a multicast group's members change
// one at a time, and each still referred to keeps its map of referrers
// untouched.
func (x *refIndex) reindex(c wire.Change) {
	var dsts []string
	if c.New != nil && !x.untracked[c.Table] {
		dsts = x.cols.of(c.Table, c.New)
		slices.Sort(dsts)
		dsts = slices.Compact(dsts)
	}
	old := x.refs[c.UUID]
	for i, j := 0, 0; i < len(old) || j < len(dsts); {
		switch {
		case j == len(dsts) || i < len(old) && old[i] < dsts[j]:
			if rs := x.referrers[old[i]].remove(c.UUID); rs.len() == 0 {
				delete(x.referrers, old[i])
			} else {
				x.referrers[old[i]] = rs
			}
			i++
		case i == len(old) || dsts[j] < old[i]:
			x.referrers[dsts[j]] = x.referrers[dsts[j]].add(c.UUID, c.Table)
			j++
		default:
			i++
			j++
		}
	}
	if len(dsts) == 0 {
		delete(x.refs, c.UUID)
		return
	}
	x.refs[c.UUID] = dsts
}

// smallDiff is the most elements a set column of references may gain and
// lose in one update for reindexUpdate to index them alone.
const smallDiff = 8

// reindexUpdate indexes again only the references an update of a row
// gained or lost, found column by column (only those the change names,
// when the row decoder made it): a switch's ports change one at a time,
// and every other update of a row with references (a port's up,
// NB_Global's nb_cfg) keeps them all. It reports false, having done
// nothing, for an insert or delete, or when a column of references is a
// map or changed by more than smallDiff elements: reindex lists them all.
func (x *refIndex) reindexUpdate(c wire.Change) bool {
	if c.Old == nil || c.New == nil || x.untracked[c.Table] {
		return false
	}
	a, b := reflect.ValueOf(c.Old).Elem(), reflect.ValueOf(c.New).Elem()
	cols := x.cols.columns(c.Table, b.Type())
	type lost struct {
		uuid string
		col  int // the column it left, which cannot hold it again
	}
	var came []string
	var gone []lost
	for i, col := range cols {
		if c.Columns != nil && !slices.Contains(c.Columns, col.column) {
			continue // the row decoder says it did not change
		}
		left, joined, ok := refsChanged(a.Field(col.field), b.Field(col.field))
		if !ok {
			return false
		}
		came = append(came, joined...)
		for _, u := range left {
			gone = append(gone, lost{u, i})
		}
	}
	refs := x.refs[c.UUID]
	for _, u := range came {
		if i, found := slices.BinarySearch(refs, u); !found {
			refs = slices.Insert(refs, i, u)
			x.referrers[u] = x.referrers[u].add(c.UUID, c.Table)
		}
	}
	for _, g := range gone {
		i, found := slices.BinarySearch(refs, g.uuid)
		if !found || refersTo(b, cols, g.col, g.uuid) {
			continue
		}
		refs = slices.Delete(refs, i, i+1)
		if rs := x.referrers[g.uuid].remove(c.UUID); rs.len() == 0 {
			delete(x.referrers, g.uuid)
		} else {
			x.referrers[g.uuid] = rs
		}
	}
	if len(refs) == 0 {
		delete(x.refs, c.UUID)
	} else {
		x.refs[c.UUID] = refs
	}
	return true
}

// refsChanged are the references a column of references (fields a and b
// of a row's two versions) lost and gained; ok is false for a map column
// that is not empty in both, or a set that changed by more than
// smallDiff elements.
func refsChanged(a, b reflect.Value) (left, joined []string, ok bool) {
	switch a.Kind() {
	case reflect.String, reflect.Pointer:
		before, after := optRef(a), optRef(b)
		if before != after {
			left, joined = nonEmpty(before), nonEmpty(after)
		}
		return left, joined, true
	case reflect.Slice:
		before, after := relations.TrimCommon(stringsOf(a), stringsOf(b))
		if len(before)+len(after) > smallDiff {
			return nil, nil, false
		}
		for _, u := range before {
			if !slices.Contains(after, u) {
				left = append(left, u)
			}
		}
		for _, u := range after {
			if !slices.Contains(before, u) {
				joined = append(joined, u)
			}
		}
		return left, joined, true
	}
	return nil, nil, a.Len() == 0 && b.Len() == 0
}

// optRef is a reference or optional reference field's value, "" for none.
func optRef(f reflect.Value) string {
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return ""
		}
		f = f.Elem()
	}
	return f.String()
}

// nonEmpty is u as a list, empty when u is "".
func nonEmpty(u string) []string {
	if u == "" {
		return nil
	}
	return []string{u}
}

// stringsOf is an addressable []string field, read without boxing it.
func stringsOf(f reflect.Value) []string {
	return *(*[]string)(f.Addr().UnsafePointer())
}

// refersTo tells whether row v refers to uuid in one of cols but skip.
func refersTo(v reflect.Value, cols []refColumn, skip int, uuid string) bool {
	for i, col := range cols {
		f := v.Field(col.field)
		switch {
		case i == skip, f.Kind() == reflect.Map: // maps are empty here (refsChanged)
		case f.Kind() == reflect.Slice:
			if slices.Contains(stringsOf(f), uuid) {
				return true
			}
		case optRef(f) == uuid:
			return true
		}
	}
	return false
}

// trackedRow is the Row of a change, or nil when only quiet columns
// changed. The columns that changed are the change's own (Columns) when
// the row decoder made it; otherwise the two versions are compared
// field by field.
func (x *refIndex) trackedRow(c wire.Change) *Row {
	r := &Row{UUID: c.UUID, Old: c.Old, New: c.New}
	if c.Old == nil || c.New == nil {
		return r
	}
	changed := func(col string) {
		if r.changed == nil {
			r.changed = map[string]bool{}
		}
		r.changed[col] = true
	}
	if c.Columns != nil {
		for _, col := range c.Columns {
			if x.tracks(c.Table, col) {
				changed(col)
			}
		}
	} else {
		a, b := reflect.ValueOf(c.Old).Elem(), reflect.ValueOf(c.New).Elem()
		for _, f := range x.trackedFields(c.Table, a.Type()) {
			if !sameValue(a.Field(f.index), b.Field(f.index)) {
				changed(f.column)
			}
		}
	}
	if len(r.changed) == 0 {
		return nil
	}
	return r
}

// tracks reports whether a change of column col of table is one the
// engine's nodes see: not the row's _uuid, nor a quiet column.
func (x *refIndex) tracks(table, col string) bool {
	return col != "" && col != "_uuid" && !x.quiet[table][col]
}

// trackedFields are the fields of model type t, of table, that trackedRow
// compares, found once per type.
func (x *refIndex) trackedFields(table string, t reflect.Type) []trackedField {
	if fs, ok := x.tracked[t]; ok {
		return fs
	}
	var fs []trackedField
	for i := range t.NumField() {
		col := t.Field(i).Tag.Get("ovsdb")
		if x.tracks(table, col) {
			fs = append(fs, trackedField{index: i, column: col})
		}
	}
	x.tracked[t] = fs
	return fs
}

// sameValue compares two column values, an empty set or map equal to a
// missing one. Atoms, optional atoms and sets of strings (most columns)
// are compared without reflect.DeepEqual, which would box each value.
func sameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() == b.String()
	case reflect.Int:
		return a.Int() == b.Int()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Slice, reflect.Map:
		if a.Len() == 0 && b.Len() == 0 {
			return true
		}
		if a.Kind() == reflect.Slice && a.Type().Elem().Kind() == reflect.String {
			return sameStrings(a, b)
		}
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// sameStrings compares two slices of strings element by element.
func sameStrings(a, b reflect.Value) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.Index(i).String() != b.Index(i).String() {
			return false
		}
	}
	return true
}

// refColumns finds, for each table, the model fields that hold
// references to other rows: the columns of schema whose key or value is
// a reference.
type refColumns struct {
	schema *lovsdb.DatabaseSchema
	byType map[reflect.Type][]refColumn
}

type refColumn struct {
	field      int
	column     string
	key, value bool
}

func (rc *refColumns) columns(table string, t reflect.Type) []refColumn {
	if cols, ok := rc.byType[t]; ok {
		return cols
	}
	var cols []refColumn
	ts := rc.schema.Tables[table]
	for i := range t.NumField() {
		name := t.Field(i).Tag.Get("ovsdb")
		cs, ok := ts.Columns[name]
		if !ok || cs.TypeObj == nil {
			continue
		}
		c := refColumn{field: i, column: name, key: isRef(cs.TypeObj.Key), value: isRef(cs.TypeObj.Value)}
		if c.key || c.value {
			cols = append(cols, c)
		}
	}
	rc.byType[t] = cols
	return cols
}

func isRef(b *lovsdb.BaseType) bool {
	if b == nil {
		return false
	}
	t, err := b.RefTable()
	return err == nil && t != ""
}

// of returns the UUIDs a row of table refers to.
func (rc *refColumns) of(table string, m model.Model) []string {
	var out []string
	v := reflect.ValueOf(m).Elem()
	for _, c := range rc.columns(table, v.Type()) {
		f := v.Field(c.field)
		switch f.Kind() {
		case reflect.String:
			if s := f.String(); s != "" {
				out = append(out, s)
			}
		case reflect.Pointer:
			if !f.IsNil() {
				out = append(out, f.Elem().String())
			}
		case reflect.Slice:
			for j := range f.Len() {
				out = append(out, f.Index(j).String())
			}
		case reflect.Map:
			iter := f.MapRange()
			for iter.Next() {
				if c.key {
					out = append(out, iter.Key().String())
				}
				if c.value {
					out = append(out, iter.Value().String())
				}
			}
		}
	}
	return out
}
