package embedded

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/google/uuid"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// A transaction runs its operations (RFC 7047, 5.2) on the server's own
// rows, one after the other, each seeing what those before it did; the
// rows it changes are copies until commit (server.go) puts them in place.

// change is a row a transaction changed: as committed (nil if the
// transaction inserted it) and as the transaction leaves it (nil once
// deleted).
type change struct {
	table    *table
	old, new *row
}

// txn is a transaction under way on a database.
type txn struct {
	db       *database
	changes  map[string]*change // by uuid
	inserted map[*table][]string
	named    symbols
	size     int // bytes of the request, to size its file record
}

// newTxn starts a transaction of about ops operations.
func newTxn(db *database, ops int) *txn {
	return &txn{db: db, changes: make(map[string]*change, ops), inserted: map[*table][]string{}, named: symbols{}}
}

// current is the row uuid of tb as the transaction leaves it so far, nil if
// there is none.
func (t *txn) current(tb *table, uuid string) *row {
	if c, ok := t.changes[uuid]; ok {
		if c.table != tb {
			return nil
		}
		return c.new
	}
	return tb.rows[uuid]
}

// query calls fn with each row of tb that satisfies where, as the
// transaction leaves it so far.
func (t *txn) query(tb *table, where []condition, fn func(r *row) error) error {
	if u, ok := uuidOfWhere(where); ok {
		if r := t.current(tb, u); r != nil && matchesAll(where, r) {
			return fn(r)
		}
		return nil
	}
	for uuid, r := range tb.rows {
		if c, ok := t.changes[uuid]; ok {
			r = c.new
		}
		if r != nil && matchesAll(where, r) {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	for _, uuid := range t.inserted[tb] {
		if c := t.changes[uuid]; c.old == nil && c.new != nil && matchesAll(where, c.new) {
			if err := fn(c.new); err != nil {
				return err
			}
		}
	}
	return nil
}

// writable is the transaction's own copy of the row r of tb, which it may
// change.
func (t *txn) writable(tb *table, r *row) *row {
	c := t.changes[r.uuid]
	if c == nil {
		c = &change{table: tb, old: r, new: r.clone()}
		t.changes[r.uuid] = c
	}
	return c.new
}

// replace makes now the row uuid of tb as the transaction leaves it (nil:
// deleted).
func (t *txn) replace(tb *table, uuid string, now *row) {
	if c := t.changes[uuid]; c != nil {
		c.new = now
		return
	}
	t.changes[uuid] = &change{table: tb, old: tb.rows[uuid], new: now}
}

// operation is one operation of a "transact" request, its members as JSON.
type operation struct {
	op, table                   string
	row, where, mutations, rows []byte
	columns                     []byte
	until, uuidName, uuid, lock string
}

// parseOperation reads an operation's members.
func parseOperation(v []byte) (*operation, error) {
	op := &operation{}
	err := wire.WalkObject(v, func(key string, value []byte) error {
		var err error
		switch key {
		case "op":
			op.op, err = wire.JSONString(value)
		case "table":
			op.table, err = wire.JSONString(value)
		case "row":
			op.row = value
		case "where":
			op.where = value
		case "mutations":
			op.mutations = value
		case "columns":
			op.columns = value
		case "rows":
			op.rows = value
		case "until":
			op.until, err = wire.JSONString(value)
		case "uuid-name":
			op.uuidName, err = wire.JSONString(value)
		case "uuid":
			op.uuid, err = wire.JSONString(value)
		case "lock":
			op.lock, err = wire.JSONString(value)
		}
		if err != nil {
			return fmt.Errorf("member %s: %w", key, err)
		}
		return nil
	})
	if err != nil {
		return nil, syntaxErr("bad operation: %v", err)
	}
	return op, nil
}

// table is the table the operation names.
func (t *txn) table(op *operation) (*table, error) {
	tb := t.db.tables[op.table]
	if tb == nil {
		return nil, syntaxErr("No table named %s.", op.table)
	}
	return tb, nil
}

// where parses the operation's "where", which it must have.
func (t *txn) where(tb *table, op *operation) ([]condition, error) {
	if op.where == nil {
		return nil, syntaxErr("Required member where is missing.")
	}
	return tb.parseWhere(op.where, t.named)
}

// tableWhere is the table the operation names and its "where".
func (t *txn) tableWhere(op *operation) (*table, []condition, error) {
	tb, err := t.table(op)
	if err != nil {
		return nil, nil, err
	}
	where, err := t.where(tb, op)
	return tb, where, err
}

// parseRow parses a "row" member: column → value.
func (t *txn) parseRow(tb *table, v []byte, update bool) ([]*column, []datum, error) {
	if v == nil {
		return nil, nil, syntaxErr("Required member row is missing.")
	}
	var cols []*column
	var vals []datum
	err := wire.WalkObject(v, func(name string, value []byte) error {
		c, err := tb.column(name)
		if err != nil {
			return err
		}
		if c.index < 0 {
			return syntaxErr("Column %s cannot be written.", name)
		}
		if update && !c.mutable {
			return &opErr{"constraint violation", fmt.Sprintf("Cannot update immutable column %s in table %s.", name, tb.name)}
		}
		d, err := c.parseDatum(value, t.named, c.min, c.max)
		if err != nil {
			return asOpErr(err, "table %s column %s", tb.name, name)
		}
		cols, vals = append(cols, c), append(vals, d)
		return nil
	})
	if err != nil {
		return nil, nil, asOpErr(err, "bad row")
	}
	return cols, vals, nil
}

// insert runs an "insert" and returns its result.
func (t *txn) insert(op *operation) ([]byte, error) {
	tb, err := t.table(op)
	if err != nil {
		return nil, err
	}
	u := op.uuid
	if u != "" {
		if _, err := uuid.Parse(u); err != nil || len(u) != 36 {
			return nil, syntaxErr("bad uuid")
		}
		if _, ok := t.changes[u]; ok || tb.rows[u] != nil {
			return nil, &opErr{"duplicate uuid", "This UUID would duplicate a UUID already present within the table or deleted within the same transaction."}
		}
	}
	if op.uuidName != "" {
		if _, done := t.named[op.uuidName]; done && t.namedInserted(op.uuidName) {
			return nil, &opErr{"duplicate uuid-name", "This \"uuid-name\" appeared on an earlier \"insert\" operation."}
		}
		if u == "" {
			u = t.named.uuidOf(op.uuidName)
		} else {
			t.named[op.uuidName] = u
		}
	}
	if u == "" {
		u = uuid.NewString()
	}
	cols, vals, err := t.parseRow(tb, op.row, false)
	if err != nil {
		return nil, err
	}
	r := tb.newRow(u)
	for i, c := range cols {
		r.cols[c.index] = vals[i]
	}
	// A column left at a default of one element (an empty string, say)
	// must fit the column's constraints too.
	for _, c := range tb.constrained {
		if d := r.cols[c.index]; d.len() == 1 && !slices.Contains(cols, c) {
			if err := c.checkAtoms(d); err != nil {
				return nil, &opErr{"constraint violation", err.Error()}
			}
		}
	}
	t.changes[u] = &change{table: tb, new: r}
	t.inserted[tb] = append(t.inserted[tb], u)
	return append(wire.AppendString([]byte(`{"uuid":["uuid",`), u), "]}"...), nil
}

// namedInserted reports whether an insert of the transaction already
// used uuid-name name.
func (t *txn) namedInserted(name string) bool {
	c, ok := t.changes[t.named[name]]
	return ok && c.old == nil
}

// countResult is the result of an update, mutate or delete.
func countResult(n int) []byte {
	return append(strconv.AppendInt([]byte(`{"count":`), int64(n), 10), '}')
}

// update runs an "update".
func (t *txn) update(op *operation) ([]byte, error) {
	return t.changeRows(op, func(tb *table) (func(w *row) error, error) {
		cols, vals, err := t.parseRow(tb, op.row, true)
		if err != nil {
			return nil, err
		}
		return func(w *row) error {
			for i, c := range cols {
				w.cols[c.index] = vals[i]
			}
			return nil
		}, nil
	})
}

// changeRows runs an "update" or a "mutate": prepare reads what the
// operation writes (before its where, as ovsdb-server reports errors) and
// returns the change to make to a writable copy of each row the where
// selects.
func (t *txn) changeRows(op *operation, prepare func(*table) (func(w *row) error, error)) ([]byte, error) {
	tb, err := t.table(op)
	if err != nil {
		return nil, err
	}
	change, err := prepare(tb)
	if err != nil {
		return nil, err
	}
	where, err := t.where(tb, op)
	if err != nil {
		return nil, err
	}
	n := 0
	err = t.query(tb, where, func(r *row) error {
		if err := change(t.writable(tb, r)); err != nil {
			return err
		}
		n++
		return nil
	})
	return countResult(n), err
}

// delete runs a "delete".
func (t *txn) delete(op *operation) ([]byte, error) {
	tb, where, err := t.tableWhere(op)
	if err != nil {
		return nil, err
	}
	var gone []string
	err = t.query(tb, where, func(r *row) error {
		gone = append(gone, r.uuid)
		return nil
	})
	for _, u := range gone {
		t.replace(tb, u, nil)
	}
	return countResult(len(gone)), err
}

// mutation is one element of a "mutate"'s mutations (RFC 7047, 5.1).
type mutation struct {
	col     *column
	mutator string
	arg     datum // for insert and delete; a map's delete by keys has no vals
	byKeys  bool  // a map's delete of the keys arg lists
	operand atom  // for the arithmetic mutators
}

// parseMutations parses a "mutate"'s mutations.
func (t *txn) parseMutations(tb *table, v []byte) ([]mutation, error) {
	if v == nil {
		return nil, syntaxErr("Required member mutations is missing.")
	}
	var muts []mutation
	err := wire.WalkArray(v, func(e []byte) error {
		parts, err := elements(e)
		if err != nil || len(parts) != 3 {
			return syntaxErr("bad mutation %.80s", e)
		}
		name, err1 := wire.JSONString(parts[0])
		mutator, err2 := wire.JSONString(parts[1])
		if err1 != nil || err2 != nil {
			return syntaxErr("bad mutation %.80s", e)
		}
		c, err := tb.column(name)
		if err != nil {
			return err
		}
		if c.index < 0 || !c.mutable {
			return &opErr{"constraint violation", fmt.Sprintf("Cannot mutate immutable column %s in table %s.", name, tb.name)}
		}
		m := mutation{col: c, mutator: mutator}
		switch mutator {
		case "+=", "-=", "*=", "/=", "%=":
			if c.isMap || c.key != atomInteger && (c.key != atomReal || mutator == "%=") {
				return syntaxErr("Type mismatch: \"%s\" operator may not be applied to column %s of type %s.", mutator, name, c.schema.Type)
			}
			m.operand, err = parseAtom(parts[2], c.key, nil)
		case "insert", "delete":
			if c.min == 1 && c.max == 1 {
				return syntaxErr("Type mismatch: \"%s\" operator may not be applied to column %s.", mutator, name)
			}
			max := c.max
			if mutator == "delete" {
				max = ovsdb.Unlimited
			}
			m.arg, err = c.parseDatum(parts[2], t.named, 0, max)
			if err != nil && c.isMap && mutator == "delete" {
				keys := *c
				keys.isMap = false
				m.arg, err = keys.parseDatum(parts[2], t.named, 0, max)
				m.byKeys = true
			}
		default:
			return syntaxErr("Unknown mutator %q.", mutator)
		}
		if err != nil {
			return asOpErr(err, "mutation %.80s", e)
		}
		muts = append(muts, m)
		return nil
	})
	if err != nil {
		return nil, asOpErr(err, "bad mutations")
	}
	return muts, nil
}

// mutate runs a "mutate".
func (t *txn) mutate(op *operation) ([]byte, error) {
	return t.changeRows(op, func(tb *table) (func(w *row) error, error) {
		muts, err := t.parseMutations(tb, op.mutations)
		if err != nil {
			return nil, err
		}
		return func(w *row) error {
			for _, m := range muts {
				d, err := m.apply(w.cols[m.col.index])
				if err != nil {
					return err
				}
				w.cols[m.col.index] = d
			}
			return nil
		}, nil
	})
}

// apply is d mutated.
func (m *mutation) apply(d datum) (datum, error) {
	c := m.col
	var out datum
	switch m.mutator {
	case "insert":
		out = c.union(d, m.arg)
		if c.max != ovsdb.Unlimited && out.len() > c.max {
			return d, &opErr{"constraint violation", fmt.Sprintf("Attempted to store %d elements in %s with a maximum of %d.", out.len(), c.name, c.max)}
		}
		return out, nil
	case "delete":
		out = c.subtract(d, m.arg, m.byKeys)
		if out.len() < c.min {
			return d, &opErr{"constraint violation", fmt.Sprintf("Attempted to store %d elements in %s with a minimum of %d.", out.len(), c.name, c.min)}
		}
		return out, nil
	}
	out.keys = make([]atom, len(d.keys))
	for i, a := range d.keys {
		r, err := arithmetic(c.key, m.mutator, a, m.operand)
		if err != nil {
			return d, err
		}
		out.keys[i] = r
	}
	if c.constrained {
		if err := c.checkAtoms(out); err != nil {
			return d, &opErr{"constraint violation", err.Error()}
		}
	}
	if err := c.sortDatum(&out); err != nil {
		return d, &opErr{"constraint violation", fmt.Sprintf("Result of %q operation contains duplicates.", m.mutator)}
	}
	return out, nil
}

// arithmetic is a op b for integers or reals.
func arithmetic(t atomType, op string, a, b atom) (atom, error) {
	if t == atomReal {
		x, y := a.real(), b.real()
		var r float64
		switch op {
		case "+=":
			r = x + y
		case "-=":
			r = x - y
		case "*=":
			r = x * y
		case "/=":
			if y == 0 {
				return a, &opErr{"domain error", "Division by zero."}
			}
			r = x / y
		}
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return a, &opErr{"range error", fmt.Sprintf("Result of %q operation is out of range.", op)}
		}
		return realAtom(r), nil
	}
	x, y := a.n, b.n
	var r int64
	overflow := false
	switch op {
	case "+=":
		r = x + y
		overflow = (y > 0 && r < x) || (y < 0 && r > x)
	case "-=":
		r = x - y
		overflow = (y < 0 && r < x) || (y > 0 && r > x)
	case "*=":
		r = x * y
		overflow = x != 0 && (r/x != y || x == -1 && y == math.MinInt64)
	case "/=", "%=":
		if y == 0 {
			return a, &opErr{"domain error", "Division by zero."}
		}
		if x == math.MinInt64 && y == -1 {
			overflow = true
		} else if op == "/=" {
			r = x / y
		} else {
			r = x % y
		}
	}
	if overflow {
		return a, &opErr{"range error", fmt.Sprintf("Result of %q operation is out of range.", op)}
	}
	return atom{n: r}, nil
}

// union is d with the elements of add it lacks; a map keeps its value for
// a key both have.
func (c *column) union(d, add datum) datum {
	out := datum{keys: make([]atom, 0, len(d.keys)+len(add.keys))}
	if c.isMap {
		out.vals = make([]atom, 0, cap(out.keys))
	}
	i, j := 0, 0
	for i < len(d.keys) || j < len(add.keys) {
		o := -1
		switch {
		case i == len(d.keys):
			o = 1
		case j < len(add.keys):
			o = compareAtoms(c.key, d.keys[i], add.keys[j])
		}
		if o <= 0 {
			out.keys = append(out.keys, d.keys[i])
			if c.isMap {
				out.vals = append(out.vals, d.vals[i])
			}
			i++
			if o == 0 {
				j++
			}
			continue
		}
		out.keys = append(out.keys, add.keys[j])
		if c.isMap {
			out.vals = append(out.vals, add.vals[j])
		}
		j++
	}
	return out
}

// subtract is d without the elements of del: for a map, the pairs of del,
// or with byKeys the keys del lists.
func (c *column) subtract(d, del datum, byKeys bool) datum {
	out := datum{keys: make([]atom, 0, len(d.keys))}
	if c.isMap {
		out.vals = make([]atom, 0, len(d.keys))
	}
	for i, k := range d.keys {
		j, found := slices.BinarySearchFunc(del.keys, k, func(a, b atom) int { return compareAtoms(c.key, a, b) })
		if found && (!c.isMap || byKeys || del.vals[j] == d.vals[i]) {
			continue
		}
		out.keys = append(out.keys, k)
		if c.isMap {
			out.vals = append(out.vals, d.vals[i])
		}
	}
	return out
}

// columnList parses a "columns" member, all of tb's columns and _uuid
// when it is absent.
func columnList(tb *table, v []byte) ([]*column, error) {
	if v == nil {
		return append(slices.Clone(tb.columns), uuidColumn), nil
	}
	var cols []*column
	err := wire.WalkArray(v, func(e []byte) error {
		name, err := wire.JSONString(e)
		if err != nil {
			return syntaxErr("bad column name %.60s", e)
		}
		c, err := tb.column(name)
		if err != nil {
			return err
		}
		cols = append(cols, c)
		return nil
	})
	if err != nil {
		return nil, asOpErr(err, "bad columns")
	}
	return cols, nil
}

// selectRows runs a "select": the rows that match, with the requested
// columns.
func (t *txn) selectRows(op *operation) ([]byte, error) {
	tb, where, err := t.tableWhere(op)
	if err != nil {
		return nil, err
	}
	cols, err := columnList(tb, op.columns)
	if err != nil {
		return nil, err
	}
	b := []byte(`{"rows":[`)
	n := 0
	err = t.query(tb, where, func(r *row) error {
		if n++; n > 1 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for i, c := range cols {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(wire.AppendString(b, c.name), ':')
			b = c.appendDatum(b, r.value(c))
		}
		b = append(b, '}')
		return nil
	})
	return append(b, "]}"...), err
}

// wait runs a "wait" (RFC 7047, 5.2.6) at once, as if its timeout were 0:
// the rows where selects, projected on its columns, must be (until "==")
// or must not be (until "!=") the rows it lists, in any order; otherwise it
// fails with "timed out".
func (t *txn) wait(op *operation) ([]byte, error) {
	tb, err := t.table(op)
	if err != nil {
		return nil, err
	}
	if op.until != "==" && op.until != "!=" {
		return nil, syntaxErr("wait: bad until %q", op.until)
	}
	where, err := t.where(tb, op)
	if err != nil {
		return nil, err
	}
	cols, err := columnList(tb, op.columns)
	if err != nil {
		return nil, err
	}
	var want [][]datum
	if !wire.IsNull(op.rows) {
		err = wire.WalkArray(op.rows, func(e []byte) error {
			values := make([]datum, len(cols))
			for i, c := range cols {
				values[i] = c.def
			}
			err := wire.WalkObject(e, func(name string, v []byte) error {
				i := slices.IndexFunc(cols, func(c *column) bool { return c.name == name })
				if i < 0 {
					return syntaxErr("wait: row has column %q not in columns", name)
				}
				d, err := cols[i].parseDatum(v, t.named, cols[i].min, cols[i].max)
				values[i] = d
				return err
			})
			want = append(want, values)
			return err
		})
		if err != nil {
			return nil, asOpErr(err, "wait: bad rows")
		}
	}
	var got [][]datum
	err = t.query(tb, where, func(r *row) error {
		values := make([]datum, len(cols))
		for i, c := range cols {
			values[i] = r.value(c)
		}
		got = append(got, values)
		return nil
	})
	if err != nil {
		return nil, err
	}
	holds := len(got) == len(want)
	for _, w := range want {
		if !holds {
			break
		}
		i := slices.IndexFunc(got, func(g []datum) bool { return slices.EqualFunc(g, w, equalDatums) })
		if i < 0 {
			holds = false
			break
		}
		got = slices.Delete(got, i, i+1)
	}
	if holds != (op.until == "==") {
		return nil, &opErr{"timed out", "\"wait\" condition not met"}
	}
	return []byte("{}"), nil
}
