package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// RouterNeighborFlows: lr_in_lookup_neighbor and lr_in_learn_neighbor, the
// flows every router has (northd.c build_neigh_learning_flows_for_lrouter).
// ARP replies and ND advertisements and solicitations are looked up in the
// MAC bindings (reg9[2]) and learned with put_arp/put_nd when the binding
// is new; other packets skip learning. Unless the router has
// always_learn_from_arp_request, a binding is learned only when its IP is
// already known or the packet was addressed to the router (reg9[3]). A
// transit router (relations.NB.TransitRouters) also floods ARP replies and
// neighbour advertisements to its remote chassis.
func RouterNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	type routerTransit struct {
		Router  relations.RouterConfig
		Transit bool
	}
	configs := engine.IndexBy(nb.RouterConfigs, func(r relations.RouterConfig) string { return r.UUID })
	transit := engine.IndexBy(nb.TransitRouters, func(r string) string { return r })
	routers := engine.Union(
		engine.Map(engine.AntiJoin(configs, transit), func(r relations.RouterConfig) routerTransit { return routerTransit{Router: r} }),
		engine.Join(configs, transit, func(_ string, r relations.RouterConfig, _ string) routerTransit {
			return routerTransit{Router: r, Transit: true}
		}))
	return engine.FlatMap(routers, func(rt routerTransit) []Flow {
		r := rt.Router
		dp := on(r.UUID)
		flood := ""
		if rt.Transit {
			flood = "flood_remote; "
		}
		known, nsKnown, skip := "", "", "reg9[2] == 1"
		if !r.LearnFromARPRequest {
			known, nsKnown, skip = "reg9[3] = 1; ", "reg9[3] = lookup_nd_ip(inport, ip6.src); ", "reg9[2] == 1 || reg9[3] == 0"
		}
		flows := []Flow{
			dp.flow(LRInLookupNeighbor, 100, "arp.op == 2", "reg9[2] = lookup_arp(inport, arp.spa, arp.sha); "+known+flood+"next;"),
			dp.flow(LRInLookupNeighbor, 100, "nd_na", "reg9[2] = lookup_nd(inport, nd.target, nd.tll); "+known+flood+"next;"),
			dp.flow(LRInLookupNeighbor, 100, "nd_ns", "reg9[2] = lookup_nd(inport, ip6.src, nd.sll); "+nsKnown+"next;"),
			dp.flow(LRInLookupNeighbor, 0, "1", "reg9[2] = 1; next;"),

			dp.flow(LRInLearnNeighbor, 100, skip, keepMACBindingAction(nb.Release)+"next;"),
			dp.flow(LRInLearnNeighbor, 90, "arp", "put_arp(inport, arp.spa, arp.sha); next;"),
			dp.flow(LRInLearnNeighbor, 95, "nd_ns && (ip6.src == 0 || nd.sll == 0)", "next;"),
			dp.flow(LRInLearnNeighbor, 95, "nd_na && nd.tll == 0", "put_nd(inport, nd.target, eth.src); next;"),
			dp.flow(LRInLearnNeighbor, 90, "nd_na", "put_nd(inport, nd.target, nd.tll); next;"),
			dp.flow(LRInLearnNeighbor, 90, "nd_ns", "put_nd(inport, ip6.src, nd.sll); next;"),
			dp.flow(LRInLearnNeighbor, 0, "1", drop),
		}
		if !r.LearnFromARPRequest {
			// RFC 4861 4.4: an unsolicited advertisement from a link-local
			// address to a multicast group is learned only if already known.
			// 23.03 looks up the source address, 26.03 the target.
			addr := "ip6.src"
			if looksUpNATarget(nb.Release) {
				addr = "nd.target"
			}
			flows = append(flows, dp.flow(LRInLookupNeighbor, 110, "nd_na && ip6.src == fe80::/10 && ip6.dst == ff00::/8",
				"reg9[2] = lookup_nd(inport, "+addr+", nd.tll); reg9[3] = lookup_nd_ip(inport, "+addr+"); "+flood+"next;"))
		}
		return flows
	})
}

