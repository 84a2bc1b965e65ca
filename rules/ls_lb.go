package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// SwitchPreLBFlows: ls_in_pre_lb and ls_out_pre_lb, the per-switch flows
// (northd.c build_pre_lb). Multicast, ND/MLD, service monitor and stateless
// (reg0[16]) packets skip conntrack; on a switch with a load balancer VIP
// all other IP traffic goes to conntrack for un-NAT (reg0[2]).
func SwitchPreLBFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchACLFacts, func(f relations.SwitchACLFacts) []Flow {
		dp := on(f.Switch)
		flows := []Flow{
			dp.flow(LSInPreLB, 110, "eth.dst == $svc_monitor_mac", "next;"),
			dp.flow(LSOutPreLB, 110, "eth.src == $svc_monitor_mac", "next;"),
		}
		for _, st := range []Stage{LSInPreLB, LSOutPreLB} {
			flows = append(flows,
				dp.flow(st, 110, "eth.mcast", "next;"),
				dp.flow(st, 110, "nd || nd_rs || nd_ra || mldv1 || mldv2", "next;"),
				dp.flow(st, 0, "1", "next;"),
				dp.flow(st, 110, regACLStateless+" == 1", "next;"))
			if f.HasLBVIP {
				flows = append(flows, dp.flow(st, 100, "ip", regConntrackNAT+" = 1; next;"))
			}
		}
		return flows
	})
}

// conntrackSkipPort is a port of a switch whose traffic may bypass
// conntrack: a router port (a "router" port whose router-port option names
// an existing router port), a localnet port, or in 26.03 a port of type
// "switch".
type conntrackSkipPort struct {
	Switch string
	Name   string
	Key    string // Name as a JSON string
	Row    string // the port's NB _uuid
	Kind   conntrackSkipKind
	// ACLs: a router port whose traffic goes through the ACLs' conntrack
	// all the same (routerPortACLs).
	ACLs bool
}

// readsRouterPortACL: 26.03 reads options:enable_router_port_acl of a
// switch port of type router.
func readsRouterPortACL(r schema.Release) bool { return r >= schema.OVN2603 }

// routerPortACLs reports whether switch port p, the peer of router port
// rp, has its traffic tracked for the ACLs like a VIF's (northd.c
// join_logical_ports: only the peer of a distributed gateway port, with
// options:enable_router_port_acl): the gateway chassis holds the
// connection's both directions.
func routerPortACLs(r schema.Release, p *nb.LogicalSwitchPort, rp relations.LRP) bool {
	return readsRouterPortACL(r) && rp.DGP() && relations.SmapBool(p.Options, "enable_router_port_acl", false)
}

// conntrackSkipKind is which of od->router_ports, od->localnet_ports and
// od->switch_ports holds a conntrackSkipPort.
type conntrackSkipKind int

const (
	skipRouterPort conntrackSkipKind = iota
	skipLocalnetPort
	skipSwitchPort
)

// conntrackSkipPorts computes the router, localnet and switch-type ports
// of switches, as northd.c join_logical_ports records them in
// od->router_ports, od->localnet_ports and od->switch_ports.
func conntrackSkipPorts(nb *relations.NB) engine.Rel[conntrackSkipPort] {
	routerPorts := engine.Map(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) conntrackSkipPort {
		return conntrackSkipPort{Switch: p.Switch, Name: p.LSP.Name, Key: jsonKey(p.LSP.Name), Row: p.LSP.UUID, Kind: skipRouterPort,
			ACLs: routerPortACLs(nb.Release, p.LSP, p.LRP)}
	})
	ofType := func(t string, kind conntrackSkipKind) engine.Rel[conntrackSkipPort] {
		return engine.Map(nb.PortsOnSwitchesOfType(t), func(sp relations.SwitchPort) conntrackSkipPort {
			return conntrackSkipPort{Switch: sp.Switch, Name: sp.Port.Name, Key: jsonKey(sp.Port.Name), Row: sp.Port.UUID, Kind: kind}
		})
	}
	ports := []engine.Rel[conntrackSkipPort]{routerPorts, ofType(relations.LSPTypeLocalnet, skipLocalnetPort)}
	if relations.SwitchPeerPorts(nb.Release) {
		ports = append(ports, ofType(relations.LSPTypeSwitch, skipSwitchPort))
	}
	return engine.Union(ports...)
}

