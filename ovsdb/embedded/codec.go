package embedded

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/ovn-org/libovsdb/model"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// The file's records, monitor updates, constraint checks and reference
// counts read every column of every row a transaction changes. libovsdb's
// mapper finds each column's field by name and converts its value to OVSDB
// notation (NativeToOvs), which encoding/json then encodes by reflection
// again; at a cold start that was most of the server's cost. A tableCodec
// knows each column's field index and writes the field's JSON in OVSDB
// notation itself.

// tableCodec reads the models of one table.
type tableCodec struct {
	columns []*columnCodec          // the served schema's, sorted by name
	byName  map[string]*columnCodec // every column the store has
}

// columnCodec is one column of a table: its schema, its model's field and
// whether its atoms are uuids.
type columnCodec struct {
	name               string
	schema             *ovsdb.ColumnSchema
	field              int // index in the model's struct; -1 if the model lacks the column
	keyUUID, valueUUID bool
	// constrained is set when the column's type limits its values beyond
	// what libovsdb's Go type does (checkConstraints).
	constrained bool
}

// newTableCodecs makes the codecs of the tables of full (the served schema
// completed with the models' tables and columns), for the models of
// dbModel; a codec's columns are those that served has.
func newTableCodecs(served, full *ovsdb.DatabaseSchema, dbModel model.DatabaseModel) (map[string]*tableCodec, error) {
	codecs := make(map[string]*tableCodec, len(full.Tables))
	types := dbModel.Types()
	for name := range full.Tables {
		t, ok := types[name]
		if !ok {
			return nil, fmt.Errorf("no model of table %s", name)
		}
		fields := map[string]int{}
		st := t.Elem()
		for i := range st.NumField() {
			if tag := st.Field(i).Tag.Get("ovsdb"); tag != "" {
				fields[tag] = i
			}
		}
		tc := &tableCodec{byName: map[string]*columnCodec{}}
		fullTable := full.Table(name)
		for _, c := range allColumns(fullTable) {
			cs := fullTable.Column(c)
			cc := &columnCodec{name: c, schema: cs, field: -1, constrained: isConstrained(cs)}
			if i, ok := fields[c]; ok {
				cc.field = i
			}
			if ct := cs.TypeObj; ct != nil {
				cc.keyUUID = ct.Key != nil && ct.Key.Type == ovsdb.TypeUUID
				cc.valueUUID = ct.Value != nil && ct.Value.Type == ovsdb.TypeUUID
			}
			tc.byName[c] = cc
		}
		if ts := served.Table(name); ts != nil {
			for _, c := range allColumns(ts) {
				tc.columns = append(tc.columns, tc.byName[c])
			}
		}
		codecs[name] = tc
	}
	return codecs, nil
}

// isConstrained reports whether a column's type limits its values beyond
// libovsdb's Go type for it: an enum, bounds on integers, reals or string
// lengths, or bounds on the number of elements other than none, at most
// one, or exactly one.
func isConstrained(cs *ovsdb.ColumnSchema) bool {
	ct := cs.TypeObj
	if ct == nil {
		return false
	}
	for _, bt := range []*ovsdb.BaseType{ct.Key, ct.Value} {
		if bt == nil {
			continue
		}
		_, minInt := bt.MinInteger()
		_, maxInt := bt.MaxInteger()
		_, minReal := bt.MinReal()
		_, maxReal := bt.MaxReal()
		_, minLen := bt.MinLength()
		_, maxLen := bt.MaxLength()
		if len(bt.Enum) > 0 || minInt == nil || maxInt == nil || minReal == nil || maxReal == nil || minLen == nil || maxLen == nil {
			return true
		}
	}
	// Exactly one is a plain Go value, at most one a pointer.
	least, most := ct.Min(), ct.Max()
	return !(least == 1 && most == 1) && !(least == 0 && (most == 1 || most == ovsdb.Unlimited))
}

// row is a model of a table, read through its codec.
type row struct {
	tc *tableCodec
	v  reflect.Value // the model's struct
}