// routerLearning is whether a router learns from every ARP request.
type routerLearning struct {
	Router string
	All    bool
}

// RouterPortNeighborFlows: lr_in_lookup_neighbor for ARP requests from a
// router port's IPv4 networks (northd.c
// build_neigh_learning_flows_for_lrouter_port): they are looked up like
// replies. Without always_learn_from_arp_request, only requests for the
// router's own address are learned unconditionally (priority 110), others
// only when the sender's IP is already known.
func RouterPortNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	learning := engine.Map(nb.RouterConfigs, func(r relations.RouterConfig) routerLearning {
		return routerLearning{r.UUID, r.LearnFromARPRequest}
	})
	type portLearning struct {
		relations.LRP
		all bool
	}
	ports := engine.Join(
		engine.IndexBy(nb.LRPs, lrpRouter),
		engine.IndexBy(learning, func(l routerLearning) string { return l.Router }),
		func(_ string, p relations.LRP, l routerLearning) portLearning { return portLearning{p, l.All} })
	return engine.FlatMap(ports, func(p portLearning) []Flow {
		dp, key := onLRP(p.LRP), jsonKey(p.Name())
		resident := ""
		if p.DGP() {
			resident = " && is_chassis_resident(" + crKey(p.LRP) + ")"
		}
		var flows []Flow
		for _, a := range p.Net.IPv4 {
			ipKnown := ""
			if !p.all {
				flows = append(flows, dp.flow(LRInLookupNeighbor, 110,
					fmt.Sprintf("inport == %s && arp.spa == %s/%d && arp.tpa == %s && arp.op == 1%s", key, a.NetworkS, a.Plen, a.AddrS, resident),
					"reg9[2] = lookup_arp(inport, arp.spa, arp.sha); reg9[3] = 1; next;"))
				ipKnown = "reg9[3] = lookup_arp_ip(inport, arp.spa); "
			}
			flows = append(flows, dp.flow(LRInLookupNeighbor, 100,
				fmt.Sprintf("inport == %s && arp.spa == %s/%d && arp.op == 1%s", key, a.NetworkS, a.Plen, resident),
				"reg9[2] = lookup_arp(inport, arp.spa, arp.sha); "+ipKnown+"next;"))
		}
		return flows
	})
}

// keepMACBindingAction is the action by which 26.03 marks a MAC binding a
// packet used when it skips learning (mac_cache_use), so that aging keeps
// the bindings in use; 23.03 has none.
func keepMACBindingAction(rel schema.Release) string {
	if rel >= schema.OVN2603 {
		return "mac_cache_use; "
	}
	return ""
}

// RouterDGPNeighborMcastFlows: lr_in_lookup_neighbor, priority 120, per
// distributed gateway port in 26.03 (northd.c
// build_neigh_learning_flows_for_lrouter_port): multicast neighbour
// advertisements and solicitations on the port are learned only on the
// gateway chassis; elsewhere they skip learning.
func RouterDGPNeighborMcastFlows(nb *relations.NB) engine.Rel[Flow] {
	dgps := engine.Filter(nb.LRPs, func(p relations.LRP) bool { return p.DGP() && learnsDGPNeighborsOnGateway(nb.Release) })
	return engine.Map(dgps, func(p relations.LRP) Flow {
		return onLRP(p).flow(LRInLookupNeighbor, 120,
			fmt.Sprintf("inport == %s && (nd_na || nd_ns) && eth.mcast && !is_chassis_resident(%s)", jsonKey(p.Name()), crKey(p)),
			"reg9[2] = 1; next;")
	})
}

// learnsDGPNeighborsOnGateway: 26.03 learns neighbours from multicast ND
// on a distributed gateway port only on its gateway chassis.
func learnsDGPNeighborsOnGateway(rel schema.Release) bool { return rel >= schema.OVN2603 }

// looksUpNATarget: 26.03 looks an unsolicited link-local advertisement up
// by the address it advertises (nd.target), which the binding is for.
func looksUpNATarget(rel schema.Release) bool { return rel >= schema.OVN2603 }
