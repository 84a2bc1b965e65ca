package ovsdb

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
	"github.com/ovn-org/libovsdb/updates"
)

// TestFastModifiers: a fast modifier makes of a row what libovsdb's
// update arithmetic makes of it, up to the order of the set's elements,
// leaves the old row as it was, and leaves other modifies to libovsdb.
func TestFastModifiers(t *testing.T) {
	sbModel, err := wire.NewModel(sb.Schema(), sb.FullDatabaseModel)
	if err != nil {
		t.Fatal(err)
	}
	nbModel, err := wire.NewModel(nb.Schema(), nb.FullDatabaseModel)
	if err != nil {
		t.Fatal(err)
	}
	const row = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e00"
	p := func(i int) string { return fmt.Sprintf("6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e%02d", i) }
	for _, tc := range []struct {
		table string
		db    model.DatabaseModel
		old   func() model.Model
		ports func(model.Model) []string
	}{
		{sb.MulticastGroupTable, sbModel, func() model.Model {
			return &sb.MulticastGroup{UUID: row, Datapath: p(99), Name: "_MC_flood", TunnelKey: 32768, Ports: []string{p(1), p(2), p(3)}}
		}, func(m model.Model) []string { return m.(*sb.MulticastGroup).Ports }},
		{nb.LogicalSwitchTable, nbModel, func() model.Model {
			return &nb.LogicalSwitch{UUID: row, Name: "sw0", Ports: []string{p(1), p(2), p(3)}}
		}, func(m model.Model) []string { return m.(*nb.LogicalSwitch).Ports }},
	} {
		modify := fastModifiers[tc.table]
		old := tc.old()
		for _, diff := range []string{
			`{"ports":["uuid","` + p(4) + `"]}`,
			`{"ports":["uuid","` + p(1) + `"]}`,
			`{"ports":["set",[["uuid","` + p(2) + `"],["uuid","` + p(5) + `"],["uuid","` + p(3) + `"]]]}`,
		} {
			var r lovsdb.Row
			if err := json.Unmarshal([]byte(diff), &r); err != nil {
				t.Fatal(err)
			}
			fast, ok := modify(old, r)
			if !ok {
				t.Fatalf("%s %s: not made", tc.table, diff)
			}
			var mu updates.ModelUpdates
			if err := mu.AddRowUpdate2(tc.db, tc.table, row, old, lovsdb.RowUpdate2{Modify: &r}); err != nil {
				t.Fatal(err)
			}
			var generic model.Model
			_ = mu.ForEachModelUpdate(tc.table, func(_ string, _, new model.Model) error {
				generic = new
				return nil
			})
			if d := cmp.Diff(generic, fast, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
				t.Errorf("%s %s: fast modifier differs (-generic +fast):\n%s", tc.table, diff, d)
			}
		}
		if d := cmp.Diff(tc.old(), old); d != "" {
			t.Errorf("%s: old row modified:\n%s", tc.table, d)
		}
		for _, other := range []lovsdb.Row{
			{"name": "x"},
			{"ports": lovsdb.UUID{GoUUID: p(4)}, "name": "x"},
			{"ports": lovsdb.OvsSet{GoSet: []any{"not a uuid"}}},
		} {
			if _, ok := modify(old, other); ok {
				t.Errorf("%s %v: made", tc.table, other)
			}
		}
	}
}

// TestToggledKeepsOrder: the elements a diff leaves keep their order, new
// ones come last.
func TestToggledKeepsOrder(t *testing.T) {
	got, ok := toggled([]string{"a1", "b2", "c3", "d4"}, lovsdb.OvsSet{GoSet: []any{lovsdb.UUID{GoUUID: "b2"}, lovsdb.UUID{GoUUID: "e5"}}})
	if want := []string{"a1", "c3", "d4", "e5"}; !ok || !slices.Equal(got, want) {
		t.Errorf("toggled = %v, %v; want %v", got, ok, want)
	}
}
