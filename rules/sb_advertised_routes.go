package rules

import (
	"cmp"
	"net/netip"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// AdvertisedRoute is an SB Advertised_Route row, a route that
// ovn-controller announces through dynamic routing
// (en-advertised-route-sync.c): the router (NB _uuid) whose datapath
// advertises it, the router port it is advertised through, the prefix as
// northd prints it (normalize_v46_prefix: the network, without "/32" or
// "/128" for a host), and the port whose location it follows ("" for
// none).
type AdvertisedRoute struct {
	Router, Port, Prefix, Tracked string
}

// CompareAdvertisedRoutes orders advertised routes by router, port, prefix
// and tracked port.
func CompareAdvertisedRoutes(a, b AdvertisedRoute) int {
	return cmp.Or(cmp.Compare(a.Router, b.Router), cmp.Compare(a.Port, b.Port),
		cmp.Compare(a.Prefix, b.Prefix), cmp.Compare(a.Tracked, b.Tracked))
}

// SBAdvertisedRoutes computes the routes the routers with dynamic routing
// advertise (advertised_route_table_sync): through each port, its
// connected networks when it redistributes connected routes, or with
// connected-as-host every address reachable through it, and the static
// routes leaving through it when it redistributes static ones. Routes to
// link-local prefixes and discard routes are not advertised. Then the
// NAT and load balancer addresses of the port's router and neighbours
// (en_dynamic_routes_run), unless they are already advertised through
// the port: an address that follows no port is, whichever port the
// route already there follows.
func SBAdvertisedRoutes(n *relations.NB) engine.Rel[AdvertisedRoute] {
	dynamic := engine.Filter(n.LRPRedistributes, func(p relations.LRPRedistribute) bool { return p.Dynamic })
	routes := engine.Distinct(engine.Union(
		connectedAdvertisedRoutes(dynamic),
		staticAdvertisedRoutes(n, dynamic),
		hostAdvertisedRoutes(n, dynamic)))
	sources := redistributionSources(n, dynamic)
	redistributed := engine.Union(natAdvertisedRoutes(n, sources), lbAdvertisedRoutes(n, sources))
	type routeKey struct{ Router, Port, Prefix string }
	key := func(r AdvertisedRoute) routeKey { return routeKey{r.Router, r.Port, r.Prefix} }
	untracked := engine.AntiJoin(
		engine.IndexBy(engine.Filter(redistributed, func(r AdvertisedRoute) bool { return r.Tracked == "" }), key),
		engine.IndexBy(routes, key))
	return engine.Distinct(engine.Union(routes, untracked,
		engine.Filter(redistributed, func(r AdvertisedRoute) bool { return r.Tracked != "" })))
}

// redistributionSource says that Port advertises the NAT or load balancer
// addresses of router Router: its own router's, or a neighbour's
// (build_nat_connected_routes, build_lb_connected_routes), a router its
// peer port Via belongs to or with a port Via on the switch Port is on.
type redistributionSource struct {
	Port   relations.LRPRedistribute
	Router string // NB _uuid
	Via    string // the neighbour's port; "" for Port's own router
}

// redistributionSources are the routers whose NAT or load balancer
// addresses the ports that redistribute either advertise.
func redistributionSources(n *relations.NB, dynamic engine.Rel[relations.LRPRedistribute]) engine.Rel[redistributionSource] {
	ports := engine.Filter(dynamic, func(p relations.LRPRedistribute) bool {
		return p.Mode.Has(relations.RedistributeNAT) || p.Mode.Has(relations.RedistributeLB)
	})
	byUUID := engine.IndexBy(ports, func(p relations.LRPRedistribute) string { return p.LRP.Port.UUID })
	own := engine.Map(ports, func(p relations.LRPRedistribute) redistributionSource {
		return redistributionSource{Port: p, Router: p.LRP.Router}
	})
	peered := engine.Join(engine.IndexBy(n.LRPRouterPeers, func(p relations.LRPRouterPeer) string { return p.LRP.Port.UUID }), byUUID,
		func(_ string, peer relations.LRPRouterPeer, p relations.LRPRedistribute) redistributionSource {
			return redistributionSource{Port: p, Router: peer.Peer.Router, Via: peer.Peer.Name()}
		})
	onSwitch := engine.Join(engine.IndexBy(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.LRP.Port.UUID }), byUUID,
		func(_ string, peer relations.LRPSwitchPeer, p relations.LRPRedistribute) engine.KV[string, relations.LRPRedistribute] {
			return engine.KV[string, relations.LRPRedistribute]{Key: peer.Switch, Value: p}
		})
	neighbours := engine.JoinFlatMap(
		engine.IndexBy(onSwitch, func(kv engine.KV[string, relations.LRPRedistribute]) string { return kv.Key }),
		engine.IndexBy(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.Switch }),
		func(_ string, kv engine.KV[string, relations.LRPRedistribute], other relations.LRPSwitchPeer) []redistributionSource {
			if other.LRP.Port.UUID == kv.Value.LRP.Port.UUID {
				return nil
			}
			return []redistributionSource{{Port: kv.Value, Router: other.LRP.Router, Via: other.LRP.Name()}}
		})
	return engine.Union(own, peered, neighbours)
}

