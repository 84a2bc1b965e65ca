package rules

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// RouterRoutingFlows: lr_in_ip_routing_pre, lr_in_ip_routing and
// lr_in_ip_routing_ecmp, the flows every router has (northd.c
// build_ip_routing_pre_flows_for_lrouter,
// build_static_route_flows_for_lrouter and
// build_mcast_lookup_flows_for_lrouter): packets use the main route table
// unless their port selects another, unrouted packets are dropped, packets
// that matched no ECMP route skip the ECMP stage, and router solicitations
// and advertisements are never forwarded.
func RouterRoutingFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInIPRoutingPre, 0, "1", "reg7 = 0; next;"),
			dp.flow(LRInIPRouting, 0, "1", drop),
			dp.flow(LRInIPRouting, 10550, "nd_rs || nd_ra", drop),
			dp.flow(LRInIPRoutingECMP, 150, "reg8[0..15] == 0", "next;"),
			dp.flow(LRInIPRoutingECMP, 0, "1", drop),
		}
	})
}

// floodStaticRouters are the routers with an enabled port that has
// options:mcast_flood (od->mcast_info.rtr.flood_static): IP multicast is
// flooded to those ports (the _MC_static group).
func floodStaticRouters(nb *relations.NB) engine.Index[string, string] {
	flooding := engine.Filter(nb.LRPs, func(p relations.LRP) bool {
		return p.Enabled() && relations.SmapBool(p.Port.Options, "mcast_flood", false)
	})
	return engine.IndexBy(engine.Distinct(engine.Map(flooding, lrpRouter)), func(r string) string { return r })
}

// RouterMcastRoutingFlows: lr_in_ip_routing for the IP multicast that a
// router relays (options:mcast_relay) and no IGMP/MLD group claims (northd.c
// build_mcast_lookup_flows_for_lrouter): it is dropped, unless some port
// floods multicast statically. Then it is cloned to those ports (with the
// TTL decremented, except for IGMP and MLD, whose TTL is always 1), and
// IGMP and MLD from the router's own MACs are dropped so that floods do not
// loop.
func RouterMcastRoutingFlows(nb *relations.NB) engine.Rel[Flow] {
	relay := engine.IndexBy(engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return r.McastRelay }), routerUUID)
	static := floodStaticRouters(nb)
	dropping := engine.Map(engine.AntiJoin(relay, static), func(r relations.RouterConfig) Flow {
		return on(r.UUID).flow(LRInIPRouting, 10450, "ip4.mcast || ip6.mcast", drop)
	})
	const toStatic = `clone { outport = "_MC_static"; `
	flooding := engine.FlatMap(engine.SemiJoin(relay, static), func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInIPRouting, 10460, "igmp", toStatic+"next; };"),
			dp.flow(LRInIPRouting, 10460, "mldv1 || mldv2", toStatic+"next; };"),
			dp.flow(LRInIPRouting, 10450, "ip4.mcast || ip6.mcast", toStatic+"ip.ttl--; next; };"),
		}
	})
	ports := engine.SemiJoin(engine.IndexBy(engine.SemiJoin(engine.IndexBy(nb.LRPs, lrpRouter), relay), lrpRouter), static)
	loops := engine.FlatMap(ports, func(p relations.LRP) []Flow {
		dp := on(p.Router)
		return []Flow{
			dp.flow(LRInIPRouting, 10550, fmt.Sprintf("eth.src == %s && igmp", p.Net.MAC), drop),
			dp.flow(LRInIPRouting, 10550, fmt.Sprintf("eth.src == %s && (mldv1 || mldv2)", p.Net.MAC), drop),
		}
	})
	return engine.Union(dropping, flooding, loops)
}

