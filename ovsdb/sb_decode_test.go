package ovsdb

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/northlog/northlog/relations/sb"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
	"github.com/ovn-org/libovsdb/updates"
)

// TestDecodeLogicalFlow: the fast decoder reads rows as libovsdb's generic
// path does, in every notation ovsdb-server uses.
func TestDecodeLogicalFlow(t *testing.T) {
	client, err := sb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	dbModel, errs := model.NewDatabaseModel(sb.Schema(), client)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	const u1, u2 = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01", "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e02"
	for _, row := range []string{
		`{"pipeline":"ingress","table_id":3,"priority":10,"match":"1","actions":"next;"}`,
		`{"pipeline":"egress","table_id":0,"priority":0,"match":"ip4 && \"a\\\"b\"","actions":"drop;",
		  "logical_datapath":["uuid","` + u1 + `"],"controller_meter":"meter1",
		  "external_ids":["map",[["stage-name","ls_out_pre_acl"],["source","northd.c:1"]]],"tags":["map",[["in_out_port","p1"]]]}`,
		`{"pipeline":"ingress","table_id":25,"priority":50,"match":"m","actions":"a",
		  "logical_datapath":["set",[]],"logical_dp_group":["uuid","` + u2 + `"],"controller_meter":["set",[]],
		  "external_ids":["map",[]],"tags":["map",[]]}`,
		`{"pipeline":"ingress","table_id":1,"priority":1,"match":"m","actions":"a","controller_meter":["set",["x"]],
		  "logical_datapath":["set",[["uuid","` + u1 + `"]]]}`,
	} {
		fast, err := decodeLogicalFlow(json.RawMessage(row), u1)
		if err != nil {
			t.Fatalf("%s: %v", row, err)
		}
		var r lovsdb.Row
		if err := json.Unmarshal([]byte(row), &r); err != nil {
			t.Fatal(err)
		}
		generic, err := model.CreateModel(dbModel, sb.LogicalFlowTable, &r, u1)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(generic, fast, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: fast decoder differs (-generic +fast):\n%s", row, d)
		}
	}
	for _, bad := range []string{
		`{"logical_datapath":["set",[["uuid","a"],["uuid","b"]]]}`,
		`{"external_ids":["set",[]]}`,
		`{"controller_meter":["uuid","` + u1 + `"]}`,
	} {
		if _, err := decodeLogicalFlow(json.RawMessage(bad), u1); err == nil {
			t.Errorf("%s: decoded", bad)
		}
	}
}

// TestModifyGroupPorts: the fast modifier makes of a Multicast_Group row
// what libovsdb's update arithmetic makes of it, up to the order of the
// ports, and leaves other modifies to libovsdb.
func TestModifyGroupPorts(t *testing.T) {
	client, err := sb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	dbModel, errs := model.NewDatabaseModel(sb.Schema(), client)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	const row = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e00"
	p := func(i int) string { return fmt.Sprintf("6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e%02d", i) }
	old := &sb.MulticastGroup{UUID: row, Datapath: p(99), Name: "_MC_flood", TunnelKey: 32768, Ports: []string{p(1), p(2), p(3)}}
	for _, diff := range []string{
		`{"ports":["uuid","` + p(4) + `"]}`,
		`{"ports":["uuid","` + p(1) + `"]}`,
		`{"ports":["set",[["uuid","` + p(2) + `"],["uuid","` + p(5) + `"],["uuid","` + p(3) + `"]]]}`,
	} {
		var r lovsdb.Row
		if err := json.Unmarshal([]byte(`{"modify":`+diff+`}`), &struct {
			Modify *lovsdb.Row `json:"modify"`
		}{&r}); err != nil {
			t.Fatal(err)
		}
		fast, ok := modifyGroupPorts(old, r)
		if !ok {
			t.Fatalf("%s: not made", diff)
		}
		var mu updates.ModelUpdates
		if err := mu.AddRowUpdate2(dbModel, sb.MulticastGroupTable, row, old, lovsdb.RowUpdate2{Modify: &r}); err != nil {
			t.Fatal(err)
		}
		var generic model.Model
		_ = mu.ForEachModelUpdate(sb.MulticastGroupTable, func(_ string, _, new model.Model) error {
			generic = new
			return nil
		})
		if d := cmp.Diff(generic, fast, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
			t.Errorf("%s: fast modifier differs (-generic +fast):\n%s", diff, d)
		}
	}
	if got := old.Ports; !slices.Equal(got, []string{p(1), p(2), p(3)}) {
		t.Errorf("old row modified: %v", got)
	}
	for _, other := range []lovsdb.Row{
		{"tunnel_key": 32769},
		{"ports": lovsdb.UUID{GoUUID: p(4)}, "tunnel_key": 32769},
		{"ports": lovsdb.OvsSet{GoSet: []any{"not a uuid"}}},
	} {
		if _, ok := modifyGroupPorts(old, other); ok {
			t.Errorf("%v: made", other)
		}
	}
}
