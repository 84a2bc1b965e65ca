package rules

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// Multicast groups northd creates on every switch (northd.c MC_*).
const (
	mcFlood        = `"_MC_flood"`
	mcFloodL2      = `"_MC_flood_l2"`
	mcMrouterFlood = `"_MC_mrouter_flood"`
	mcStatic       = `"_MC_static"`
	mcUnknown      = `"_MC_unknown"`
)

// SwitchL2LookupDefaultFlows: ls_in_l2_lkup, the flows every switch has
// (northd.c build_lswitch_destination_lookup_bmcast, build_lswitch_flows):
// service monitor replies go to ovn-controller, broadcast and multicast are
// flooded (the FDB lookup of other destinations is SwitchFDBDefaultFlows').
// In 26.03, a switch with other_config:broadcast-arps-to-all-routers=false
// floods ARP requests and neighbour solicitations to its ports only.
func SwitchL2LookupDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	byProtocol := mcastFloodByProtocol(nb)
	return engine.FlatMap(nb.SwitchMcast, func(m relations.SwitchMcast) []Flow {
		dp := on(m.Switch)
		flows := []Flow{
			dp.flow(LSInL2Lkup, 110, "eth.dst == $svc_monitor_mac && (tcp || icmp || icmp6)", "handle_svc_check(inport);"),
		}
		if !byProtocol {
			return append(flows, dp.flow(LSInL2Lkup, 70, "eth.mcast", "outport = "+mcFlood+"; output;"))
		}
		var ip string
		if m.FloodRelay {
			ip += "clone { outport = " + mcMrouterFlood + "; output; }; "
		}
		if m.FloodStatic {
			ip += "clone { outport = " + mcStatic + "; output; }; "
		}
		if m.ARPsToPortsOnly {
			flows = append(flows, dp.flow(LSInL2Lkup, 72, "eth.mcast && (arp.op == 1 || nd_ns)", "outport = "+mcFloodL2+"; output;"))
		}
		return append(flows,
			dp.flow(LSInL2Lkup, 72, "eth.mcast && (nd_na || nd_rs || nd_ra)", "outport = "+mcFlood+"; output;"),
			dp.flow(LSInL2Lkup, 71, "eth.mcast && arp", "outport = "+mcFlood+"; output;"),
			dp.flow(LSInL2Lkup, 71, "eth.mcast && ip", ip+"outport = "+mcFloodL2+"; output;"),
			dp.flow(LSInL2Lkup, 70, "eth.mcast", "outport = "+mcFloodL2+"; output;"))
	})
}

