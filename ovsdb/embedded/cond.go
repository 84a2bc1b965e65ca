package embedded

import (
	"slices"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// condition is one element of a "where" (RFC 7047, 5.1: <condition>) or of
// a monitor's condition (ovsdb-server(7)): a literal true or false, or a
// function of a column's value and an argument.
type condition struct {
	literal *bool
	col     *column
	fn      string
	arg     datum
}

// parseWhere parses a JSON array of conditions of table t.
func (t *table) parseWhere(v []byte, named symbols) ([]condition, error) {
	var where []condition
	err := wire.WalkArray(v, func(e []byte) error {
		switch string(e) {
		case "true", "false":
			b := string(e) == "true"
			where = append(where, condition{literal: &b})
			return nil
		}
		parts, err := elements(e)
		if err != nil || len(parts) != 3 {
			return syntaxErr("bad condition %.80s", e)
		}
		name, err := wire.JSONString(parts[0])
		if err != nil {
			return syntaxErr("bad condition %.80s", e)
		}
		fn, err := wire.JSONString(parts[1])
		if err != nil {
			return syntaxErr("bad condition %.80s", e)
		}
		col, err := t.column(name)
		if err != nil {
			return err
		}
		switch fn {
		case "==", "!=", "includes", "excludes", "<", "<=", ">", ">=":
		default:
			return syntaxErr("unknown function %q in condition %.80s", fn, e)
		}
		// ovsdb-server's sizes of a condition's argument.
		min, max := col.min, col.max
		scalar := min == 1 && max == 1
		switch {
		case fn == "<" || fn == "<=" || fn == ">" || fn == ">=":
			if max != 1 || col.isMap || col.key != atomInteger && col.key != atomReal {
				return syntaxErr("Type mismatch: %q operator may not be applied to column %s.", fn, name)
			}
			min = 1
		case fn == "includes" && !scalar:
			min = 0
		case fn == "excludes" && !scalar:
			min, max = 0, ovsdb.Unlimited
		}
		arg, err := col.parseDatum(parts[2], named, min, max)
		if err != nil {
			return asOpErr(err, "condition %.80s", e)
		}
		where = append(where, condition{col: col, fn: fn, arg: arg})
		return nil
	})
	if err != nil {
		return nil, asOpErr(err, "bad where")
	}
	return where, nil
}

// holds reports whether r satisfies the condition.
func (c *condition) holds(r *row) bool {
	if c.literal != nil {
		return *c.literal
	}
	v := r.value(c.col)
	switch c.fn {
	case "==":
		return equalDatums(v, c.arg)
	case "!=":
		return !equalDatums(v, c.arg)
	case "includes":
		return c.col.includes(v, c.arg)
	case "excludes":
		return c.col.excludes(v, c.arg)
	}
	if len(v.keys) != 1 || len(c.arg.keys) != 1 {
		return false
	}
	o := compareAtoms(c.col.key, v.keys[0], c.arg.keys[0])
	switch c.fn {
	case "<":
		return o < 0
	case "<=":
		return o <= 0
	case ">":
		return o > 0
	default:
		return o >= 0
	}
}

// includes reports whether every element (or pair) of sub is in d.
func (c *column) includes(d, sub datum) bool {
	for i, k := range sub.keys {
		j, ok := c.find(d, k)
		if !ok || c.isMap && d.vals[j] != sub.vals[i] {
			return false
		}
	}
	return true
}

// excludes reports whether no element (or pair) of other is in d.
func (c *column) excludes(d, other datum) bool {
	for i, k := range other.keys {
		if j, ok := c.find(d, k); ok && (!c.isMap || d.vals[j] == other.vals[i]) {
			return false
		}
	}
	return true
}

// matchesAll reports whether r satisfies every condition (a transaction's
// "where").
func matchesAll(where []condition, r *row) bool {
	for i := range where {
		if !where[i].holds(r) {
			return false
		}
	}
	return true
}

// matchesAny reports whether r satisfies one of the conditions (a
// monitor's); nil matches every row.
func matchesAny(where []condition, r *row) bool {
	if where == nil {
		return true
	}
	return slices.ContainsFunc(where, func(c condition) bool { return c.holds(r) })
}

// uuidOfWhere is the uuid a "where" starts with a condition _uuid == of,
// for a lookup in place of a scan.
func uuidOfWhere(where []condition) (string, bool) {
	if len(where) == 0 || where[0].col != uuidColumn || where[0].fn != "==" || len(where[0].arg.keys) != 1 {
		return "", false
	}
	return where[0].arg.keys[0].s, true
}
