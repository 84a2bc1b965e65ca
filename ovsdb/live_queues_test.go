package ovsdb

import (
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
)

// queueIDSteps2603 give switch ports QoS options one at a time, so that
// 26.03.2 gives the queue ids in a known order, then take them away,
// give them again and delete the ports that hold them: each port keeps
// its binding's id, a new one gets the lowest free one. Each step ends
// with --wait=sb.
var queueIDSteps2603 = []struct{ name, script string }{
	{"localnet port", `ovn-nbctl --wait=sb ls-add q0 -- lsp-add q0 ln -- lsp-set-type ln localnet -- lsp-set-addresses ln unknown -- lsp-set-options ln network_name=phys qos_max_rate=1000`},
	{"VIF", `ovn-nbctl --wait=sb lsp-add q0 vm -- lsp-set-addresses vm "0a:00:00:00:00:01 10.0.0.1" -- lsp-set-options vm qos_max_rate=1000`},
	// b would come before vm in name order.
	{"second VIF", `ovn-nbctl --wait=sb lsp-add q0 b -- lsp-set-addresses b "0a:00:00:00:00:02 10.0.0.2" -- lsp-set-options b qos_burst=100`},
	{"QoS taken away", `ovn-nbctl --wait=sb lsp-set-options vm foo=bar`},
	{"QoS given to a new port", `ovn-nbctl --wait=sb lsp-add q0 c -- lsp-set-addresses c "0a:00:00:00:00:03 10.0.0.3" -- lsp-set-options c qos_min_rate=5`},
	{"QoS given back", `ovn-nbctl --wait=sb lsp-set-options vm qos_max_rate=2000`},
	{"NB queue id", `ovn-nbctl --wait=sb lsp-add q0 d -- lsp-set-addresses d "0a:00:00:00:00:04 10.0.0.4" -- lsp-set-options d qdisc_queue_id=10`},
	{"localnet port deleted", `ovn-nbctl --wait=sb lsp-del ln -- lsp-del b`},
	{"localnet port again", `ovn-nbctl --wait=sb lsp-add q0 ln2 -- lsp-set-type ln2 localnet -- lsp-set-options ln2 network_name=phys2 qos_min_rate=10`},
}

// TestLive2603QueueIDs: after each of queueIDSteps2603, the live
// northd's Port_Binding rows and flows are 26.03.2's as soon as
// ovn-nbctl --wait=sb returns: the queue ids it gives and the flows that
// set them are written together.
func TestLive2603QueueIDs(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	for _, step := range queueIDSteps2603 {
		if err := ref.Apply(t.Context(), step.script); err != nil {
			t.Fatal(err)
		}
		s.script(step.script)
		want, got := dumpSB(t, ref.SBRemote()), dumpSB(t, s.SBRemote())
		tables := []string{sb.PortBindingTable}
		if r := reference.Compare(ownedRows(t, want, tables), ownedRows(t, got, tables)); !r.Equal() {
			t.Errorf("%s: port bindings differ from the reference's (- reference, + northlog):\n%s", step.name, rowDiff(r))
		}
		if r := reference.Compare(sbFlows(t, want), sbFlows(t, got)); !r.Equal() {
			t.Errorf("%s: flows differ from the reference's:\n%s", step.name, r)
		}
	}
}
