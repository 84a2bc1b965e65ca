package sbwriter

import (
	"maps"
	"slices"
	"strconv"

	"github.com/northlog/northlog/ovsdb/wire"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// Txn is one SB transaction being built: its operations and what they
// do to the rows northd owns, so that later operations of the same
// transaction can refer to rows inserted or deleted earlier.
type Txn struct {
	ops []lovsdb.Operation
	// emit, when set, takes each operation instead of ops: a transaction
	// written as it is made.
	emit func(lovsdb.Operation)
	// emitted is the columns map of a streamed transaction's inserts
	// (insertRow).
	emitted lovsdb.Row
	n       int // operations made
	named   int
	// Counts of inserted, updated and deleted rows per table.
	Inserted, Updated, Deleted map[string]int

	newDP     map[string]string // NB datapath -> named row
	deletedDP map[string]bool   // SB datapath rows deleted
	newPB     map[string]string // logical_port -> named row
	deletedPB map[string]bool
	// Tunnel keys given in the transaction, to datapaths by NB _uuid and
	// to ports by name.
	dpKey     map[string]int
	pbKey     map[string]int
	newGroups map[string]string // group contents -> named or mutated row
	mutated   map[string]string // group row -> its contents after mutation
	// Datapath groups of load balancers: by contents, those inserted or
	// taken in the transaction, and the rows taken or changed.
	newLBGroups map[string]string
	lbGroups    map[string]bool
}

// newSBTxn starts a transaction. Its operations are not reserved ahead
// from the dirty keys: a restart marks every key dirty and writes almost
// nothing, and a cold start's tens of thousands are streamed (emit).
func newSBTxn() *Txn {
	return &Txn{
		Inserted: map[string]int{}, Updated: map[string]int{}, Deleted: map[string]int{},
		newDP: map[string]string{}, deletedDP: map[string]bool{},
		newPB: map[string]string{}, deletedPB: map[string]bool{},
		dpKey: map[string]int{}, pbKey: map[string]int{},
		newGroups: map[string]string{}, mutated: map[string]string{},
		newLBGroups: map[string]string{}, lbGroups: map[string]bool{},
	}
}

// Insert adds an insert operation and returns the row's named UUID.
func (t *Txn) Insert(table string, row lovsdb.Row) string { return t.insertAs(table, "", row) }

// insertAs is insert of a row with UUID uuid, as the IDL's
// insert_persist_uuid; "" lets the server choose.
func (t *Txn) insertAs(table, uuid string, row lovsdb.Row) string {
	t.named++
	name := "row" + strconv.Itoa(t.named)
	t.add(lovsdb.Operation{Op: lovsdb.OperationInsert, Table: table, Row: row, UUIDName: name, UUID: uuid})
	t.Inserted[table]++
	return name
}

// insertUnnamed adds an insert of a row that no operation refers to (a
// Logical_Flow) without a uuid-name: ovsdb-server keeps every name in a
// symbol table for the transaction (3% of its instructions on a cold
// start's write).
func (t *Txn) insertUnnamed(table string, row lovsdb.Row) {
	t.add(lovsdb.Operation{Op: lovsdb.OperationInsert, Table: table, Row: row})
	t.Inserted[table]++
}

// insertRow is an empty map for the columns of a row to insert. A
// streamed transaction's inserts share one: emit has encoded the
// operation before the next is made, and a cold start's write has
// hundreds of thousands.
func (t *Txn) insertRow() lovsdb.Row {
	if t.emit == nil {
		return lovsdb.Row{}
	}
	if t.emitted == nil {
		t.emitted = lovsdb.Row{}
	}
	clear(t.emitted)
	return t.emitted
}

// Update sets the columns of row to the values given; nothing when row is
// empty.
func (t *Txn) Update(table, uuid string, row lovsdb.Row) {
	if len(row) == 0 {
		return
	}
	t.add(lovsdb.Operation{Op: lovsdb.OperationUpdate, Table: table, Row: row, Where: wire.WhereUUID(uuid)})
	t.Updated[table]++
}

func (t *Txn) mutate(table, uuid string, muts ...lovsdb.Mutation) {
	t.add(lovsdb.Operation{Op: lovsdb.OperationMutate, Table: table, Mutations: muts, Where: wire.WhereUUID(uuid)})
	t.Updated[table]++
}

func (t *Txn) delete(table, uuid string) {
	t.add(lovsdb.Operation{Op: lovsdb.OperationDelete, Table: table, Where: wire.WhereUUID(uuid)})
	t.Deleted[table]++
}

// keepFirst deletes the rows that hold one key's contents but the one to
// keep, which it returns: the first when the key is wanted, none otherwise.
func (t *Txn) keepFirst(table string, rows []string, wanted bool) string {
	keep := ""
	if wanted && len(rows) > 0 {
		keep = rows[0]
	}
	for _, u := range rows {
		if u != keep {
			t.delete(table, u)
		}
	}
	return keep
}

// add makes one operation.
func (t *Txn) add(op lovsdb.Operation) {
	t.n++
	if t.emit != nil {
		t.emit(op)
		return
	}
	t.ops = append(t.ops, op)
}

// Empty reports whether the transaction has no operation.
func (t *Txn) Empty() bool { return t.n == 0 }

// Summary counts the rows changed per table, for logs.
func (t *Txn) Summary() map[string][3]int {
	s := map[string][3]int{}
	for _, m := range []map[string]int{t.Inserted, t.Updated, t.Deleted} {
		for table := range m {
			s[table] = [3]int{t.Inserted[table], t.Updated[table], t.Deleted[table]}
		}
	}
	return s
}

// TakeOps returns the operations made, after first, in place when there
// is room. The transaction lets go of them: once sent they are garbage,
// which should not stay live while the SB commits them.
func (t *Txn) TakeOps(first lovsdb.Operation) []lovsdb.Operation {
	ops := slices.Insert(t.ops, 0, first)
	t.ops = nil
	return ops
}

// InsertedPorts are the ports whose Port_Binding the transaction inserts,
// by name; the values are the rows' names in the transaction.
func (t *Txn) InsertedPorts() map[string]string { return t.newPB }

// OVSDB values of the column types northd writes.

func uuidSet(us []string) lovsdb.OvsSet {
	set := make([]any, len(us))
	for i, u := range us {
		set[i] = lovsdb.UUID{GoUUID: u}
	}
	return lovsdb.OvsSet{GoSet: set}
}

// optUUID is an optional reference: none for "".
func optUUID(u string) lovsdb.OvsSet {
	if u == "" {
		return lovsdb.OvsSet{GoSet: []any{}}
	}
	return uuidSet([]string{u})
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// sameMap reports whether a and b are equal, nil and empty alike.
func sameMap(a, b map[string]string) bool { return maps.Equal(a, b) }
