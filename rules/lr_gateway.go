package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// RouterGatewayRedirectFlows: lr_in_gw_redirect on a router with
// distributed gateway ports (northd.c
// build_gateway_redirect_flows_for_lrouter). Traffic leaving through a
// gateway port that no distributed NAT rule handles is redirected to the
// port's chassisredirect port, to be sent from the gateway chassis. For
// stateless dnat_and_snat rules with allowed_ext_ips, only traffic to the
// allowed peers is redirected and other traffic to the rule's external IP
// dropped; with exempted_ext_ips, traffic to the exempted peers is dropped.
// Gateway ports whose switch has VTEP ports are left distributed.
func RouterGatewayRedirectFlows(nb *relations.NB) engine.Rel[Flow] {
	dgps := engine.Filter(nb.DGPs, func(d relations.DGP) bool { return !d.VTEP })
	redirect := engine.Map(dgps, func(d relations.DGP) Flow {
		return onLRP(d.LRP).flow(LRInGWRedirect, 50, "outport == "+jsonKey(d.Name()), redirectTo(d))
	})
	filtered := engine.Filter(nb.RouterNATs, func(r relations.RouterNAT) bool {
		return r.Stateless() && (r.AllowedSet != "" || r.ExemptedSet != "")
	})
	type natOnDGP struct {
		nat relations.RouterNAT
		dgp relations.DGP
	}
	byRouter := func(r relations.RouterNAT) string { return r.Router }
	dgpsByRouter := engine.IndexBy(dgps, func(d relations.DGP) string { return d.LRP.Router })
	// The flows of a rule on a gateway port come from the port.
	pairs := engine.Join(engine.IndexBy(filtered, byRouter), dgpsByRouter,
		func(_ string, r relations.RouterNAT, d relations.DGP) natOnDGP { return natOnDGP{r, d} })
	perDGP := engine.Map(pairs, func(x natOnDGP) Flow {
		key := jsonKey(x.dgp.Name())
		if x.nat.AllowedSet != "" {
			return onLRP(x.dgp.LRP).flow(LRInGWRedirect, 75,
				fmt.Sprintf("outport == %s && ip%s.src == $%s", key, ipVersion(!x.nat.ExtV6), x.nat.AllowedSet), redirectTo(x.dgp))
		}
		return onLRP(x.dgp.LRP).flow(LRInGWRedirect, 75,
			fmt.Sprintf("outport == %s && ip%s.src == $%s", key, ipVersion(!x.nat.ExtV6), x.nat.ExemptedSet), drop)
	})
	if natRedirectOnLastNATText(nb.Release) {
		perDGP = engine.Join(
			engine.IndexBy(pairs, func(x natOnDGP) string { return x.nat.Router }),
			engine.IndexBy(lastNATFlowText(nb), func(kv engine.KV[string, [2]string]) string { return kv.Key }),
			func(_ string, x natOnDGP, last engine.KV[string, [2]string]) Flow {
				r, match, actions := x.nat, last.Value[0], last.Value[1]
				set := r.AllowedSet
				if set == "" {
					set, actions = r.ExemptedSet, drop
				}
				return onLRP(x.dgp.LRP).flow(LRInGWRedirect, 75, fmt.Sprintf("%s && ip%s.src == $%s", match, ipVersion(!r.ExtV6), set), actions)
			})
	}
	// Other traffic to the external IP of the router's first such rule with
	// allowed_ext_ips is dropped.
	allowed := engine.SemiJoin(
		engine.IndexBy(engine.Filter(filtered, func(r relations.RouterNAT) bool { return r.AllowedSet != "" }), byRouter),
		dgpsByRouter)
	first := engine.Min(engine.IndexBy(allowed, byRouter), func(a, b relations.RouterNAT) int { return cmp.Compare(a.NAT.UUID, b.NAT.UUID) })
	fallback := engine.Map(first, func(kv engine.KV[string, relations.RouterNAT]) Flow {
		r := kv.Value
		return on(r.Router).flow(LRInGWRedirect, 70, fmt.Sprintf("ip && ip%s.dst == %s", ipVersion(!r.ExtV6), r.NAT.ExternalIP), drop)
	})
	return engine.Union(redirect, perDGP, fallback)
}