// natAdvertisedRoutes are the external addresses, as written, of the
// valid NAT rules of the routers whose NAT addresses a port redistributes
// (build_nat_route_for_port), following the rule's logical port when it
// is distributed and that switch port exists, else its distributed
// gateway port if any.
func natAdvertisedRoutes(n *relations.NB, sources engine.Rel[redistributionSource]) engine.Rel[AdvertisedRoute] {
	type natRoute struct {
		AdvertisedRoute
		LogicalPort string // of a distributed rule
	}
	routes := engine.Join(
		engine.IndexBy(engine.Filter(sources, func(s redistributionSource) bool { return s.Port.Mode.Has(relations.RedistributeNAT) }),
			func(s redistributionSource) string { return s.Router }),
		engine.IndexBy(n.ValidNATRules, func(r relations.NATRule) string { return r.Router }),
		func(_ string, s redistributionSource, r relations.NATRule) natRoute {
			route := natRoute{AdvertisedRoute: AdvertisedRoute{Router: s.Port.LRP.Router, Port: s.Port.LRP.Name(), Prefix: r.NAT.ExternalIP}}
			switch {
			case r.Distributed:
				route.LogicalPort = *r.NAT.LogicalPort
			case r.DGP.LRP.Port != nil:
				route.Tracked = r.DGP.Name()
			}
			return route
		})
	distributed := engine.IndexBy(engine.Filter(routes, func(r natRoute) bool { return r.LogicalPort != "" }),
		func(r natRoute) string { return r.LogicalPort })
	lsps := n.LSPsByName()
	plain := func(r natRoute) AdvertisedRoute { return r.AdvertisedRoute }
	return engine.Union(
		engine.Map(engine.Filter(routes, func(r natRoute) bool { return r.LogicalPort == "" }), plain),
		engine.Map(engine.AntiJoin(distributed, lsps), plain),
		engine.Join(distributed, lsps, func(lsp string, r natRoute, _ relations.LSP) AdvertisedRoute {
			r.Tracked = lsp
			return r.AdvertisedRoute
		}))
}

// lbAdvertisedRoutes are the VIP addresses of the load balancers of the
// routers whose load balancer addresses a port redistributes
// (build_lb_routes, build_lb_connected_routes): a neighbour's follow its
// port; its own router's, on a gateway router, follow none, and on
// another router follow each of its distributed gateway ports.
func lbAdvertisedRoutes(n *relations.NB, sources engine.Rel[redistributionSource]) engine.Rel[AdvertisedRoute] {
	lb := engine.Filter(sources, func(s redistributionSource) bool { return s.Port.Mode.Has(relations.RedistributeLB) })
	ownDistributed := engine.IndexBy(engine.Filter(lb, func(s redistributionSource) bool { return s.Via == "" && !s.Port.LRP.OnGateway }),
		func(s redistributionSource) string { return s.Router })
	tracked := engine.Union(
		engine.Filter(lb, func(s redistributionSource) bool { return s.Via != "" || s.Port.LRP.OnGateway }),
		engine.Join(ownDistributed, engine.IndexBy(n.DGPs, func(d relations.DGP) string { return d.LRP.Router }),
			func(_ string, s redistributionSource, d relations.DGP) redistributionSource {
				s.Via = d.Name()
				return s
			}))
	scoped := engine.Join(engine.IndexBy(tracked, func(s redistributionSource) string { return s.Router }), n.RouterLBScopesByRouter,
		func(_ string, s redistributionSource, scope relations.ScopeDatapath) engine.KV[string, redistributionSource] {
			return engine.KV[string, redistributionSource]{Key: scope.Scope, Value: s}
		})
	return engine.Join(engine.IndexBy(scoped, func(kv engine.KV[string, redistributionSource]) string { return kv.Key }), n.ScopeLBIPs,
		func(_ string, kv engine.KV[string, redistributionSource], ip relations.ScopedLBIP) AdvertisedRoute {
			return AdvertisedRoute{Router: kv.Value.Port.LRP.Router, Port: kv.Value.Port.LRP.Name(), Prefix: ip.IP, Tracked: kv.Value.Via}
		})
}

