package sbwriter

import (
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
)

// learnedRouteFeed feeds the program the SB Learned_Route rows that
// ovn-controller writes, their datapath and port named as the rules name
// them.
type learnedRouteFeed struct {
	rows map[string]*sb.LearnedRoute
	// byRef are the rows by the datapath and port rows they refer to,
	// whose changes may name them otherwise.
	byRef map[string]map[string]bool
	// fed are the routes fed by row; check the rows to evaluate again.
	fed   map[string]relations.LearnedRoute
	check map[string]bool
}

func newLearnedRouteFeed() *learnedRouteFeed {
	return &learnedRouteFeed{rows: map[string]*sb.LearnedRoute{}, byRef: map[string]map[string]bool{},
		fed: map[string]relations.LearnedRoute{}, check: map[string]bool{}}
}

// apply records an SB change of Learned_Route, Datapath_Binding or
// Port_Binding.
func (f *learnedRouteFeed) apply(c wire.Change) {
	switch c.Table {
	case sb.LearnedRouteTable:
		if r, ok := c.Old.(*sb.LearnedRoute); ok {
			removeFrom(f.byRef, r.Datapath, c.UUID)
			removeFrom(f.byRef, r.LogicalPort, c.UUID)
			delete(f.rows, c.UUID)
		}
		if r, ok := c.New.(*sb.LearnedRoute); ok {
			addTo(f.byRef, r.Datapath, c.UUID)
			addTo(f.byRef, r.LogicalPort, c.UUID)
			f.rows[c.UUID] = r
		}
		f.check[c.UUID] = true
	case sb.DatapathBindingTable, sb.PortBindingTable:
		for u := range f.byRef[c.UUID] {
			f.check[u] = true
		}
	}
}

// reset marks the rows fed to evaluate again (a new SB connection, whose
// initial contents follow).
func (f *learnedRouteFeed) reset() {
	for u := range f.fed {
		f.check[u] = true
	}
}

// FeedLearnedRoutes feeds n the changes of the Learned_Route rows since
// the last call, and returns how many there were. A row whose router
// datapath or port the mirror does not hold is not fed.
func (w *Writer) FeedLearnedRoutes(n *relations.NB) int {
	f := w.house.learned
	changed := 0
	for _, u := range sortedKeys(f.check) {
		want, ok := w.learnedRouteOf(u, f.rows[u])
		had, fed := f.fed[u]
		if ok == fed && want == had {
			continue
		}
		changed++
		if fed {
			n.SetLearnedRoute(had, false)
			delete(f.fed, u)
		}
		if ok {
			n.SetLearnedRoute(want, true)
			f.fed[u] = want
		}
	}
	f.check = cleared(f.check)
	return changed
}

// learnedRouteOf names a Learned_Route row's datapath and port.
func (w *Writer) learnedRouteOf(u string, r *sb.LearnedRoute) (relations.LearnedRoute, bool) {
	if r == nil {
		return relations.LearnedRoute{}, false
	}
	dp, port := w.m.dps[r.Datapath], w.m.pbs[r.LogicalPort]
	if dp == nil || port == nil {
		return relations.LearnedRoute{}, false
	}
	router, kind, ok := dpNB(dp)
	if !ok || kind != rules.Router {
		return relations.LearnedRoute{}, false
	}
	return relations.LearnedRoute{Row: u, Datapath: router, Port: port.LogicalPort, Prefix: r.IPPrefix, Nexthop: r.Nexthop}, true
}
