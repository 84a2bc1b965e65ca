package wire

import (
	"bytes"
	"fmt"

	"github.com/google/uuid"
)

// Unkept decodes the row updates of a table whose rows the connection does
// not keep (Options.Unkept): its consumer keeps them, in a form of its
// own, so that a table of hundreds of thousands of rows is not held twice,
// once as models. It runs in the read loop, ahead of the iteration that
// applies the batch, so it can read nothing of the consumer's: row is a
// whole row when whole (an "initial" or "insert"), else a "modify"'s diff,
// which the consumer completes with the row it holds. What it returns is
// the change's Update.
type Unkept func(row Row, whole bool) (any, error)

// Row is a row, or a "modify"'s diff, in OVSDB JSON notation, for an
// Unkept to decode: its strings equal to those of a transaction in flight
// are taken from it, as the connection's own decoders take them.
type Row struct {
	b     []byte
	known *knownStrings
}

// RowOf is the row b, which shares strings with nothing.
func RowOf(b []byte) Row { return Row{b: b} }

// Detached is a copy of the row that outlives the message it is part of,
// and shares strings with nothing.
func (r Row) Detached() Row { return Row{b: bytes.Clone(r.b)} }

// Columns calls fn with each column of the row: its name, unquoted (a
// sub-slice of the row: compare it, as string(col), without keeping it),
// and its value.
func (r Row) Columns(fn func(col []byte, v Value) error) error {
	return walkMembers(r.b, func(q, v []byte) error {
		// Column names need no escapes: a key with one is no column.
		return fn(q[1:len(q)-1], Value{v, r.known})
	})
}

// Value is one column's value in a Row.
type Value struct {
	b     []byte
	known *knownStrings
}

// String is a string atom.
func (v Value) String() (string, error) { return decodeString(v.b, v.known) }

// Int is an integer atom.
func (v Value) Int() (int, error) { return jsonInt(v.b) }

// UUID is a uuid atom (["uuid", "..."]).
func (v Value) UUID() (uuid.UUID, error) {
	u, err := tagged(v.b, `"uuid"`)
	if err != nil {
		return uuid.UUID{}, err
	}
	if len(u) != 38 || u[0] != '"' || u[37] != '"' {
		return uuid.UUID{}, fmt.Errorf("not a uuid: %.40s", u)
	}
	return uuid.ParseBytes(u[1:37])
}

// Optional is the value of a column of at most one atom: ok false when it
// has none.
func (v Value) Optional() (atom Value, ok bool, err error) {
	elems, err := setElements(v.b)
	switch {
	case err != nil:
		return Value{}, false, err
	case len(elems) > 1:
		return Value{}, false, fmt.Errorf("set of %d for an optional column", len(elems))
	case len(elems) == 0:
		return Value{}, false, nil
	}
	return Value{elems[0], v.known}, true, nil
}
