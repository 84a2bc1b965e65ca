package ovsdb

import (
	"cmp"
	"log/slog"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// TestFeedHandshakeOnly: an NB_Global change of the handshake columns
// alone reaches northd's view (global) but not the program, which keeps
// the row it was fed; the next real change replaces that row. The
// program's row has the random MACs northd writes into the NB.
func TestFeedHandshakeOnly(t *testing.T) {
	prog := rules.New()
	fed := engine.NewOutput(prog.NB.Global.Rows, func(a, b *nb.NBGlobal) int {
		return cmp.Or(cmp.Compare(a.NbCfg, b.NbCfg), cmp.Compare(a.Options["x"], b.Options["x"]))
	})
	macs := newRandomMACs()
	f := newNBFeed(slog.New(slog.DiscardHandler), macs, schema.OVN2303)
	const u = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01"
	g1 := &nb.NBGlobal{UUID: u, NbCfg: 1, Options: map[string]string{"x": "1"}}
	g2 := &nb.NBGlobal{UUID: u, NbCfg: 2, NbCfgTimestamp: 20, SbCfg: 1, SbCfgTimestamp: 10, HvCfg: 1, HvCfgTimestamp: 11, Options: map[string]string{"x": "1"}}
	g3 := *g2
	g3.Options = map[string]string{"x": "2"}
	g4 := g3
	g4.NbCfg = 5
	for i, step := range []struct {
		b       wire.Batch
		changed int
		global  *nb.NBGlobal
		program []*nb.NBGlobal
	}{
		{wire.Batch{Initial: true, Changes: []wire.Change{{Table: nb.NBGlobalTable, UUID: u, New: g1}}}, 1, g1, []*nb.NBGlobal{g1}},
		{wire.Batch{Changes: []wire.Change{{Table: nb.NBGlobalTable, UUID: u, Old: g1, New: g2}}}, 0, g2, []*nb.NBGlobal{g1}},
		{wire.Batch{Changes: []wire.Change{{Table: nb.NBGlobalTable, UUID: u, Old: g2, New: &g3}}}, 1, &g3, []*nb.NBGlobal{&g3}},
		// A reconnect that finds only nb_cfg moved.
		{wire.Batch{Initial: true, Changes: []wire.Change{{Table: nb.NBGlobalTable, UUID: u, New: &g4}}}, 0, &g4, []*nb.NBGlobal{&g3}},
	} {
		n, err := f.apply(prog.NB, []wire.Batch{step.b})
		if err != nil {
			t.Fatal(err)
		}
		prog.Step()
		if n != step.changed || f.global != step.global {
			t.Errorf("step %d: %d rows fed, global %+v; want %d, %+v", i, n, f.global, step.changed, step.global)
		}
		// The program's row is the NB's with the MACs northd fills in.
		got := fed.Contents()
		if len(got) != 1 || got[0].NbCfg != step.program[0].NbCfg || got[0].Options["x"] != step.program[0].Options["x"] ||
			got[0].Options["svc_monitor_mac"] != macs.svc || got[0].Options["mac_prefix"] != macs.prefix {
			t.Errorf("step %d: the program holds %+v, want %+v with svc_monitor_mac %s", i, got, step.program, macs.svc)
		}
	}
}
