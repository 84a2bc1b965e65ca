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
// link-local prefixes and discard routes are not advertised.
func SBAdvertisedRoutes(n *relations.NB) engine.Rel[AdvertisedRoute] {
	dynamic := engine.Filter(n.LRPRedistributes, func(p relations.LRPRedistribute) bool { return p.Dynamic })
	return engine.Distinct(engine.Union(
		connectedAdvertisedRoutes(dynamic),
		staticAdvertisedRoutes(n, dynamic),
		hostAdvertisedRoutes(n, dynamic)))
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
	prefix := printAddr(network)
	if plen != network.BitLen() {
		prefix += "/" + strconv.Itoa(plen)
	}
	return append(out, AdvertisedRoute{Router: p.Router, Port: p.Name(), Prefix: prefix})
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
