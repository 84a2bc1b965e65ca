package sbwriter

import (
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
)

// portFeed feeds the program a value that ports' Port_Binding rows hold,
// one per port, the zero value for none.
type portFeed[V comparable] struct {
	// fed are the values fed by port; check the ports to evaluate again.
	fed   map[string]V
	check map[string]bool
}

func newPortFeed[V comparable]() *portFeed[V] {
	return &portFeed[V]{fed: map[string]V{}, check: map[string]bool{}}
}

// apply records an SB change of Port_Binding.
func (f *portFeed[V]) apply(c wire.Change) {
	for _, row := range []any{c.Old, c.New} {
		if r, ok := row.(*sb.PortBinding); ok {
			f.check[r.LogicalPort] = true
		}
	}
}

// reset marks the ports fed to evaluate again (a new SB connection, whose
// initial contents follow).
func (f *portFeed[V]) reset() {
	for p := range f.fed {
		f.check[p] = true
	}
}

// feed sets, for each port to check whose binding's value (of the row,
// nil for none) changed since last fed, the value it had out and the one
// it has in, and returns how many ports changed.
func (f *portFeed[V]) feed(w *Writer, of func(*sb.PortBinding) V, set func(port string, v V, in bool)) int {
	var none V
	changed := 0
	for _, port := range sortedKeys(f.check) {
		want := of(w.m.pbs[w.m.pbByName[port]])
		had := f.fed[port]
		if want == had {
			continue
		}
		changed++
		if had != none {
			set(port, had, false)
			delete(f.fed, port)
		}
		if want != none {
			set(port, want, true)
			f.fed[port] = want
		}
	}
	f.check = cleared(f.check)
	return changed
}

// FeedVirtualParents feeds n the changes of the claimed virtual ports
// since the last call, and returns how many there were: ovn-controller
// sets a claimed port's Port_Binding virtual_parent and chassis, and 23.03
// then resolves the virtual IP to the parent's MAC.
func (w *Writer) FeedVirtualParents(n *relations.NB) int {
	return w.house.virtualParents.feed(w, func(pb *sb.PortBinding) string {
		if pb == nil || pb.Chassis == nil {
			return ""
		}
		return ptrOr(pb.VirtualParent, "")
	}, func(port, parent string, in bool) {
		n.SetVirtualParent(relations.VirtualParent{Port: port, Parent: parent}, in)
	})
}

// FeedQueueIDs feeds n the changes of the qdisc_queue_ids the ports'
// bindings hold since the last call, and returns how many there were: a
// port with QoS options keeps its binding's (relations.NB.QueueIDs).
func (w *Writer) FeedQueueIDs(n *relations.NB) int {
	return w.house.queueIDs.feed(w, func(pb *sb.PortBinding) int {
		if pb == nil {
			return 0
		}
		return qdiscQueueOf(pb)
	}, func(port string, id int, in bool) {
		n.SetBoundQueueID(relations.BoundQueueID{Port: port, ID: id}, in)
	})
}
