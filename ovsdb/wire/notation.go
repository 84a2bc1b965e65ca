package wire

import (
	"maps"
	"slices"

	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// The OVSDB notation (RFC 7047 5.1) of the values and conditions that
// northd's operations write, in libovsdb's Go types.

// VerifyOp is an operation that aborts its transaction unless row uuid of
// table still holds the values in cols, as the IDL's verify does: a write
// computed from a value someone has changed since fails, and is redone
// from the new value.
func VerifyOp(table, uuid string, cols lovsdb.Row) lovsdb.Operation {
	zero := 0
	return lovsdb.Operation{Op: lovsdb.OperationWait, Table: table, Where: WhereUUID(uuid), Timeout: &zero,
		Columns: slices.Sorted(maps.Keys(cols)), Until: "==", Rows: []lovsdb.Row{cols}}
}

// StrSet is ss as an OVSDB set of strings.
func StrSet(ss []string) lovsdb.OvsSet {
	set := make([]any, len(ss))
	for i, s := range ss {
		set[i] = s
	}
	return lovsdb.OvsSet{GoSet: set}
}

// OptString is s as an optional string column: a set of s when ok, else
// the empty set.
func OptString(s string, ok bool) lovsdb.OvsSet {
	if !ok {
		return lovsdb.OvsSet{GoSet: []any{}}
	}
	return StrSet([]string{s})
}

// OptInt is n as an optional integer column: a set of n when ok, else
// the empty set.
func OptInt(n int, ok bool) lovsdb.OvsSet {
	if !ok {
		return lovsdb.OvsSet{GoSet: []any{}}
	}
	return lovsdb.OvsSet{GoSet: []any{n}}
}

// StrMap is m as an OVSDB map of strings to strings.
func StrMap(m map[string]string) lovsdb.OvsMap {
	gm := make(map[any]any, len(m))
	for k, v := range m {
		gm[k] = v
	}
	return lovsdb.OvsMap{GoMap: gm}
}

// OptBool is b as an optional boolean column that is set.
func OptBool(b bool) lovsdb.OvsSet { return lovsdb.OvsSet{GoSet: []any{b}} }

// IsUUID reports whether s is a UUID in 8-4-4-4-12 hex digit form.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
