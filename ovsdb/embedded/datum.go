package embedded

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// The servers keep rows in their own form, as ovsdb-server does: a row is
// one datum per column, a datum the sorted keys (and a map's values) of a
// column's value, an atom one value of a base type. Operations are parsed
// from the request's JSON straight into datums, and the file's records, the
// monitor updates and the replies are written from them; nothing goes
// through reflection or libovsdb's mapper.

// atomType is an OVSDB base type.
type atomType uint8

const (
	atomInteger atomType = iota
	atomReal
	atomBoolean
	atomString
	atomUUID
)

// atomTypeOf is the atomType of a base type's name.
func atomTypeOf(name string) (atomType, error) {
	switch name {
	case ovsdb.TypeInteger:
		return atomInteger, nil
	case ovsdb.TypeReal:
		return atomReal, nil
	case ovsdb.TypeBoolean:
		return atomBoolean, nil
	case ovsdb.TypeString:
		return atomString, nil
	case ovsdb.TypeUUID:
		return atomUUID, nil
	}
	return 0, fmt.Errorf("unknown base type %q", name)
}

// atom is one value of a base type: a string or uuid in s; an integer, a
// boolean (0 or 1) or a real's bits in n. Its type is its column's.
type atom struct {
	s string
	n int64
}

func realAtom(f float64) atom { return atom{n: int64(math.Float64bits(f))} }

func (a atom) real() float64 { return math.Float64frombits(uint64(a.n)) }

// compareAtoms orders two atoms of type t as ovsdb-server sorts them.
func compareAtoms(t atomType, a, b atom) int {
	switch t {
	case atomString, atomUUID:
		return strings.Compare(a.s, b.s)
	case atomReal:
		return cmp.Compare(a.real(), b.real())
	default:
		return cmp.Compare(a.n, b.n)
	}
}

// datum is a column's value: its atoms, or a map's keys, sorted and
// distinct, and a map's values beside its keys (nil for a set). Datums are
// never changed in place once in a row: an operation builds new slices.
type datum struct {
	keys, vals []atom
}

func (d datum) len() int { return len(d.keys) }

// column is one column of a table: its schema and what the server needs of
// it at every row.
type column struct {
	name       string
	index      int // in a row's datums; -1 for _uuid
	schema     *ovsdb.ColumnSchema
	key, value atomType
	isMap      bool
	min, max   int // max is ovsdb.Unlimited (-1) for no bound
	mutable    bool
	// constrained is set when the column's type limits its values beyond
	// its base types (checkAtoms).
	constrained bool
	keyRef      *refTarget // what the keys refer to, nil if no reference
	valueRef    *refTarget
	def         datum // the column's default value (RFC 7047, 5.2.1)
}

// uuidColumn is the "_uuid" column every table has.
var uuidColumn = &column{name: "_uuid", index: -1, key: atomUUID, min: 1, max: 1}

func newColumn(name string, index int, cs *ovsdb.ColumnSchema) (*column, error) {
	ct := cs.TypeObj
	c := &column{name: name, index: index, schema: cs, min: ct.Min(), max: ct.Max(), mutable: cs.Mutable(), constrained: isConstrained(cs)}
	var err error
	if c.key, err = atomTypeOf(ct.Key.Type); err != nil {
		return nil, err
	}
	c.keyRef = targetOf(ct.Key)
	if ct.Value != nil {
		c.isMap = true
		if c.value, err = atomTypeOf(ct.Value.Type); err != nil {
			return nil, err
		}
		c.valueRef = targetOf(ct.Value)
	}
	if c.min == 1 {
		c.def = datum{keys: []atom{defaultAtom(c.key)}}
	}
	return c, nil
}

// defaultAtom is a base type's default: 0, 0.0, false, "" or the all-zero
// uuid.
func defaultAtom(t atomType) atom {
	if t == atomUUID {
		return atom{s: zeroTxnID}
	}
	return atom{}
}

// isConstrained reports whether a column's type limits its values beyond
// its base types and number of elements: an enum, bounds on integers, reals
// or string lengths.
func isConstrained(cs *ovsdb.ColumnSchema) bool {
	ct := cs.TypeObj
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
	return false
}

// isDefault reports whether d is c's default value.
func (c *column) isDefault(d datum) bool {
	return len(d.keys) == 0 || c.min == 1 && len(d.keys) == 1 && d.keys[0] == c.def.keys[0]
}

