package sbwriter

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// TestFlowPortVariants: flows that differ only in their InOutPort are one
// SB row on a datapath while any of them is desired, whatever order they
// come and go in, and the row's in_out_port is the smallest.
func TestFlowPortVariants(t *testing.T) {
	w := New(slog.New(slog.DiscardHandler), rules.StagesOf(schema.OVN2303), func(string) (string, bool) { return "", false })
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