func (tc *tableCodec) row(m model.Model) row {
	return row{tc: tc, v: reflect.ValueOf(m).Elem()}
}

// field is a column's Go value, invalid if the model lacks the column.
func (r row) field(cc *columnCodec) reflect.Value {
	if cc.field < 0 {
		return reflect.Value{}
	}
	return r.v.Field(cc.field)
}

// native is a column's value in libovsdb's Go form, nil if the model lacks
// the column.
func (r row) native(column string) any {
	cc := r.tc.byName[column]
	if cc == nil || cc.field < 0 {
		return nil
	}
	return r.v.Field(cc.field).Interface()
}

// value is a column's value in OVSDB notation (libovsdb's OvsSet, OvsMap,
// UUID or a plain atom), nil for a column the table lacks.
func (r row) value(column string) any {
	cc := r.tc.byName[column]
	if cc == nil {
		return nil
	}
	if cc.field < 0 {
		return defaultValue(cc.schema)
	}
	ovs, err := ovsdb.NativeToOvs(cc.schema, r.v.Field(cc.field).Interface())
	if err != nil {
		return defaultValue(cc.schema)
	}
	return ovs
}

// appendRow appends the JSON object of the given columns of r, without
// those at their default value when skipDefaults is set (as ovsdb-server
// does in update2 inserts and in its file).
func (r row) appendRow(b []byte, columns []*columnCodec, skipDefaults bool) []byte {
	b = append(b, '{')
	first := true
	for _, cc := range columns {
		f := r.field(cc)
		if skipDefaults && isDefault(cc, f) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = wire.AppendString(b, cc.name)
		b = append(b, ':')
		b = appendValue(b, cc, f)
	}
	return append(b, '}')
}

// isDefault reports whether a column's Go value is its default (RFC 7047,
// 5.2.1): empty, zero, false or the all-zero uuid.
func isDefault(cc *columnCodec, f reflect.Value) bool {
	if !f.IsValid() {
		return true
	}
	switch f.Kind() {
	case reflect.Pointer:
		return f.IsNil()
	case reflect.Slice, reflect.Map:
		return f.Len() == 0
	case reflect.String:
		return f.String() == "" || cc.keyUUID && f.String() == zeroTxnID
	default:
		return f.IsZero()
	}
}

// appendValue appends a column's value in OVSDB's JSON notation: a set of
// one element as that element, uuids as ["uuid", ...].
func appendValue(b []byte, cc *columnCodec, f reflect.Value) []byte {
	if !f.IsValid() {
		v, err := json.Marshal(defaultValue(cc.schema))
		if err != nil {
			return append(b, "null"...)
		}
		return append(b, v...)
	}
	switch f.Kind() {
	case reflect.Pointer:
		if f.IsNil() {
			return append(b, `["set",[]]`...)
		}
		return appendAtom(b, f.Elem(), cc.keyUUID)
	case reflect.Slice:
		switch f.Len() {
		case 0:
			return append(b, `["set",[]]`...)
		case 1:
			return appendAtom(b, f.Index(0), cc.keyUUID)
		}
		b = append(b, `["set",[`...)
		for i := range f.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAtom(b, f.Index(i), cc.keyUUID)
		}
		return append(b, "]]"...)
	case reflect.Map:
		b = append(b, `["map",[`...)
		for i, it := 0, f.MapRange(); it.Next(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = appendAtom(b, it.Key(), cc.keyUUID)
			b = append(b, ',')
			b = appendAtom(b, it.Value(), cc.valueUUID)
			b = append(b, ']')
		}
		return append(b, "]]"...)
	default:
		return appendAtom(b, f, cc.keyUUID)
	}
}