// RouterIGMPGroupFlows: lr_in_ip_routing, priority 10500, a flow per
// group that a router relays (northd.c
// build_mcast_lookup_flows_for_lrouter): IP multicast to the group goes
// to the group's ports, and also to ports configured to flood, with the
// TTL decremented.
func RouterIGMPGroupFlows(nb *relations.NB) engine.Rel[Flow] {
	relay := engine.IndexBy(engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return r.McastRelay }), routerUUID)
	groups := engine.SemiJoin(engine.IndexBy(nb.IGMPGroups, func(g relations.IGMPGroup) string { return g.Datapath }), relay)
	flow := func(static bool) func(relations.IGMPGroup) Flow {
		return func(g relations.IGMPGroup) Flow {
			match := "ip6 && ip6.dst == " + g.Name + " "
			if g.Addr.Is4() {
				match = "ip4 && ip4.dst == " + g.Name + " "
			}
			var actions string
			if static {
				actions = `clone { outport = "_MC_static"; ip.ttl--; next; };`
			}
			actions += "outport = " + jsonKey(g.Name) + "; ip.ttl--; next;"
			return on(g.Datapath).flow(LRInIPRouting, 10500, match, actions)
		}
	}
	byRouter := engine.IndexBy(groups, func(g relations.IGMPGroup) string { return g.Datapath })
	static := floodStaticRouters(nb)
	return engine.Union(
		engine.Map(engine.AntiJoin(byRouter, static), flow(false)),
		engine.Map(engine.SemiJoin(byRouter, static), flow(true)))
}

// RouterPortConnectedRouteFlows: lr_in_ip_routing, a route for each network
// of a router port (northd.c build_ip_routing_flows_for_lrouter_port):
// packets to the network leave through the port straight to their
// destination. Link-local networks are routed only back out of the port
// they came in on.
func RouterPortConnectedRouteFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.LRPs, func(p relations.LRP) []Flow {
		var flows []Flow
		for _, a := range p.Net.IPv4 {
			flows = append(flows, route{
				port: p, srcIP: a.AddrS, network: a.NetworkS, plen: a.Plen, v4: true, origin: routeConnected, hint: p.Port.UUID,
			}.flow(nb))
		}
		for _, a := range p.Net.IPv6 {
			// 23.03 takes a network printed with a dot, an IPv4-mapped
			// IPv6 one (::ffff:0.0.0.0), for IPv4: ip4.dst and reg0.
			v4, network := strings.Contains(a.NetworkS, "."), a.NetworkS
			if v4 && printsMappedNetworkAsIPv4(nb.Release) {
				network = a.Network.Unmap().String()
			}
			flows = append(flows, route{
				port: p, srcIP: a.AddrS, network: network, plen: a.Plen, v4: v4, origin: routeConnected,
				scoped: !v4 && isLinkLocal(a.Network), hint: p.Port.UUID,
			}.flow(nb))
		}
		return flows
	})
}

// printsMappedNetworkAsIPv4: 26.03 prints an IPv4-mapped network as the
// IPv4 address it maps (build_route_prefix_s), keeping its length.
func printsMappedNetworkAsIPv4(rel schema.Release) bool { return rel >= schema.OVN2603 }

// Route origins, which order routes of the same prefix length: a
// connected route beats a static one, which beats a source-IP route.
const (
	routeSrcIP = iota
	routeStatic
	routeConnected
	routeLearned // 26.03 only
)

// routePriority is a route's priority, implementing longest-prefix match:
// the prefix length times a multiplier, plus an offset per origin
// (northd.c ROUTE_PRIO_OFFSET_*). 26.03 spreads them wider (multiplier 8,
// static 4, connected 6, leaving 2 for learned routes and odd offsets for
// routes that also match a protocol); 23.03's are 3, 1 and 2.
func routePriority(nb *relations.NB, origin, plen int) int {
	if spreadRoutePriorities(nb) {
		return plen*8 + [...]int{routeSrcIP: 0, routeStatic: 4, routeConnected: 6, routeLearned: 2}[origin]
	}
	return plen*3 + origin
}

