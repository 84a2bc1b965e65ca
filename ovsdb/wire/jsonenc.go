package wire

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// appendJSON appends the JSON of v, in OVSDB's notation for libovsdb's
// types, with the same meaning as encoding/json with their MarshalJSON
// methods. Those methods marshal every set, map and UUID into a buffer of
// its own, which encoding/json then scans and copies into the enclosing
// one; a cold start writes tens of thousands of rows of them. Map keys and
// row columns come out sorted. Types it does not know go through
// encoding/json.
func appendJSON(b []byte, v any) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return AppendString(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case lovsdb.UUID:
		tag := "uuid"
		if lovsdb.ValidateUUID(v.GoUUID) != nil {
			tag = "named-uuid"
		}
		b = AppendString(append(b, '['), tag)
		b = AppendString(append(b, ','), v.GoUUID)
		return append(b, ']'), nil
	case lovsdb.OvsSet:
		if len(v.GoSet) == 1 {
			return appendJSON(b, v.GoSet[0])
		}
		b = append(b, `["set",`...)
		if b, err = appendJSON(b, v.GoSet); err != nil {
			return nil, err
		}
		return append(b, ']'), nil
	case lovsdb.OvsMap:
		// On the stack for the size of most maps written (a flow's
		// external_ids and tags).
		keys := make([]any, 0, 8)
		for k := range v.GoMap {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareAny)
		b = append(b, `["map",[`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			if b, err = appendJSON(b, k); err != nil {
				return nil, err
			}
			b = append(b, ',')
			if b, err = appendJSON(b, v.GoMap[k]); err != nil {
				return nil, err
			}
			b = append(b, ']')
		}
		return append(b, "]]"...), nil
	case lovsdb.Row:
		return appendObject(b, v, nil)
	case map[string]any:
		return appendObject(b, v, nil)
	case []any:
		return appendArray(b, v)
	case []string:
		return appendArray(b, v)
	case []lovsdb.Row:
		return appendArray(b, v)
	case lovsdb.Condition:
		return appendArray(b, []any{v.Column, string(v.Function), v.Value})
	case []lovsdb.Condition:
		return appendArray(b, v)
	case lovsdb.Mutation:
		return appendArray(b, []any{v.Column, string(v.Mutator), v.Value})
	case []lovsdb.Mutation:
		return appendArray(b, v)
	case lovsdb.Operation:
		return appendOperation(b, &v)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

// compareAny orders map keys: strings among themselves, anything else by
// its printed form.
func compareAny(a, b any) int {
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok {
		return cmp.Compare(as, bs)
	}
	return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

func appendArray[T any](b []byte, vs []T) ([]byte, error) {
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendJSON(b, v); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendObject appends m as a JSON object, without the members whose
// value omit (when given) reports.
func appendObject[M ~map[string]any](b []byte, m M, omit func(any) bool) ([]byte, error) {
	b = append(b, '{')
	// On the stack for the size of a row: a transaction may have tens of
	// thousands.
	keys := make([]string, 0, 16)
	for k, v := range m {
		if omit == nil || !omit(v) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(AppendString(b, k), ':')
		var err error
		if b, err = appendJSON(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendOperation writes the members libovsdb's Operation.MarshalJSON
// writes: those set, "where" always for a select, and "row" always for an
// insert.
func appendOperation(b []byte, o *lovsdb.Operation) ([]byte, error) {
	b = AppendString(append(b, `{"op":`...), o.Op)
	str := func(name, v string) {
		if v != "" {
			b = AppendString(append(append(b, ','), name...), v)
		}
	}
	var err error
	val := func(name string, v any, set bool) {
		if set && err == nil {
			b = append(append(b, ','), name...)
			b, err = appendJSON(b, v)
		}
	}
	str(`"table":`, o.Table)
	row := o.Row
	if row == nil && o.Op == lovsdb.OperationInsert {
		// RFC 7047 requires an insert's row, empty or not (libovsdb
		// omits an empty one, which ovsdb-server refuses).
		row = lovsdb.Row{}
	}
	if o.Op == lovsdb.OperationInsert {
		// An insert's empty sets and maps are left out: each is its
		// column's default, and the server parses and checks fewer
		// columns (a cold start's Port_Bindings have half a dozen).
		b = append(b, `,"row":`...)
		b, err = appendObject(b, row, isEmptyValue)
	} else {
		val(`"row":`, row, len(row) > 0)
	}
	val(`"rows":`, o.Rows, len(o.Rows) > 0)
	val(`"columns":`, o.Columns, len(o.Columns) > 0)
	val(`"mutations":`, o.Mutations, len(o.Mutations) > 0)
	val(`"timeout":`, derefOr(o.Timeout), o.Timeout != nil)
	where := o.Where
	if where == nil && o.Op == lovsdb.OperationSelect {
		where = []lovsdb.Condition{}
	}
	val(`"where":`, where, where != nil && (len(where) > 0 || o.Op == lovsdb.OperationSelect))
	str(`"until":`, o.Until)
	val(`"durable":`, derefOr(o.Durable), o.Durable != nil)
	val(`"comment":`, derefOr(o.Comment), o.Comment != nil)
	val(`"lock":`, derefOr(o.Lock), o.Lock != nil)
	str(`"uuid":`, o.UUID)
	str(`"uuid-name":`, o.UUIDName)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// isEmptyValue reports whether v is an empty OVSDB set or map.
func isEmptyValue(v any) bool {
	switch v := v.(type) {
	case lovsdb.OvsSet:
		return len(v.GoSet) == 0
	case lovsdb.OvsMap:
		return len(v.GoMap) == 0
	}
	return false
}

func derefOr[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

// AppendString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD as
// encoding/json does.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
		i++
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