// appendAtom appends one atom's JSON.
func appendAtom(b []byte, a reflect.Value, isUUID bool) []byte {
	switch a.Kind() {
	case reflect.String:
		if isUUID {
			u := a.String()
			if u == "" {
				u = zeroTxnID
			}
			b = append(b, `["uuid",`...)
			return append(wire.AppendString(b, u), ']')
		}
		return wire.AppendString(b, a.String())
	case reflect.Int, reflect.Int64:
		return strconv.AppendInt(b, a.Int(), 10)
	case reflect.Bool:
		return strconv.AppendBool(b, a.Bool())
	default:
		v, err := json.Marshal(a.Interface())
		if err != nil {
			return append(b, "null"...)
		}
		return append(b, v...)
	}
}

// elements are the elements of a set column's Go value (a pointer or a
// slice), or the keys of a map's.
func elements(f reflect.Value) []reflect.Value {
	switch f.Kind() {
	case reflect.Pointer:
		if f.IsNil() {
			return nil
		}
		return []reflect.Value{f.Elem()}
	case reflect.Slice:
		elems := make([]reflect.Value, f.Len())
		for i := range elems {
			elems[i] = f.Index(i)
		}
		return elems
	case reflect.Map:
		return f.MapKeys()
	default:
		return []reflect.Value{f}
	}
}

// atomSet is the elements of a set column's Go value, as a set.
func atomSet(elems []reflect.Value) map[any]struct{} {
	set := make(map[any]struct{}, len(elems))
	for _, e := range elems {
		set[e.Interface()] = struct{}{}
	}
	return set
}

// appendDiff appends the <row-update2> "modify" value of a column that went
// from old to new (ovsdb-server(7), update2): the new value of an atomic
// column or of a set of at most one element, the symmetric difference of
// a larger set, and for a map the pairs that are new or changed, with
// their new value, and the removed keys, with their old value. It reports false, appending nothing, when the column did
// not change.
func appendDiff(b []byte, cc *columnCodec, old, new reflect.Value) ([]byte, bool) {
	if !old.IsValid() || !new.IsValid() {
		return b, false
	}
	switch new.Kind() {
	case reflect.Pointer:
		// A set of at most one element: ovsdb-server sends its new
		// value, as for an atomic column.
		if old.IsNil() == new.IsNil() && (new.IsNil() || old.Elem().Equal(new.Elem())) {
			return b, false
		}
		return appendValue(b, cc, new), true
	case reflect.Slice:
		var d []reflect.Value
		oldElems, newElems := elements(old), elements(new)
		oldSet, newSet := atomSet(oldElems), atomSet(newElems)
		for _, e := range oldElems {
			if _, ok := newSet[e.Interface()]; !ok {
				d = append(d, e)
			}
		}
		for _, e := range newElems {
			if _, ok := oldSet[e.Interface()]; !ok {
				d = append(d, e)
			}
		}
		if len(d) == 0 {
			return b, false
		}
		if len(d) == 1 {
			return appendAtom(b, d[0], cc.keyUUID), true
		}
		b = append(b, `["set",[`...)
		for i, e := range d {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAtom(b, e, cc.keyUUID)
		}
		return append(b, "]]"...), true
	case reflect.Map:
		start := len(b)
		b = append(b, `["map",[`...)
		n := 0
		pair := func(k, v reflect.Value) {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = append(b, '[')
			b = appendAtom(b, k, cc.keyUUID)
			b = append(b, ',')
			b = appendAtom(b, v, cc.valueUUID)
			b = append(b, ']')
		}
		for it := new.MapRange(); it.Next(); {
			if ov := old.MapIndex(it.Key()); !ov.IsValid() || !ov.Equal(it.Value()) {
				pair(it.Key(), it.Value())
			}
		}
		for it := old.MapRange(); it.Next(); {
			if !new.MapIndex(it.Key()).IsValid() {
				pair(it.Key(), it.Value())
			}
		}
		if n == 0 {
			return b[:start], false
		}
		return append(b, "]]"...), true
	default:
		if old.Equal(new) {
			return b, false
		}
		return appendAtom(b, new, cc.keyUUID), true
	}
}

// changed reports whether a column differs between two rows, comparing
// sets and maps as such.
func changed(cc *columnCodec, old, new reflect.Value) bool {
	_, ok := appendDiff(nil, cc, old, new)
	return ok
}
