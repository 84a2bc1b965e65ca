package wire

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ovn-org/libovsdb/model"
)

// rowDecoder decodes whole rows of one table into its model, without the
// generic notation and the reflection per value of libovsdb's path: a cold
// start reads every NB row, a take-over every SB row, and the SB echoes
// back every row northd inserts. Rows are in OVSDB JSON notation, as an
// update2 "initial" or "insert" gives them: columns with default values
// may be left out (their fields keep Go's zero value, as libovsdb leaves
// them), columns the model lacks are ignored.
type rowDecoder struct {
	typ     reflect.Type // the model's struct type
	uuid    int          // the index of its _uuid field
	columns map[string]columnDecoder
}

// columnDecoder sets the field index of a model from a column's value;
// whole says that an update2 "modify" gives the column's new value, else
// (a set or a map) the elements that went or came, which applyDiff applies.
type columnDecoder struct {
	index  int
	decode func(field reflect.Value, v []byte, known *knownStrings) error
	whole  bool
}

// sentStrings are the strings of the rows a transaction in flight
// inserts, which the server echoes back.
type sentStrings map[string]string

// knownStrings are strings a decoder takes instead of making equal ones:
// those sent (a string is then held once, by its writer and the decoded
// row both), and the uuids already decoded in the same update: a few rows
// (datapaths, groups, ports) are referred to by many (every flow names
// its datapath), which would otherwise each hold a copy of the uuid. It
// lives as long as one update's decoding; nil knows nothing.
type knownStrings struct {
	sent  sentStrings
	uuids map[string]string
}

// newRowDecoder makes the decoder of the model type typ (a pointer to a
// struct with ovsdb tags). It reports false when a field has a type it
// does not decode: atoms are strings (and uuids), integers and booleans;
// a column is an atom, a pointer to one (an optional value), a slice of
// them (a set) or a map of them.
func newRowDecoder(typ reflect.Type) (*rowDecoder, bool) {
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	d := &rowDecoder{typ: typ.Elem(), uuid: -1, columns: map[string]columnDecoder{}}
	for i := range d.typ.NumField() {
		f := d.typ.Field(i)
		col := f.Tag.Get("ovsdb")
		switch {
		case col == "":
			continue
		case col == "_uuid":
			if f.Type.Kind() != reflect.String {
				return nil, false
			}
			d.uuid = i
			continue
		}
		dec := columnDecoderOf(f.Type)
		if dec == nil {
			return nil, false
		}
		// ovsdb-server's difference of a column of at most one value is
		// its new value (ovsdb_datum_diff), of a set or map the elements
		// that went or came.
		d.columns[col] = columnDecoder{index: i, decode: dec, whole: f.Type.Kind() != reflect.Slice && f.Type.Kind() != reflect.Map}
	}
	return d, d.uuid >= 0
}

// decode decodes one row, the row uuid; its strings equal to known ones
// are those.
func (d *rowDecoder) decode(row []byte, uuid string, known *knownStrings) (model.Model, error) {
	p := reflect.New(d.typ)
	s := p.Elem()
	s.Field(d.uuid).SetString(uuid)
	err := walkMembers(row, func(q, v []byte) error {
		// Column names need no escapes: a key with one is no column.
		c, ok := d.columns[string(q[1:len(q)-1])]
		if !ok {
			return nil
		}
		if err := c.decode(s.Field(c.index), v, known); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p.Interface(), nil
}

// modify applies an update2 "modify" row, diff, to a copy of old: a
// column of at most one value takes its new value, a set or a map the
// elements that went or came (applyDiff); the sets and maps the diff
// does not touch are shared with old. It reports false, changing
// nothing, when old is not of the decoder's type. changed, set when a
// set or map column changed, holds the diff of each column in its
// field's type (Change.Diff); cols names the columns changed
// (Change.Columns). Each --wait=sb change modifies the
// configuration handshake's integers, a port's up, its switch's ports and
// its flood groups' ports, which libovsdb's update arithmetic would pay
// for with encoding/json and reflection over the whole set.
func (d *rowDecoder) modify(old model.Model, diff []byte, known *knownStrings) (_ model.Model, changed map[string]any, cols []string, ok bool, err error) {
	o := reflect.ValueOf(old)
	if o.Type() != reflect.PointerTo(d.typ) || o.IsNil() {
		return nil, nil, nil, false, nil
	}
	p := reflect.New(d.typ)
	s := p.Elem()
	s.Set(o.Elem())
	var values []reflect.Value
	composite := false
	err = walkMembers(diff, func(q, v []byte) error {
		name := string(q[1 : len(q)-1])
		c, ok := d.columns[name]
		if !ok {
			return nil
		}
		f := s.Field(c.index)
		target := f
		if !c.whole {
			composite = true
			target = reflect.New(f.Type()).Elem()
		}
		if err := c.decode(target, v, known); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		if !c.whole {
			f.Set(applyDiff(f, target))
		}
		cols, values = append(cols, name), append(values, target)
		return nil
	})
	if err != nil {
		return nil, nil, nil, false, err
	}
	if composite {
		changed = make(map[string]any, len(cols))
		for i, col := range cols {
			changed[col] = values[i].Interface()
		}
	}
	return p.Interface(), changed, cols, true, nil
}

// applyDiff is a set or map column's value old with diff, the elements
// that went or came (ovsdb_datum_apply_diff), applied: a set's element
// goes when old has it, else comes, at its place in the server's order
// (atoms sorted, as a whole row's set comes), so that the new set is what
// the server holds and shares a prefix and a suffix with old; a map's key
// goes when old maps it to the same value, else takes the diff's value.
// old is not changed.
func applyDiff(old, diff reflect.Value) reflect.Value {
	if old.Kind() == reflect.Map {
		out := reflect.MakeMapWithSize(old.Type(), old.Len()+diff.Len())
		for it := old.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), it.Value())
		}
		for it := diff.MapRange(); it.Next(); {
			if v := out.MapIndex(it.Key()); v.IsValid() && v.Equal(it.Value()) {
				out.SetMapIndex(it.Key(), reflect.Value{})
			} else {
				out.SetMapIndex(it.Key(), it.Value())
			}
		}
		return out
	}
	out := reflect.AppendSlice(reflect.MakeSlice(old.Type(), 0, old.Len()+diff.Len()), old)
	for i := range diff.Len() {
		e := diff.Index(i)
		at, found := atomIndex(out, e)
		switch {
		case found:
			reflect.Copy(out.Slice(at, out.Len()), out.Slice(at+1, out.Len()))
			out = out.Slice(0, out.Len()-1)
		default:
			out = reflect.Append(out, e)
			reflect.Copy(out.Slice(at+1, out.Len()), out.Slice(at, out.Len()-1))
			out.Index(at).Set(e)
		}
	}
	return out
}

