package embedded

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// row is one row of a table: its uuid and one datum per column, in the
// order of the table's columns. A committed row is never changed: a
// transaction that changes it makes a copy.
type row struct {
	uuid string
	cols []datum
}

// value is the datum of column c of r, the _uuid column included.
func (r *row) value(c *column) datum {
	if c.index < 0 {
		return datum{keys: []atom{{s: r.uuid}}}
	}
	return r.cols[c.index]
}

// clone is a copy of r that can be changed; its datums are shared, and
// replaced, never changed, by whoever changes the copy.
func (r *row) clone() *row {
	return &row{uuid: r.uuid, cols: slices.Clone(r.cols)}
}

// table is one table of a database: its columns and committed rows.
type table struct {
	name    string
	schema  *ovsdb.TableSchema
	columns []*column // sorted by name
	byName  map[string]*column
	root    bool
	refCols []*column // the columns that hold references
	// constrained are the columns checkConstraints reads.
	constrained []*column
	rows        map[string]*row // by uuid
	indexes     []*tableIndex
}

// tableIndex is one of a table's indexes (RFC 7047, 3.2: "indexes"): no
// two rows may have the same values in its columns.
type tableIndex struct {
	columns []*column
	rows    map[string]string // key → uuid of the committed row that has it
}

// key is the text of r's values in the index's columns.
func (x *tableIndex) key(r *row) string {
	var b []byte
	for _, c := range x.columns {
		b = append(c.appendDatum(b, r.cols[c.index]), 0)
	}
	return string(b)
}

// newTables makes the tables of a database schema, empty.
func newTables(schema *ovsdb.DatabaseSchema) (map[string]*table, error) {
	tables := make(map[string]*table, len(schema.Tables))
	for name := range schema.Tables {
		ts := schema.Table(name)
		root, err := schema.IsRoot(name)
		if err != nil {
			return nil, err
		}
		t := &table{name: name, schema: ts, byName: map[string]*column{"_uuid": uuidColumn}, root: root, rows: map[string]*row{}}
		for i, c := range slices.Sorted(maps.Keys(ts.Columns)) {
			col, err := newColumn(c, i, ts.Column(c))
			if err != nil {
				return nil, fmt.Errorf("table %s column %s: %w", name, c, err)
			}
			t.columns = append(t.columns, col)
			t.byName[c] = col
			if col.keyRef != nil || col.valueRef != nil {
				t.refCols = append(t.refCols, col)
			}
			if col.constrained {
				t.constrained = append(t.constrained, col)
			}
		}
		for _, idx := range ts.Indexes {
			x := &tableIndex{rows: map[string]string{}}
			for _, c := range idx {
				col := t.byName[c]
				if col == nil || col.index < 0 {
					return nil, fmt.Errorf("table %s: index on unknown column %q", name, c)
				}
				x.columns = append(x.columns, col)
			}
			t.indexes = append(t.indexes, x)
		}
		tables[name] = t
	}
	return tables, nil
}

// newRow is a row of t with every column at its default.
func (t *table) newRow(uuid string) *row {
	r := &row{uuid: uuid, cols: make([]datum, len(t.columns))}
	for i, c := range t.columns {
		r.cols[i] = c.def
	}
	return r
}

// column is t's column named name, _uuid included, or an "unknown column"
// error.
func (t *table) column(name string) (*column, error) {
	if c := t.byName[name]; c != nil {
		return c, nil
	}
	return nil, &opErr{"unknown column", fmt.Sprintf("No column %s in table %s.", name, t.name)}
}

// opErr is an operation's or a commit's failure: its error tag (RFC 7047,
// 4.1.3) and details.
type opErr struct{ tag, details string }

func (e *opErr) Error() string { return e.tag + ": " + e.details }

// syntaxErr is a "syntax error" failure.
func syntaxErr(format string, args ...any) *opErr {
	return &opErr{"syntax error", fmt.Sprintf(format, args...)}
}

// appendRow appends the JSON object of the given columns of r, without
// those at their default value when skipDefaults is set (as ovsdb-server
// does in update2 inserts and in its file).
func appendRow(b []byte, r *row, columns []*column, skipDefaults bool) []byte {
	b = append(b, '{')
	first := true
	for _, c := range columns {
		d := r.value(c)
		if skipDefaults && c.isDefault(d) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(wire.AppendString(b, c.name), ':')
		b = c.appendDatum(b, d)
	}
	return append(b, '}')
}

// sameRow reports whether two versions of a row hold the same values.
func sameRow(a, b *row) bool {
	return slices.EqualFunc(a.cols, b.cols, equalDatums)
}

// dropUnchanged forgets the rows the transaction inserted and deleted, and
// those it left as they were.
func (t *txn) dropUnchanged() {
	for uuid, c := range t.changes {
		if c.old == nil && c.new == nil || c.old != nil && c.new != nil && sameRow(c.old, c.new) {
			delete(t.changes, uuid)
		}
	}
}

// byTable is the transaction's changes, by table.
func (t *txn) byTable() map[*table][]*change {
	tables := map[*table][]*change{}
	for _, c := range t.changes {
		tables[c.table] = append(tables[c.table], c)
	}
	return tables
}

// checkIndexes fails when the transaction leaves two rows of a table with
// the same values in the columns of one of its indexes.
func checkIndexes(t *txn) error {
	local := map[*tableIndex]map[string]string{}
	for uuid, c := range t.changes {
		if c.new == nil {
			continue
		}
		for _, x := range c.table.indexes {
			k := x.key(c.new)
			if local[x] == nil {
				local[x] = map[string]string{}
			}
			other, dup := local[x][k]
			if !dup {
				local[x][k] = uuid
				owner, ok := x.rows[k]
				if !ok || owner == uuid {
					continue
				}
				if oc, changed := t.changes[owner]; changed && (oc.new == nil || x.key(oc.new) != k) {
					continue
				}
				other = owner
			}
			names := make([]string, len(x.columns))
			for i, col := range x.columns {
				names[i] = col.name
			}
			return &opErr{"constraint violation", fmt.Sprintf("Transaction causes multiple rows in %q table to have identical values (%s) for index on columns %q. Rows with UUIDs %s and %s.",
				c.table.name, strings.TrimSuffix(strings.ReplaceAll(k, "\x00", ", "), ", "), names, other, uuid)}
		}
	}
	return nil
}

// apply puts the transaction's rows in their tables and indexes.
func (t *txn) apply() {
	for uuid, c := range t.changes {
		if c.old == nil {
			continue
		}
		for _, x := range c.table.indexes {
			if k := x.key(c.old); x.rows[k] == uuid {
				delete(x.rows, k)
			}
		}
	}
	for uuid, c := range t.changes {
		if c.new == nil {
			delete(c.table.rows, uuid)
			continue
		}
		c.table.rows[uuid] = c.new
		for _, x := range c.table.indexes {
			x.rows[x.key(c.new)] = uuid
		}
	}
}
