package embedded

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/ovn-org/libovsdb/ovsdb"
)

// checkAtoms checks a value's atoms against its column's constraints (RFC
// 7047, 3.2: enum, minInteger, maxInteger, minReal, maxReal, minLength,
// maxLength), which ovsdb-server checks as it parses a value or mutates
// one.
func (c *column) checkAtoms(d datum) error {
	ct := c.schema.TypeObj
	for i, k := range d.keys {
		if err := checkAtom(ct.Key, c.key, k); err != nil {
			return err
		}
		if c.isMap {
			if err := checkAtom(ct.Value, c.value, d.vals[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkAtom checks one atom of type t against its base type's constraints.
func checkAtom(bt *ovsdb.BaseType, t atomType, a atom) error {
	if len(bt.Enum) > 0 && !slices.ContainsFunc(bt.Enum, func(e any) bool { return sameAtom(e, t, a) }) {
		return fmt.Errorf("%s is not one of the allowed values %v", appendAtom(nil, t, a), bt.Enum)
	}
	switch t {
	case atomInteger:
		if lo, err := bt.MinInteger(); err == nil && a.n < int64(lo) {
			return fmt.Errorf("%d is less than minimum allowed value %d", a.n, lo)
		}
		if hi, err := bt.MaxInteger(); err == nil && a.n > int64(hi) {
			return fmt.Errorf("%d is greater than maximum allowed value %d", a.n, hi)
		}
	case atomReal:
		if lo, err := bt.MinReal(); err == nil && a.real() < lo {
			return fmt.Errorf("%g is less than minimum allowed value %g", a.real(), lo)
		}
		if hi, err := bt.MaxReal(); err == nil && a.real() > hi {
			return fmt.Errorf("%g is greater than maximum allowed value %g", a.real(), hi)
		}
	case atomString:
		n := utf8.RuneCountInString(a.s)
		if lo, err := bt.MinLength(); err == nil && n < lo {
			return fmt.Errorf("%q is shorter than %d characters", a.s, lo)
		}
		if hi, err := bt.MaxLength(); err == nil && n > hi {
			return fmt.Errorf("%q is longer than %d characters", a.s, hi)
		}
	}
	return nil
}

// sameAtom compares an enum value as the schema's JSON gave it (numbers as
// float64) with an atom of type t.
func sameAtom(e any, t atomType, a atom) bool {
	switch e := e.(type) {
	case string:
		return (t == atomString || t == atomUUID) && e == a.s
	case float64:
		return t == atomInteger && e == float64(a.n) || t == atomReal && e == a.real()
	case bool:
		return t == atomBoolean && e == (a.n != 0)
	}
	return false
}
