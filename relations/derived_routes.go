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

// StaticRoute is a static route northd accepts (northd.c parsed_routes_add
// and find_static_route_outport): listed by an enabled router, with a
// readable prefix and a next hop that is "discard" or an address of the
// prefix's family reachable through one of the router's ports (or through
// its output_port). Routes northd rejects are reported by Step.
type StaticRoute struct {
	Router string // NB _uuid of the router that lists the route
	Route  *nb.LogicalRouterStaticRoute
	// Prefix is ip_prefix's address as written, not masked, and Plen its
	// length.
	Prefix netip.Addr
	Plen   int
	// Src is policy src-ip: the prefix matches source addresses.
	Src bool
	// Discard is next hop "discard": matching packets are dropped.
	Discard bool
	// Table is route_table ("" for the main table) and TableID the number
	// northd gives it (0 for the main table).
	Table   string
	TableID int
	// Out is the port the route leaves through and OutIP the port address
	// packets are routed from; both unset for a discard route. Out may be
	// on another router when output_port names one.
	Out   LRP
	OutIP string
	// Gateway is the next hop as ip46_parse_cidr reads it; invalid for a
	// route without one (discard, empty).
	Gateway netip.Addr
}

// V4 reports whether the route is an IPv4 route.
func (r StaticRoute) V4() bool { return r.Prefix.Is4() }

// NexthopV4 reports whether the route's next hop is an IPv4 address, or,
// without one, whether the route is an IPv4 route.
func (r StaticRoute) NexthopV4() bool { return nexthopV4(r.Gateway, r.Prefix) }

// nexthopV4 is the family a route's registers take: its next hop's, or
// without one its prefix's.
func nexthopV4(gateway, prefix netip.Addr) bool {
	if gateway.IsValid() {
		return gateway.Is4()
	}
	return prefix.Is4()
}

// StaticRouteSlot places an accepted static route in its ECMP group: the
// routes of one router with the same prefix as written, prefix length,
// policy and route table (northd.c ecmp_groups_find). A route alone is
// routed by its own flow (Group 0); a group of Size routes gets ECMP group
// id Group and members numbered 1 to Size in route _uuid order. In 26.03 a
// symmetric-reply route alone is a group of one (symmetricRouteGrouped).
// HasDiscard tells that some member of the group is a discard route.
// SelectionFields are the selection_fields every member of the group
// selects (en-group-ecmp-route.c ecmp_groups_add_route), ip_proto with
// tp_src or tp_dst, sorted and joined by commas as northd prints them.
type StaticRouteSlot struct {
	Route           StaticRoute
	Group           int
	Member          int
	Size            int
	HasDiscard      bool
	SelectionFields string
}

// selectionFields is a route's selection_fields with ip_proto added when
// it selects a transport port (northd.c parsed_routes_add_static).
func selectionFields(r *nb.LogicalRouterStaticRoute) []string {
	fields := slices.Clone(r.SelectionFields)
	if slices.Contains(fields, "tp_src") || slices.Contains(fields, "tp_dst") {
		fields = append(fields, "ip_proto")
	}
	slices.Sort(fields)
	return slices.Compact(fields)
}

// commonSelectionFields are the selection fields every route of rs
// selects.
func commonSelectionFields(rs []StaticRoute) string {
	common := selectionFields(rs[0].Route)
	for _, r := range rs[1:] {
		theirs := selectionFields(r.Route)
		common = slices.DeleteFunc(common, func(f string) bool { return !slices.Contains(theirs, f) })
	}
	return strings.Join(common, ",")
}

// SymmetricReply reports whether the route has options:ecmp_symmetric_reply.
func (r StaticRoute) SymmetricReply() bool {
	return SmapBool(r.Route.Options, "ecmp_symmetric_reply", false)
}

// symmetricRouteGrouped: 26.03 makes a symmetric-reply route an ECMP group
// even while it is alone, so that its traffic is tracked before another
// next hop joins (en-group-ecmp-route.c add_route).
func symmetricRouteGrouped(r schema.Release) bool { return r >= schema.OVN2603 }

// RouteTableID is the number northd gives a router's named route table
// (northd.c get_route_table_id): route tables are numbered from 1 in the
// order they are first named, first by the router's ports'
// options:route_table in port _uuid order, then by its accepted static
// routes in route _uuid order.
type RouteTableID struct {
	Router string
	Name   string
	ID     int
}

// parsedRoute is a static route whose prefix and next hop northd can read.
type parsedRoute struct {
	Router  string
	Route   *nb.LogicalRouterStaticRoute
	Prefix  netip.Addr
	Plen    int
	Src     bool
	Discard bool
	// Nexthop is the next hop address; invalid when there is none
	// (discard, empty, or an output_port route whose next hop only
	// ip46_parse_cidr reads).
	Nexthop netip.Addr
	// Gateway is the next hop as ip46_parse_cidr reads it.
	Gateway netip.Addr
}

