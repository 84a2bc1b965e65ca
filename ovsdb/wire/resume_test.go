package wire

import (
	"fmt"
	"slices"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/sb"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// TestResumeSteps: rows written to a paused table of a real ovsdb-server
// come back on Resume one update per step, each with the rows its
// condition adds, and the rest with the whole table; the other paused
// tables come with the first.
func TestResumeSteps(t *testing.T) {
	reference.Require(t)
	ctx := t.Context()
	dir := reference.Dir{Path: t.TempDir()}
	if err := dir.CreateDB(ctx, "sb"); err != nil {
		t.Fatal(err)
	}
	server, err := dir.StartServer(ctx, "sb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(server.Stop)
	m, err := sb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	schema := sb.Schema()
	tables := []string{sb.LogicalFlowTable, sb.AddressSetTable}
	c, err := Dial(ctx, dir.SBRemote(), m.Name(), m, Options{Tables: tables, Schema: &schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if bs, _ := c.Take(); len(bs) != 1 || !bs[0].Initial {
		t.Fatalf("initial contents: %+v", bs)
	}
	if !c.Pause(ctx, tables) {
		t.Fatal("the server cannot pause a monitor")
	}
	ops := []lovsdb.Operation{{Op: lovsdb.OperationInsert, Table: sb.AddressSetTable, Row: lovsdb.Row{"name": "as"}}}
	for table := range 10 {
		for i := range 3 {
			ops = append(ops, lovsdb.Operation{Op: lovsdb.OperationInsert, Table: sb.LogicalFlowTable, Row: lovsdb.Row{
				"pipeline": "ingress", "table_id": table, "priority": i, "match": fmt.Sprint(i), "actions": "next;"}})
		}
	}
	if err := c.Transact(ctx, ops); err != nil {
		t.Fatal(err)
	}
	below := func(n int) ResumeStep {
		return ResumeStep{Table: sb.LogicalFlowTable, Where: []any{lovsdb.NewCondition("table_id", lovsdb.ConditionLessThan, n)}}
	}
	if err := c.Resume(ctx, below(4), below(8)); err != nil {
		t.Fatal(err)
	}
	bs, err := c.Take()
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, b := range bs {
		var rows []string
		for _, ch := range b.Changes {
			switch r := ch.New.(type) {
			case *sb.LogicalFlow:
				rows = append(rows, fmt.Sprint(r.TableID))
			case *sb.AddressSet:
				rows = append(rows, r.Name)
			}
			if ch.Old != nil || ch.New == nil {
				t.Errorf("%s %s: not an insert", ch.Table, ch.UUID)
			}
		}
		slices.Sort(rows)
		got = append(got, slices.Compact(rows))
	}
	want := [][]string{{"0", "1", "2", "3", "as"}, {"4", "5", "6", "7"}, {"8", "9"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("updates by the table_ids and chassis they hold: %q, want %q", got, want)
	}
	if n := c.rows[sb.LogicalFlowTable]; len(n) != 30 {
		t.Errorf("%d Logical_Flow rows known, want 30", len(n))
	}
}