// mcastFloodByProtocol: 26.03 floods ARP and ND NA/RS/RA multicast to
// every port, IP multicast to the switch's ports and to the routers that
// relay it (and ports with options:mcast_flood), and other multicast to
// the switch's ports only (_MC_flood_l2): routers would drop it. 23.03
// floods all multicast to every port.
func mcastFloodByProtocol(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// igmpLoopbackSkipped: 26.03 punts IGMP and MLD to ovn-controller only if
// ovn-controller did not inject the packet itself (flags.igmp_loopback).
func igmpLoopbackSkipped(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// SwitchL2LookupMcastFlows: ls_in_l2_lkup, priorities 80 to 100, on switches
// with IGMP/MLD snooping (other_config:mcast_snoop; northd.c
// build_lswitch_destination_lookup_bmcast): reports and queries go to
// ovn-controller, link-local groups are flooded (RFC 4541, RFC 4291), and
// unless other_config:mcast_flood_unregistered is set, IP multicast to groups
// nobody joined goes only to multicast routers and to ports configured to
// flood (options:mcast_flood), or is dropped.
func SwitchL2LookupMcastFlows(nb *relations.NB) engine.Rel[Flow] {
	snooping := engine.Filter(nb.SwitchMcast, func(m relations.SwitchMcast) bool { return m.Snoop })
	igmp, mld := "igmp", "mldv1 || mldv2"
	if igmpLoopbackSkipped(nb) {
		igmp, mld = "flags.igmp_loopback == 0 && igmp", "flags.igmp_loopback == 0 && (mldv1 || mldv2)"
	}
	return engine.FlatMap(snooping, func(m relations.SwitchMcast) []Flow {
		dp := on(m.Switch)
		flows := []Flow{
			dp.flow(LSInL2Lkup, 100, igmp, "igmp;"),
			dp.flow(LSInL2Lkup, 100, mld, "igmp;"),
			dp.flow(LSInL2Lkup, 85, "ip4.mcast && ip4.dst == 224.0.0.0/24", "outport = "+mcFloodL2+"; output;"),
			dp.flow(LSInL2Lkup, 85, "ip6.mcast_flood", "outport = "+mcFlood+"; output;"),
		}
		if !m.FloodUnregistered {
			var actions string
			if m.FloodRelay {
				actions += "clone { outport = " + mcMrouterFlood + "; output; }; "
			}
			if m.FloodStatic {
				actions += "outport =" + mcStatic + "; output;"
			}
			if !m.FloodRelay && !m.FloodStatic {
				actions += drop
			}
			flows = append(flows, dp.flow(LSInL2Lkup, 80, "ip4.mcast || ip6.mcast", actions))
		}
		return flows
	})
}

// SwitchIGMPGroupFlows: ls_in_l2_lkup, priority 90, a flow per group
// learnt through IGMP/MLD snooping (northd.c
// build_lswitch_ip_mcast_igmp_mld): IP multicast to the group goes to its
// ports, and also to multicast routers that relay and to ports configured
// to flood. Link-local IPv4 groups (224.0.0.X, RFC 4541) and the IPv6
// all-hosts, all-routers and all-site-routers groups (RFC 4291) get none.
func SwitchIGMPGroupFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.Join(
		engine.IndexBy(engine.Filter(nb.IGMPGroups, igmpGroupForwarded), func(g relations.IGMPGroup) string { return g.Datapath }),
		engine.IndexBy(nb.SwitchMcast, func(m relations.SwitchMcast) string { return m.Switch }),
		func(_ string, g relations.IGMPGroup, m relations.SwitchMcast) Flow {
			match := "eth.mcast && ip6 && ip6.dst == " + g.Name + " "
			if g.Addr.Is4() {
				match = "eth.mcast && ip4 && ip4.dst == " + g.Name + " "
			}
			var actions string
			if m.FloodRelay {
				actions += "clone { outport = " + mcMrouterFlood + "; output; };"
			}
			if m.FloodStatic {
				actions += "clone { outport =" + mcStatic + "; output; };"
			}
			actions += "outport = " + jsonKey(g.Name) + "; output; "
			return on(g.Datapath).flow(LSInL2Lkup, 90, match, actions)
		})
}

// igmpGroupForwarded reports whether a learnt group gets an L2 lookup flow.
func igmpGroupForwarded(g relations.IGMPGroup) bool {
	if g.Addr.Is4() {
		b := g.Addr.As4()
		return b[0] != 224 || b[1] != 0 || b[2] != 0
	}
	switch g.Addr {
	case allHosts6, allRouters6, allSiteRouters6:
		return false
	}
	return true
}

var (
	allHosts6       = netip.MustParseAddr("ff02::1")
	allRouters6     = netip.MustParseAddr("ff02::2")
	allSiteRouters6 = netip.MustParseAddr("ff05::2")
)

// SwitchL2UnknownFlows: ls_in_l2_unknown, the flows every switch has
// (northd.c build_lswitch_lflows_l2_unknown): a packet whose destination
// neither L2 lookup nor the FDB found goes to the ports with "unknown"
// addresses (_MC_unknown) if the switch has any, else it is dropped. On a
// switch in an EVPN domain (build_lswitch_lflows_evpn_l2_unknown) that is
// when no remote VTEP has the MAC either; one found both in the FDB and
// at a remote VTEP goes to the FDB's port, unless the switch prefers the
// remote one (dynamic-routing-fdb-prefer-local unset).
func SwitchL2UnknownFlows(nb *relations.NB) engine.Rel[Flow] {
	flows := func(toUnknown string) func(relations.Switch) []Flow {
		return func(sw relations.Switch) []Flow {
			dp := on(sw.UUID)
			switch {
			case !sw.EVPN:
				return []Flow{
					dp.flow(LSInL2Unknown, 50, `outport == "none"`, toUnknown),
					dp.flow(LSInL2Unknown, 0, "1", "output;"),
				}
			case sw.EVPNFDBPreferLocal:
				return []Flow{
					dp.flow(LSInL2Unknown, 50, `outport == "none" && remote_outport == "none"`, toUnknown),
					dp.flow(LSInL2Unknown, 25, `outport == "none"`, "outport = remote_outport; output;"),
					dp.flow(LSInL2Unknown, 0, "1", "output;"),
				}
			default:
				return []Flow{
					dp.flow(LSInL2Unknown, 50, `outport == "none" && remote_outport == "none"`, toUnknown),
					dp.flow(LSInL2Unknown, 25, `remote_outport == "none"`, "output;"),
					dp.flow(LSInL2Unknown, 0, "1", "outport = remote_outport; output;"),
				}
			}
		}
	}
	switches := engine.IndexBy(nb.SwitchDatapaths, func(sw relations.Switch) string { return sw.UUID })
	withUnknown := engine.IndexBy(nb.SwitchesWithUnknown, func(s string) string { return s })
	return engine.Union(
		engine.FlatMap(engine.SemiJoin(switches, withUnknown), flows("outport = "+mcUnknown+"; output;")),
		engine.Map(engine.FlatMap(engine.AntiJoin(switches, withUnknown), flows(drop)), func(f Flow) Flow {
			if f.Actions == drop {
				return f.because("No L2 destination")
			}
			return f
		}))
}

// SwitchL2UnicastFlows: ls_in_l2_lkup, priority 50, for the MACs in a port's
// addresses column and, for "dynamic" entries, in its dynamic_addresses
// (northd.c build_lswitch_ip_unicast_lookup): traffic to the MAC goes to the
// port, or is dropped if the port is disabled. "router" entries are
// SwitchRouterPortL2Flows'; external ports have their own rules. In 26.03
// (routerMACAlwaysLooked) a router port connected to a router port is
// SwitchRouterPortL2Flows' alone, whatever else its addresses list.
func SwitchL2UnicastFlows(nb *relations.NB) engine.Rel[Flow] {
	ports := engine.Filter(nb.LSPs, func(p relations.LSP) bool { return p.Port.Type != relations.LSPTypeExternal })
	if routerMACAlwaysLooked(nb) {
		ports = engine.AntiJoin(engine.IndexBy(ports, func(p relations.LSP) string { return p.Port.UUID }),
			engine.IndexBy(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.LSP.UUID }))
	}
	if unicastFromParsedAddresses(nb) {
		return parsedAddressL2Flows(nb, ports)
	}
	return engine.FlatMap(ports, func(p relations.LSP) []Flow {
		dp, actions := on(p.Switch).from(p.Port.UUID), unicastActions(p.Enabled(), p.Name())
		var flows []Flow
		for _, a := range p.Port.Addresses {
			mac, ok := relations.ScanMAC(a)
			if !ok && relations.IsDynamicAddress(a) && p.Port.DynamicAddresses != nil {
				mac, ok = relations.ScanMAC(*p.Port.DynamicAddresses)
			}
			if ok {
				flows = append(flows, dp.flow(LSInL2Lkup, 50, "eth.dst == "+mac.String(), actions))
			}
		}
		return flows
	})
}