// spreadRoutePriorities: 26.03's route priorities leave room for learned
// routes and protocol-matching ECMP routes between its origins.
func spreadRoutePriorities(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// route is one lr_in_ip_routing flow (northd.c add_route).
type route struct {
	port    relations.LRP // the output port; unset for a discard route
	srcIP   string        // the port address packets are routed from; "" for none
	network string        // the destination (or source) network, printed
	plen    int
	v4      bool
	// gateway is the next hop; empty for a directly connected network,
	// where the next hop is the packet's destination. crossFamily: the
	// next hop, or with no gateway srcIP, is not of the network's family
	// (26.03's IPv4 routes via IPv6 next hops).
	gateway     string
	crossFamily bool
	// origin is routeSrcIP for a src-ip route, else routeStatic or
	// routeConnected.
	origin  int
	table   int  // route table id (0: the main table)
	scoped  bool // link-local: only for packets from the output port
	discard bool
	dp      on // the router; the output port's router when unset
	// hint is the NB row the flow comes from: the port of a connected
	// route, the static route.
	hint string
}

// match is northd.c build_route_match, with the priority it implies.
// Static routes name their route table; 26.03 counts source-IP routes
// among them.
func (r route) match(nb *relations.NB) (string, int) {
	var b strings.Builder
	if r.scoped {
		fmt.Fprintf(&b, "inport == %s && ", jsonKey(r.port.Name()))
	}
	if r.table != 0 || r.origin == routeStatic || r.origin == routeLearned || r.origin == routeSrcIP && spreadRoutePriorities(nb) {
		fmt.Fprintf(&b, "reg7 == %d && ", r.table)
	}
	dir := "dst"
	if r.origin == routeSrcIP {
		dir = "src"
	}
	fmt.Fprintf(&b, "ip%s.%s == %s/%d", ipVersion(r.v4), dir, r.network, r.plen)
	return b.String(), routePriority(nb, r.origin, r.plen)
}

// flow is the route's lr_in_ip_routing flow: decrement the TTL, clear the
// ECMP group, set the next hop and source address registers, the source
// MAC and the output port.
func (r route) flow(nb *relations.NB) Flow {
	match, prio := r.match(nb)
	router := r.dp
	if router == "" {
		router = on(r.port.Router)
	}
	dp := router.from(r.hint)
	if r.discard {
		return dp.flow(LRInIPRouting, prio, match, drop)
	}
	nhV4 := r.v4 != r.crossFamily
	gwReg, gw := nextHopReg(!nhV4), r.gateway
	if gw == "" {
		// The next hop is the destination itself, of the route's family
		// even when the source address is of the other.
		gwReg, gw = nextHopReg(!r.v4), "ip"+ipVersion(r.v4)+".dst"
	}
	return dp.flow(LRInIPRouting, prio, match, fmt.Sprintf(
		"ip.ttl--; reg8[0..15] = 0; %s = %s; %seth.src = %s; outport = %s; flags.loopback = 1; %snext;",
		gwReg, gw, setSrcIP(nb.Release, !nhV4, r.srcIP), r.port.Net.MAC, jsonKey(r.port.Name()), nextHopFamily(nb.Release, nhV4)))
}

// setSrcIP sets the source address register to ip; nothing for a route
// through a port without an address of the next hop's family (a learnt
// route on an unnumbered port), which northd routes from no address.
func setSrcIP(rel schema.Release, v6 bool, ip string) string {
	if ip == "" {
		return ""
	}
	return srcIPReg(rel, v6) + " = " + ip + "; "
}

func ipVersion(v4 bool) string {
	if v4 {
		return "4"
	}
	return "6"
}

// RouterStaticRouteFlows: lr_in_ip_routing for a static route in no ECMP
// group (northd.c build_static_route_flow): packets to (or, for a
// src-ip route, from) the prefix leave through the route's port towards
// its next hop, or are dropped by a discard route. The flow goes to the
// datapath of the output port, another router's when output_port names
// one.
func RouterStaticRouteFlows(nb *relations.NB) engine.Rel[Flow] {
	alone := engine.Filter(nb.RouteSlots, func(s relations.StaticRouteSlot) bool { return s.Group == 0 })
	return engine.Map(alone, func(s relations.StaticRouteSlot) Flow {
		r := staticRoute(s.Route)
		if s.Route.Discard {
			r.dp, r.discard = on(s.Route.Router), true
			return r.flow(nb)
		}
		r.port, r.srcIP, r.gateway = s.Route.Out, s.Route.OutIP, routeGateway(nb, s.Route)
		r.crossFamily = s.Route.NexthopV4() != r.v4
		network, _ := s.Route.Prefix.Prefix(s.Route.Plen)
		r.scoped = !r.v4 && isLinkLocal(network.Addr())
		return r.flow(nb)
	})
}

// RouterLearnedRouteFlows: lr_in_ip_routing for a route learnt through
// dynamic routing, built as static ones (en-group-ecmp-route.c, northd.c
// build_route_flow, build_ecmp_route_flow): in the main route table,
// below static routes of the same prefix length. A route alone is routed
// by its own flow; learnt routes sharing a prefix form an ECMP group
// (relations.LearnedRouteSlot): one member picked by select(), then
// lr_in_ip_routing_ecmp sets its next hop and port. A next hop may be of
// the other family (an IPv4 prefix via an IPv6 neighbour).
func RouterLearnedRouteFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.LearnedRouteSlots, func(s relations.LearnedRouteSlot) []Flow {
		lr := s.Route
		r := route{port: lr.Out, srcIP: lr.OutIP, network: printAddr(lr.Prefix.Addr()), plen: lr.Prefix.Bits(),
			v4: lr.Prefix.Addr().Is4(), gateway: printAddr(lr.Nexthop), origin: routeLearned, hint: lr.Row}
		r.crossFamily = lr.Nexthop.Is4() != r.v4
		r.scoped = !r.v4 && isLinkLocal(lr.Prefix.Addr())
		if s.Group == 0 {
			return []Flow{r.flow(nb)}
		}
		dp := on(lr.Out.Router)
		var flows []Flow
		if s.Member == 1 {
			match, prio := r.match(nb)
			flows = append(flows, dp.flow(LRInIPRouting, prio, match, fmt.Sprintf(
				"ip.ttl--; flags.loopback = 1; reg8[0..15] = %d; reg8[16..31] = %s", s.Group, ecmpSelect(s.Size, "", ""))))
		}
		nhV4 := lr.Nexthop.Is4()
		return append(flows, dp.from(lr.Row).flow(LRInIPRoutingECMP, 100,
			fmt.Sprintf("reg8[0..15] == %d && reg8[16..31] == %d", s.Group, s.Member),
			fmt.Sprintf("%s = %s; %seth.src = %s; outport = %s; %snext;",
				nextHopReg(!nhV4), r.gateway, setSrcIP(nb.Release, !nhV4, r.srcIP), r.port.Net.MAC, jsonKey(r.port.Name()),
				nextHopFamily(nb.Release, nhV4))))
	})
}

