package sbwriter

import (
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"unsafe"

	"github.com/google/uuid"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// noPorts names no port.
var noPorts = PortNames{Name: func(string) (string, bool) { return "", false }, UUIDs: func(string) []string { return nil }}

// TestFlowPortVariants: flows that differ only in their InOutPort are one
// SB row on a datapath while any of them is desired, whatever order they
// come and go in, and the row's in_out_port is the smallest; a flow that
// two rules make (weight 2) stays until both have retracted it.
func TestFlowPortVariants(t *testing.T) {
	w := New(slog.New(slog.DiscardHandler), rules.StagesOf(schema.OVN2303), noPorts)
	flow := func(port string) rules.Flow {
		return rules.Flow{Datapath: "sw", Stage: rules.LSInARPRsp, Priority: 100, Match: "1", Actions: "next;", InOutPort: port}
	}
	k := keyOfFlow(flow(""))
	step := func(f rules.Flow, weight int, wantDPs []string, wantPort string) {
		t.Helper()
		w.applyFlow(f, engine.Weight(weight))
		if dps := w.flows[k].dps; !slices.Equal(dps, wantDPs) || w.rowTagsOf(k).port != wantPort || w.DesiredFlows() != len(wantDPs) {
			t.Fatalf("after %+v (%d): datapaths %v, in_out_port %q, %d desired; want %v, %q", f, weight, dps, w.rowTagsOf(k).port, w.DesiredFlows(), wantDPs, wantPort)
		}
	}
	on := []string{"sw"}
	step(flow(""), 1, on, "")
	step(flow("p2"), 1, on, "")
	step(flow("p1"), 1, on, "")
	step(flow(""), -1, on, "p1")
	step(flow("p1"), -1, on, "p2")
	step(flow("p2"), -1, nil, "")
	step(flow("p1"), 2, on, "p1")
	step(flow(""), 1, on, "")
	step(flow("p1"), -1, on, "")
	step(flow(""), -1, on, "p1")
	step(flow("p1"), -1, nil, "")
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
	dp := &sb.DatapathBinding{UUID: dpRow, TunnelKey: 1, ExternalIDs: map[string]string{"logical-switch": "sw"}}
	row := flowUpdate(t, fmt.Sprintf(`{"logical_datapath":["uuid",%q],"pipeline":"ingress","table_id":%d,"priority":100,"match":"1","actions":"next;"}`,
		dpRow, stages.Table(f.Stage)), true)
	lf := uuid.MustParse(lfRow)
	check := func(when string, dps []string, rows []uuid.UUID) {
		t.Helper()
		e, ok := w.flows[k]
		if !slices.Equal(e.dps, dps) || !slices.Equal(e.rows, rows) || ok != (len(dps)+len(rows) > 0) {
			t.Fatalf("%s: entry %+v (%v), want datapaths %v, rows %v", when, e, ok, dps, rows)
		}
	}
	w.applyFlow(f, 1)
	w.ApplySB([]wire.Batch{{
		Changes: []wire.Change{{Table: sb.DatapathBindingTable, UUID: dp.UUID, New: dp}},
		Unkept:  []wire.UnkeptChange{{Table: sb.LogicalFlowTable, UUID: lf, Update: row}},
	}})
	check("desired and in the SB", []string{"sw"}, []uuid.UUID{lf})
	w.ApplySB([]wire.Batch{{Initial: true}})
	check("after a new SB connection's empty contents", []string{"sw"}, nil)
	w.ApplySB([]wire.Batch{{Initial: true,
		Changes: []wire.Change{{Table: sb.DatapathBindingTable, UUID: dp.UUID, New: dp}},
		Unkept:  []wire.UnkeptChange{{Table: sb.LogicalFlowTable, UUID: lf, Update: row}},
	}})
	w.applyFlow(f, -1)
	check("in the SB only", nil, []uuid.UUID{lf})
	w.ApplySB([]wire.Batch{{Unkept: []wire.UnkeptChange{{Table: sb.LogicalFlowTable, UUID: lf}}}})
	check("neither", nil, nil)
}

const (
	dpRow    = "6c1d0c1e-7a4b-4b63-9b6f-3a0e2f6f1a01"
	groupRow = "0b9f3a52-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
	lfRow    = "f4e3d2c1-b0a9-4887-9665-544332211000"
)

// flowUpdate is the read loop's decoding of a Logical_Flow row update.
func flowUpdate(t *testing.T, row string, whole bool) any {
	t.Helper()
	u, err := decodeFlowUpdate(wire.RowOf([]byte(row)), whole)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestFlowRowModifies: a "modify" of a flow row is completed with the row
// the mirror holds: a new match moves it to another key; a row that loses
// its group and has no datapath is garbage, and noted for the engine
// stats; the row's other columns stay.
func TestFlowRowModifies(t *testing.T) {
	stages := rules.StagesOf(schema.OVN2603)
	w := New(slog.New(slog.DiscardHandler), stages, noPorts)
	dp := &sb.DatapathBinding{UUID: dpRow, TunnelKey: 1, ExternalIDs: map[string]string{"logical-router": "lr"}}
	group := &sb.LogicalDPGroup{UUID: groupRow, Datapaths: []string{dpRow}}
	table := stages.Table(rules.LRInAdmission)
	lf := uuid.MustParse(lfRow)
	change := func(row string, whole bool) {
		t.Helper()
		w.ApplySB([]wire.Batch{{Unkept: []wire.UnkeptChange{{Table: sb.LogicalFlowTable, UUID: lf, Update: flowUpdate(t, row, whole)}}}})
	}
	w.ApplySB([]wire.Batch{{Changes: []wire.Change{
		{Table: sb.DatapathBindingTable, UUID: dp.UUID, New: dp},
		{Table: sb.LogicalDPGroupTable, UUID: group.UUID, New: group},
	}}})
	change(fmt.Sprintf(`{"logical_dp_group":["uuid",%q],"logical_datapath":["set",[]],"pipeline":"ingress","table_id":%d,"priority":50,"match":"a","actions":"drop;","controller_meter":"m"}`,
		groupRow, table), true)
	key := flowKey{Stage: rules.LRInAdmission, Priority: 50, Match: "a", Actions: "drop;", Meter: "m", HasMeter: true}
	if e := w.flows[key]; !slices.Equal(e.rows, []uuid.UUID{lf}) || !w.dirtyLF[key] {
		t.Fatalf("inserted: entry %+v, dirty %v", e, w.dirtyLF)
	}
	w.Reconcile(nil)
	change(`{"match":"b"}`, false)
	moved := key
	moved.Match = "b"
	if e := w.flows[moved]; !slices.Equal(e.rows, []uuid.UUID{lf}) || !w.dirtyLF[key] || !w.dirtyLF[moved] || len(w.flows[key].rows) != 0 {
		t.Fatalf("new match: entry %+v, dirty %v", e, w.dirtyLF)
	}
	if w.TakeFlowLostGroup() {
		t.Fatal("a new match noted as a lost group")
	}
	change(`{"logical_dp_group":["set",[]]}`, false)
	if !w.TakeFlowLostGroup() || !w.garbageFlows[lf] || len(w.flows[moved].rows) != 0 {
		t.Fatalf("group lost: garbage %v, entry %+v", w.garbageFlows, w.flows[moved])
	}
	change(fmt.Sprintf(`{"logical_datapath":["uuid",%q]}`, dpRow), false)
	f := w.m.flows[lf]
	if e := w.flows[moved]; !slices.Equal(e.rows, []uuid.UUID{lf}) || f.meter == nil || *f.meter != "m" || f.actions != "drop;" || f.priority != 50 {
		t.Fatalf("on a datapath: entry %+v, row %+v", e, f)
	}
	w.ApplySB([]wire.Batch{{Unkept: []wire.UnkeptChange{{Table: sb.LogicalFlowTable, UUID: lf}}}})
	if len(w.m.flows) != 0 || len(w.m.flowsByDP) != 0 || len(w.m.groupFlows) != 0 || len(w.flows) != 0 {
		t.Fatalf("deleted: rows %v, by datapath %v, by group %v, keys %v", w.m.flows, w.m.flowsByDP, w.m.groupFlows, w.flows)
	}
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

// TestWantsFlowsOf: Recompute's check finds the desired flows, kept
// incrementally, equal to a fresh program's whole output when they are
// (a flow that two rules make weighs 2 in both), and unequal when a flow
// is missing or extra.
func TestWantsFlowsOf(t *testing.T) {
	const input = "test flows"
	program := func(flows ...rules.Flow) *rules.Program {
		p := rules.NewFrom(schema.OVN2303, func(n *relations.NB) engine.Rel[rules.Flow] {
			in, r := engine.NewInput[rules.Flow](n.Circuit, input)
			for _, f := range flows {
				in.Insert(f)
			}
			return engine.Union(r, engine.Filter(r, func(f rules.Flow) bool { return f.Priority == 100 }))
		})
		p.Flows.DropContents()
		p.Step()
		return p
	}
	flow := func(dp string, priority int) rules.Flow {
		return rules.Flow{Datapath: dp, Stage: rules.LSInARPRsp, Priority: priority, Match: "1", Actions: "next;"}
	}
	a, b, c := flow("sw0", 100), flow("sw1", 100), flow("sw0", 50)
	live := program(a, b)
	w := New(slog.New(slog.DiscardHandler), live.Stages, noPorts)
	w.ApplyProgram(live)
	in := engine.InputOf[rules.Flow](live.Circuit, input)
	in.Insert(c)
	in.Delete(b)
	live.Step()
	w.ApplyProgram(live)
	for _, tc := range []struct {
		fresh []rules.Flow
		want  bool
	}{{[]rules.Flow{a, c}, true}, {[]rules.Flow{a}, false}, {[]rules.Flow{a, b, c}, false}} {
		if got := w.WantsFlowsOf(program(tc.fresh...)); got != tc.want {
			t.Errorf("WantsFlowsOf(%v) = %v, want %v", tc.fresh, got, tc.want)
		}
	}
	in.Delete(a)
	live.Step()
	w.ApplyProgram(live)
	if !w.WantsFlowsOf(program(c)) || w.DesiredFlows() != 1 {
		t.Errorf("after a flow of weight 2 went: WantsFlowsOf(%v) false or %d desired, want true, 1", c, w.DesiredFlows())
	}
}

// TestFlowRowSize: a flow row the mirror keeps is 80 bytes, a size class
// of its own (hundreds of thousands of them at 25,000 ports).
func TestFlowRowSize(t *testing.T) {
	if n := unsafe.Sizeof(flowRow{}); n != 80 {
		t.Errorf("flowRow is %d bytes", n)
	}
}

// TestEchoMarksAllFlows: a batch that brings most of the flow rows (a
// cold start's echo) marks every flow key at once, not each in dirtyLF,
// and the write that follows finds every key as if each were marked: the
// rows that hold a desired flow stay, a row that holds none is deleted
// and the flow it stood for inserted.
func TestEchoMarksAllFlows(t *testing.T) {
	stages := rules.StagesOf(schema.OVN2303)
	w := New(slog.New(slog.DiscardHandler), stages, noPorts)
	w.wantDP["sw"] = rules.Datapath{NB: "sw", Kind: rules.Switch}
	dp := &sb.DatapathBinding{UUID: dpRow, TunnelKey: 1, ExternalIDs: map[string]string{"logical-switch": "sw"}}
	var flowRows []wire.UnkeptChange
	const n = fillMin + 1
	for i := range n {
		f := rules.Flow{Datapath: "sw", Stage: rules.LSInARPRsp, Priority: 100, Match: fmt.Sprintf("reg0 == %d", i), Actions: "next;"}
		w.applyFlow(f, 1)
		actions := f.Actions
		if i == 7 {
			actions = "drop;"
		}
		row := fmt.Sprintf(`{"logical_datapath":["uuid",%q],"pipeline":"ingress","table_id":%d,"priority":100,"match":%q,"actions":%q}`,
			dpRow, stages.Table(f.Stage), f.Match, actions)
		flowRows = append(flowRows, wire.UnkeptChange{Table: sb.LogicalFlowTable, UUID: uuid.MustParse(fmt.Sprintf("f4e3d2c1-b0a9-4887-9665-%012d", i)), Update: flowUpdate(t, row, true)})
	}
	w.Reconcile(nil)
	w.ApplySB([]wire.Batch{{Changes: []wire.Change{{Table: sb.DatapathBindingTable, UUID: dp.UUID, New: dp}}, Unkept: flowRows}})
	if !w.allFlowsDirty || len(w.dirtyLF) != 0 || w.dirtyFlows() != n+1 {
		t.Fatalf("all dirty %v, %d keys marked, %d dirty", w.allFlowsDirty, len(w.dirtyLF), w.dirtyFlows())
	}
	txn := w.Reconcile(nil)
	if txn.Inserted[sb.LogicalFlowTable] != 1 || txn.Deleted[sb.LogicalFlowTable] != 1 || txn.Updated[sb.LogicalFlowTable] != 0 {
		t.Errorf("flows inserted, updated, deleted: %d, %d, %d; want 1, 0, 1", txn.Inserted[sb.LogicalFlowTable],
			txn.Updated[sb.LogicalFlowTable], txn.Deleted[sb.LogicalFlowTable])
	}
	if w.allFlowsDirty || w.dirtyFlows() != 0 {
		t.Errorf("still dirty after the write: %v, %d", w.allFlowsDirty, w.dirtyFlows())
	}
}