// connectedAdvertisedRoutes are the networks of the ports that
// redistribute connected routes as networks.
func connectedAdvertisedRoutes(ports engine.Rel[relations.LRPRedistribute]) engine.Rel[AdvertisedRoute] {
	return engine.FlatMap(ports, func(p relations.LRPRedistribute) []AdvertisedRoute {
		if !p.Mode.Has(relations.RedistributeConnected) || p.Mode.Has(relations.RedistributeConnectedAsHost) {
			return nil
		}
		var out []AdvertisedRoute
		for _, a := range p.LRP.Net.IPv4 {
			out = appendPrefix(out, p.LRP, a.Network, a.Plen)
		}
		for _, a := range p.LRP.Net.IPv6 {
			out = appendPrefix(out, p.LRP, a.Network, a.Plen)
		}
		return out
	})
}

// staticAdvertisedRoutes are the static routes of a router with dynamic
// routing, through their output port when it redistributes static routes;
// a route of origin "connected" (ovn-ic's) counts as a connected one.
func staticAdvertisedRoutes(n *relations.NB, ports engine.Rel[relations.LRPRedistribute]) engine.Rel[AdvertisedRoute] {
	routes := engine.Filter(n.Routes, func(r relations.StaticRoute) bool { return !r.Discard })
	return engine.JoinFlatMap(
		engine.IndexBy(routes, func(r relations.StaticRoute) string { return r.Out.Port.UUID }),
		engine.IndexBy(ports, func(p relations.LRPRedistribute) string { return p.LRP.Port.UUID }),
		func(_ string, r relations.StaticRoute, p relations.LRPRedistribute) []AdvertisedRoute {
			if r.Router != p.LRP.Router {
				return nil
			}
			if r.Route.Options["origin"] == "connected" {
				if !p.Mode.Has(relations.RedistributeConnected) || p.Mode.Has(relations.RedistributeConnectedAsHost) {
					return nil
				}
			} else if !p.Mode.Has(relations.RedistributeStatic) {
				return nil
			}
			return appendPrefix(nil, p.LRP, netip.PrefixFrom(r.Prefix, r.Plen).Masked().Addr(), r.Plen)
		})
}

// appendPrefix appends the route to network/plen through port p unless
// the prefix is link-local (prefix_is_link_local).
func appendPrefix(out []AdvertisedRoute, p relations.LRP, network netip.Addr, plen int) []AdvertisedRoute {
	if linkLocalPrefix(network, plen) {
		return out
	}
	return append(out, AdvertisedRoute{Router: p.Router, Port: p.Name(), Prefix: normalizedPrefix(network, plen)})
}

// normalizedPrefix prints network/plen as northd's normalize_v46_prefix
// does: the network, without "/32" or "/128" for a host.
func normalizedPrefix(network netip.Addr, plen int) string {
	prefix := printAddr(network)
	if plen != network.BitLen() {
		prefix += "/" + strconv.Itoa(plen)
	}
	return prefix
}

// linkLocalPrefix reports whether network/plen lies in 169.254.0.0/16 or
// fe80::/10.
func linkLocalPrefix(network netip.Addr, plen int) bool {
	if network.Is4() {
		return plen >= 16 && netip.MustParsePrefix("169.254.0.0/16").Contains(network)
	}
	return plen >= 10 && netip.MustParsePrefix("fe80::/10").Contains(network)
}

// hostAddress is an address reachable on a switch (NB _uuid; "" for one
// behind a peer router port), with the port whose location it follows.
type hostAddress struct {
	Switch, Addr, Tracked string
}

