package sbwriter

import (
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
)

// virtualParentFeed feeds the program the virtual ports their parents
// claim: ovn-controller sets a claimed port's Port_Binding virtual_parent
// and chassis, and 23.03 then resolves the virtual IP to the parent's MAC.
type virtualParentFeed struct {
	// fed are the parents fed by port; check the ports to evaluate again.
	fed   map[string]string
	check map[string]bool
}

func newVirtualParentFeed() *virtualParentFeed {
	return &virtualParentFeed{fed: map[string]string{}, check: map[string]bool{}}
}

// apply records an SB change of Port_Binding.
func (f *virtualParentFeed) apply(c wire.Change) {
	for _, row := range []any{c.Old, c.New} {
		if r, ok := row.(*sb.PortBinding); ok {
			f.check[r.LogicalPort] = true
		}
	}
}

// reset marks the ports fed to evaluate again (a new SB connection, whose
// initial contents follow).
func (f *virtualParentFeed) reset() {
	for p := range f.fed {
		f.check[p] = true
	}
}

// FeedVirtualParents feeds n the changes of the claimed virtual ports
// since the last call, and returns how many there were.
func (w *Writer) FeedVirtualParents(n *relations.NB) int {
	f := w.house.virtualParents
	changed := 0
	for _, port := range sortedKeys(f.check) {
		want := ""
		if pb := w.m.pbs[w.m.pbByName[port]]; pb != nil && pb.Chassis != nil {
			want = ptrOr(pb.VirtualParent, "")
		}
		had := f.fed[port]
		if want == had {
			continue
		}
		changed++
		if had != "" {
			n.SetVirtualParent(relations.VirtualParent{Port: port, Parent: had}, false)
			delete(f.fed, port)
		}
		if want != "" {
			n.SetVirtualParent(relations.VirtualParent{Port: port, Parent: want}, true)
			f.fed[port] = want
		}
	}
	clear(f.check)
	return changed
}