// RouterECMPRouteFlows: lr_in_ip_routing and lr_in_ip_routing_ecmp for the
// static routes that share a prefix, policy and route table (northd.c
// build_ecmp_route_flow): the routing flow picks one member with select()
// (a group of one, 26.03's lone symmetric-reply route, names its member),
// then a flow per member sets the next hop and output port like a single
// route. A discard member keeps its number but has no flow; in 26.03
// (discardDropsECMPGroup) every member of its group drops, and northd
// warns of it.
func RouterECMPRouteFlows(nb *relations.NB) engine.Rel[Flow] {
	grouped := engine.Filter(nb.RouteSlots, func(s relations.StaticRouteSlot) bool { return s.Group != 0 })
	nb.Diagnose(engine.FlatMap(grouped, func(s relations.StaticRouteSlot) []relations.Diagnostic {
		if !discardDropsECMPGroup(nb.Release) || !s.Route.Discard {
			return nil
		}
		network := netip.PrefixFrom(s.Route.Prefix, s.Route.Plen).Masked().Addr()
		return []relations.Diagnostic{relations.Warning(fmt.Sprintf(
			`The ECMP route "%s" contains "discard" route, the whole group will drop traffic.`, normalizedPrefix(network, s.Route.Plen)))}
	}))
	return engine.FlatMap(grouped, func(s relations.StaticRouteSlot) []Flow {
		dp, rt := on(s.Route.Router), s.Route
		var flows []Flow
		if s.Member == 1 {
			for _, proto := range ecmpProtocols(s) {
				match, prio := ecmpRouteMatch(nb, s, proto)
				member := "1; next;"
				if s.Size > 1 {
					member = ecmpSelect(s.Size, s.SelectionFields, proto)
				}
				flows = append(flows, dp.flow(LRInIPRouting, prio, match, fmt.Sprintf(
					"ip.ttl--; flags.loopback = 1; reg8[0..15] = %d; reg8[16..31] = %s", s.Group, member)))
			}
		}
		memberMatch := fmt.Sprintf("reg8[0..15] == %d && reg8[16..31] == %d", s.Group, s.Member)
		if discardDropsECMPGroup(nb.Release) && s.HasDiscard {
			return append(flows, dp.from(rt.Route.UUID).flow(LRInIPRoutingECMP, 100, memberMatch, drop))
		}
		if rt.Discard {
			return flows
		}
		commit := ""
		if ecmpRepliesByPortMark(nb.Release) && rt.SymmetricReply() {
			commit = regNeedsECMPStatefulCommit + " = 1; "
		}
		return append(flows, dp.from(rt.Route.UUID).flow(LRInIPRoutingECMP, 100, memberMatch,
			fmt.Sprintf("%s = %s; %s = %s; eth.src = %s; outport = %s; %s%snext;",
				nextHopReg(!rt.NexthopV4()), routeGateway(nb, rt), srcIPReg(nb.Release, !rt.NexthopV4()), rt.OutIP, rt.Out.Net.MAC, jsonKey(rt.Out.Name()),
				nextHopFamily(nb.Release, rt.NexthopV4()), commit)))
	})
}

