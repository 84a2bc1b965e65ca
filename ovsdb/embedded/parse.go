package embedded

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// A request's JSON is walked as sub-slices of the message (no copy, no
// decoding into maps of interfaces); values are parsed where their column
// is known, straight into datums.

var errBadJSON = errors.New("malformed JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string whose opening quote is
// at b[i].
func stringEnd(b []byte, i int) (int, error) {
	i++
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return 0, errBadJSON
		}
		e := bytes.IndexByte(b[i:i+q], '\\')
		if e < 0 {
			return i + q + 1, nil
		}
		i += e + 2 // an escape and the byte it escapes
		if i > len(b) {
			return 0, errBadJSON
		}
	}
}

// valueEnd returns the index just past the JSON value that starts at b[i].
// It checks the nesting and the strings, not the scalars: whatever is
// parsed later is checked by its parser.
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errBadJSON
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
	default:
		start := i
		for i < len(b) && b[i] != ',' && b[i] != ']' && b[i] != '}' && !isSpace(b[i]) {
			i++
		}
		if i == start {
			return 0, errBadJSON
		}
		return i, nil
	}
	var stack []byte
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			end, err := stringEnd(b, i)
			if err != nil {
				return 0, err
			}
			i = end
			continue
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c-2 { // '{'+2 == '}', '['+2 == ']'
				return 0, errBadJSON
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return 0, errBadJSON
}

// walk calls item for each element of the array or object b, which
// opens with open and closes with close; item returns where the element
// ends.
func walk(b []byte, open, close byte, item func(b []byte, i int) (int, error)) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != open {
		return errBadJSON
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == close {
		return trailing(b, i+1)
	}
	for {
		end, err := item(b, i)
		if err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return errBadJSON
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case close:
			return trailing(b, i+1)
		default:
			return errBadJSON
		}
	}
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errBadJSON
	}
	return nil
}

// eachMember calls fn with each member of the JSON object b.
func eachMember(b []byte, fn func(key string, value []byte) error) error {
	return walk(b, '{', '}', func(b []byte, i int) (int, error) {
		if b[i] != '"' {
			return 0, errBadJSON
		}
		kend, err := stringEnd(b, i)
		if err != nil {
			return 0, err
		}
		key, err := jsonString(b[i:kend])
		if err != nil {
			return 0, err
		}
		j := skipSpace(b, kend)
		if j >= len(b) || b[j] != ':' {
			return 0, errBadJSON
		}
		j = skipSpace(b, j+1)
		vend, err := valueEnd(b, j)
		if err != nil {
			return 0, err
		}
		return vend, fn(key, b[j:vend])
	})
}

// eachElement calls fn with each element of the JSON array b.
func eachElement(b []byte, fn func(elem []byte) error) error {
	return walk(b, '[', ']', func(b []byte, i int) (int, error) {
		end, err := valueEnd(b, i)
		if err != nil {
			return 0, err
		}
		return end, fn(b[i:end])
	})
}

// elements are the elements of the JSON array b.
func elements(b []byte) ([][]byte, error) {
	var elems [][]byte
	err := eachElement(b, func(e []byte) error {
		elems = append(elems, e)
		return nil
	})
	return elems, err
}

// jsonString is the string that the JSON text q (quotes included) holds.
func jsonString(q []byte) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", fmt.Errorf("expected a string, got %.40s", q)
	}
	body := q[1 : len(q)-1]
	plain := bytes.IndexByte(body, '\\') < 0
	for _, c := range body {
		if c < 0x20 {
			plain = false
			break
		}
	}
	if plain && utf8.Valid(body) {
		return string(body), nil
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// isJSONString reports whether the JSON value v is the string s.
func isJSONString(v []byte, s string) bool {
	return len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s
}

// pair is the two elements of the JSON array v of two.
func pair(v []byte) (first, second []byte, err error) {
	bad := func() ([]byte, []byte, error) {
		return nil, nil, fmt.Errorf("expected 2-element array, got %.60s", v)
	}
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return bad()
	}
	var elems [2][]byte
	for n := range elems {
		i = skipSpace(v, i+1)
		end, err := valueEnd(v, i)
		if err != nil {
			return bad()
		}
		elems[n] = v[i:end]
		i = skipSpace(v, end)
		if i >= len(v) || v[i] != ",]"[n] {
			return bad()
		}
	}
	if trailing(v, i+1) != nil {
		return bad()
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
			s, err := jsonString(v)
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
			s, err := jsonString(val)
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
		err := eachElement(inner, func(e []byte) error {
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