// unicastFromParsedAddresses: 23.03 reads the leading MAC of each
// addresses entry, and of dynamic_addresses for a dynamic one; 26.03 walks
// the addresses it parsed (op->lsp_addrs), where a dynamic entry counts
// only with the addresses IPAM holds for the port.
func unicastFromParsedAddresses(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// unicastPort is a port whose addresses parsedAddressL2Flows looks up,
// with whether traffic to it is also cloned to the switch's unknown ports.
type unicastPort struct {
	LSP   relations.LSP
	Clone bool
}

// parsedAddressL2Flows are SwitchL2UnicastFlows' flows from the readable
// addresses entries of ports and the dynamic addresses IPAM holds for them.
// A VIF with options:force_fdb_lookup and an "unknown" address gets none:
// its MACs are looked up in the FDB (lsp_force_fdb_lookup). Traffic to a
// VIF with options:pkt_clone_type=mc_unknown is cloned to the switch's
// unknown ports, if it has any (lsp_is_clone_to_unknown).
func parsedAddressL2Flows(nb *relations.NB, ports engine.Rel[relations.LSP]) engine.Rel[Flow] {
	ports = engine.Filter(ports, func(p relations.LSP) bool {
		return !(p.Port.Type == relations.LSPTypeVIF && p.Addrs.HasUnknown && relations.SmapBool(p.Port.Options, "force_fdb_lookup", false))
	})
	cloning := engine.Map(engine.SemiJoin(
		engine.IndexBy(engine.Filter(ports, func(p relations.LSP) bool {
			return p.Port.Type == relations.LSPTypeVIF && strings.EqualFold(p.Port.Options["pkt_clone_type"], "mc_unknown")
		}), func(p relations.LSP) string { return p.Switch }),
		engine.IndexBy(nb.SwitchesWithUnknown, func(s string) string { return s })),
		func(p relations.LSP) string { return p.Port.UUID })
	uports := markBy(engine.Map(ports, func(p relations.LSP) unicastPort { return unicastPort{LSP: p} }),
		func(u unicastPort) string { return u.LSP.Port.UUID }, cloning,
		func(u unicastPort) unicastPort { u.Clone = true; return u })
	flows := func(u unicastPort, addrs []relations.LPortAddresses) []Flow {
		p := u.LSP
		dp, actions := on(p.Switch).from(p.Port.UUID), unicastActions(p.Enabled(), p.Name())
		if u.Clone && p.Enabled() {
			actions = "clone {" + actions + " };outport = " + mcUnknown + "; output;"
		}
		out := make([]Flow, 0, len(addrs))
		for _, a := range addrs {
			out = append(out, dp.flow(LSInL2Lkup, 50, "eth.dst == "+a.MAC.String(), actions))
		}
		return out
	}
	return engine.Union(
		engine.FlatMap(uports, func(u unicastPort) []Flow { return flows(u, u.LSP.Addrs.Static) }),
		engine.JoinFlatMap(
			engine.IndexBy(nb.LSPDynamicAddrs, func(d relations.LSPDynamic) string { return d.LSP.Port.UUID }),
			engine.IndexBy(uports, func(u unicastPort) string { return u.LSP.Port.UUID }),
			func(_ string, d relations.LSPDynamic, u unicastPort) []Flow {
				return flows(u, []relations.LPortAddresses{*d.Addrs})
			}))
}

// unicastActions forwards to the port, or drops for a disabled port.
func unicastActions(enabled bool, port string) string {
	if !enabled {
		return drop
	}
	return "outport = " + jsonKey(port) + "; output;"
}

// routerLink is a switch port of type router connected to a router port,
// with the switch and router facts its L2 lookup flows depend on.
type routerLink struct {
	relations.LRPSwitchPeer
	// OnlyRouters: the switch has no ports but router ports with a peer.
	OnlyRouters bool
	// Localnet: the switch has a localnet port.
	Localnet bool
	// DGPs are the router's distributed gateway ports.
	DGPs routerDGPs
	// Redirected: the switch port has a chassisredirect port of its own
	// (relations.NB.PeerRedirects), so what it sends the router is
	// handled on the gateway chassis.
	Redirected bool
}

// routerDGPs counts a router's distributed gateway ports (od->n_l3dgw_ports)
// and names the port when there is exactly one.
type routerDGPs struct {
	N    int
	Only string
	// DistributedLB: the router has a distributed load balancer, so its
	// ports' MACs are reached on every chassis (!od_is_centralized).
	DistributedLB bool
}

func routerLinks(nb *relations.NB) engine.Rel[routerLink] {
	links := engine.Map(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) routerLink {
		return routerLink{LRPSwitchPeer: p}
	})
	bySwitch := func(l routerLink) string { return l.Switch }
	links = markBy(links, bySwitch, nb.SwitchesOnlyRouterPorts, func(l routerLink) routerLink {
		l.OnlyRouters = true
		return l
	})
	links = markBy(links, bySwitch, nb.SwitchesWithLocalnet, func(l routerLink) routerLink {
		l.Localnet = true
		return l
	})
	links = markBy(links, func(l routerLink) string { return l.LSP.Name },
		engine.Map(nb.PeerRedirects, func(p relations.LRPSwitchPeer) string { return p.LSP.Name }),
		func(l routerLink) routerLink {
			l.Redirected = true
			return l
		})
	dgps := engine.GroupBy(
		engine.IndexBy(engine.Filter(nb.LRPs, relations.LRP.DGP), func(p relations.LRP) string { return p.Router }),
		func(router string, ps []relations.LRP) []engine.KV[string, routerDGPs] {
			d := routerDGPs{N: len(ps)}
			if len(ps) == 1 {
				d.Only = ps[0].Name()
			}
			return []engine.KV[string, routerDGPs]{{Key: router, Value: d}}
		})
	dgps = markBy(dgps, func(kv engine.KV[string, routerDGPs]) string { return kv.Key }, nb.RoutersWithDistributedLB,
		func(kv engine.KV[string, routerDGPs]) engine.KV[string, routerDGPs] {
			kv.Value.DistributedLB = true
			return kv
		})
	byRouter := engine.IndexBy(links, func(l routerLink) string { return l.LRP.Router })
	dgpsByRouter := engine.IndexBy(dgps, func(kv engine.KV[string, routerDGPs]) string { return kv.Key })
	return engine.Union(
		engine.Join(byRouter, dgpsByRouter, func(_ string, l routerLink, d engine.KV[string, routerDGPs]) routerLink {
			l.DGPs = d.Value
			return l
		}),
		engine.AntiJoin(byRouter, dgpsByRouter))
}