// SwitchConntrackSkipFlows: ls_in_pre_acl, ls_out_pre_acl, ls_in_pre_lb and
// ls_out_pre_lb, priority 110, for router, localnet and switch-type ports
// (northd.c skip_port_from_conntrack). Conntrack zones are per chassis, and
// traffic through a router or switch-type port may have crossed the peer
// on another chassis, so it cannot be tracked here. Localnet traffic skips
// pre-LB conntrack only when the switch has no load balancer VIP to serve
// it. What leaves through a switch-type port keeps its conntrack state.
func SwitchConntrackSkipFlows(nb *relations.NB) engine.Rel[Flow] {
	type portFacts struct {
		Port  conntrackSkipPort
		Facts relations.SwitchACLFacts
	}
	ports := engine.Join(
		engine.IndexBy(conntrackSkipPorts(nb), func(p conntrackSkipPort) string { return p.Switch }),
		switchFactsBySwitch(nb),
		func(_ string, p conntrackSkipPort, f relations.SwitchACLFacts) portFacts { return portFacts{p, f} })
	// 26.03 also clears the sampled flag of what leaves untracked.
	ctClear := "ct_clear; next;"
	if aclVerdicts(nb) {
		ctClear = "flags.pkt_sampled = 0; ct_clear; next;"
	}
	return engine.FlatMap(ports, func(x portFacts) []Flow {
		dp := onPort{x.Port.Switch, x.Port.Name}.from(x.Port.Row)
		kind := x.Port.Kind
		egress := ctClear
		if x.Facts.HasStatefulACL || kind == skipSwitchPort {
			egress = "next;"
		}
		in, out := "ip && inport == "+x.Port.Key, "ip && outport == "+x.Port.Key
		var flows []Flow
		if x.Facts.HasStatefulACL && !x.Port.ACLs {
			flows = append(flows, dp.flow(LSInPreACL, 110, in, "next;"), dp.flow(LSOutPreACL, 110, out, egress))
		}
		if kind != skipLocalnetPort || !x.Facts.HasLBVIP {
			flows = append(flows, dp.flow(LSInPreLB, 110, in, "next;"), dp.flow(LSOutPreLB, 110, out, egress))
		}
		return flows
	})
}

// SwitchEVPNConntrackSkipFlows: ls_in_pre_acl, ls_out_pre_acl, ls_in_pre_lb
// and ls_out_pre_lb, priority 110, on a switch in an EVPN domain (northd.c
// skip_evpn_from_conntrack): the remote VTEPs have no conntrack zone, so
// their traffic skips conntrack, before the load balancers whatever the
// VIPs and before the ACLs when some ACL is stateful (the stages pass
// otherwise anyway).
func SwitchEVPNConntrackSkipFlows(nb *relations.NB) engine.Rel[Flow] {
	evpn := engine.IndexBy(engine.Filter(nb.SwitchDatapaths, func(sw relations.Switch) bool { return sw.EVPN }),
		func(sw relations.Switch) string { return sw.UUID })
	return engine.JoinFlatMap(evpn, switchFactsBySwitch(nb), func(_ string, sw relations.Switch, f relations.SwitchACLFacts) []Flow {
		dp := on(sw.UUID)
		egress := "flags.pkt_sampled = 0; ct_clear; next;"
		var flows []Flow
		if f.HasStatefulACL {
			egress = "next;"
			flows = append(flows, dp.flow(LSInPreACL, 110, "from_evpn_vtep", "next;"), dp.flow(LSOutPreACL, 110, "to_evpn_vtep", egress))
		}
		return append(flows, dp.flow(LSInPreLB, 110, "from_evpn_vtep", "next;"), dp.flow(LSOutPreLB, 110, "to_evpn_vtep", egress))
	})
}

