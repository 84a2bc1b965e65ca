package sbwriter

import (
	"maps"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
)

// learnedRouteFeed feeds the program the SB Learned_Route rows that
// ovn-controller writes, their datapath and port named as the rules name
// them, and deletes those of ports that learn no routes.
type learnedRouteFeed struct {
	rows map[string]*sb.LearnedRoute
	// byRef are the rows by the datapath and port rows they refer to,
	// whose changes may name them otherwise.
	byRef map[string]map[string]bool
	// fed are the routes fed by row; check the rows to evaluate again.
	fed   map[string]relations.LearnedRoute
	check map[string]bool
	// learning are the ports whose rows northd keeps, by name: true for
	// a distributed gateway port (rules.RouteLearningPort); prune the
	// rows to check against them, prunePorts the ports (by name) whose
	// rows to check.
	learning   map[string]bool
	prune      map[string]bool
	prunePorts map[string]bool
}

// crPrefix starts the name of a distributed gateway port's
// chassisredirect port.
const crPrefix = "cr-"

func newLearnedRouteFeed() *learnedRouteFeed {
	return &learnedRouteFeed{rows: map[string]*sb.LearnedRoute{}, byRef: map[string]map[string]bool{},
		fed: map[string]relations.LearnedRoute{}, check: map[string]bool{},
		learning: map[string]bool{}, prune: map[string]bool{}, prunePorts: map[string]bool{}}
}

// apply records an SB change of Learned_Route, Datapath_Binding or
// Port_Binding.
func (f *learnedRouteFeed) apply(c wire.Change) {
	switch c.Table {
	case sb.LearnedRouteTable:
		if r, ok := c.Old.(*sb.LearnedRoute); ok {
			setindex.Remove(f.byRef, r.Datapath, c.UUID)
			setindex.Remove(f.byRef, r.LogicalPort, c.UUID)
			delete(f.rows, c.UUID)
		}
		if r, ok := c.New.(*sb.LearnedRoute); ok {
			setindex.Add(f.byRef, r.Datapath, c.UUID)
			setindex.Add(f.byRef, r.LogicalPort, c.UUID)
			f.rows[c.UUID] = r
			f.prune[c.UUID] = true
		}
		f.check[c.UUID] = true
	case sb.DatapathBindingTable, sb.PortBindingTable:
		for u := range f.byRef[c.UUID] {
			f.check[u], f.prune[u] = true, true
		}
		// A chassisredirect port bound or unbound.
		if pb, ok := c.New.(*sb.PortBinding); ok && strings.HasPrefix(pb.LogicalPort, crPrefix) {
			f.prunePorts[strings.TrimPrefix(pb.LogicalPort, crPrefix)] = true
		}
	}
}

// reset marks the rows fed to evaluate again (a new SB connection, whose
// initial contents follow).
func (f *learnedRouteFeed) reset() {
	for u := range f.fed {
		f.check[u] = true
	}
	f.prune, f.prunePorts = map[string]bool{}, map[string]bool{}
}

// markAll marks every row to check against the learning ports.
func (f *learnedRouteFeed) markAll() {
	for u := range f.rows {
		f.prune[u] = true
	}
}

// applyProgram takes the program's learning ports.
func (f *learnedRouteFeed) applyProgram(p *rules.Program) {
	for _, pass := range []engine.Weight{-1, 1} {
		for _, c := range p.RouteLearningPorts.Delta() {
			if c.Weight != pass {
				continue
			}
			if pass > 0 {
				f.learning[c.Tuple.Name] = c.Tuple.DGP
			} else if dgp, ok := f.learning[c.Tuple.Name]; ok && dgp == c.Tuple.DGP {
				delete(f.learning, c.Tuple.Name)
			}
			f.prunePorts[c.Tuple.Name] = true
		}
	}
}

// pruneRoutes deletes the rows of ports that learn no routes once t commits
// (routes_table_sync, ovn_port_must_learn_route): no router port of that
// name with dynamic routing, a port bound again under its name, a
// distributed gateway port whose chassisredirect port is bound nowhere.
// The rows checked are those that changed and those of the ports whose
// binding or learning changed.
func (f *learnedRouteFeed) pruneRoutes(w *Writer, t *Txn) {
	for name := range w.dirtyPB {
		f.prunePorts[strings.TrimPrefix(name, crPrefix)] = true
	}
	for name := range f.prunePorts {
		if pb, ok := w.m.pbByName[name]; ok {
			maps.Copy(f.prune, f.byRef[pb])
		}
	}
	for _, u := range sortedKeys(f.prune) {
		r := f.rows[u]
		if r == nil || t.deletedDP[r.Datapath] {
			continue
		}
		if !w.learnsRoutes(t, r.LogicalPort) {
			t.delete(sb.LearnedRouteTable, u)
		}
	}
	f.prune, f.prunePorts = cleared(f.prune), cleared(f.prunePorts)
}

// learnsRoutes reports whether the port binding row u is, once t commits,
// that of a port whose routes northd keeps.
func (w *Writer) learnsRoutes(t *Txn, u string) bool {
	pb := w.m.pbs[u]
	if pb == nil || w.pbRef(t, pb.LogicalPort) != u {
		return false
	}
	dgp, ok := w.house.learned.learning[pb.LogicalPort]
	if !ok || !dgp {
		return ok
	}
	cr := w.m.pbs[w.pbRef(t, crPrefix+pb.LogicalPort)]
	return cr != nil && cr.Chassis != nil
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