// ecmpProtocols are the protocols an ECMP group has a routing flow of its
// own for (northd.c build_route_data_flows_for_lrouter): "", its plain
// flow, and with a transport port among its selection fields tcp, udp and
// sctp, whose flows hash that protocol's ports.
func ecmpProtocols(s relations.StaticRouteSlot) []string {
	fields := strings.Split(s.SelectionFields, ",")
	if slices.Contains(fields, "tp_src") || slices.Contains(fields, "tp_dst") {
		return []string{"", "tcp", "udp", "sctp"}
	}
	return []string{""}
}

// ecmpRouteMatch is the match and priority of an ECMP group's routing
// flow for protocol proto (northd.c build_ecmp_route_flow), routed with
// its first route's origin: a protocol's flow is a priority higher and,
// when it hashes among several members, matches the protocol.
func ecmpRouteMatch(nb *relations.NB, s relations.StaticRouteSlot, proto string) (string, int) {
	match, prio := staticRoute(s.Route).match(nb)
	if proto == "" {
		return match, prio
	}
	if s.Size > 1 && s.SelectionFields != "" {
		match += " && " + proto
	}
	return match, prio + 1
}

// ecmpSelect picks one of members 1 to size: select(1, 2), or, hashing
// the selection fields, select(values=(1, 2); hash_fields="..."), where
// tp_src and tp_dst become proto's ports (tcp_src, ...) and are left out
// of the plain flow (proto "").
func ecmpSelect(size int, fields, proto string) string {
	members := make([]string, size)
	for i := range members {
		members[i] = fmt.Sprint(i + 1)
	}
	if fields == "" {
		return "select(" + strings.Join(members, ", ") + ");"
	}
	var hashed []string
	for _, f := range strings.Split(fields, ",") {
		if port, ok := strings.CutPrefix(f, "tp_"); ok {
			if proto == "" {
				continue
			}
			f = proto + "_" + port
		}
		hashed = append(hashed, f)
	}
	slices.Sort(hashed)
	return fmt.Sprintf("select(values=(%s); hash_fields=\"%s\");", strings.Join(members, ", "), strings.Join(hashed, ","))
}

// nexthopPrintedParsed: 26.03 prints a static route's next hop as it
// parsed it (ipv6_format_mapped: no "/32", IPv6 compressed), 23.03 as the
// NB wrote it.
func nexthopPrintedParsed(rel schema.Release) bool { return rel >= schema.OVN2603 }

// routeGateway is a static route's next hop as its flows print it; empty
// for none.
func routeGateway(nb *relations.NB, sr relations.StaticRoute) string {
	if nexthopPrintedParsed(nb.Release) && sr.Gateway.IsValid() {
		return printAddr(sr.Gateway)
	}
	return sr.Route.Nexthop
}

// discardDropsECMPGroup: in 26.03 a discard route drops the traffic of its
// whole ECMP group, every member's flow dropping.
func discardDropsECMPGroup(rel schema.Release) bool { return rel >= schema.OVN2603 }

// staticRoute is the part of a static route's flow that does not depend on
// its output port: the printed prefix, priority offset and route table.
func staticRoute(sr relations.StaticRoute) route {
	origin := routeStatic
	switch {
	case sr.Src:
		origin = routeSrcIP
	case sr.Route.Options["origin"] == "connected":
		origin = routeConnected
	}
	network, _ := sr.Prefix.Prefix(sr.Plen)
	return route{network: printAddr(network.Addr()), plen: sr.Plen, v4: sr.V4(), origin: origin, table: sr.TableID, hint: sr.Route.UUID}
}

// printAddr prints an address as northd does: dotted quad, or glibc's
// inet_ntop for IPv6.
func printAddr(a netip.Addr) string {
	if a.Is4() {
		return a.String()
	}
	return relations.FormatIPv6(a)
}

