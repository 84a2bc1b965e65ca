package sbwriter

import (
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// noPorts names no port.
var noPorts = PortNames{Name: func(string) (string, bool) { return "", false }, UUIDs: func(string) []string { return nil }}

// TestFlowPortVariants: flows that differ only in their InOutPort are one
// SB row on a datapath while any of them is desired, whatever order they
// come and go in, and the row's in_out_port is the smallest.
func TestFlowPortVariants(t *testing.T) {
	w := New(slog.New(slog.DiscardHandler), rules.StagesOf(schema.OVN2303), noPorts)
	flow := func(port string) rules.Flow {
		return rules.Flow{Datapath: "sw", Stage: rules.LSInARPRsp, Priority: 100, Match: "1", Actions: "next;", InOutPort: port}
	}
	k := keyOfFlow(flow(""))
	step := func(f rules.Flow, weight int, wantDPs []string, wantPort string) {
		t.Helper()
		w.applyFlow(f, engine.Weight(weight))
		if dps := w.flows[k].dps; !slices.Equal(dps, wantDPs) || w.rowTagsOf(k).port != wantPort {
			t.Fatalf("after %+v (%d): datapaths %v, in_out_port %q; want %v, %q", f, weight, dps, w.rowTagsOf(k).port, wantDPs, wantPort)
		}
	}
	on := []string{"sw"}
	step(flow(""), 1, on, "")
	step(flow("p2"), 1, on, "")
	step(flow("p1"), 1, on, "")
	step(flow(""), -1, on, "p1")
	step(flow("p1"), -1, on, "p2")
	step(flow("p2"), -1, nil, "")
	if len(w.variants) != 0 || len(w.flows) != 0 {
		t.Fatalf("left over: variants %v, flows %v", w.variants, w.flows)
	}
}

// TestFlowEntries: a flow key's one entry holds what the program wants of
// it and the SB rows with it; a new SB connection's contents drop the rows
// and keep the wants, and the entry goes once neither is left.
func TestFlowEntries(t *testing.T) {
	stages := rules.StagesOf(schema.OVN2303)
	w := New(slog.New(slog.DiscardHandler), stages, noPorts)
	f := rules.Flow{Datapath: "sw", Stage: rules.LSInARPRsp, Priority: 100, Match: "1", Actions: "next;"}
	k := keyOfFlow(f)
	dp := &sb.DatapathBinding{UUID: "dp1", TunnelKey: 1, ExternalIDs: map[string]string{"logical-switch": "sw"}}
	row := &sb.LogicalFlow{UUID: "lf1", LogicalDatapath: &dp.UUID, Pipeline: sb.LogicalFlowPipelineIngress,
		TableID: stages.Table(f.Stage), Priority: f.Priority, Match: f.Match, Actions: f.Actions}
	check := func(when string, dps, rows []string) {
		t.Helper()
		e, ok := w.flows[k]
		if !slices.Equal(e.dps, dps) || !slices.Equal(e.rows, rows) || ok != (len(dps)+len(rows) > 0) {
			t.Fatalf("%s: entry %+v (%v), want datapaths %v, rows %v", when, e, ok, dps, rows)
		}
	}
	w.applyFlow(f, 1)
	w.ApplySB([]wire.Batch{{Changes: []wire.Change{
		{Table: sb.LogicalFlowTable, UUID: row.UUID, New: row},
		{Table: sb.DatapathBindingTable, UUID: dp.UUID, New: dp},
	}}})
	check("desired and in the SB", []string{"sw"}, []string{"lf1"})
	w.ApplySB([]wire.Batch{{Initial: true}})
	check("after a new SB connection's empty contents", []string{"sw"}, nil)
	w.ApplySB([]wire.Batch{{Initial: true, Changes: []wire.Change{
		{Table: sb.DatapathBindingTable, UUID: dp.UUID, New: dp},
		{Table: sb.LogicalFlowTable, UUID: row.UUID, New: row},
	}}})
	w.applyFlow(f, -1)
	check("in the SB only", nil, []string{"lf1"})
	w.ApplySB([]wire.Batch{{Changes: []wire.Change{{Table: sb.LogicalFlowTable, UUID: row.UUID, Old: row}}}})
	check("neither", nil, nil)
}

// TestGroupMutations: a Logical_DP_Group of a thousand datapaths that
// loses one and gains another is one delete and one insert of those
// alone, whatever order the group's row lists its datapaths in.
func TestGroupMutations(t *testing.T) {
	var have []string
	for i := range 1000 {
		have = append(have, fmt.Sprintf("dp%04d", i))
	}
	want := slices.Concat(have[1:], []string{"dp9999"})
	slices.Reverse(have)
	got := groupMutations(have, want)
	wantMuts := []lovsdb.Mutation{
		*lovsdb.NewMutation("datapaths", lovsdb.MutateOperationDelete, uuidSet([]string{"dp0000"})),
		*lovsdb.NewMutation("datapaths", lovsdb.MutateOperationInsert, uuidSet([]string{"dp9999"})),
	}
	if fmt.Sprint(got) != fmt.Sprint(wantMuts) {
		t.Errorf("mutations %v, want %v", got, wantMuts)
	}
	if got := groupMutations(want, want); len(got) != 0 {
		t.Errorf("same datapaths: mutations %v, want none", got)
	}
}
