package relations

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// ReadsDynamicRouting: 26.03's northd reads the routers' dynamic-routing
// options (advertised and learned routes); 23.03 has none.
func ReadsDynamicRouting(r schema.Release) bool { return r >= schema.OVN2603 }

// HasEVPNVNI reports whether a switch's other_config makes it part of an
// EVPN domain (od->has_evpn_vni): dynamic-routing-vni is a VNI, 0 to
// 2^24-1. Only 26.03 reads it (ReadsDynamicRouting).
func HasEVPNVNI(r schema.Release, otherConfig map[string]string) bool {
	vni := SmapInt(otherConfig, "dynamic-routing-vni", -1)
	return ReadsDynamicRouting(r) && vni >= 0 && vni < 1<<24
}

// Redistribute is what a router port advertises through dynamic routing
// (northd.c enum dynamic_routing_redistribute_mode), a set of flags.
type Redistribute uint8

// The kinds of routes a port redistributes.
const (
	RedistributeConnected Redistribute = 1 << iota
	// RedistributeConnectedAsHost advertises each address reachable in a
	// connected network instead of the network; it implies connected.
	RedistributeConnectedAsHost
	RedistributeStatic
	RedistributeNAT
	RedistributeLB
)

// Has reports whether r includes every flag of f.
func (r Redistribute) Has(f Redistribute) bool { return r&f == f }

// ParseRedistribute reads options:dynamic-routing-redistribute, a comma
// separated list, as parse_dynamic_routing_redistribute: def when the
// option is absent, unknown words ignored (northd logs them).
func ParseRedistribute(options map[string]string, def Redistribute) Redistribute {
	v, ok := options["dynamic-routing-redistribute"]
	if !ok {
		return def
	}
	var r Redistribute
	for _, word := range strings.Split(v, ",") {
		switch word {
		case "connected":
			r |= RedistributeConnected
		case "connected-as-host":
			r |= RedistributeConnected | RedistributeConnectedAsHost
		case "static":
			r |= RedistributeStatic
		case "nat":
			r |= RedistributeNAT
		case "lb":
			r |= RedistributeLB
		}
	}
	return r
}

// LRPRedistribute is a router port with what it redistributes: its own
// option, else its router's (op->dynamic_routing_redistribute), and
// whether its router has options:dynamic-routing=true
// (od->dynamic_routing), without which nothing is advertised.
type LRPRedistribute struct {
	LRP     LRP
	Mode    Redistribute
	Dynamic bool
}

// deriveLRPRedistributes computes the ports' redistribution; none before
// 26.03 (ReadsDynamicRouting).
func deriveLRPRedistributes(n *NB) engine.Rel[LRPRedistribute] {
	routers := n.Routers.Rows
	if !ReadsDynamicRouting(n.Release) {
		routers = engine.Filter(routers, func(*nb.LogicalRouter) bool { return false })
	}
	return engine.Join(
		engine.IndexBy(n.LRPs, func(p LRP) string { return p.Router }),
		engine.IndexBy(routers, func(lr *nb.LogicalRouter) string { return lr.UUID }),
		func(_ string, p LRP, lr *nb.LogicalRouter) LRPRedistribute {
			return LRPRedistribute{
				LRP:     p,
				Mode:    ParseRedistribute(p.Port.Options, ParseRedistribute(lr.Options, 0)),
				Dynamic: SmapBool(lr.Options, "dynamic-routing", false),
			}
		})
}

// LearnedRouteVia is a learnt route that northd routes by
// (en-learned-route-sync.c): a Learned_Route row on a port of a router
// with dynamic routing (ovn_port_must_learn_route), whose next hop is an
// address with an all-ones mask and whose prefix reads; it leaves through
// Out, from OutIP, the port's address on the next hop's network or else
// its first of that family, "" for an unnumbered port without one
// (find_route_outport with force_out_port: northd then routes without
// setting the source address).
type LearnedRouteVia struct {
	Row     string // SB _uuid
	Out     LRP
	OutIP   string
	Prefix  netip.Prefix // masked
	Nexthop netip.Addr
}