// natRedirectOnLastNATText: 26.03's lr_in_gw_redirect flows of stateless
// rules with allowed_ext_ips or exempted_ext_ips extend the match, and for
// allowed peers take the actions, of the last NAT flow written before them
// (lastNATFlowText), where 23.03 matches the gateway port and redirects.
func natRedirectOnLastNATText(r schema.Release) bool { return r >= schema.OVN2603 }

// redirectTo sends a packet to a distributed gateway port's
// chassisredirect port.
func redirectTo(d relations.DGP) string { return "outport = " + jsonKey(d.CRName()) + "; next;" }

// DGPBridgedNeighborFlows: lr_in_arp_resolve, priority 50, for a
// distributed gateway port with options:redirect-type=bridged (northd.c
// build_arp_resolve_flows_for_lrouter_port): away from the gateway
// chassis, traffic through the port goes to the port's own MAC, to be
// bridged to the gateway chassis, instead of resolving its next hop here.
func DGPBridgedNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	bridged := engine.Filter(nb.DGPs, func(d relations.DGP) bool {
		return strings.EqualFold(d.LRP.Port.Options["redirect-type"], "bridged")
	})
	return engine.Map(bridged, func(d relations.DGP) Flow {
		return onLRP(d.LRP).flow(LRInARPResolve, 50,
			fmt.Sprintf("outport == %s && !is_chassis_resident(%s)", jsonKey(d.Name()), jsonKey(d.CRName())),
			"eth.dst = "+d.LRP.Net.MAC.String()+"; next;")
	})
}

// portResident is the is_chassis_resident() clause that restricts a
// router port's ARP replies to one chassis.
type portResident struct {
	Port     string // NB _uuid of the router port
	Resident string
}

// DGPRouterPortARPReplyFlows: lr_in_ip_input, priority 90, on routers
// with distributed gateway ports (northd.c build_lrouter_ipv4_ip_input):
// ARP requests from a port's network for one of its IPv4 addresses get a
// reply from the port's MAC. When the port's switch has a localnet port,
// only the gateway chassis replies for a gateway port — so that upstream
// MAC learning points there — and for a port with
// options:reside-on-redirect-chassis on a router with one gateway port,
// unless the router has a distributed load balancer (od_is_centralized).
// RouterPortARPReplyFlows answers on the other routers.
func DGPRouterPortARPReplyFlows(nb *relations.NB) engine.Rel[Flow] {
	onLocalnet := engine.SemiJoin(
		engine.IndexBy(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.Switch }),
		engine.IndexBy(nb.SwitchesWithLocalnet, func(s string) string { return s }))
	withDGPs := engine.IndexBy(engine.Filter(nb.RouterGateways, func(g relations.RouterGateway) bool { return g.DGPs > 0 }),
		func(g relations.RouterGateway) string { return g.Router })
	centralized := engine.IndexBy(engine.AntiJoin(withDGPs, engine.IndexBy(nb.RoutersWithDistributedLB, func(r string) string { return r })),
		func(g relations.RouterGateway) string { return g.Router })
	residents := engine.FlatMap(engine.Join(engine.IndexBy(onLocalnet, func(p relations.LRPSwitchPeer) string { return p.LRP.Router }), centralized,
		func(_ string, p relations.LRPSwitchPeer, g relations.RouterGateway) portResident {
			switch {
			case p.LRP.DGP():
				return portResident{p.LRP.Port.UUID, "is_chassis_resident(" + crKey(p.LRP) + ")"}
			case relations.SmapBool(p.LRP.Port.Options, "reside-on-redirect-chassis", false) && g.DGPs == 1:
				return portResident{p.LRP.Port.UUID, "is_chassis_resident(" + jsonKey("cr-"+g.FirstDGP) + ")"}
			}
			return portResident{}
		}), func(r portResident) []portResident {
		if r.Port == "" {
			return nil
		}
		return []portResident{r}
	})
	ports := engine.IndexBy(engine.SemiJoin(engine.IndexBy(nb.LRPs, lrpRouter), withDGPs), lrpUUID)
	byPort := engine.IndexBy(engine.Distinct(residents), func(r portResident) string { return r.Port })
	replies := func(p relations.LRP, resident string) []Flow {
		flows := make([]Flow, len(p.Net.IPv4))
		for i, a := range p.Net.IPv4 {
			match := fmt.Sprintf("arp.spa == %s/%d", a.NetworkS, a.Plen)
			if resident != "" {
				match += " && " + resident
			}
			flows[i] = arpReply(onLRP(p), p, a.AddrS, match)
		}
		return flows
	}
	type portWith struct {
		p        relations.LRP
		resident string
	}
	restricted := engine.FlatMap(engine.Join(ports, byPort, func(_ string, p relations.LRP, r portResident) portWith {
		return portWith{p, r.Resident}
	}), func(x portWith) []Flow { return replies(x.p, x.resident) })
	return engine.Union(restricted, engine.FlatMap(engine.AntiJoin(ports, byPort), func(p relations.LRP) []Flow { return replies(p, "") }))
}