// routeFamiliesMatch: 23.03 refuses a static route whose next hop is not
// of its prefix's family; 26.03 routes an IPv4 prefix via an IPv6 next hop
// (RFC 5549) and the other way round.
func routeFamiliesMatch(r schema.Release) bool { return r < schema.OVN2603 }

// RouterRoute is a static route listed by an enabled router, accepted or
// not.
type RouterRoute struct {
	Router string
	Route  *nb.LogicalRouterStaticRoute
}

// parseRoute follows the checks of northd.c parsed_routes_add that need
// no port: the next hop is "discard", empty, or an IP address with an
// all-ones mask; the prefix is a CIDR, of the next hop's family where
// routeFamiliesMatch.
func parseRoute(rel schema.Release, r RouterRoute) (parsedRoute, error) {
	rt := r.Route
	p := parsedRoute{Router: r.Router, Route: rt, Discard: rt.Nexthop == "discard",
		Src: rt.Policy != nil && *rt.Policy == nb.LogicalRouterStaticRoutePolicySrcIP}
	valid := rt.Nexthop != "" && !p.Discard
	var nh netip.Addr
	if valid {
		ip, plen, ok := ParseCIDR(rt.Nexthop)
		if !ok {
			return p, fmt.Errorf("static route %s: bad 'nexthop' %s", rt.UUID, rt.Nexthop)
		}
		if ip.Is4() && plen != 32 || !ip.Is4() && plen != 128 {
			return p, fmt.Errorf("static route %s: bad next hop mask %s", rt.UUID, rt.Nexthop)
		}
		nh = ip
	}
	prefix, plen, ok := ParseCIDR(rt.IPPrefix)
	if !ok {
		return p, fmt.Errorf("static route %s: bad 'ip_prefix' %s", rt.UUID, rt.IPPrefix)
	}
	if valid && routeFamiliesMatch(rel) && prefix.Is4() != nh.Is4() {
		return p, fmt.Errorf("static route %s: address family doesn't match between 'ip_prefix' %s and 'nexthop' %s",
			rt.UUID, rt.IPPrefix, rt.Nexthop)
	}
	p.Prefix, p.Plen, p.Gateway = prefix, plen, nh
	// The port lookup reads the next hop with inet_pton, its family told by
	// a dot (find_lport_address).
	if valid {
		p.Nexthop, _ = ParseIPByDot(rt.Nexthop)
	}
	return p, nil
}

// ParseCIDR is OVN's ip46_parse_cidr: a whole IPv4 or IPv6 address
// with an optional CIDR prefix length or mask.
func ParseCIDR(s string) (netip.Addr, int, bool) {
	s = cString(s)
	if ip, plen, next, err := ipParseCIDRLen(s, 0); err == nil && next == len(s) {
		return addr4(ip), plen, true
	}
	if ip, plen, next, err := ipv6ParseCIDRLen(s, 0); err == nil && next == len(s) {
		return netip.AddrFrom16(ip), plen, true
	}
	return netip.Addr{}, 0, false
}

// ParseIPByDot reads s the way find_lport_address does: as an IPv4
// address if it has a dot, else as an IPv6 address, with inet_pton.
func ParseIPByDot(s string) (netip.Addr, bool) {
	if strings.Contains(s, ".") {
		return ParseIPv4(s)
	}
	return ParseIPv6(s)
}

// NexthopQuery asks which port of Router has a network holding IP.
type NexthopQuery struct {
	Router string
	IP     netip.Addr
}

// NexthopPort answers a NexthopQuery as northd's find_lrp_member_ip over
// the router's ports (in the order walkRouterPorts gives) does: the first
// port with a network holding the address, and the port's address in the
// first such network.
type NexthopPort struct {
	Query NexthopQuery
	Port  LRP
	Addr  string
}

// netKey is one network of a router's port, as a lookup key.
type netKey struct {
	Router string
	Net    netip.Prefix
}

// routerLRP is a bound router port that Router's ports column lists, the
// Walk'th that northd visits when it looks for the port of a next hop.
type routerLRP struct {
	Router string
	Port   LRP
	Walk   int
}

// lrpNet is the Index'th network of its family on a router port.
type lrpNet struct {
	Key   netKey
	Port  LRP
	Walk  int
	Index int
	Addr  string
}

// nexthopPortsHashed: 26.03 looks for the port of a next hop in its
// router's table of ports (od->ports), bucket by bucket of the port names'
// hashes, as filled in the ports column's (_uuid) order; 23.03 in that
// column's order.
func nexthopPortsHashed(r schema.Release) bool { return r >= schema.OVN2603 }