// hostAdvertisedRoutes are, for the ports that redistribute connected
// routes as hosts (publish_host_routes), the addresses of what they are
// connected to: a peer router port's addresses, or, on a switch, the
// addresses of its router ports' peers (the advertising port's own among
// them), of its virtual ports (following their parent) and of its other
// ports.
func hostAdvertisedRoutes(n *relations.NB, ports engine.Rel[relations.LRPRedistribute]) engine.Rel[AdvertisedRoute] {
	asHost := engine.IndexBy(
		engine.Filter(ports, func(p relations.LRPRedistribute) bool {
			return p.Mode.Has(relations.RedistributeConnectedAsHost)
		}),
		func(p relations.LRPRedistribute) string { return p.LRP.Port.UUID })
	advertise := func(p relations.LRP, hosts []hostAddress) []AdvertisedRoute {
		out := make([]AdvertisedRoute, len(hosts))
		for i, h := range hosts {
			out[i] = AdvertisedRoute{Router: p.Router, Port: p.Name(), Prefix: h.Addr, Tracked: h.Tracked}
		}
		return out
	}
	viaRouterPeer := engine.JoinFlatMap(
		engine.IndexBy(n.LRPRouterPeers, func(p relations.LRPRouterPeer) string { return p.LRP.Port.UUID }), asHost,
		func(_ string, peer relations.LRPRouterPeer, p relations.LRPRedistribute) []AdvertisedRoute {
			return advertise(p.LRP, hostAddresses("", peer.Peer.Net, peer.Peer.Name()))
		})
	onSwitch := engine.JoinFlatMap(
		engine.IndexBy(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.LRP.Port.UUID }), asHost,
		func(_ string, peer relations.LRPSwitchPeer, p relations.LRPRedistribute) []engine.KV[string, relations.LRP] {
			return []engine.KV[string, relations.LRP]{{Key: peer.Switch, Value: p.LRP}}
		})
	return engine.Union(viaRouterPeer, engine.JoinFlatMap(
		engine.IndexBy(onSwitch, func(kv engine.KV[string, relations.LRP]) string { return kv.Key }),
		switchHostAddresses(n),
		func(_ string, kv engine.KV[string, relations.LRP], h hostAddress) []AdvertisedRoute {
			return advertise(kv.Value, []hostAddress{h})
		}))
}

// switchHostAddresses are the addresses reachable on each switch, by
// switch (NB _uuid).
func switchHostAddresses(n *relations.NB) engine.Index[string, hostAddress] {
	routerPorts := engine.FlatMap(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) []hostAddress {
		return hostAddresses(p.Switch, p.LRP.Net, p.LRP.Name())
	})
	peered := engine.IndexBy(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.LSP.UUID })
	others := engine.AntiJoin(engine.IndexBy(n.LSPs, func(p relations.LSP) string { return p.Port.UUID }), peered)
	lspHosts := func(p relations.LSP, tracked string) []hostAddress {
		var out []hostAddress
		for i := range p.Addrs.Static {
			out = append(out, hostAddresses(p.Switch, &p.Addrs.Static[i], tracked)...)
		}
		return out
	}
	plain := engine.FlatMap(others, func(p relations.LSP) []hostAddress {
		if p.Port.Type == relations.LSPTypeVirtual {
			return nil
		}
		return lspHosts(p, p.Name())
	})
	virtual := engine.JoinFlatMap(
		engine.IndexBy(engine.Filter(others, func(p relations.LSP) bool { return p.Port.Type == relations.LSPTypeVirtual }),
			func(p relations.LSP) string { return p.Name() }),
		engine.IndexBy(n.VirtualParents, func(v relations.VirtualParent) string { return v.Port }),
		func(_ string, p relations.LSP, v relations.VirtualParent) []hostAddress { return lspHosts(p, v.Parent) })
	return engine.IndexBy(engine.Union(routerPorts, plain, virtual), func(h hostAddress) string { return h.Switch })
}

// hostAddresses are a port's addresses as host routes following tracked
// (publish_lport_addresses): IPv4 ones and IPv6 ones but link-local.
func hostAddresses(sw string, a *relations.LPortAddresses, tracked string) []hostAddress {
	var out []hostAddress
	for _, ip := range a.IPv4 {
		out = append(out, hostAddress{sw, ip.AddrS, tracked})
	}
	for _, ip := range a.IPv6 {
		if !isLLA(ip.Network) {
			out = append(out, hostAddress{sw, ip.AddrS, tracked})
		}
	}
	return out
}

// isLLA reports whether an IPv6 network is fe80::/64 (in6_is_lla).
func isLLA(network netip.Addr) bool {
	b := network.As16()
	return b[0] == 0xfe && b[1] == 0x80 && [6]byte(b[2:8]) == [6]byte{}
}