func lrpUUID(p relations.LRP) string { return p.Port.UUID }

// DGPAdmissionFlows: lr_in_admission, unicast to an enabled distributed
// gateway port's MAC (northd.c build_adm_ctrl_flows_for_lrouter_port,
// consider_l3dgw_port_is_centralized): admitted only on the gateway
// chassis, unless the port's switch has VTEP ports or its router a
// distributed load balancer, with the port's MTU check when it has a
// gateway_mtu.
func DGPAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	type admitted struct {
		d relations.DGP
		// anywhere: every chassis admits the traffic.
		anywhere bool
	}
	enabled := engine.Map(engine.Filter(nb.DGPs, func(d relations.DGP) bool { return d.LRP.Enabled() }),
		func(d relations.DGP) admitted { return admitted{d, d.VTEP} })
	dgps := engine.IndexBy(markBy(enabled, func(a admitted) string { return a.d.LRP.Router }, nb.RoutersWithDistributedLB,
		func(a admitted) admitted { a.anywhere = true; return a }),
		func(a admitted) string { return a.d.LRP.Port.UUID })
	mtus := engine.IndexBy(nb.LRPGatewayMTUs, func(m relations.LRPGatewayMTU) string { return m.LRP.Port.UUID })
	match := func(a admitted) string {
		m := fmt.Sprintf("eth.dst == %s && inport == %s", a.d.LRP.Net.MAC, jsonKey(a.d.Name()))
		if !a.anywhere {
			m += " && " + residentCR(a.d)
		}
		return m
	}
	type dgpMTU struct {
		a admitted
		m relations.LRPGatewayMTU
	}
	withMTU := engine.FlatMap(engine.Join(dgps, mtus, func(_ string, a admitted, m relations.LRPGatewayMTU) dgpMTU {
		return dgpMTU{a, m}
	}), func(x dgpMTU) []Flow {
		return gatewayMTUFlows(nb.Release, onLRP(x.a.d.LRP), x.m, LRInAdmission, match(x.a), saveInportMAC(x.a.d.LRP))
	})
	plain := engine.Map(engine.AntiJoin(dgps, mtus), func(a admitted) Flow {
		return onLRP(a.d.LRP).flow(LRInAdmission, 50, match(a), saveInportMAC(a.d.LRP))
	})
	return engine.Union(withMTU, plain)
}

// routable is one group of a router port's routable NAT addresses
// (northd.c get_nat_addresses with routable_only): the external IPs of its
// router's rules with options:add_route, reached through MAC: a
// distributed rule's own external MAC, or the port's MAC for the
// centralized ones.
type routable struct {
	Port relations.LRP
	// Routed is whether the other routers on the port's switch route the
	// addresses to it, besides resolving them: a distributed gateway port's
	// or a gateway router's port (26.03 takes the addresses of every port
	// but routes only those).
	Routed bool
	MAC    string
	IPs    string // ", "-separated, in rule _uuid order
}

// natOnPort is a NAT rule considered for one router port, as if the
// router had dgps distributed gateway ports.
type natOnPort struct {
	nat  relations.RouterNAT
	port relations.LRP
	dgps int
}

