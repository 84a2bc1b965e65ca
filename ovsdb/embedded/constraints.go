package embedded

import (
	"fmt"
	"slices"
	"unicode/utf8"

	dbase "github.com/ovn-org/libovsdb/database"
	"github.com/ovn-org/libovsdb/model"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// checkConstraints finds the first value in the rows a transaction leaves
// that its column's type forbids (RFC 7047, 3.2: enum, minInteger,
// maxInteger, minReal, maxReal, minLength, maxLength, min and max), which
// ovsdb-server rejects as a "constraint violation" and libovsdb does not
// check. References are libovsdb's to check. It returns nil when every
// value fits.
func checkConstraints(db *database, update dbase.Update) error {
	for _, table := range update.GetUpdatedTables() {
		tc := db.codecs[table]
		var columns []*columnCodec
		for _, cc := range tc.columns {
			if cc.constrained {
				columns = append(columns, cc)
			}
		}
		if len(columns) == 0 {
			continue
		}
		err := update.ForEachModelUpdate(table, func(uuid string, _, new model.Model) error {
			if new == nil {
				return nil
			}
			r := tc.row(new)
			for _, cc := range columns {
				if err := checkValue(cc.schema, r.value(cc.name)); err != nil {
					return fmt.Errorf("table %s column %s row %s: %w", table, cc.name, uuid, err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// checkValue checks one column value, in OVSDB notation, against the
// column's type.
func checkValue(cs *ovsdb.ColumnSchema, v any) error {
	ct := cs.TypeObj
	if ct == nil {
		return nil
	}
	switch cs.Type {
	case ovsdb.TypeSet:
		elems := setElems(v)
		if err := checkSize(ct, len(elems)); err != nil {
			return err
		}
		for e := range elems {
			if err := checkAtom(ct.Key, e); err != nil {
				return err
			}
		}
	case ovsdb.TypeMap:
		pairs := mapPairs(v)
		if err := checkSize(ct, len(pairs)); err != nil {
			return err
		}
		for k, val := range pairs {
			if err := checkAtom(ct.Key, k); err != nil {
				return err
			}
			if err := checkAtom(ct.Value, val); err != nil {
				return err
			}
		}
	default:
		return checkAtom(ct.Key, v)
	}
	return nil
}

func checkSize(ct *ovsdb.ColumnType, n int) error {
	if n < ct.Min() || (ct.Max() != ovsdb.Unlimited && n > ct.Max()) {
		return fmt.Errorf("%d elements, the column allows %d to %d", n, ct.Min(), ct.Max())
	}
	return nil
}

// checkAtom checks one atom against its base type's constraints.
func checkAtom(bt *ovsdb.BaseType, a any) error {
	if bt == nil {
		return nil
	}
	if len(bt.Enum) > 0 && !slices.ContainsFunc(bt.Enum, func(e any) bool { return sameAtom(e, a) }) {
		return fmt.Errorf("%v is not one of the allowed values %v", a, bt.Enum)
	}
	switch a := a.(type) {
	case int:
		if lo, err := bt.MinInteger(); err == nil && a < lo {
			return fmt.Errorf("%d is less than minimum allowed value %d", a, lo)
		}
		if hi, err := bt.MaxInteger(); err == nil && a > hi {
			return fmt.Errorf("%d is greater than maximum allowed value %d", a, hi)
		}
	case float64:
		if lo, err := bt.MinReal(); err == nil && a < lo {
			return fmt.Errorf("%g is less than minimum allowed value %g", a, lo)
		}
		if hi, err := bt.MaxReal(); err == nil && a > hi {
			return fmt.Errorf("%g is greater than maximum allowed value %g", a, hi)
		}
	case string:
		n := utf8.RuneCountInString(a)
		if lo, err := bt.MinLength(); err == nil && n < lo {
			return fmt.Errorf("%q is shorter than %d characters", a, lo)
		}
		if hi, err := bt.MaxLength(); err == nil && n > hi {
			return fmt.Errorf("%q is longer than %d characters", a, hi)
		}
	}
	return nil
}

// sameAtom compares an enum value as the schema's JSON gave it (numbers as
// float64) with an atom.
func sameAtom(e, a any) bool {
	if i, ok := a.(int); ok {
		a = float64(i)
	}
	return e == a
}