// deriveLearnedRoutes computes the learnt routes northd routes by. The
// routes learnt on a distributed gateway port count once its
// chassisredirect port is bound, which only ovn-controller tells: none
// here.
func deriveLearnedRoutes(n *NB) engine.Rel[LearnedRouteVia] {
	learning := engine.Filter(n.LRPRedistributes, func(p LRPRedistribute) bool { return p.Dynamic && !p.LRP.DGP() })
	return engine.JoinFlatMap(
		engine.IndexBy(n.LearnedRouteRows, func(r LearnedRoute) string { return r.Port }),
		engine.IndexBy(learning, func(p LRPRedistribute) string { return p.LRP.Name() }),
		func(_ string, r LearnedRoute, p LRPRedistribute) []LearnedRouteVia {
			if r.Datapath != p.LRP.Router {
				return nil
			}
			nh, nhLen, ok := ParseCIDR(r.Nexthop)
			if !ok || nh.Is4() && nhLen != 32 || !nh.Is4() && nhLen != 128 {
				return nil
			}
			prefix, plen, ok := ParseCIDR(r.Prefix)
			if !ok {
				return nil
			}
			lookup, _ := ParseIPByDot(r.Nexthop)
			outIP, _ := OutputPortAddr(p.LRP.Net, lookup, nh.Is4())
			return []LearnedRouteVia{{Row: r.Row, Out: p.LRP, OutIP: outIP,
				Prefix: netip.PrefixFrom(prefix, plen).Masked(), Nexthop: nh}}
		})
}

// LearnedRouteSlot places a learnt route in its ECMP group, as
// StaticRouteSlot a static one: the learnt routes of a router with one
// prefix form a group (en-group-ecmp-route.c, keyed by the route's
// source too, so a static route of that prefix is not in it). Group 0 is
// a route alone; a group of Size routes numbers its members 1 to Size in
// Learned_Route _uuid order. Its id follows the router's static groups,
// which a full run creates first; among learnt groups, ids go by the
// _uuid of the route that makes the group (its second). When 26.03.2
// learns routes incrementally, members and groups are numbered in the
// order it meets them, which varies between runs.
type LearnedRouteSlot struct {
	Route               LearnedRouteVia
	Group, Member, Size int
}

// deriveLearnedRouteSlots groups the learnt routes and numbers the groups
// after the static ones.
func deriveLearnedRouteSlots(learned engine.Rel[LearnedRouteVia], static engine.Rel[StaticRouteSlot]) engine.Rel[LearnedRouteSlot] {
	type prefixKey struct {
		router string
		prefix netip.Prefix
	}
	type slot struct {
		LearnedRouteSlot
		key     prefixKey
		created string // Row of the group's second member
	}
	slots := engine.GroupBy(engine.IndexBy(learned, func(r LearnedRouteVia) prefixKey { return prefixKey{r.Out.Router, r.Prefix} }),
		func(k prefixKey, rs []LearnedRouteVia) []slot {
			slices.SortFunc(rs, func(a, b LearnedRouteVia) int { return cmp.Compare(a.Row, b.Row) })
			out := make([]slot, len(rs))
			for i, r := range rs {
				out[i] = slot{LearnedRouteSlot{Route: r, Member: i + 1, Size: len(rs)}, k, ""}
				if len(rs) > 1 {
					out[i].created = rs[1].Row
				}
			}
			return out
		})
	alone := engine.Map(engine.Filter(slots, func(s slot) bool { return s.Size == 1 }),
		func(s slot) LearnedRouteSlot { return s.LearnedRouteSlot })
	grouped := engine.Filter(slots, func(s slot) bool { return s.Size > 1 })
	// A router's groups, static ones first: ranked together, a learnt
	// group's rank is its id.
	type head struct {
		router  string
		learned bool
		created string
		key     prefixKey
	}
	staticHeads := engine.Map(engine.Filter(static, func(s StaticRouteSlot) bool { return s.Group != 0 && s.Member == 1 }),
		func(s StaticRouteSlot) head {
			return head{router: s.Route.Router, created: fmt.Sprintf("%05d", s.Group)}
		})
	learnedHeads := engine.Map(engine.Filter(grouped, func(s slot) bool { return s.Member == 1 }),
		func(s slot) head { return head{s.key.router, true, s.created, s.key} })
	members := numberGroups(engine.Union(staticHeads, learnedHeads),
		func(h head) string { return h.router },
		func(a, b head) int {
			switch {
			case a.learned == b.learned:
				return cmp.Compare(a.created, b.created)
			case a.learned:
				return 1
			}
			return -1
		},
		func(h head) (prefixKey, bool) { return h.key, h.learned },
		grouped, func(s slot) prefixKey { return s.key },
		func(s slot, id int) LearnedRouteSlot {
			s.Group = id
			return s.LearnedRouteSlot
		})
	return engine.Union(alone, members)
}