// walkRouterPorts numbers each router's ports in the order northd visits
// them when it looks for the port of a next hop.
func walkRouterPorts(rel schema.Release, listed engine.Rel[routerLRP]) engine.Rel[routerLRP] {
	return engine.GroupBy(engine.IndexBy(listed, func(l routerLRP) string { return l.Router }),
		func(_ string, ls []routerLRP) []routerLRP {
			slices.SortFunc(ls, func(a, b routerLRP) int { return cmp.Compare(a.Port.Port.UUID, b.Port.Port.UUID) })
			if nexthopPortsHashed(rel) {
				pos := map[string]int{}
				names := make([]string, len(ls))
				for i, l := range ls {
					names[i] = l.Port.Name()
				}
				for i, name := range SsetOrder(names) {
					pos[name] = i
				}
				slices.SortStableFunc(ls, func(a, b routerLRP) int { return cmp.Compare(pos[a.Port.Name()], pos[b.Port.Name()]) })
			}
			out := make([]routerLRP, len(ls))
			for i, l := range ls {
				l.Walk = i
				out[i] = l
			}
			return out
		})
}

// deriveLRPNets indexes the networks of the router ports each router's
// ports column lists, under that router: northd looks a next hop up in
// its router's NB list of ports, so a port another router also lists,
// and northd bound there, serves both (with its networks as bound).
func deriveLRPNets(n *NB) engine.Index[netKey, lrpNet] {
	listed := walkRouterPorts(n.Release, engine.Join(engine.IndexBy(n.PortsOnRouters, func(rp RouterPort) string { return rp.Port.Name }), n.LRPsByName,
		func(_ string, rp RouterPort, p LRP) routerLRP { return routerLRP{Router: rp.Router, Port: p} }))
	nets := engine.FlatMap(listed, func(l routerLRP) []lrpNet {
		var out []lrpNet
		for i, a := range l.Port.Net.IPv4 {
			out = append(out, lrpNet{netKey{l.Router, netip.PrefixFrom(a.Network, a.Plen)}, l.Port, l.Walk, i, a.AddrS})
		}
		for i, a := range l.Port.Net.IPv6 {
			out = append(out, lrpNet{netKey{l.Router, netip.PrefixFrom(a.Network, a.Plen)}, l.Port, l.Walk, i, a.AddrS})
		}
		return out
	})
	return engine.IndexBy(nets, func(n lrpNet) netKey { return n.Key })
}

// resolveNexthops answers each distinct query by looking its address up
// under every prefix length among the router's port networks and keeping
// the first port northd visits (walkRouterPorts), then its first network,
// so that the cost of a query does not grow with the number of ports.
func resolveNexthops(queries engine.Rel[NexthopQuery], nets engine.Index[netKey, lrpNet]) engine.Rel[NexthopPort] {
	type probe struct {
		key netKey
		q   NexthopQuery
	}
	type match struct {
		q NexthopQuery
		n lrpNet
	}
	probes := engine.FlatMap(engine.Distinct(queries), func(q NexthopQuery) []probe {
		bits := q.IP.BitLen()
		out := make([]probe, 0, bits+1)
		for plen := 0; plen <= bits; plen++ {
			pfx, _ := q.IP.Prefix(plen)
			out = append(out, probe{netKey{q.Router, pfx}, q})
		}
		return out
	})
	found := engine.Join(engine.IndexBy(probes, func(p probe) netKey { return p.key }), nets,
		func(_ netKey, p probe, n lrpNet) match { return match{p.q, n} })
	return engine.GroupBy(engine.IndexBy(found, func(m match) NexthopQuery { return m.q }),
		func(q NexthopQuery, ms []match) []NexthopPort {
			first := slices.MinFunc(ms, func(a, b match) int {
				return cmp.Or(cmp.Compare(a.n.Walk, b.n.Walk), cmp.Compare(a.n.Index, b.n.Index))
			})
			return []NexthopPort{{q, first.n.Port, first.n.Addr}}
		})
}

// tableKey names a route table of a router.
type tableKey struct{ Router, Name string }

// tableUse is a place that names a route table: a router port's
// options:route_table or an accepted static route's route_table.
type tableUse struct {
	tableKey
	ByRoute bool
	UUID    string
}

