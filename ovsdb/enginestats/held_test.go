package enginestats

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/ovn-org/libovsdb/model"
)

// TestHoldAsIterated: the batches of iterations held (Hold) and taken by
// the next run leave what the model follows of the databases (the
// references of both, the SB rows, the router ports by name, the dynamic
// routers, the chassis' config) as running every iteration does: rows
// inserted, updated many times, deleted, inserted and deleted while held,
// and a database's whole contents sent again (a new connection).
func TestHoldAsIterated(t *testing.T) {
	nbSchema, sbSchema := nb.Schema(), sb.Schema()
	each, held := NewNorthd2603(&nbSchema, &sbSchema), NewNorthd2603(&nbSchema, &sbSchema)
	rng := rand.New(rand.NewPCG(3, 4))
	nbRows := map[string]map[string]model.Model{}
	nbRow := func(table, uuid string) model.Model { return nbRows[table][uuid] }
	// change makes one random change of a row of table, whose rows are
	// uuids prefix0 to prefix(n-1); sbRows the same for the SB.
	sbRows := map[string]map[string]model.Model{}
	toggle := func(set []string, u string) []string {
		if i := slices.Index(set, u); i >= 0 {
			return slices.Delete(slices.Clone(set), i, i+1)
		}
		return append(slices.Clone(set), u)
	}
	change := func(rows map[string]map[string]model.Model, table string, n int, next func(old model.Model, uuid string) model.Model) wire.Change {
		if rows[table] == nil {
			rows[table] = map[string]model.Model{}
		}
		uuid := fmt.Sprintf("%s-%d", table, rng.IntN(n))
		old := rows[table][uuid]
		var new model.Model
		if old == nil || rng.IntN(5) > 0 {
			new = next(old, uuid)
			rows[table][uuid] = new
		} else {
			delete(rows[table], uuid)
		}
		return wire.Change{Table: table, UUID: uuid, Old: old, New: new}
	}
	ref := func(table string, n int) string { return fmt.Sprintf("%s-%d", table, rng.IntN(n)) }
	nbChange := func() wire.Change {
		switch rng.IntN(4) {
		case 0:
			return change(nbRows, nb.LogicalSwitchTable, 4, func(old model.Model, uuid string) model.Model {
				ls := &nb.LogicalSwitch{UUID: uuid, Name: uuid}
				if old != nil {
					*ls = *old.(*nb.LogicalSwitch)
				}
				ls.Ports = toggle(ls.Ports, ref(nb.LogicalSwitchPortTable, 12))
				return ls
			})
		case 1:
			return change(nbRows, nb.LogicalSwitchPortTable, 12, func(_ model.Model, uuid string) model.Model {
				return &nb.LogicalSwitchPort{UUID: uuid, Name: uuid, Addresses: []string{fmt.Sprint(rng.IntN(3))}}
			})
		case 2:
			return change(nbRows, nb.LogicalRouterTable, 3, func(old model.Model, uuid string) model.Model {
				lr := &nb.LogicalRouter{UUID: uuid, Name: uuid}
				if old != nil {
					*lr = *old.(*nb.LogicalRouter)
				}
				lr.Ports = toggle(lr.Ports, ref(nb.LogicalRouterPortTable, 6))
				lr.Options = map[string]string{"dynamic-routing": fmt.Sprint(rng.IntN(2) == 0)}
				return lr
			})
		}
		return change(nbRows, nb.LogicalRouterPortTable, 6, func(_ model.Model, uuid string) model.Model {
			// Renamed, but never to another port's name (an NB index).
			return &nb.LogicalRouterPort{UUID: uuid, Name: fmt.Sprint(uuid, "-", rng.IntN(2))}
		})
	}
	sbChange := func() wire.Change {
		return change(sbRows, sb.ChassisTable, 4, func(_ model.Model, uuid string) model.Model {
			return &sb.Chassis{UUID: uuid, Name: uuid, OtherConfig: map[string]string{"fdb-timestamp": fmt.Sprint(rng.IntN(2) == 0)}}
		})
	}
	// whole is a database's rows as the batch a new connection gets.
	whole := func(rows map[string]map[string]model.Model) wire.Batch {
		b := wire.Batch{Initial: true}
		for _, table := range slices.Sorted(maps.Keys(rows)) {
			for _, uuid := range slices.Sorted(maps.Keys(rows[table])) {
				b.Changes = append(b.Changes, wire.Change{Table: table, UUID: uuid, New: rows[table][uuid]})
			}
		}
		return b
	}
	follows := func(m *Northd2603) []any {
		return []any{m.tracker.nb.refs, referrersOf(m.tracker.nb), m.tracker.sb.refs, referrersOf(m.tracker.sb),
			m.sbRows, m.lrpByName, m.dynamicRouters, m.chassisConfig}
	}
	for step := range 600 {
		var nbBatches, sbBatches []wire.Batch
		switch {
		case step == 0 || step == 300:
			nbBatches, sbBatches = []wire.Batch{whole(nbRows)}, []wire.Batch{whole(sbRows)}
		default:
			b := wire.Batch{}
			for range 1 + rng.IntN(3) {
				b.Changes = append(b.Changes, nbChange())
			}
			nbBatches = []wire.Batch{b}
			if rng.IntN(3) == 0 {
				sbBatches = []wire.Batch{{Changes: []wire.Change{sbChange()}}}
			}
		}
		each.Iterate(nbBatches, sbBatches, nbRow, false)
		held.Hold(nbBatches, sbBatches)
		if step%100 == 99 {
			held.Iterate(nil, nil, nbRow, false)
			if got, want := follows(held), follows(each); !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d: held and taken at once, the model follows\n%v\nrun each iteration\n%v", step, got, want)
			}
		}
	}
}