// SwitchLBDefaultFlows: ls_in_lb_aff_check, ls_in_lb and ls_in_lb_aff_learn
// (and 26.03's ls_in_ct_extract), priority 0 (northd.c
// build_lb_affinity_default_flows, build_stateful): traffic no load
// balancer VIP matches goes on. On a switch with a VIP, 26.03 keeps the
// protocol and destination port of a new connection's original direction
// (reg1) for the load balancer stage (build_ls_stateful_flows).
func SwitchLBDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchACLFacts, func(f relations.SwitchACLFacts) []Flow {
		dp := on(f.Switch)
		flows := []Flow{
			dp.flow(LSInLBAffCheck, 0, "1", "next;"),
			dp.flow(LSInLB, 0, "1", "next;"),
			dp.flow(LSInLBAffLearn, 0, "1", "next;"),
			dp.flow(LSInCTExtract, 0, "1", "next;"),
		}
		if f.HasLBVIP {
			flows = append(flows, ctExtractFlow(dp, LSInCTExtract))
		}
		return flows
	})
}

// SwitchHairpinFlows: ls_in_pre_hairpin, ls_in_nat_hairpin and
// ls_in_hairpin (northd.c build_lb_hairpin). On a switch with a load
// balancer VIP, a backend reaching itself through the VIP is SNATed to the
// VIP and sent back out of its own port, and so are the replies.
func SwitchHairpinFlows(nb *relations.NB) engine.Rel[Flow] {
	frag := lbFragments(nb)
	return engine.FlatMap(nb.SwitchACLFacts, func(f relations.SwitchACLFacts) []Flow {
		dp := on(f.Switch)
		flows := []Flow{
			dp.flow(LSInPreHairpin, 0, "1", "next;"),
			dp.flow(LSInNATHairpin, 0, "1", "next;"),
			dp.flow(LSInHairpin, 0, "1", "next;"),
		}
		if !f.HasLBVIP {
			return flows
		}
		if frag {
			flows = append(flows,
				dp.flow(LSInLB, 110, "ct.trk && ct.est && !ct.rpl && "+regIPFrag+" == 1 && ip4", regLBIPv4+" = ct_nw_dst(); "+regOrigTPDport+" = ct_tp_dst(); next;"),
				dp.flow(LSInLB, 110, "ct.trk && ct.est && !ct.rpl && "+regIPFrag+" == 1 && ip6", regLBIPv6+" = ct_ip6_dst(); "+regOrigTPDport+" = ct_tp_dst(); next;"))
		}
		// northd names the switch itself as these flows' origin.
		sw := dp.from(f.Switch)
		return append(flows,
			sw.flow(LSInPreHairpin, 100, "ip && ct.trk",
				"reg0[6] = chk_lb_hairpin(); reg0[12] = chk_lb_hairpin_reply(); next;"),
			sw.flow(LSInNATHairpin, 100, "ip && ct.new && ct.trk && reg0[6] == 1", "ct_snat_to_vip; next;"),
			sw.flow(LSInNATHairpin, 100, "ip && ct.est && ct.trk && reg0[6] == 1", "ct_snat;"),
			sw.flow(LSInNATHairpin, 90, "ip && reg0[12] == 1", "ct_snat;"),
			dp.flow(LSInHairpin, 1, "(reg0[6] == 1 || reg0[12] == 1)",
				"eth.dst <-> eth.src; outport = inport; flags.loopback = 1; output;"))
	})
}