// RouterRouteTableFlows: lr_in_ip_routing_pre for each router port with
// options:route_table (northd.c build_route_table_lflow): packets from the
// port are routed with that route table's routes.
func RouterRouteTableFlows(nb *relations.NB) engine.Rel[Flow] {
	type portTable struct {
		router, port, table string
	}
	ports := engine.FlatMap(nb.PortsOnRouters, func(rp relations.RouterPort) []portTable {
		if name := rp.Port.Options["route_table"]; name != "" {
			return []portTable{{rp.Router, rp.Port.Name, name}}
		}
		return nil
	})
	type tableKey struct{ router, name string }
	return engine.Join(
		engine.IndexBy(ports, func(p portTable) tableKey { return tableKey{p.router, p.table} }),
		engine.IndexBy(nb.RouteTableIDs, func(t relations.RouteTableID) tableKey { return tableKey{t.Router, t.Name} }),
		func(_ tableKey, p portTable, t relations.RouteTableID) Flow {
			// northd quotes the port name here without escaping it.
			return on(p.router).flow(LRInIPRoutingPre, 100, `inport == "`+p.port+`"`, fmt.Sprintf("reg7 = %d; next;", t.ID))
		})
}

// RouterECMPSymmetricReplyFlows: the flows that send replies back over the
// ECMP route their request came in on, for the routes of a gateway router
// with options:ecmp_symmetric_reply (northd.c
// add_ecmp_symmetric_reply_flows), per ECMP group and output port (the
// members through one port give the same flows): lr_in_defrag sends traffic from or over the
// route through conntrack, lr_in_ecmp_stateful commits the next hop's MAC
// and the port's tunnel key (KeyRef) to the connection, and replies that
// carry them skip routing (lr_in_ip_routing), policies (lr_in_policy) and
// resolution (lr_in_arp_resolve, eth.dst from ct_label).
//
// 26.03 (ecmpRepliesByPortMark) tells replies by the port in ct_mark
// alone, commits in lr_in_ecmp_stateful every packet that came in over
// the route, and leaves the next hop checks (chk_ecmp_nh,
// commit_ecmp_nh) out.
func RouterECMPSymmetricReplyFlows(nb *relations.NB) engine.Rel[Flow] {
	byPortMark := ecmpRepliesByPortMark(nb.Release)
	symmetric := engine.Filter(nb.RouteSlots, func(s relations.StaticRouteSlot) bool {
		dropped := s.Route.Discard || discardDropsECMPGroup(nb.Release) && s.HasDiscard
		return s.Group != 0 && !dropped && s.Route.SymmetricReply()
	})
	gateways := engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return r.Gateway })
	onGateway := engine.SemiJoin(engine.IndexBy(symmetric, func(s relations.StaticRouteSlot) string { return s.Route.Router }),
		engine.IndexBy(gateways, routerUUID))
	// The members through one port give the same flows, hinted by the
	// first member 23.03 meets, in the order of its route lists.
	return engine.FlatMap(relations.WithFeatures(nb, onGateway), func(x relations.Featured[relations.StaticRouteSlot]) []Flow {
		rt := x.Of.Route
		replyPort := ctBits(x.Features) + ".ecmp_reply_port"
		dp, out := on(rt.Router).from(rt.Route.UUID), jsonKey(rt.Out.Name())
		dir, ipv6, srcReg := "src", "false", srcIPReg(nb.Release, !rt.NexthopV4())
		if rt.Src {
			dir = "dst"
		}
		if !rt.V4() {
			ipv6 = "true"
		}
		network, _ := rt.Prefix.Prefix(rt.Plen)
		cidr := printAddr(network.Addr())
		if rt.Plen != rt.Prefix.BitLen() {
			cidr += fmt.Sprintf("/%d", rt.Plen)
		}
		base := fmt.Sprintf("inport == %s && ip%s.%s == %s", out, ipVersion(rt.V4()), dir, cidr)
		key := KeyRef(rt.Out.Port.UUID)
		// The group's flows for each protocol (ecmpProtocols) send the
		// traffic they route through conntrack and route its replies.
		viaRoute := func(reply, defrag string) []Flow {
			var flows []Flow
			for _, proto := range ecmpProtocols(x.Of) {
				routeMatch, _ := ecmpRouteMatch(nb, x.Of, proto)
				flows = append(flows, dp.flow(LRInDefrag, 100, routeMatch, defrag),
					dp.flow(LRInIPRouting, 10300, reply+" && "+routeMatch, fmt.Sprintf(
						"ip.ttl--; flags.loopback = 1; eth.src = %s; %s = %s; outport = %s; next;", rt.Out.Net.MAC, srcReg, rt.OutIP, out)))
			}
			return flows
		}
		if byPortMark {
			reply := "ct_mark.ecmp_reply_port == " + key
			return append(viaRoute(reply, "ct_next;"),
				dp.flow(LRInDefrag, 100, base, "ct_next;"),
				dp.flow(LRInECMPStateful, 100, base+" && (ct.new || ct.est)",
					"ct_commit { ct_label.ecmp_reply_eth = eth.src; ct_mark.ecmp_reply_port = "+key+";}; next;"),
				dp.flow(LRInPolicy, 65535, reply, "next;"),
				dp.flow(LRInARPResolve, 200, reply, ecmpReplyMAC))
		}
		reply := "ct.rpl && reg9[5] == 1 && " + replyPort + " == " + key
		flows := append(viaRoute(reply, "reg9[5] = chk_ecmp_nh(); ct_next;"),
			dp.flow(LRInDefrag, 100, base, "reg9[5] = chk_ecmp_nh_mac(); ct_next;"),
			dp.flow(LRInPolicy, 65535, reply, "next;"),
			dp.flow(LRInARPResolve, 200, reply, ecmpReplyMAC))
		for _, proto := range []string{"tcp", "udp", "sctp"} {
			commit := fmt.Sprintf("ct_commit { ct_label.ecmp_reply_eth = eth.src;  %s = %s;}; "+
				"commit_ecmp_nh(ipv6 = %s, proto = %s); next;", replyPort, key, ipv6, proto)
			flows = append(flows,
				dp.flow(LRInECMPStateful, 100, base+" && (ct.new && !ct.est) && "+proto, commit),
				dp.flow(LRInECMPStateful, 100, base+" && (!ct.rpl && ct.est) && "+proto+" && reg9[5] == 0", commit))
		}
		return flows
	})
}