func compareTableUses(a, b tableUse) int {
	if a.ByRoute != b.ByRoute {
		if a.ByRoute {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.UUID, b.UUID)
}

// ecmpKey is what the routes of one ECMP group share.
type ecmpKey struct {
	Router string
	Prefix netip.Addr
	Plen   int
	Src    bool
	Table  string
}

func ecmpKeyOf(r StaticRoute) ecmpKey {
	return ecmpKey{r.Router, r.Prefix, r.Plen, r.Src, r.Table}
}

// deriveRouterRoutes computes the static routes of enabled routers.
func deriveRouterRoutes(n *NB) engine.Rel[RouterRoute] {
	refs := engine.SemiJoin(
		engine.IndexBy(n.Refs.RouterRoutes, func(r Ref) string { return r.Owner }),
		engine.IndexBy(n.RouterConfigs, func(r RouterConfig) string { return r.UUID }))
	return engine.Join(
		engine.IndexBy(refs, func(r Ref) string { return r.Target }),
		n.StaticRoutes.ByUUID(),
		func(_ string, r Ref, rt *nb.LogicalRouterStaticRoute) RouterRoute { return RouterRoute{r.Owner, rt} })
}

// deriveStaticRoutes computes the accepted static routes with their route
// table ids, and the route table ids.
func deriveStaticRoutes(n *NB, nets engine.Index[netKey, lrpNet]) (engine.Rel[StaticRoute], engine.Rel[RouteTableID], engine.Rel[string]) {
	enabled := engine.IndexBy(n.RouterConfigs, func(r RouterConfig) string { return r.UUID })
	parsed := engine.TryMap(n.RouterRoutes, "static route", func(r RouterRoute) (parsedRoute, error) { return parseRoute(n.Release, r) })

	accept := func(p parsedRoute, out LRP, outIP string) StaticRoute {
		return StaticRoute{Router: p.Router, Route: p.Route, Prefix: p.Prefix, Plen: p.Plen, Src: p.Src,
			Discard: p.Discard, Table: p.Route.RouteTable, Out: out, OutIP: outIP, Gateway: p.Gateway}
	}
	noPath := func(p parsedRoute) error {
		return fmt.Errorf("static route %s: no path for %s; next hop %s", p.Route.UUID, p.Route.IPPrefix, p.Route.Nexthop)
	}
	discard := engine.Map(engine.Filter(parsed, func(p parsedRoute) bool { return p.Discard }),
		func(p parsedRoute) StaticRoute { return accept(p, LRP{}, "") })

	// output_port names the port; the next hop only picks its address.
	viaPort := engine.IndexBy(engine.Filter(parsed, func(p parsedRoute) bool { return !p.Discard && p.Route.OutputPort != nil }),
		func(p parsedRoute) string { return *p.Route.OutputPort })
	engine.Report(engine.AntiJoin(viaPort, n.LRPsByName), "static route", func(p parsedRoute) error {
		return fmt.Errorf("static route %s: bad out port %s", p.Route.UUID, *p.Route.OutputPort)
	})
	type withPort struct {
		p   parsedRoute
		out LRP
	}
	outPorts := engine.Join(viaPort, n.LRPsByName, func(_ string, p parsedRoute, out LRP) withPort { return withPort{p, out} })
	byOutPort := engine.TryMap(outPorts, "static route", func(x withPort) (StaticRoute, error) {
		if addr, ok := OutputPortAddr(x.out.Net, x.p.Nexthop, nexthopV4(x.p.Gateway, x.p.Prefix)); ok {
			return accept(x.p, x.out, addr), nil
		}
		return StaticRoute{}, noPath(x.p)
	})

	// Otherwise the first port whose networks hold the next hop.
	viaNexthop := engine.Filter(parsed, func(p parsedRoute) bool { return !p.Discard && p.Route.OutputPort == nil })
	queryOf := func(p parsedRoute) NexthopQuery { return NexthopQuery{p.Router, p.Nexthop} }
	answers := engine.IndexBy(resolveNexthops(engine.Map(engine.Filter(viaNexthop, func(p parsedRoute) bool { return p.Nexthop.IsValid() }), queryOf), nets),
		func(a NexthopPort) NexthopQuery { return a.Query })
	byQuery := engine.IndexBy(viaNexthop, queryOf)
	engine.Report(engine.AntiJoin(byQuery, answers), "static route", func(p parsedRoute) error {
		return noPath(p)
	})
	byNexthop := engine.Join(byQuery, answers, func(_ NexthopQuery, p parsedRoute, a NexthopPort) StaticRoute {
		return accept(p, a.Port, a.Addr)
	})
	routes, usedBFDs := withoutBFDDown(n, engine.Union(discard, byOutPort, byNexthop))

	ids := deriveRouteTableIDs(n, enabled, routes)
	main := engine.Filter(routes, func(r StaticRoute) bool { return r.Table == "" })
	named := engine.Join(
		engine.IndexBy(engine.Filter(routes, func(r StaticRoute) bool { return r.Table != "" }),
			func(r StaticRoute) tableKey { return tableKey{r.Router, r.Table} }),
		engine.IndexBy(ids, func(t RouteTableID) tableKey { return tableKey{t.Router, t.Name} }),
		func(_ tableKey, r StaticRoute, t RouteTableID) StaticRoute {
			r.TableID = t.ID
			return r
		})
	return engine.Union(main, named), ids, usedBFDs
}

// withoutBFDDown leaves out the routes whose bfd column names a BFD
// session to their next hop that is not up (northd.c parsed_routes_add):
// 23.03 sets a session's status to down when a route first uses it and
// routes through it once ovn-controller reports it up. A session to
// another address does not hold the route. The sessions that routes use to
// their next hops come second.
func withoutBFDDown(n *NB, routes engine.Rel[StaticRoute]) (engine.Rel[StaticRoute], engine.Rel[string]) {
	return heldByBFD(n, routes, func(r StaticRoute) []string {
		if r.Route.BFD == nil {
			return nil
		}
		return []string{*r.Route.BFD}
	}, func(r StaticRoute, b *nb.BFD) bool { return b.DstIP == r.Route.Nexthop })
}

// withoutPolicyBFDDown leaves out the next hops of reroute policies that
// one of the policy's bfd_sessions watches, to that next hop as written
// through the port the hop leaves by, while it is not up (northd.c
// check_bfd_state, 26.03), as withoutBFDDown does for static routes; the
// sessions they use come second.
func withoutPolicyBFDDown(n *NB, hops engine.Rel[PolicyNexthop]) (engine.Rel[PolicyNexthop], engine.Rel[string]) {
	return heldByBFD(n, hops, func(h PolicyNexthop) []string { return h.Policy.Policy.BFDSessions },
		func(h PolicyNexthop, b *nb.BFD) bool {
			return b.DstIP == h.Policy.Nexthops()[h.Index] && b.LogicalPort == h.Port.Name()
		})
}

// heldByBFD leaves out of paths those that one of their sessions (NB BFD
// _uuids) watches, as watches says, while its NB status is not up; the
// sessions that watch some path come second.
func heldByBFD[P comparable](n *NB, paths engine.Rel[P], sessions func(P) []string, watches func(P, *nb.BFD) bool) (engine.Rel[P], engine.Rel[string]) {
	type session struct {
		path P
		bfd  string
	}
	withBFD := engine.IndexBy(engine.FlatMap(paths, func(p P) []session {
		var out []session
		for _, s := range sessions(p) {
			out = append(out, session{p, s})
		}
		return out
	}), func(s session) string { return s.bfd })
	rows := n.BFD.ByUUID()
	type use struct {
		path P
		bfd  *nb.BFD
	}
	uses := engine.JoinFlatMap(withBFD, rows, func(_ string, s session, b *nb.BFD) []use {
		if watches(s.path, b) {
			return []use{{s.path, b}}
		}
		return nil
	})
	held := engine.Distinct(engine.Map(engine.Filter(uses, func(u use) bool { return u.bfd.Status == nil || *u.bfd.Status != nb.BFDStatusUp }),
		func(u use) P { return u.path }))
	used := engine.Distinct(engine.Map(uses, func(u use) string { return u.bfd.UUID }))
	return engine.Union(paths, engine.Negate(held)), used
}

// deriveRouteTableIDs numbers the route tables of each router by their
// first use.
func deriveRouteTableIDs(n *NB, enabled engine.Index[string, RouterConfig], routes engine.Rel[StaticRoute]) engine.Rel[RouteTableID] {
	ports := engine.SemiJoin(engine.IndexBy(n.PortsOnRouters, func(rp RouterPort) string { return rp.Router }), enabled)
	portUses := engine.FlatMap(ports, func(rp RouterPort) []tableUse {
		if name := rp.Port.Options["route_table"]; name != "" {
			return []tableUse{{tableKey{rp.Router, name}, false, rp.Port.UUID}}
		}
		return nil
	})
	routeUses := engine.FlatMap(routes, func(r StaticRoute) []tableUse {
		if r.Table != "" {
			return []tableUse{{tableKey{r.Router, r.Table}, true, r.Route.UUID}}
		}
		return nil
	})
	first := engine.Min(engine.IndexBy(engine.Union(portUses, routeUses), func(u tableUse) tableKey { return u.tableKey }), compareTableUses)
	return engine.GroupBy(engine.IndexBy(first, func(kv engine.KV[tableKey, tableUse]) string { return kv.Key.Router }),
		func(router string, fs []engine.KV[tableKey, tableUse]) []RouteTableID {
			slices.SortFunc(fs, func(a, b engine.KV[tableKey, tableUse]) int { return compareTableUses(a.Value, b.Value) })
			out := make([]RouteTableID, len(fs))
			for i, f := range fs {
				out[i] = RouteTableID{router, f.Key.Name, i + 1}
			}
			return out
		})
}

// deriveStaticRouteSlots groups the accepted routes into ECMP groups and
// numbers the groups of each router in the order northd creates them, in
// _uuid order: when it meets a group's second route, or, in 26.03, its
// first if that is a symmetric-reply route.
func deriveStaticRouteSlots(routes engine.Rel[StaticRoute], rel schema.Release) engine.Rel[StaticRouteSlot] {
	type slot struct {
		StaticRouteSlot
		key     ecmpKey
		created string // _uuid of the route that makes the group
	}
	slots := engine.GroupBy(engine.IndexBy(routes, ecmpKeyOf), func(k ecmpKey, rs []StaticRoute) []slot {
		slices.SortFunc(rs, func(a, b StaticRoute) int { return cmp.Compare(a.Route.UUID, b.Route.UUID) })
		created := ""
		switch {
		case symmetricRouteGrouped(rel) && rs[0].SymmetricReply():
			created = rs[0].Route.UUID
		case len(rs) > 1:
			created = rs[1].Route.UUID
		}
		hasDiscard := slices.ContainsFunc(rs, func(r StaticRoute) bool { return r.Discard })
		fields := commonSelectionFields(rs)
		out := make([]slot, len(rs))
		for i, r := range rs {
			out[i] = slot{StaticRouteSlot{Route: r, Member: i + 1, Size: len(rs), HasDiscard: hasDiscard, SelectionFields: fields}, k, created}
		}
		return out
	})
	alone := engine.Map(engine.Filter(slots, func(s slot) bool { return s.created == "" }),
		func(s slot) StaticRouteSlot { return s.StaticRouteSlot })
	grouped := engine.Filter(slots, func(s slot) bool { return s.created != "" })
	members := numberGroups(engine.Filter(grouped, func(s slot) bool { return s.Member == 1 }),
		func(s slot) string { return s.key.Router },
		func(a, b slot) int { return cmp.Compare(a.created, b.created) },
		func(s slot) (ecmpKey, bool) { return s.key, true },
		grouped, func(s slot) ecmpKey { return s.key },
		func(s slot, id int) StaticRouteSlot {
			s.Group = id
			return s.StaticRouteSlot
		})
	return engine.Union(alone, members)
}

// numberGroups numbers each router's ECMP groups 1, 2, ... by their heads
// (one per group) in order, and gives each member of a group the id of
// its head's key. A head whose key reports false takes its rank but
// numbers no members here (a group numbered elsewhere, that the others
// follow). Rank renumbers only the groups after a new or removed one.
func numberGroups[H, M, K, T comparable](
	heads engine.Rel[H], router func(H) string, order func(a, b H) int, headKey func(H) (K, bool),
	members engine.Rel[M], memberKey func(M) K, number func(M, int) T) engine.Rel[T] {
	type groupID struct {
		key K
		id  int
	}
	ids := engine.FlatMap(engine.Rank(engine.IndexBy(heads, router), order), func(h engine.Ranked[H]) []groupID {
		if k, ok := headKey(h.Tuple); ok {
			return []groupID{{k, h.Rank}}
		}
		return nil
	})
	return engine.Join(engine.IndexBy(members, memberKey), engine.IndexBy(ids, func(g groupID) K { return g.key }),
		func(_ K, m M, g groupID) T { return number(m, g.id) })
}

// MemberIP is northd's find_lrp_member_ip: the address of the first of the
// port's networks of ip's family that holds ip.
func MemberIP(n *LPortAddresses, ip netip.Addr) (string, bool) {
	if !ip.IsValid() {
		return "", false
	}
	if ip.Is4() {
		for _, a := range n.IPv4 {
			if netip.PrefixFrom(a.Network, a.Plen).Contains(ip) {
				return a.AddrS, true
			}
		}
		return "", false
	}
	for _, a := range n.IPv6 {
		if netip.PrefixFrom(a.Network, a.Plen).Contains(ip) {
			return a.AddrS, true
		}
	}
	return "", false
}

// OutputPortAddr is the address a route or policy with an output_port
// routes from (northd.c find_route_outport): the port's address in the
// first of its networks that holds ip, or else, as the operator named the
// port, its first address of the family v4 says.
func OutputPortAddr(n *LPortAddresses, ip netip.Addr, v4 bool) (string, bool) {
	if addr, ok := MemberIP(n, ip); ok {
		return addr, true
	}
	if v4 && len(n.IPv4) > 0 {
		return n.IPv4[0].AddrS, true
	}
	if !v4 && len(n.IPv6) > 0 {
		return n.IPv6[0].AddrS, true
	}
	return "", false
}

// RouterPolicy is a Logical_Router_Policy listed by an enabled router.
// ECMPGroup is the group id northd gives a reroute policy with several
// next hops: 1 plus the number of such policies of the router before it in
// _uuid order (0 for other policies); in 26.03 (policyGroupsFromHmap) 1
// plus the number of those after it with a next hop some port reaches.
type RouterPolicy struct {
	Router    string
	Policy    *nb.LogicalRouterPolicy
	ECMPGroup int
	// Chain is the id of the policy's chain, which its flow matches in
	// the chain register, or noChain; JumpChain the id of the chain a jump
	// policy enters (chainPolicies).
	Chain, JumpChain int
}

// Nexthops are the next hops of a reroute policy as northd reads them:
// nexthops (a set, so in sorted order), or the older nexthop column when
// nexthops is empty.
func (p RouterPolicy) Nexthops() []string {
	if len(p.Policy.Nexthops) > 0 {
		return setOrder(p.Policy.Nexthops)
	}
	if p.Policy.Nexthop != nil {
		return []string{*p.Policy.Nexthop}
	}
	return nil
}

// ECMP reports whether the policy reroutes over several next hops.
func (p RouterPolicy) ECMP() bool {
	return p.Policy.Action == nb.LogicalRouterPolicyActionReroute && len(p.Policy.Nexthops) > 1
}

// PolicyNexthop is next hop Index of a reroute policy that a port of the
// router reaches (northd.c get_outport_for_routing_policy_nexthop): Port is
// the first port in _uuid order with a network holding it and Addr the
// port's address in that network. Next hops no port reaches are reported
// by Step.
type PolicyNexthop struct {
	Policy RouterPolicy
	Index  int
	Port   LRP
	Addr   string
}

func deriveRouterPolicies(n *NB) engine.Rel[RouterPolicy] {
	refs := engine.SemiJoin(
		engine.IndexBy(n.Refs.RouterPolicies, func(r Ref) string { return r.Owner }),
		engine.IndexBy(n.RouterConfigs, func(r RouterConfig) string { return r.UUID }))
	return engine.Join(
		engine.IndexBy(refs, func(r Ref) string { return r.Target }),
		n.Policies.ByUUID(),
		func(_ string, r Ref, p *nb.LogicalRouterPolicy) RouterPolicy {
			return RouterPolicy{Router: r.Owner, Policy: p}
		})
}

// policyGroupsFromHmap: 26.03 numbers the ECMP policies as it walks its
// route_policies hmap, which holds only the reroute policies with a next
// hop some port reaches, a router's policies in one bucket, each inserted
// (in _uuid order) before the others: in reverse _uuid order. (When the
// hmap grows while it inserts them, which depends on the routers' random
// order, the walk differs; the reference's flows vary then.)
func policyGroupsFromHmap(r schema.Release) bool { return r >= schema.OVN2603 }

// numberECMPPolicies gives the ECMP reroute policies their group ids, and
// their next hops the numbered policy.
func numberECMPPolicies(policies engine.Rel[RouterPolicy], hops engine.Rel[PolicyNexthop], rel schema.Release) (engine.Rel[RouterPolicy], engine.Rel[PolicyNexthop]) {
	ecmp := engine.Filter(policies, RouterPolicy.ECMP)
	ecmpHops := engine.IndexBy(engine.Filter(hops, func(h PolicyNexthop) bool { return h.Policy.ECMP() }),
		func(h PolicyNexthop) string { return h.Policy.Policy.UUID })
	order := func(a, b RouterPolicy) int { return cmp.Compare(a.Policy.UUID, b.Policy.UUID) }
	if policyGroupsFromHmap(rel) {
		ecmp = engine.SemiJoin(engine.IndexBy(ecmp, func(p RouterPolicy) string { return p.Policy.UUID }), ecmpHops)
		order = func(a, b RouterPolicy) int { return cmp.Compare(b.Policy.UUID, a.Policy.UUID) }
	}
	numbered := engine.Map(engine.Rank(engine.IndexBy(ecmp, func(p RouterPolicy) string { return p.Router }), order),
		func(p engine.Ranked[RouterPolicy]) RouterPolicy {
			p.Tuple.ECMPGroup = p.Rank
			return p.Tuple
		})
	numberedHops := engine.Join(ecmpHops, engine.IndexBy(numbered, func(p RouterPolicy) string { return p.Policy.UUID }),
		func(_ string, h PolicyNexthop, p RouterPolicy) PolicyNexthop {
			h.Policy = p
			return h
		})
	return engine.Union(engine.Filter(policies, func(p RouterPolicy) bool { return !p.ECMP() }), numbered),
		engine.Union(engine.Filter(hops, func(h PolicyNexthop) bool { return !h.Policy.ECMP() }), numberedHops)
}

func derivePolicyNexthops(n *NB, policies engine.Rel[RouterPolicy], nets engine.Index[netKey, lrpNet]) engine.Rel[PolicyNexthop] {
	type hop struct {
		Policy RouterPolicy
		Index  int
		Query  NexthopQuery
	}
	reroutes := engine.Filter(policies, func(p RouterPolicy) bool {
		return p.Policy.Action == nb.LogicalRouterPolicyActionReroute && p.Policy.OutputPort == nil
	})
	hops := engine.FlatMap(reroutes, func(p RouterPolicy) []hop {
		var out []hop
		for i, nh := range p.Nexthops() {
			ip, _ := ParseIPByDot(nh)
			out = append(out, hop{p, i, NexthopQuery{p.Router, ip}})
		}
		return out
	})
	answers := engine.IndexBy(resolveNexthops(engine.Map(engine.Filter(hops, func(h hop) bool { return h.Query.IP.IsValid() }),
		func(h hop) NexthopQuery { return h.Query }), nets), func(a NexthopPort) NexthopQuery { return a.Query })
	byQuery := engine.IndexBy(hops, func(h hop) NexthopQuery { return h.Query })
	engine.Report(engine.AntiJoin(byQuery, answers), "router policy", func(h hop) error {
		return fmt.Errorf("router policy %s: no path for priority %d; next hop %s",
			h.Policy.Policy.UUID, h.Policy.Policy.Priority, h.Policy.Nexthops()[h.Index])
	})
	return engine.Union(engine.Join(byQuery, answers, func(_ NexthopQuery, h hop, a NexthopPort) PolicyNexthop {
		return PolicyNexthop{h.Policy, h.Index, a.Port, a.Addr}
	}), deriveOutputPortNexthops(n, policies))
}

// deriveOutputPortNexthops computes the next hops of reroute policies that
// name their output_port (26.03; chainPolicies keeps only those with one
// next hop): the port named, and its address for the next hop
// (OutputPortAddr). A port that is not a router port northd binds, or has
// no address of the next hop's family, voids the policy.
func deriveOutputPortNexthops(n *NB, policies engine.Rel[RouterPolicy]) engine.Rel[PolicyNexthop] {
	type named struct {
		Policy RouterPolicy
		Port   string
	}
	viaPort := engine.IndexBy(engine.Filter(policies, func(p RouterPolicy) bool {
		return p.Policy.Action == nb.LogicalRouterPolicyActionReroute && p.Policy.OutputPort != nil && len(p.Policy.Nexthops) == 1
	}), func(p RouterPolicy) string { return *p.Policy.OutputPort })
	names := engine.Join(viaPort, n.RouterPorts.ByUUID(),
		func(_ string, p RouterPolicy, lrp *nb.LogicalRouterPort) named { return named{p, lrp.Name} })
	byName := engine.IndexBy(names, func(x named) string { return x.Port })
	engine.Report(engine.AntiJoin(byName, n.LRPsByName), "router policy", func(x named) error {
		return fmt.Errorf("Bad out port %s for policy %s", x.Port, x.Policy.Policy.Match)
	})
	return engine.TryMap(engine.Join(byName, n.LRPsByName, func(_ string, x named, out LRP) PolicyNexthop {
		return PolicyNexthop{Policy: x.Policy, Port: out}
	}), "router policy", func(h PolicyNexthop) (PolicyNexthop, error) {
		nh := h.Policy.Policy.Nexthops[0]
		ip, _ := ParseIPByDot(nh)
		addr, ok := OutputPortAddr(h.Port.Net, ip, strings.Contains(nh, "."))
		if !ok {
			return PolicyNexthop{}, fmt.Errorf("Logical Router: policy (match: '%s', priority %d): no path for next hop %s",
				h.Policy.Policy.Match, h.Policy.Policy.Priority, nh)
		}
		h.Addr = addr
		return h, nil
	})
}

// deriveRouteRelations computes the static route and policy relations of n.
func (n *NB) deriveRouteRelations() {
	nets := deriveLRPNets(n)
	n.RouterRoutes = deriveRouterRoutes(n)
	var routeBFDs, policyBFDs engine.Rel[string]
	n.Routes, n.RouteTableIDs, routeBFDs = deriveStaticRoutes(n, nets)
	n.RouteSlots = deriveStaticRouteSlots(n.Routes, n.Release)
	policies := chainPolicies(n, deriveRouterPolicies(n))
	hops, policyBFDs := withoutPolicyBFDDown(n, derivePolicyNexthops(n, policies, nets))
	n.RouterPolicies, n.PolicyNexthops = numberECMPPolicies(policies, hops, n.Release)
	n.UsedBFDs = engine.Distinct(engine.Union(routeBFDs, policyBFDs))
}