// SwitchRouterPortL2Flows: ls_in_l2_lkup for a switch port of type router
// connected to a router port (northd.c build_lswitch_ip_unicast_lookup,
// build_lswitch_rport_arp_req_flows):
//   - priority 50: with "router" among its addresses (26.03: always,
//     routerMACAlwaysLooked), traffic to the router
//     port's MAC goes to it. When the router has distributed gateway ports
//     and the switch a localnet port, only the gateway chassis takes it if
//     the router port is a distributed gateway port, or if it sets
//     options:reside-on-redirect-chassis and the router has one such port,
//     unless the router has a distributed load balancer;
//   - priority 80: ARP requests and neighbour solicitations for the router
//     port's addresses and its router's NAT external IPs go to the router
//     alone (and to the switch's other ports, if it has any), instead of
//     being broadcast to every router on the switch (SwitchLBRouterVIPFlows
//     does the same for load balancer VIPs);
//   - priority 75: the router's own ARP requests and solicitations are
//     flooded like any broadcast, not sent back to it.
//
// Packets that came over VXLAN already went through the router pipeline, so
// the priority-80 flows skip them (flags[1]). For a distributed gateway
// port, traffic to the external MACs of its router's distributed NAT rules
// (dnat_and_snat with logical_port and external_mac) goes to the router too,
// on the chassis of the NAT's logical port.
func SwitchRouterPortL2Flows(nb *relations.NB) engine.Rel[Flow] {
	links := routerLinks(nb)
	return engine.Union(routerPortFlows(nb, links), selfOriginatedFlows(nb, links, nb.ValidNATs),
		natARPFlows(nb, links), dgpNATFlows(links, nb.RouterNATs))
}

