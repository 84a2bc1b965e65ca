package sbwriter

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// keyedTable keeps one SB table whose rows northd finds by a key of its own
// (a name, a chassis name, an NB _uuid in external_ids) equal to the
// desired rows: per key, the first row by UUID is kept and brought to the
// desired contents, the others are deleted; rows with no key, or a key
// with no desired row, are deleted. As in Writer, program changes and SB
// changes mark the keys they touch and a reconciliation visits only those.
type keyedTable[W comparable] struct {
	table string
	// keyOf is an SB row's key; false for a row that has none.
	keyOf func(model.Model) (string, bool)
	// write brings the row kept for a key (uuid "" and row nil when there
	// is none: insert one) to want.
	write func(t *Txn, want W, uuid string, row model.Model)

	// keepKeyless leaves the rows that have no key alone: another
	// client's, not garbage.
	keepKeyless bool

	want    map[string]W
	rows    map[string]model.Model
	byKey   map[string][]string // key -> rows, sorted
	dirty   map[string]bool
	garbage map[string]bool
}

func newKeyedTable[W comparable](table string, keyOf func(model.Model) (string, bool),
	write func(t *Txn, want W, uuid string, row model.Model)) *keyedTable[W] {
	return &keyedTable[W]{
		table: table, keyOf: keyOf, write: write,
		want: map[string]W{}, rows: map[string]model.Model{}, byKey: map[string][]string{},
		dirty: map[string]bool{}, garbage: map[string]bool{},
	}
}

// setWant makes w the desired row of key, or none when ok is false.
func (k *keyedTable[W]) setWant(key string, w W, ok bool) {
	if ok {
		k.want[key] = w
	} else {
		delete(k.want, key)
	}
	k.dirty[key] = true
}

// applyDelta takes an output's changes as desired rows, keyed by key.
func applyDelta[W comparable](k *keyedTable[W], delta []engine.Change[W], key func(W) string) {
	for _, pass := range []engine.Weight{-1, 1} {
		for _, c := range delta {
			if c.Weight != pass {
				continue
			}
			if pass > 0 {
				k.setWant(key(c.Tuple), c.Tuple, true)
			} else if cur, ok := k.want[key(c.Tuple)]; ok && cur == c.Tuple {
				k.setWant(key(c.Tuple), c.Tuple, false)
			}
		}
	}
}

// apply records an SB row change and marks its key.
func (k *keyedTable[W]) apply(c wire.Change) {
	if old, ok := k.rows[c.UUID]; ok {
		delete(k.rows, c.UUID)
		delete(k.garbage, c.UUID)
		if key, ok := k.keyOf(old); ok {
			if k.byKey[key] = deleteSorted(k.byKey[key], c.UUID); len(k.byKey[key]) == 0 {
				delete(k.byKey, key)
			}
			k.dirty[key] = true
		}
	}
	if c.New == nil {
		return
	}
	k.rows[c.UUID] = c.New
	k.mark(c.UUID)
}

// mark marks the key of row uuid, or the row as garbage.
func (k *keyedTable[W]) mark(uuid string) {
	key, ok := k.keyOf(k.rows[uuid])
	if !ok {
		if !k.keepKeyless {
			k.garbage[uuid] = true
		}
		return
	}
	k.byKey[key] = insertSorted(k.byKey[key], uuid)
	k.dirty[key] = true
}

// markAll marks every key, desired or in the SB.
func (k *keyedTable[W]) markAll() {
	for key := range k.want {
		k.dirty[key] = true
	}
	for key := range k.byKey {
		k.dirty[key] = true
	}
	for u, row := range k.rows {
		if _, ok := k.keyOf(row); !ok && !k.keepKeyless {
			k.garbage[u] = true
		}
	}
}

// reset forgets the SB rows (a new SB connection, whose initial contents
// follow).
func (k *keyedTable[W]) reset() {
	k.rows, k.byKey, k.garbage = map[string]model.Model{}, map[string][]string{}, map[string]bool{}
}

// reconcile writes the dirty keys' rows and deletes the garbage.
func (k *keyedTable[W]) reconcile(t *Txn) {
	for _, key := range sortedKeys(k.dirty) {
		rows := k.byKey[key]
		want, ok := k.want[key]
		keep := t.keepFirst(k.table, rows, ok)
		if ok {
			k.write(t, want, keep, k.rows[keep])
		}
	}
	for _, u := range sortedKeys(k.garbage) {
		t.delete(k.table, u)
	}
	k.dirty, k.garbage = cleared(k.dirty), cleared(k.garbage)
}

// changedRow is the row update that sets the columns of cols whose values
// differ from the row's (same reports, per column, whether they are
// equal); every column when the row is new (uuid "").
type changedRow struct {
	uuid string
	row  lovsdb.Row
	// persist is the UUID a new row is inserted with ("" for one the
	// server chooses).
	persist string
}

func newChangedRow(uuid string) *changedRow { return &changedRow{uuid: uuid, row: lovsdb.Row{}} }

// set sets col to v unless the row exists and same says it already holds it.
func (c *changedRow) set(col string, same bool, v any) {
	if c.uuid == "" || !same {
		c.row[col] = v
	}
}

// commit inserts the row or updates its changed columns; it returns the
// row's UUID or, for an insert, its name in the transaction.
func (c *changedRow) commit(t *Txn, table string) string {
	if c.uuid == "" {
		return t.insertAs(table, c.persist, c.row)
	}
	t.Update(table, c.uuid, c.row)
	return c.uuid
}
