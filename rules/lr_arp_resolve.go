package rules

import (
	"fmt"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// RouterARPResolveFlows: lr_in_arp_resolve, the flows every router has
// (northd.c build_arp_resolve_flows_for_lrouter): multicast already has its
// output port; other next hops not resolved statically are looked up in the
// MAC bindings (get_arp/get_nd), leaving eth.dst zero when unknown.
func RouterARPResolveFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInARPResolve, 500, "ip4.mcast || ip6.mcast", "next;"),
			dp.flow(LRInARPResolve, 1, nextHopIs(nb.Release, true), "get_arp(outport, reg0); next;"),
			dp.flow(LRInARPResolve, 1, nextHopIs(nb.Release, false), "get_nd(outport, xxreg0); next;"),
			dp.flow(LRInARPResolve, 0, "1", drop),
		}
	})
}

// SwitchPortNeighborFlows: lr_in_arp_resolve, priority 100, for the
// addresses of the ports behind a router port (northd.c
// build_arp_resolve_flows_for_lrouter_port, the VIF case): each IP address
// of an enabled switch port (not a router or virtual port), static or
// allocated by IPAM, that lies in a network of a router port connected to
// the switch resolves statically to the switch port's MAC on that router.
func SwitchPortNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	// One tuple per address entry ("MAC IP...") of such a port.
	type vifAddrs struct {
		Switch, Port string // NB _uuids
		Addrs        *relations.LPortAddresses
	}
	isVIF := func(p relations.LSP) bool {
		return p.Enabled() && p.Port.Type != relations.LSPTypeRouter && p.Port.Type != relations.LSPTypeVirtual
	}
	static := engine.FlatMap(engine.Filter(nb.LSPs, isVIF), func(p relations.LSP) []vifAddrs {
		out := make([]vifAddrs, len(p.Addrs.Static))
		for i := range p.Addrs.Static {
			out[i] = vifAddrs{p.Switch, p.Port.UUID, &p.Addrs.Static[i]}
		}
		return out
	})
	dynamic := engine.Map(engine.Filter(nb.LSPDynamicAddrs, func(d relations.LSPDynamic) bool { return isVIF(d.LSP) }),
		func(d relations.LSPDynamic) vifAddrs { return vifAddrs{d.LSP.Switch, d.LSP.Port.UUID, d.Addrs} })
	type vifBehindLRP struct {
		vif vifAddrs
		lrp relations.LRP
	}
	pairs := engine.Join(
		engine.IndexBy(engine.Union(static, dynamic), func(v vifAddrs) string { return v.Switch }),
		engine.IndexBy(nb.LRPSwitchPeers, func(sp relations.LRPSwitchPeer) string { return sp.Switch }),
		func(_ string, v vifAddrs, peer relations.LRPSwitchPeer) vifBehindLRP {
			return vifBehindLRP{v, peer.LRP}
		})
	return engine.FlatMap(pairs, func(x vifBehindLRP) []Flow {
		dp, key := on(x.lrp.Router).from(x.vif.Port), jsonKey(x.lrp.Name())
		set := fmt.Sprintf("eth.dst = %s; next;", x.vif.Addrs.MAC)
		var flows []Flow
		for _, ip := range x.vif.Addrs.IPv4 {
			if _, ok := relations.MemberIP(x.lrp.Net, ip.Addr); ok {
				flows = append(flows, dp.flow(LRInARPResolve, 100, "outport == "+key+" && reg0 == "+ip.AddrS, set))
			}
		}
		for _, ip := range x.vif.Addrs.IPv6 {
			if _, ok := relations.MemberIP(x.lrp.Net, ip.Addr); ok {
				flows = append(flows, dp.flow(LRInARPResolve, 100, "outport == "+key+" && xxreg0 == "+ip.AddrS, set))
			}
		}
		return flows
	})
}