// atomIndex is where atom e is in set, or where it would go in the
// server's order: the first element after it. set is searched whole, in
// case it is not in that order.
func atomIndex(set, e reflect.Value) (int, bool) {
	at := set.Len()
	for i := range set.Len() {
		switch c := compareAtoms(set.Index(i), e); {
		case c == 0:
			return i, true
		case c > 0 && i < at:
			at = i
		}
	}
	return at, false
}

// compareAtoms orders two atoms of one kind as ovsdb_atom_compare_3way:
// strings and uuids (whose hex text orders as their value) byte-wise,
// integers by value, false before true.
func compareAtoms(a, b reflect.Value) int {
	switch a.Kind() {
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	case reflect.Int:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Bool:
		return cmp.Compare(boolInt(a.Bool()), boolInt(b.Bool()))
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// columnDecoderOf is the decoder of a column whose field has type t; nil
// for a type it does not decode.
func columnDecoderOf(t reflect.Type) func(reflect.Value, []byte, *knownStrings) error {
	if set := atomSetter(t); set != nil {
		return set
	}
	switch t.Kind() {
	case reflect.Pointer:
		set := atomSetter(t.Elem())
		if set == nil {
			return nil
		}
		return func(f reflect.Value, v []byte, known *knownStrings) error {
			elems, err := setElements(v)
			switch {
			case err != nil:
				return err
			case len(elems) > 1:
				return fmt.Errorf("set of %d for an optional column", len(elems))
			case len(elems) == 0:
				f.SetZero()
				return nil
			}
			p := reflect.New(t.Elem())
			if err := set(p.Elem(), elems[0], known); err != nil {
				return err
			}
			f.Set(p)
			return nil
		}
	case reflect.Slice:
		set := atomSetter(t.Elem())
		if set == nil {
			return nil
		}
		return func(f reflect.Value, v []byte, known *knownStrings) error {
			elems, err := setElements(v)
			if err != nil {
				return err
			}
			s := reflect.MakeSlice(t, len(elems), len(elems))
			for i, e := range elems {
				if err := set(s.Index(i), e, known); err != nil {
					return err
				}
			}
			f.Set(s)
			return nil
		}
	case reflect.Map:
		setKey, setValue := atomSetter(t.Key()), atomSetter(t.Elem())
		if setKey == nil || setValue == nil {
			return nil
		}
		return func(f reflect.Value, v []byte, known *knownStrings) error {
			arr, err := tagged(v, `"map"`)
			if err != nil {
				return err
			}
			pairs, err := arrayElements(arr)
			if err != nil {
				return err
			}
			m := reflect.MakeMapWithSize(t, len(pairs))
			k, val := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			for _, p := range pairs {
				kv, vv, err := pair(p)
				if err != nil {
					return err
				}
				if err := setKey(k, kv, known); err != nil {
					return err
				}
				if err := setValue(val, vv, known); err != nil {
					return err
				}
				m.SetMapIndex(k, val)
			}
			f.Set(m)
			return nil
		}
	}
	return nil
}

// atomSetter sets a field of type t from an atom; nil when t is not an
// atom's type.
func atomSetter(t reflect.Type) func(reflect.Value, []byte, *knownStrings) error {
	switch t.Kind() {
	case reflect.String:
		return func(f reflect.Value, v []byte, known *knownStrings) error {
			s, err := atomString(v, known)
			f.SetString(s)
			return err
		}
	case reflect.Int:
		return func(f reflect.Value, v []byte, _ *knownStrings) error {
			n, err := jsonInt(v)
			f.SetInt(int64(n))
			return err
		}
	case reflect.Bool:
		return func(f reflect.Value, v []byte, _ *knownStrings) error {
			switch string(v) {
			case "true":
				f.SetBool(true)
			case "false":
				f.SetBool(false)
			default:
				return fmt.Errorf("not a boolean: %.40s", v)
			}
			return nil
		}
	}
	return nil
}

// atomString decodes a string or a uuid (["uuid", "..."]) atom.
func atomString(v []byte, known *knownStrings) (string, error) {
	if len(v) > 0 && v[0] == '[' {
		u, err := tagged(v, `"uuid"`)
		if err != nil {
			return "", err
		}
		return known.uuid(u)
	}
	return decodeString(v, known)
}

// setElements is the elements of a set value: an ["set", [...]], or a
// single atom standing for a set of one.
func setElements(v []byte) ([][]byte, error) {
	if len(v) > 0 && v[0] == '[' {
		tag, arr, err := pair(v)
		if err != nil {
			return nil, err
		}
		if string(tag) == `"set"` {
			return arrayElements(arr)
		}
	}
	return [][]byte{v}, nil
}

// tagged is the value of a [tag, value] array whose tag is the JSON string
// tag, as ovsdb-server writes it (no escapes).
func tagged(v []byte, tag string) ([]byte, error) {
	t, value, err := pair(v)
	if err != nil {
		return nil, err
	}
	if string(t) != tag {
		return nil, fmt.Errorf("%s where %s was expected", t, tag)
	}
	return value, nil
}

// pair splits a JSON array of two elements.
func pair(v []byte) (first, second []byte, err error) {
	n := 0
	err = walkArray(v, func(e []byte) error {
		switch n++; n {
		case 1:
			first = e
		case 2:
			second = e
		}
		return nil
	})
	if err == nil && n != 2 {
		err = fmt.Errorf("not a pair: %.40s", v)
	}
	return first, second, err
}

// arrayElements is the elements of a JSON array, as sub-slices of it.
func arrayElements(v []byte) ([][]byte, error) {
	var elems [][]byte
	err := walkArray(v, func(e []byte) error {
		elems = append(elems, e)
		return nil
	})
	return elems, err
}

// decodeString decodes a JSON string, the known one when there is one
// equal. One of printable ASCII is decoded here (its common escapes
// undone), any other by encoding/json.
func decodeString(q []byte, known *knownStrings) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", fmt.Errorf("not a string: %.40s", q)
	}
	body := q[1 : len(q)-1]
	escaped := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c < 0x20 || c >= utf8.RuneSelf || c == '"':
			return slowString(q)
		case c == '\\':
			escaped = true
			i++ // the escaped byte, checked below
		}
	}
	if !escaped {
		return known.string(body), nil
	}
	out := make([]byte, 0, len(body))
	for {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			return known.string(append(out, body...)), nil
		}
		if i+1 >= len(body) {
			return slowString(q)
		}
		out = append(out, body[:i]...)
		switch c := body[i+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			return slowString(q)
		}
		body = body[i+2:]
	}
}

// string is the known string equal to b, or a new one.
func (k *knownStrings) string(b []byte) string {
	if k != nil {
		if s, ok := k.sent[string(b)]; ok {
			return s
		}
	}
	return string(b)
}

// uuid decodes the JSON string q of a uuid atom: the known string equal
// to it, else a new one that the rest of the update shares.
func (k *knownStrings) uuid(q []byte) (string, error) {
	if k == nil {
		return decodeString(q, nil)
	}
	body := q
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' {
		body = q[1 : len(q)-1]
	}
	if s, ok := k.uuids[string(body)]; ok {
		return s, nil
	}
	s, err := decodeString(q, k)
	if err != nil {
		return "", err
	}
	if k.uuids == nil {
		k.uuids = map[string]string{}
	}
	k.uuids[s] = s
	return s, nil
}

func slowString(q []byte) (string, error) {
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// jsonInt decodes a JSON integer.
func jsonInt(v []byte) (int, error) {
	if n, err := strconv.Atoi(string(v)); err == nil {
		return n, nil
	}
	var n int
	err := json.Unmarshal(v, &n)
	return n, err
}