// equalDatums reports whether two datums of one column are the same value.
func equalDatums(a, b datum) bool {
	return slices.Equal(a.keys, b.keys) && slices.Equal(a.vals, b.vals)
}

// find is the position of key in d's sorted keys, and whether it is there.
func (c *column) find(d datum, key atom) (int, bool) {
	return slices.BinarySearchFunc(d.keys, key, func(a, b atom) int { return compareAtoms(c.key, a, b) })
}

// sortDatum sorts d's keys (and values with them) and fails on a repeated
// key, as ovsdb-server refuses a set or map that names one twice.
func (c *column) sortDatum(d *datum) error {
	less := func(i, j int) int { return compareAtoms(c.key, d.keys[i], d.keys[j]) }
	sorted := true
	for i := 1; i < len(d.keys); i++ {
		if less(i-1, i) >= 0 {
			sorted = false
			break
		}
	}
	if !sorted {
		idx := make([]int, len(d.keys))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, less)
		keys := make([]atom, len(idx))
		var vals []atom
		if d.vals != nil {
			vals = make([]atom, len(idx))
		}
		for i, j := range idx {
			keys[i] = d.keys[j]
			if vals != nil {
				vals[i] = d.vals[j]
			}
		}
		d.keys, d.vals = keys, vals
	}
	for i := 1; i < len(d.keys); i++ {
		if compareAtoms(c.key, d.keys[i-1], d.keys[i]) == 0 {
			if c.isMap {
				return fmt.Errorf("map contains duplicate key")
			}
			return fmt.Errorf("set contains duplicate value")
		}
	}
	return nil
}

// appendAtom appends an atom's JSON.
func appendAtom(b []byte, t atomType, a atom) []byte {
	switch t {
	case atomString:
		return wire.AppendString(b, a.s)
	case atomUUID:
		b = append(b, `["uuid",`...)
		return append(wire.AppendString(b, a.s), ']')
	case atomInteger:
		return strconv.AppendInt(b, a.n, 10)
	case atomBoolean:
		return strconv.AppendBool(b, a.n != 0)
	default:
		v, err := json.Marshal(a.real())
		if err != nil {
			return append(b, "0"...)
		}
		return append(b, v...)
	}
}

// appendDatum appends a column's value in OVSDB's JSON notation: a set of
// one element as that element, a map as ["map", pairs].
func (c *column) appendDatum(b []byte, d datum) []byte {
	if c.isMap {
		b = append(b, `["map",[`...)
		for i := range d.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendAtom(append(b, '['), c.key, d.keys[i]), ',')
			b = append(appendAtom(b, c.value, d.vals[i]), ']')
		}
		return append(b, "]]"...)
	}
	if len(d.keys) == 1 {
		return appendAtom(b, c.key, d.keys[0])
	}
	b = append(b, `["set",[`...)
	for i, k := range d.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAtom(b, c.key, k)
	}
	return append(b, "]]"...)
}

// appendDiff appends the <row-update2> "modify" value of a column that went
// from old to new (ovsdb-server(7), update2): the new value of a column of
// at most one element, the symmetric difference of a larger set, and for a
// map the pairs that are new or changed, with their new value, and the
// removed keys, with their old value. It reports false, appending nothing,
// when the column did not change.
func (c *column) appendDiff(b []byte, old, new datum) ([]byte, bool) {
	if equalDatums(old, new) {
		return b, false
	}
	if !c.isMap && c.max == 1 {
		return c.appendDatum(b, new), true
	}
	var d datum
	i, j := 0, 0
	for i < len(old.keys) || j < len(new.keys) {
		o := 1
		switch {
		case i == len(old.keys):
			o = 1
		case j == len(new.keys):
			o = -1
		default:
			o = compareAtoms(c.key, old.keys[i], new.keys[j])
		}
		switch {
		case o < 0: // removed
			d.keys = append(d.keys, old.keys[i])
			if c.isMap {
				d.vals = append(d.vals, old.vals[i])
			}
			i++
		case o > 0: // added
			d.keys = append(d.keys, new.keys[j])
			if c.isMap {
				d.vals = append(d.vals, new.vals[j])
			}
			j++
		default:
			if c.isMap && old.vals[i] != new.vals[j] {
				d.keys = append(d.keys, new.keys[j])
				d.vals = append(d.vals, new.vals[j])
			}
			i++
			j++
		}
	}
	return c.appendDatum(b, d), true
}
