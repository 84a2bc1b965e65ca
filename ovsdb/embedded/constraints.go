package embedded

import (
	"fmt"
	"reflect"
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
				if err := checkField(cc.schema, r.field(cc)); err != nil {
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

// checkField checks one column's Go value (a row's field) against the
// column's type.
func checkField(cs *ovsdb.ColumnSchema, f reflect.Value) error {
	ct := cs.TypeObj
	if ct == nil || !f.IsValid() {
		return nil
	}
	if cs.Type == ovsdb.TypeSet || cs.Type == ovsdb.TypeMap {
		n := 1
		switch f.Kind() {
		case reflect.Pointer:
			if f.IsNil() {
				n = 0
			}
		case reflect.Slice, reflect.Map:
			n = f.Len()
		}
		if err := checkSize(ct, n); err != nil {
			return err
		}
	}
	if f.Kind() == reflect.Map {
		for it := f.MapRange(); it.Next(); {
			if err := checkAtom(ct.Key, it.Key().Interface()); err != nil {
				return err
			}
			if err := checkAtom(ct.Value, it.Value().Interface()); err != nil {
				return err
			}
		}
		return nil
	}
	for _, e := range elements(f) {
		if err := checkAtom(ct.Key, e.Interface()); err != nil {
			return err
		}
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