// VirtualPortNeighborFlows: lr_in_arp_resolve, priority 100, for the
// virtual IP of a virtual switch port (options:virtual-ip and
// virtual-parents) on a switch with router ports (northd.c
// build_arp_resolve_flows_for_lrouter_port, the virtual port case). Until
// a parent claims the virtual port on a chassis the MAC is unknown: on the
// router ports of its switch whose networks hold the IP, eth.dst stays
// zero and the router's ARP request resolves it. Once claimed
// (ovn-controller sets the port binding's virtual_parent and chassis), the
// IP resolves to the MAC of the parent's first address entry on the router
// ports of the parent's switch that hold it; a parent that is no switch
// port or has no address entry gets no flow. 23.03 writes a flow for the
// first such router port in its hash order; northlog writes one for each.
// 26.03 writes none (virtualNeighbors).
func VirtualPortNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	resolves := virtualNeighbors(nb)
	type virtualIP struct {
		Switch, Port, VIP string
		UUID              string // the virtual port's, the flows' hint
		Reg               string // the next-hop register of the IP's family
	}
	virtual := engine.FlatMap(nb.PortsOnSwitchesOfType(relations.LSPTypeVirtual), func(sp relations.SwitchPort) []virtualIP {
		lsp := sp.Port
		vip, hasVIP := lsp.Options["virtual-ip"]
		_, hasParents := lsp.Options["virtual-parents"]
		if !resolves || (lsp.Enabled != nil && !*lsp.Enabled) || !hasParents || !hasVIP {
			return nil
		}
		// The address family is told by the presence of a dot, as northd does.
		if _, ok := relations.ParseIPByDot(vip); !ok {
			return nil
		}
		reg := "xxreg0"
		if strings.Contains(vip, ".") {
			reg = "reg0"
		}
		return []virtualIP{{sp.Switch, lsp.Name, vip, lsp.UUID, reg}}
	})
	byPort := engine.IndexBy(virtual, func(v virtualIP) string { return v.Port })
	claims := engine.IndexBy(nb.VirtualParents, func(v relations.VirtualParent) string { return v.Port })
	// resolved is a virtual IP to resolve to MAC ("" for unknown) on the
	// router ports of Switch.
	type resolved struct {
		virtualIP
		MAC string
	}
	unclaimed := engine.Map(engine.AntiJoin(byPort, claims), func(v virtualIP) resolved {
		return resolved{v, "00:00:00:00:00:00"}
	})
	routedSwitches := engine.IndexBy(engine.Distinct(engine.Map(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.Switch })),
		func(sw string) string { return sw })
	claimed := engine.Join(
		engine.IndexBy(engine.SemiJoin(engine.IndexBy(virtual, func(v virtualIP) string { return v.Switch }), routedSwitches),
			func(v virtualIP) string { return v.Port }),
		claims,
		func(_ string, v virtualIP, c relations.VirtualParent) engine.KV[string, virtualIP] {
			return engine.KV[string, virtualIP]{Key: c.Parent, Value: v}
		})
	viaParent := engine.Join(
		engine.IndexBy(claimed, func(kv engine.KV[string, virtualIP]) string { return kv.Key }),
		engine.IndexBy(firstLSPEntries(nb), func(e lspEntry) string { return e.Port.Name() }),
		func(_ string, kv engine.KV[string, virtualIP], parent lspEntry) resolved {
			v := kv.Value
			v.Switch = parent.Port.Switch
			return resolved{v, parent.Addrs.MAC.String()}
		})
	return engine.JoinFlatMap(
		engine.IndexBy(engine.Union(unclaimed, viaParent), func(r resolved) string { return r.Switch }),
		engine.IndexBy(nb.LRPSwitchPeers, func(sp relations.LRPSwitchPeer) string { return sp.Switch }),
		func(_ string, r resolved, peer relations.LRPSwitchPeer) []Flow {
			ip, _ := relations.ParseIPByDot(r.VIP)
			if _, ok := relations.MemberIP(peer.LRP.Net, ip); !ok {
				return nil
			}
			return []Flow{on(peer.LRP.Router).from(r.UUID).flow(LRInARPResolve, 100,
				fmt.Sprintf("outport == %s && %s == %s", jsonKey(peer.LRP.Name()), r.Reg, r.VIP),
				"eth.dst = "+r.MAC+"; next;")}
		})
}

// virtualNeighbors: 23.03 resolves a virtual port's IP on the routers of
// its switch; 26.03 leaves it to the MAC bindings.
func virtualNeighbors(nb *relations.NB) bool { return nb.Release < schema.OVN2603 }

// RouterPeerViaSwitchNeighborFlows: lr_in_arp_resolve, priority 100, for
// routers connected to the same switch (northd.c
// build_arp_resolve_flows_for_lrouter_port, the router port case): on each
// router, next hops in another router port's networks resolve to that
// port's MAC, unless the router learns its neighbour routers dynamically
// (options:dynamic_neigh_routers) or its own switch port is disabled.
func RouterPeerViaSwitchNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	dynamic := engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return r.DynamicNeighRouters })
	static := engine.AntiJoin(
		engine.IndexBy(engine.Filter(nb.LRPSwitchPeers, func(sp relations.LRPSwitchPeer) bool {
			return sp.LSP.Enabled == nil || *sp.LSP.Enabled
		}), func(sp relations.LRPSwitchPeer) string { return sp.LRP.Router }),
		engine.IndexBy(dynamic, func(r relations.RouterConfig) string { return r.UUID }))
	// via is the switch port naming self, which the flows come from.
	type neighbors struct {
		self, other relations.LRP
		via         string
	}
	pairs := engine.Join(
		engine.IndexBy(static, func(sp relations.LRPSwitchPeer) string { return sp.Switch }),
		engine.IndexBy(nb.LRPSwitchPeers, func(sp relations.LRPSwitchPeer) string { return sp.Switch }),
		func(_ string, self, other relations.LRPSwitchPeer) neighbors {
			return neighbors{self.LRP, other.LRP, self.LSP.UUID}
		})
	return engine.FlatMap(pairs, func(x neighbors) []Flow {
		if x.self.Port.UUID == x.other.Port.UUID {
			return nil
		}
		return neighborLRPFlows(x.self, x.other, x.via, " == ")
	})
}

// RouterPeerNeighborFlows: lr_in_arp_resolve, priority 100, for a direct
// router-to-router link (northd.c build_arp_resolve_flows_for_lrouter_port,
// a router port with a peer): on the peer's router, next hops in the port's
// networks resolve to the port's MAC.
func RouterPeerNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.LRPRouterPeers, func(x relations.LRPRouterPeer) []Flow {
		// northd writes this IPv4 match without a space before "==".
		return neighborLRPFlows(x.Peer, x.LRP, x.LRP.Port.UUID, "== ")
	})
}

// neighborLRPFlows resolves, on out's router, next hops in the networks of
// neighbor to neighbor's MAC when routed out of out; they come from the NB
// row hint. v4eq is how the IPv4 match spells its "==".
func neighborLRPFlows(out, neighbor relations.LRP, hint, v4eq string) []Flow {
	dp, key := on(out.Router).from(hint), jsonKey(out.Name())
	set := fmt.Sprintf("eth.dst = %s; next;", neighbor.Net.MAC)
	var flows []Flow
	if len(neighbor.Net.IPv4) > 0 {
		flows = append(flows, dp.flow(LRInARPResolve, 100, "outport == "+key+" && reg0"+v4eq+v4Networks(neighbor.Net, false), set))
	}
	return append(flows, dp.flow(LRInARPResolve, 100, "outport == "+key+" && xxreg0 == "+v6Networks(neighbor.Net), set))
}
