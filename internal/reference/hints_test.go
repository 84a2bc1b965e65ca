package reference

import (
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// TestCompareLiveHints: two live SBs' hints agree when they are the same,
// whatever northlog builds the flow from now (a kept row), or when both
// name rows northlog builds the flow from; not when one names another row.
func TestCompareLiveHints(t *testing.T) {
	const (
		kept   = "sw0|ingress|25|50|eth.dst == 0a:00:00:00:00:01|outport = \"p1\"; output;"
		either = "sw0|ingress|8|1000|ip4|next;"
		wrong  = "sw0|ingress|19|100|arp.tpa == 10.0.0.2 && arp.op == 1 && inport == \"p1\"|next;"
		shared = "sw1|ingress|8|1000|ip4|next;" // the text of either, on another switch
	)
	expected := map[string]string{kept: "acl-gone", either: "acl-a", wrong: "port-p1", shared: "acl-b"}
	got := map[string]string{kept: "acl-gone", either: "acl-b", wrong: "switch-sw0", shared: "acl-a"}
	possible := map[string][]string{kept: {"port-p1"}, either: {"acl-a"}, wrong: {"port-p1", "switch-sw0x"}, shared: {"acl-b"}}
	diffs := CompareLiveHints(rules.StagesOf(schema.OVN2303), expected, got, possible)
	if len(diffs) != 1 || !strings.HasPrefix(diffs[0], wrong+": ") {
		t.Errorf("diffs %q, want one, for %s", diffs, wrong)
	}
	got[wrong] = "port-p1"
	if diffs := CompareLiveHints(rules.StagesOf(schema.OVN2303), expected, got, possible); !slices.Equal(diffs, nil) {
		t.Errorf("diffs %q, want none", diffs)
	}
}
