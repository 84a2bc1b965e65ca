package sbwriter

import (
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
)

// maxACLID is the largest ACL id northd allocates (en-acl-ids.c
// MAX_ACL_ID).
const maxACLID = 65535

// aclIDTable keeps SB ACL_ID (en_acl_id_run): one row per ACL that
// persists established connections (rules.SBACLIDs), under the ACL's
// UUID, inserted with the lowest id free; a row keeps its id while its ACL
// wants one. The flows that hold an ACL's id (rules.ACLIDRef) follow its
// row.
type aclIDTable struct {
	*keyedTable[string]
	// inserted are the ids of the rows the transaction being built
	// inserts, by ACL.
	inserted map[string]int
}

func newACLIDTable() *aclIDTable {
	a := &aclIDTable{inserted: map[string]int{}}
	a.keyedTable = newKeyedTable(sb.ACLIDTable, func(m model.Model) (string, bool) { return m.(*sb.ACLID).UUID, true }, a.write)
	return a
}

func (a *aclIDTable) reconcile(t *Txn) {
	a.inserted = map[string]int{}
	a.keyedTable.reconcile(t)
}

// write inserts the row of an ACL that has none; a kept row is already
// right, its UUID being the ACL's.
func (a *aclIDTable) write(t *Txn, acl string, uuid string, _ model.Model) {
	if uuid != "" {
		return
	}
	id := a.freeID()
	if id == 0 {
		return // every id is taken: the ACL's flows wait
	}
	a.inserted[acl] = id
	c := newChangedRow("")
	c.persist = acl
	c.set("id", false, id)
	c.commit(t, sb.ACLIDTable)
}

// freeID is the lowest id no row holds, 0 when none is left.
func (a *aclIDTable) freeID() int {
	used := map[int]bool{}
	for _, m := range a.rows {
		used[m.(*sb.ACLID).ID] = true
	}
	for _, id := range a.inserted {
		used[id] = true
	}
	for id := 1; id <= maxACLID; id++ {
		if !used[id] {
			return id
		}
	}
	return 0
}

// id is the id of ACL acl: the one the transaction being built gives it,
// else its row's; 0 when it has none.
func (a *aclIDTable) id(acl string) int {
	if id, ok := a.inserted[acl]; ok {
		return id
	}
	if m, ok := a.rows[acl]; ok {
		return m.(*sb.ACLID).ID
	}
	return 0
}

// applyACLID records an ACL_ID change and marks the flows that hold the
// ACL's id.
func (w *Writer) applyACLID(c wire.Change) {
	w.aclIDs.apply(c)
	w.markKeyUsers(rules.ACLIDKey(c.UUID))
}