// TestHeldRowsGoneLeaveNothing: rows inserted and deleted while held, as
// pods come and go beside a standby northd, leave no entry behind; the
// rows that stay, and the tables skipped, are as they should be.
func TestHeldRowsGoneLeaveNothing(t *testing.T) {
	var h heldChanges
	kept := &nb.LogicalSwitch{UUID: "ls", Name: "ls"}
	h.add([]wire.Batch{{Changes: []wire.Change{{Table: nb.LogicalSwitchTable, UUID: "ls", New: kept}}}}, nil)
	for i := range 1000 {
		u := fmt.Sprint("port", i)
		p := &nb.LogicalSwitchPort{UUID: u, Name: u}
		h.add([]wire.Batch{{Changes: []wire.Change{{Table: nb.LogicalSwitchPortTable, UUID: u, New: p}}}}, nil)
		h.add([]wire.Batch{{Changes: []wire.Change{
			{Table: nb.LogicalSwitchPortTable, UUID: u, Old: p},
			{Table: sb.LogicalFlowTable, UUID: u, New: &sb.LogicalFlow{UUID: u}},
		}}}, map[string]bool{sb.LogicalFlowTable: true})
		if len(h.changes) > 3 || len(h.at) > 1 {
			t.Fatalf("after %d rows gone: %d entries, %d indexed", i+1, len(h.changes), len(h.at))
		}
	}
	want := []wire.Batch{{Changes: []wire.Change{{Table: nb.LogicalSwitchTable, UUID: "ls", New: kept}}}}
	if got := h.before(nil); !reflect.DeepEqual(got, want) {
		t.Errorf("held %v, want %v", got, want)
	}
	if got := h.before(nil); got != nil {
		t.Errorf("held again: %v", got)
	}
}

// TestHeldChangesOfOneRow: a row changed twice while held is taken as one
// change from its first version to its last, whose columns the model
// finds by comparing the two, not from either change's own Columns
// (wire.Change.Columns, what the row decoder names for one modify).
func TestHeldChangesOfOneRow(t *testing.T) {
	s := nb.Schema()
	x := newRefIndex(&s, nil, nil)
	up := true
	v1 := &nb.LogicalSwitchPort{UUID: "lsp", Name: "p", Addresses: []string{"00:00:00:00:00:01"}}
	v2, v3 := *v1, *v1
	v2.Up = &up
	v3.Up, v3.Addresses = &up, []string{"00:00:00:00:00:02"}
	var h heldChanges
	h.add([]wire.Batch{{Changes: []wire.Change{{Table: nb.LogicalSwitchPortTable, UUID: "lsp", Old: v1, New: &v2, Columns: []string{"up"}}}}}, nil)
	h.add([]wire.Batch{{Changes: []wire.Change{{Table: nb.LogicalSwitchPortTable, UUID: "lsp", Old: &v2, New: &v3, Columns: []string{"addresses"}}}}}, nil)
	held := h.before(nil)
	if len(held) != 1 || len(held[0].Changes) != 1 {
		t.Fatalf("held %v, want one change", held)
	}
	got := x.trackedRow(held[0].Changes[0])
	want := map[string]bool{"up": true, "addresses": true}
	if got == nil || !maps.Equal(got.changed, want) {
		t.Errorf("the held change tracks %+v, want the columns %v", got, want)
	}
}
