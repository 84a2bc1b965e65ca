package sbwriter

import (
	"fmt"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// TestSetTableMutates: one member added to a set of 5000 that the SB holds
// is one mutate inserting that member; one removed, one mutate deleting
// it; a set whose SB row is right writes nothing.
func TestSetTableMutates(t *testing.T) {
	s := newSetTable(sb.PortGroupTable, "ports")
	var members []engine.Change[rules.SBSetMember]
	var ports []string
	for i := range 5000 {
		p := fmt.Sprintf("p%d", i)
		ports = append(ports, p)
		members = append(members, engine.Change[rules.SBSetMember]{Tuple: rules.SBSetMember{Set: "pg", Member: p}, Weight: 1})
	}
	s.applyProgram([]engine.Change[rules.SBNamedSet]{{Tuple: rules.SBNamedSet{Name: "pg"}, Weight: 1}}, members)
	s.applySB(wire.Change{Table: sb.PortGroupTable, UUID: "row", New: &sb.PortGroup{UUID: "row", Name: "pg", Ports: ports}})
	noKeys := func(string) int { return 0 }
	check := func(what string, want ...lovsdb.Operation) {
		t.Helper()
		txn := newSBTxn()
		s.reconcile(txn, noKeys)
		if fmt.Sprint(txn.ops) != fmt.Sprint(want) {
			t.Errorf("%s: ops %v, want %v", what, txn.ops, want)
		}
	}
	check("in step")
	mutate := func(op lovsdb.Mutator, member string) lovsdb.Operation {
		return lovsdb.Operation{Op: lovsdb.OperationMutate, Table: sb.PortGroupTable, Where: wire.WhereUUID("row"),
			Mutations: []lovsdb.Mutation{*lovsdb.NewMutation("ports", op, wire.StrSet([]string{member}))}}
	}
	s.applyProgram(nil, []engine.Change[rules.SBSetMember]{{Tuple: rules.SBSetMember{Set: "pg", Member: "new"}, Weight: 1}})
	check("add", mutate(lovsdb.MutateOperationInsert, "new"))
	s.applyProgram(nil, []engine.Change[rules.SBSetMember]{{Tuple: rules.SBSetMember{Set: "pg", Member: "p7"}, Weight: -1}})
	check("remove", mutate(lovsdb.MutateOperationDelete, "p7"))
}
