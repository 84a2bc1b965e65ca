package sbwriter

import (
	"slices"

	"github.com/northlog/northlog/relations"
)

// igmpFeed feeds the program the ports of the SB IGMP_Group rows that
// housekeeping keeps, with their datapaths and ports named as the rules
// name them.
type igmpFeed struct {
	// fed are the entries fed by row; check the rows to evaluate again.
	fed   map[string][]relations.IGMPEntry
	check map[string]bool
}

func newIGMPFeed() *igmpFeed {
	return &igmpFeed{fed: map[string][]relations.IGMPEntry{}, check: map[string]bool{}}
}

// reset marks the rows fed to evaluate again (a new SB connection, whose
// initial contents follow).
func (f *igmpFeed) reset() {
	for u := range f.fed {
		f.check[u] = true
	}
}

// FeedIGMP feeds n the changes of the IGMP_Group rows' entries since the
// last call, and returns how many there were. A row with no chassis or no
// datapath (which housekeeping deletes) has none, nor does a port the
// mirror does not hold.
func (w *Writer) FeedIGMP(n *relations.NB) int {
	h, f := w.house, w.house.igmpFeed
	changed := 0
	for _, u := range sortedKeys(f.check) {
		var want []relations.IGMPEntry
		if g := h.igmp[u]; g != nil && g.Chassis != nil && g.Datapath != nil {
			dp, ok := "", false
			if b := w.m.dps[*g.Datapath]; b != nil {
				dp, _, ok = dpNB(b)
			}
			if _, valid := relations.ParseIGMPAddress(g.Address); ok && !valid && g.Address != relations.IGMPMrouters {
				w.log.Warn("invalid IGMP group address", "address", g.Address)
			}
			for _, ref := range g.Ports {
				if pb := w.m.pbs[ref]; ok && pb != nil {
					want = append(want, relations.IGMPEntry{Row: u, Datapath: dp, Address: g.Address, Port: pb.LogicalPort})
				}
			}
		}
		had := f.fed[u]
		for _, e := range had {
			if !slices.Contains(want, e) {
				n.SetIGMPEntry(e, false)
				changed++
			}
		}
		for _, e := range want {
			if !slices.Contains(had, e) {
				n.SetIGMPEntry(e, true)
				changed++
			}
		}
		if len(want) == 0 {
			delete(f.fed, u)
		} else {
			f.fed[u] = want
		}
	}
	f.check = cleared(f.check)
	return changed
}