// ecmpReplyMAC sets eth.dst to the MAC a symmetric ECMP connection
// recorded in ct_label, through a whole register rather than a masked
// ct_label read, which some NICs cannot offload.
const ecmpReplyMAC = "push(xxreg1); xxreg1 = ct_label; eth.dst = xxreg1[32..79]; pop(xxreg1); next;"

// ecmpRepliesByPortMark: 26.03 recognizes symmetric ECMP replies by the
// reply port in ct_mark, and commits the connection's reply MAC as it
// leaves (lr_in_ecmp_stateful_egr).
func ecmpRepliesByPortMark(rel schema.Release) bool { return rel >= schema.OVN2603 }

// RouterPortECMPStatefulEgrFlows: lr_in_ecmp_stateful_egr, a 26.03 stage,
// per router port and chassisredirect port (northd.c
// build_ecmp_stateful_egr_flows_for_lrouter_port): a packet routed over a
// symmetric-reply ECMP member (reg9[10]) commits its next hop's MAC and
// output port to conntrack on its way out, so that replies return the same
// way.
func RouterPortECMPStatefulEgrFlows(nb *relations.NB) engine.Rel[Flow] {
	flow := func(router, key, keyRef string) Flow {
		return on(router).flow(LRInECMPStatefulEgr, 100, regNeedsECMPStatefulCommit+" == 1 && ip && outport == "+key,
			"ct_commit { ct_label.ecmp_reply_eth = eth.dst; ct_mark.ecmp_reply_port = "+keyRef+";}; output;")
	}
	return engine.Union(
		engine.Map(nb.LRPs, func(p relations.LRP) Flow { return flow(p.Router, jsonKey(p.Name()), KeyRef(p.Port.UUID)) }),
		engine.Map(nb.DGPs, func(d relations.DGP) Flow {
			return flow(d.LRP.Router, crKey(d.LRP), ChassisRedirectKeyRef(d.LRP.Port.UUID))
		}))
}

// regNeedsECMPStatefulCommit marks, in 26.03, a packet routed over a
// symmetric-reply ECMP member (REGBIT_NEEDS_ECMP_STATEFUL_COMMIT).
const regNeedsECMPStatefulCommit = "reg9[10]"