// routablesOfEveryPort: 26.03 gives every router port its routable NAT
// addresses (build_routable_flows_for_router_port), 23.03 only the
// distributed gateway ports (assign_routable_addresses).
func routablesOfEveryPort(rel schema.Release) bool { return rel >= schema.OVN2603 }

// portRoutables computes the routable NAT addresses of the router ports
// (northd.c get_nat_addresses with routable_only): rules other than snat
// with options:add_route and an IPv4 external address that apply on the
// port; distributed rules with a readable external MAC each make a group,
// the others one group with the port's MAC, without the port's own
// addresses.
func portRoutables(nb *relations.NB) engine.Rel[routable] {
	candidates := engine.Filter(nb.RouterNATs, func(r relations.RouterNAT) bool {
		_, ok := relations.ParseIPv4Host(r.NAT.ExternalIP)
		return !r.IsSNAT() && relations.SmapBool(r.NAT.Options, "add_route", false) && ok
	})
	pairs := engine.Filter(engine.Join(
		engine.IndexBy(candidates, func(r relations.RouterNAT) string { return r.Router }),
		engine.IndexBy(routablePorts(nb), func(x natOnPort) string { return x.port.Router }),
		func(_ string, r relations.RouterNAT, x natOnPort) natOnPort { return natOnPort{r, x.port, x.dgps} }),
		func(x natOnPort) bool { return natOnGatewayPort(natOnDGP{x.nat, relations.DGP{LRP: x.port}, x.dgps}) })
	return engine.GroupBy(engine.IndexBy(pairs, func(x natOnPort) relations.LRP { return x.port }),
		func(p relations.LRP, xs []natOnPort) []routable {
			slices.SortFunc(xs, func(a, b natOnPort) int { return cmp.Compare(a.nat.NAT.UUID, b.nat.NAT.UUID) })
			routed := p.DGP() || p.OnGateway
			var out []routable
			var central []string
			for _, x := range xs {
				nat := x.nat.NAT
				if x.dgps > 0 && x.nat.DistributedConfig() {
					if mac, err := relations.ParseMAC(*nat.ExternalMAC); err == nil {
						ip, _ := relations.ParseIPv4Host(nat.ExternalIP)
						out = append(out, routable{p, routed, mac.String(), ip.String()})
					}
					continue
				}
				ip, _ := relations.ParseIPv4Host(nat.ExternalIP)
				if !slices.ContainsFunc(p.Net.IPv4, func(a relations.IPv4NetAddr) bool { return a.AddrS == nat.ExternalIP }) {
					central = append(central, ip.String())
				}
			}
			if len(central) > 0 {
				out = append(out, routable{p, routed, p.Net.MAC.String(), strings.Join(central, ", ")})
			}
			return out
		})
}

// routablePorts are the ports that get routable NAT addresses, each with
// the number of distributed gateway ports whether a rule applies on it is
// decided with (natOnGatewayPort). 26.03 takes every port, with its
// router's count. 23.03 takes the distributed gateway ports and decides
// while it counts them, as if the ports after each (in _uuid order) did
// not exist: the first one gets every rule.
func routablePorts(nb *relations.NB) engine.Rel[natOnPort] {
	if routablesOfEveryPort(nb.Release) {
		return engine.Join(
			engine.IndexBy(nb.LRPs, func(p relations.LRP) string { return p.Router }),
			engine.IndexBy(nb.RouterGateways, func(g relations.RouterGateway) string { return g.Router }),
			func(_ string, p relations.LRP, g relations.RouterGateway) natOnPort {
				return natOnPort{port: p, dgps: g.DGPs}
			})
	}
	return engine.GroupBy(engine.IndexBy(nb.DGPs, func(d relations.DGP) string { return d.LRP.Router }),
		func(_ string, ds []relations.DGP) []natOnPort {
			slices.SortFunc(ds, func(a, b relations.DGP) int { return cmp.Compare(a.LRP.Port.UUID, b.LRP.Port.UUID) })
			out := make([]natOnPort, len(ds))
			for i, d := range ds {
				out[i] = natOnPort{port: d.LRP, dgps: i + 1}
			}
			return out
		})
}