// routerMACAlwaysLooked: 26.03 sends traffic to a connected router
// port's MAC to it whatever the switch port's addresses.
func routerMACAlwaysLooked(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

func routerPortFlows(nb *relations.NB, links engine.Rel[routerLink]) engine.Rel[Flow] {
	always := routerMACAlwaysLooked(nb)
	return engine.FlatMap(links, func(l routerLink) []Flow {
		dp := on(l.Switch).from(l.LSP.UUID)
		var flows []Flow
		if always || slices.Contains(l.LSP.Addresses, "router") {
			match := "eth.dst == " + l.LRP.Net.MAC.String()
			enabled := lspEnabled(l.LSP)
			switch {
			case l.DGPs.N > 0 && l.Localnet && !l.DGPs.DistributedLB:
				switch {
				case l.LRP.DGP():
					match += " && is_chassis_resident(" + jsonKey(chassisRedirectName(l.LRP.Name())) + ")"
				case relations.SmapBool(l.LRP.Port.Options, "reside-on-redirect-chassis", false) && l.DGPs.N == 1:
					match += " && is_chassis_resident(" + jsonKey(chassisRedirectName(l.DGPs.Only)) + ")"
				}
			case l.Redirected:
				cr := chassisRedirectName(l.LSP.Name)
				flows = append(flows, dp.flow(LSInL2Lkup, 50, match+" && !is_chassis_resident("+jsonKey(cr)+")", unicastActions(enabled, cr)))
				match += " && is_chassis_resident(" + jsonKey(cr) + ")"
			}
			flows = append(flows, dp.flow(LSInL2Lkup, 50, match, unicastActions(enabled, l.LSP.Name)))
		}
		if !l.LRP.Enabled() {
			return flows
		}
		for _, ip := range l.LRP.Net.IPv4 {
			flows = append(flows, toRouterFlows(l, arpNSMatch(ip.AddrS, false))...)
		}
		for _, ip := range l.LRP.Net.IPv6 {
			flows = append(flows, toRouterFlows(l, arpNSMatch(ip.AddrS, true))...)
		}
		return flows
	})
}

// arpAnswered reports whether the router answers ARP or ND for the
// external IP of a NAT rule it keeps (relations.NB.ValidNATs) on its
// switches: the rule is not SNAT.
func arpAnswered(r relations.RouterNAT) bool { return !r.IsSNAT() }

// routerIP is an address of a router as a string, to match NAT external IPs
// with load balancer VIPs the way northd's string sets do.
type routerIP struct{ Router, IP string }

// natARPFlows: ls_in_l2_lkup, priority 80, ARP requests and neighbour
// solicitations for the external IP of the router's NAT rules (but SNAT)
// go to the router alone, as for its own addresses, unless a load balancer
// VIP of the router has the same address (written as the VIP is). With
// snatIPsForwarded, so do those for SNAT external IPs.
func natARPFlows(nb *relations.NB, links engine.Rel[routerLink]) engine.Rel[Flow] {
	natIP := func(r relations.RouterNAT) routerIP { return routerIP{r.Router, r.NAT.ExternalIP} }
	nats := engine.Filter(nb.ValidNATs, arpAnswered)
	if snatIPsForwarded(nb.Release) {
		nats = engine.Union(nats, forwardedSNATs(nb))
	}
	lbIPs := relations.LBIPsOfRouters(nb, engine.Map(nats, natIP), func(ip routerIP) (string, string) { return ip.Router, ip.IP })
	answered := engine.AntiJoin(
		engine.IndexBy(nats, natIP),
		engine.IndexBy(lbIPs, func(ip routerIP) routerIP { return ip }))
	forwarding := engine.Filter(links, func(l routerLink) bool { return l.LRP.Enabled() })
	return engine.JoinFlatMap(
		engine.IndexBy(forwarding, func(l routerLink) string { return l.LRP.Router }),
		engine.IndexBy(answered, func(r relations.RouterNAT) string { return r.Router }),
		func(_ string, l routerLink, r relations.RouterNAT) []Flow {
			// northd writes the external_ip column as it is.
			return toRouterFlows(l, arpNSMatch(r.NAT.ExternalIP, r.ExtV6))
		})
}

// snatIPsForwarded: 26.03 sends ARP requests and neighbour solicitations
// for a router's SNAT external IPs to the router alone too.
func snatIPsForwarded(r schema.Release) bool { return r >= schema.OVN2603 }

// forwardedSNATs are the SNAT rules whose external IP natARPFlows forwards
// in 26.03 (the snat_ips loop of build_lswitch_rport_arp_req_flows): for
// each distinct external address of a router's SNAT rules, the first rule
// in _uuid order, unless its external_ip is one of the router's own
// addresses as written.
func forwardedSNATs(n *relations.NB) engine.Rel[relations.RouterNAT] {
	snats := engine.Filter(n.ValidNATs, relations.RouterNAT.IsSNAT)
	first := engine.Min(engine.IndexBy(snats, func(r relations.RouterNAT) routerIP { return routerIP{r.Router, r.ExtIP} }),
		func(a, b relations.RouterNAT) int { return cmp.Compare(a.NAT.UUID, b.NAT.UUID) })
	own := engine.Map(routerPortIPs(n), func(p portIP) routerIP { return routerIP{p.Port.Router, p.IP} })
	return engine.AntiJoin(
		engine.IndexBy(engine.Map(first, func(kv engine.KV[routerIP, relations.RouterNAT]) relations.RouterNAT { return kv.Value }),
			func(r relations.RouterNAT) routerIP { return routerIP{r.Router, r.NAT.ExternalIP} }),
		engine.IndexBy(own, func(ip routerIP) routerIP { return ip }))
}

// arpNSMatch matches ARP requests (or for IPv6 neighbour solicitations) for
// ip that did not come over VXLAN: those already went through the router
// pipeline.
func arpNSMatch(ip string, v6 bool) string {
	if v6 {
		return "flags[1] == 0 && nd_ns && nd.target == " + ip
	}
	return "flags[1] == 0 && arp.op == 1 && arp.tpa == " + ip
}

// toRouterFlows: ls_in_l2_lkup, priority 80, what match takes (an ARP
// request or neighbour solicitation for an address of the router) goes to
// the router port, and is flooded to the switch's other ports if it has
// any (build_lswitch_rport_arp_req_flow). A redirected switch port
// (routerLink.Redirected) takes it on the gateway chassis; elsewhere its
// chassisredirect port takes it there.
func toRouterFlows(l routerLink, match string) []Flow {
	dp := on(l.Switch).from(l.LSP.UUID)
	if !l.Redirected {
		return []Flow{dp.flow(LSInL2Lkup, 80, match, toPortActions(l, l.LSP.Name))}
	}
	cr := chassisRedirectName(l.LSP.Name)
	resident := "is_chassis_resident(" + jsonKey(cr) + ")"
	return []Flow{
		dp.flow(LSInL2Lkup, 80, match+" && "+resident, toPortActions(l, l.LSP.Name)),
		dp.flow(LSInL2Lkup, 80, match+" && !"+resident, toPortActions(l, cr)),
	}
}

// toPortActions sends a packet to port, and floods it to the switch's
// other ports if it has any.
func toPortActions(l routerLink, port string) string {
	key := jsonKey(port)
	if l.OnlyRouters {
		return "outport = " + key + "; output;"
	}
	return "clone {outport = " + key + "; output; }; outport = " + mcFloodL2 + "; output;"
}

// natMAC is the external MAC of a router's NAT rule, for the set of MACs the
// router sends ARP requests from.
type natMAC struct {
	Router string
	NAT    string // NB _uuid of the rule: northd reads the rules in _uuid order
	MAC    string
}

// selfOriginatedFlows: ls_in_l2_lkup, priority 75, on switches with ports
// other than router ports: ARP requests and solicitations that the router
// sends itself, from its port's MAC or the external MAC of one of its NAT
// rules (but SNAT), are flooded as usual. northd lists the MACs in the
// order of its string set; 26.03 puts the port's first and takes only
// broadcasts (selfOriginatedBroadcasts).
func selfOriginatedFlows(nb *relations.NB, links engine.Rel[routerLink], nats engine.Rel[relations.RouterNAT]) engine.Rel[Flow] {
	broadcasts := selfOriginatedBroadcasts(nb)
	withMAC := engine.Filter(nats, func(r relations.RouterNAT) bool { return arpAnswered(r) && r.NAT.ExternalMAC != nil })
	type routerMACs = engine.KV[string, engine.Sorted[natMAC]]
	macs := engine.Collect(
		engine.IndexBy(engine.Map(withMAC, func(r relations.RouterNAT) natMAC {
			return natMAC{r.Router, r.NAT.UUID, *r.NAT.ExternalMAC}
		}), func(m natMAC) string { return m.Router }),
		func(a, b natMAC) int { return cmp.Compare(a.NAT, b.NAT) })
	flooding := engine.Filter(links, func(l routerLink) bool { return l.LRP.Enabled() && !l.OnlyRouters })
	byRouter := engine.IndexBy(flooding, func(l routerLink) string { return l.LRP.Router })
	macsByRouter := engine.IndexBy(macs, func(kv routerMACs) string { return kv.Key })
	flow := func(l routerLink, natMACs engine.Sorted[natMAC]) Flow {
		var macs []string
		for m := range natMACs.All() {
			macs = append(macs, m.MAC)
		}
		match := "(arp.op == 1 || rarp.op == 3 || nd_ns)"
		if broadcasts {
			macs = append([]string{l.LRP.Net.MAC.String()}, relations.SsetOrder(macs)...)
			match = "eth.dst == ff:ff:ff:ff:ff:ff && " + match
		} else {
			macs = relations.SsetOrder(append([]string{l.LRP.Net.MAC.String()}, macs...))
		}
		return on(l.Switch).flow(LSInL2Lkup, 75, "eth.src == {"+strings.Join(macs, ", ")+"} && "+match,
			"outport = "+mcFloodL2+"; output;")
	}
	return engine.Union(
		engine.Join(byRouter, macsByRouter, func(_ string, l routerLink, m routerMACs) Flow { return flow(l, m.Value) }),
		engine.Map(engine.AntiJoin(byRouter, macsByRouter), func(l routerLink) Flow { return flow(l, engine.Sorted[natMAC]{}) }))
}

// selfOriginatedBroadcasts: 26.03's self-originated ARP flow matches
// broadcasts only, and lists the router port's MAC before its NAT rules'.
func selfOriginatedBroadcasts(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// dgpNATFlows: ls_in_l2_lkup, priority 50, traffic to the external MAC of a
// distributed NAT rule (dnat_and_snat with logical_port and external_mac)
// of a distributed gateway port's router goes to the router, on the chassis
// of the NAT's logical port. northd reads the router's NAT rules here
// without checking them.
func dgpNATFlows(links engine.Rel[routerLink], nats engine.Rel[relations.RouterNAT]) engine.Rel[Flow] {
	distributed := engine.Filter(nats, func(r relations.RouterNAT) bool {
		nat := r.NAT
		if nat.Type != nb.NATTypeDNATAndSNAT || nat.LogicalPort == nil || nat.ExternalMAC == nil {
			return false
		}
		_, err := relations.ParseMAC(*nat.ExternalMAC)
		return err == nil
	})
	dgpLinks := engine.Filter(links, func(l routerLink) bool {
		return l.LRP.DGP() && slices.Contains(l.LSP.Addresses, "router")
	})
	return engine.Join(
		engine.IndexBy(dgpLinks, func(l routerLink) string { return l.LRP.Router }),
		engine.IndexBy(distributed, func(r relations.RouterNAT) string { return r.Router }),
		func(_ string, l routerLink, r relations.RouterNAT) Flow {
			mac, _ := relations.ParseMAC(*r.NAT.ExternalMAC)
			return on(l.Switch).from(l.LSP.UUID).flow(LSInL2Lkup, 50,
				"eth.dst == "+mac.String()+` && is_chassis_resident("`+*r.NAT.LogicalPort+`")`,
				unicastActions(lspEnabled(l.LSP), l.LSP.Name))
		})
}

// lspEnabled reports whether a switch port's enabled column is not false.
func lspEnabled(p *nb.LogicalSwitchPort) bool { return p.Enabled == nil || *p.Enabled }

// markBy applies mark to the tuples of r whose key is in set.
func markBy[T comparable](r engine.Rel[T], key func(T) string, set engine.Rel[string], mark func(T) T) engine.Rel[T] {
	byKey := engine.IndexBy(r, key)
	in := engine.IndexBy(set, func(s string) string { return s })
	return engine.Union(engine.Map(engine.SemiJoin(byKey, in), mark), engine.AntiJoin(byKey, in))
}
