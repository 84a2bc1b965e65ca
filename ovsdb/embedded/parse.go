package embedded

import (
	"fmt"
	"strconv"

	"github.com/google/uuid"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// A request's JSON is walked as sub-slices of the message (no copy, no
// decoding into maps of interfaces); values are parsed where their column
// is known, straight into datums.

// elements are the elements of the JSON array b.
func elements(b []byte) ([][]byte, error) {
	var elems [][]byte
	err := wire.WalkArray(b, func(e []byte) error {
		elems = append(elems, e)
		return nil
	})
	return elems, err
}

// isJSONString reports whether the JSON value v is the string s.
func isJSONString(v []byte, s string) bool {
	return len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s
}

// pair is the two elements of the JSON array v of two.
func pair(v []byte) (first, second []byte, err error) {
	if len(v) == 0 || v[0] != '[' {
		return nil, nil, fmt.Errorf("expected 2-element array, got %.60s", v)
	}
	var elems [2][]byte
	n := 0
	err = wire.WalkArray(v, func(e []byte) error {
		if n < len(elems) {
			elems[n] = e
		}
		n++
		return nil
	})
	if err != nil || n != 2 {
		return nil, nil, fmt.Errorf("expected 2-element array, got %.60s", v)
	}
	return elems[0], elems[1], nil
}

// symbols are a transaction's named uuids: uuid-name → uuid.
type symbols map[string]string

// uuidOf is the uuid a named-uuid stands for: the row an insert of the
// transaction names so, or, if none does, a fresh one (a reference to it
// then dangles, as in ovsdb-server).
func (s symbols) uuidOf(name string) string {
	u, ok := s[name]
	if !ok {
		u = uuid.NewString()
		s[name] = u
	}
	return u
}

// parseAtom parses the JSON v as an atom of type t; named resolves
// named-uuids (nil: none are allowed).
func parseAtom(v []byte, t atomType, named symbols) (atom, error) {
	switch t {
	case atomString:
		if len(v) > 0 && v[0] == '"' {
			s, err := wire.JSONString(v)
			return atom{s: s}, err
		}
	case atomInteger:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return atom{n: n}, nil
		}
	case atomReal:
		if f, err := strconv.ParseFloat(string(v), 64); err == nil && len(v) > 0 && v[0] != '"' {
			return realAtom(f), nil
		}
	case atomBoolean:
		switch string(v) {
		case "true":
			return atom{n: 1}, nil
		case "false":
			return atom{}, nil
		}
	case atomUUID:
		if tag, val, err := pair(v); err == nil {
			s, err := wire.JSONString(val)
			switch {
			case err != nil:
			case isJSONString(tag, "uuid"):
				if _, err := uuid.Parse(s); err != nil || len(s) != 36 {
					return atom{}, fmt.Errorf("%q is not a valid UUID", s)
				}
				return atom{s: s}, nil
			case isJSONString(tag, "named-uuid") && named != nil:
				return atom{s: named.uuidOf(s)}, nil
			}
		}
		return atom{}, fmt.Errorf(`expected ["uuid", <uuid>], got %.60s`, v)
	}
	return atom{}, fmt.Errorf("expected %s, got %.60s", [...]string{"integer", "real", "boolean", "string", "uuid"}[t], v)
}

// parseDatum parses the JSON v as a value of column c: an atom, ["set",
// [atoms]] or ["map", [[key, value]...]], of at least min and at most max
// (ovsdb.Unlimited: any number of) elements. A value that breaks the
// column's constraints (checkAtom) fails with "constraint violation", as
// in ovsdb-server; other failures are syntax errors.
func (c *column) parseDatum(v []byte, named symbols, min, max int) (datum, error) {
	var d datum
	var inner []byte
	if tag, rest, err := pair(v); err == nil && (isJSONString(tag, "set") || isJSONString(tag, "map")) {
		if isJSONString(tag, "map") != c.isMap {
			return d, fmt.Errorf("expected %s, got %.60s", map[bool]string{true: "map", false: "set"}[c.isMap], v)
		}
		inner = rest
	} else if c.isMap {
		return d, fmt.Errorf(`expected ["map", ...], got %.60s`, v)
	} else {
		a, err := parseAtom(v, c.key, named)
		if err != nil {
			return d, err
		}
		d.keys = []atom{a}
	}
	if inner != nil {
		err := wire.WalkArray(inner, func(e []byte) error {
			if !c.isMap {
				a, err := parseAtom(e, c.key, named)
				d.keys = append(d.keys, a)
				return err
			}
			k, v, err := pair(e)
			if err != nil {
				return err
			}
			ka, err := parseAtom(k, c.key, named)
			if err != nil {
				return err
			}
			va, err := parseAtom(v, c.value, named)
			d.keys, d.vals = append(d.keys, ka), append(d.vals, va)
			return err
		})
		if err != nil {
			return d, err
		}
		if err := c.sortDatum(&d); err != nil {
			return d, err
		}
	}
	if n := d.len(); n < min || max != ovsdb.Unlimited && n > max {
		return d, fmt.Errorf("%s must have %d to %d members but %d are present", c.name, min, max, n)
	}
	if c.constrained {
		if err := c.checkAtoms(d); err != nil {
			return d, &opErr{"constraint violation", err.Error()}
		}
	}
	return d, nil
}

// asOpErr is err, an *opErr or else a syntax error that says what failed.
func asOpErr(err error, format string, args ...any) error {
	if oe, ok := err.(*opErr); ok {
		return oe
	}
	return syntaxErr("%s: %v", fmt.Sprintf(format, args...), err)
}