// routesFromLinkLocal: 26.03 also routes the routable addresses through a
// neighbour port without IPv4 addresses, from its IPv6 link-local address
// (an IPv4 route with an IPv6 source, REGBIT_NEXTHOP_IS_IPV4 clear);
// 23.03 skips such ports.
func routesFromLinkLocal(rel schema.Release) bool { return rel >= schema.OVN2603 }

// routableRoute is the connected /32 route (its network left to fill in)
// through router port p to a routable address of another router on p's
// switch: from p's first IPv4 address or, without one, from its IPv6
// link-local address (routesFromLinkLocal); false when p has neither.
func routableRoute(rel schema.Release, p relations.LRP) (route, bool) {
	r := route{port: p, plen: 32, v4: true, origin: routeConnected, hint: p.Port.UUID}
	switch {
	case len(p.Net.IPv4) > 0:
		r.srcIP = p.Net.IPv4[0].AddrS
	case routesFromLinkLocal(rel):
		// The link-local address derived from the port's MAC, which
		// every port has, last of its IPv6 addresses.
		r.srcIP, r.crossFamily = p.Net.IPv6[len(p.Net.IPv6)-1].AddrS, true
	default:
		return route{}, false
	}
	return r, true
}

// RoutableNATFlows: the routes and neighbours that routers on a switch
// get for the routable NAT addresses of a router port on the same switch
// (northd.c build_ip_routing_flows_for_lrouter_port and
// routable_addresses_to_lflows; 26.03 build_routable_flows_for_router_port):
// each address of a routed group is a connected /32 route through the
// router's port (lr_in_ip_routing) and, on a gateway router or through a
// distributed gateway port, each address resolves to the group's MAC
// (lr_in_arp_resolve) unless the router learns its neighbour routers.
func RoutableNATFlows(nb *relations.NB) engine.Rel[Flow] {
	type onSwitch struct {
		peer relations.LRPSwitchPeer
		r    routable
	}
	bySwitch := func(p relations.LRPSwitchPeer) string { return p.Switch }
	dgpOnSwitch := engine.Join(
		engine.IndexBy(portRoutables(nb), func(r routable) string { return r.Port.Port.UUID }),
		engine.IndexBy(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.LRP.Port.UUID }),
		func(_ string, r routable, p relations.LRPSwitchPeer) onSwitch { return onSwitch{p, r} })
	pairs := engine.Filter(engine.Join(engine.IndexBy(nb.LRPSwitchPeers, bySwitch),
		engine.IndexBy(dgpOnSwitch, func(x onSwitch) string { return x.peer.Switch }),
		func(_ string, p relations.LRPSwitchPeer, x onSwitch) onSwitch { return onSwitch{p, x.r} }),
		func(x onSwitch) bool { return x.peer.LRP.Port.UUID != x.r.Port.Port.UUID })
	routes := engine.FlatMap(pairs, func(x onSwitch) []Flow {
		r, ok := routableRoute(nb.Release, x.peer.LRP)
		if !x.r.Routed || !ok {
			return nil
		}
		var flows []Flow
		for _, ip := range strings.Split(x.r.IPs, ", ") {
			r.network = ip
			flows = append(flows, r.flow(nb))
		}
		return flows
	})
	// Neighbours: on gateway routers and through gateway ports, from an
	// enabled switch port, unless the router learns its neighbour routers.
	static := engine.IndexBy(engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return !r.DynamicNeighRouters }),
		func(r relations.RouterConfig) string { return r.UUID })
	resolving := engine.SemiJoin(engine.IndexBy(engine.Filter(pairs, func(x onSwitch) bool {
		return x.peer.LRP.OnGateway || x.peer.LRP.DGP()
	}), func(x onSwitch) string { return x.peer.LRP.Router }), static)
	neighbors := engine.Map(engine.Filter(resolving, func(x onSwitch) bool { return x.peer.LSP.Enabled == nil || *x.peer.LSP.Enabled }),
		func(x onSwitch) Flow {
			return on(x.peer.LRP.Router).flow(LRInARPResolve, 100,
				fmt.Sprintf("outport == %s && reg0 == {%s}", jsonKey(x.peer.LRP.Name()), x.r.IPs), "eth.dst = "+x.r.MAC+"; next;")
		})
	return engine.Union(routes, neighbors)
}