// SwitchVTEPHairpinFlows: ls_in_hairpin, priorities 1000 and 2000, on
// switches with VTEP ports (northd.c build_vtep_hairpin). Packets from a
// VTEP gateway (reg0[14], set in ls_in_check_port_sec) go straight to L2
// lookup, except on the chassis where a distributed gateway port of a
// connected router resides, which must answer their ARP/ND.
func SwitchVTEPHairpinFlows(n *relations.NB) engine.Rel[Flow] {
	vtepSwitches := engine.Distinct(engine.Map(n.PortsOnSwitchesOfType(relations.LSPTypeVTEP), func(sp relations.SwitchPort) string { return sp.Switch }))
	skipARPRsp := vtepSkipsARPResponder(n)
	toL2 := engine.FlatMap(vtepSwitches, func(sw string) []Flow {
		dp := on(sw)
		flows := []Flow{dp.flow(LSInHairpin, 1000, "reg0[14] == 1", fmt.Sprintf("next(pipeline=ingress, table=%d);", tableIn(n, LSInL2Lkup)))}
		if skipARPRsp {
			flows = append(flows, dp.flow(LSInARPRsp, 65535, "reg0[14] == 1 && (arp || nd_ns)", "flags.loopback = 1; next;"))
		}
		return flows
	})
	type gateway struct{ Switch, CRPort string }
	gateways := engine.FlatMap(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) []gateway {
		if !p.LRP.DGP() {
			return nil
		}
		return []gateway{{p.Switch, jsonKey("cr-" + p.LRP.Name())}}
	})
	resident := engine.Join(
		engine.IndexBy(vtepSwitches, func(sw string) string { return sw }),
		engine.IndexBy(gateways, func(g gateway) string { return g.Switch }),
		func(_ string, _ string, g gateway) Flow {
			return on(g.Switch).flow(LSInHairpin, 2000, "reg0[14] == 1 && is_chassis_resident("+g.CRPort+")", "next;")
		})
	return engine.Union(toL2, resident)
}

// vtepSkipsARPResponder: in 26.03 ARP requests and neighbour
// solicitations from a VTEP gateway skip ls_in_arp_rsp too (priority
// 65535), looped back if need be: a router port resolves its own
// neighbours, a VIF answers for itself.
func vtepSkipsARPResponder(n *relations.NB) bool { return n.Release >= schema.OVN2603 }

// SwitchInterconnMcastFlows: ls_out_pre_lb, priority 120, on a transit
// switch of OVN interconnection (other_config:interconn-ts) with multicast
// snooping (northd.c build_interconn_mcast_snoop_flows): IGMP and MLD
// packets coming in from a remote port, i.e. from another availability
// zone, are also punted to ovn-controller.
func SwitchInterconnMcastFlows(n *relations.NB) engine.Rel[Flow] {
	transit := engine.FlatMap(n.Switches.Rows, func(ls *nb.LogicalSwitch) []string {
		_, ts := ls.OtherConfig["interconn-ts"]
		if !ts || !relations.SmapBool(ls.OtherConfig, "mcast_snoop", false) {
			return nil
		}
		return []string{ls.UUID}
	})
	remote := n.PortsOnSwitchesOfType(relations.LSPTypeRemote)
	type remotePort struct{ Switch, Key string }
	ports := engine.Join(
		engine.IndexBy(engine.Map(remote, func(sp relations.SwitchPort) remotePort {
			return remotePort{sp.Switch, jsonKey(sp.Port.Name)}
		}), func(p remotePort) string { return p.Switch }),
		engine.IndexBy(transit, func(sw string) string { return sw }),
		func(_ string, p remotePort, _ string) remotePort { return p })
	notLooped := ""
	if igmpLoopbackSkipped(n) {
		notLooped = " && flags.igmp_loopback == 0"
	}
	return engine.FlatMap(ports, func(p remotePort) []Flow {
		dp := on(p.Switch)
		return []Flow{
			dp.flow(LSOutPreLB, 120, "inport == "+p.Key+" && igmp"+notLooped, "clone { igmp; }; next;"),
			dp.flow(LSOutPreLB, 120, "inport == "+p.Key+" && (mldv1 || mldv2)"+notLooped, "clone { igmp; }; next;"),
		}
	})
}
