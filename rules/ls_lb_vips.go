package rules

import (
	"fmt"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// loadBalancerRules are the flows of load balancer VIPs, on switches and
// routers (this file and lr_lb.go).
var loadBalancerRules = []Rule{
	SwitchLBVIPFlows,
	SwitchLBEventFlows,
	SwitchLBServiceMonitorFlows,
	SwitchLBRouterPortMonitorFlows,
	SwitchLBRouterVIPFlows,
	RouterLBVIPFlows,
	RouterLBEventFlows,
	RouterLBNATOverlapFlows,
	RouterLBDefaultFlows,
	RouterLBSkipSNATFlows,
	RouterLBForceSNATFlows,
	RouterLBForceSNATPortFlows,
	RouterLBVIPNeighborFlows,
	RouterLBRouteFlows,
	RouterLBRoutableARPFlows,
}

// lbFragments: 26.03 balances IP fragments too. Pre-stateful flags them
// (reg0[19]) and sends them to conntrack, which reassembles them; ls_in_lb
// then reads the protocol and destination port of a new connection from
// conntrack (reg1, stored by ls_in_ct_extract) rather than from the packet,
// and restores an established fragmented connection's original
// destination (reg4/xxreg1, reg2) for the hairpin stages.
func lbFragments(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// ipProtoNumber are the IP protocol numbers of the load balancer
// protocols.
var ipProtoNumber = map[string]int{"tcp": 6, "udp": 17, "sctp": 132}

// Registers the load balancer stages read and write (northd.c REG_*).
const (
	regLBIPv4          = "reg4"
	regLBIPv6          = "xxreg1"
	regCTProto         = "reg1[16..23]"
	regCTTPDst         = "reg1[0..15]"
	regIPFrag          = "reg0[19]"
	regOrigDIPv4       = "reg1"
	regOrigDIPv6       = "xxreg1"
	regOrigTPDport     = "reg2[0..15]"
	regKnownLBSession  = "reg9[6]"
	regLBAffBackend4   = "reg4"
	regLBL2AffBackend6 = "xxreg0"
	regLBL3AffBackend6 = "xxreg1"
	regLBAffMatchPort  = "reg8[0..15]"
)

// ctProtoPortMatch matches a VIP's protocol and port on what the
// ct_extract stages read from conntrack for new connections (26.03:
// REG_CT_PROTO, REG_CT_TP_DST), which every fragment of the connection
// carries.
func ctProtoPortMatch(v relations.LBVIP) string {
	return fmt.Sprintf("%s == %d && %s == %s", regCTProto, ipProtoNumber[v.Proto], regCTTPDst, v.Port)
}

// ipMatch is the match prefix of the VIP's family.
func ipMatch(v relations.LBVIP) string {
	if v.IPv6 {
		return "ip6"
	}
	return "ip4"
}

// vipAction is northd.c build_lb_vip_actions without its prefix and
// closing: how a new connection to the VIP is handled. It returns
// "ct_lb_mark(backends=...[; hash_fields=...]" (ct_lb without the
// ct-no-masked-label feature, ct_lb_mark_local for a distributed load
// balancer; to be closed) when the VIP has targets; with
// none it rejects (options:reject, the ICMP error or TCP reset coming back
// through egress table rejectTable) or drops.
func vipAction(v relations.LBVIP, f relations.Features, rejectTable int) (action string, balances bool) {
	switch {
	case v.NTargets == 0 && v.Reject:
		return fmt.Sprintf("reg0 = 0; reject { outport <-> inport; next(pipeline=egress,table=%d);};", rejectTable), false
	case v.NTargets == 0:
		return drop, false
	}
	action = ctLB(f)
	if v.Distributed {
		action = "ct_lb_mark_local"
	}
	action += "(backends=" + v.Targets
	if v.HashFields != "" {
		action += `; hash_fields="` + v.HashFields + `"`
	}
	return action, true
}

// vipPort is the VIP as commit_lb_aff and trigger_event name it: "IP",
// "IP:PORT" or "[IP]:PORT".
func vipPort(ip, port string, v6 bool) string {
	switch {
	case port == "":
		return ip
	case v6:
		return "[" + ip + "]:" + port
	}
	return ip + ":" + port
}

// SwitchLBVIPFlows: ls_in_pre_stateful priority 120, ls_in_lb priority 110
// (VIP without port) or 120, and the affinity stages, for every VIP of a
// load balancer, on the set of switches of each of its scopes (northd.c
// build_lb_rules_pre_stateful, build_lb_rules, build_lb_affinity_ls_flows).
// Pre-stateful keeps the original destination in registers for the hairpin
// stages and sends the packet to conntrack; ls_in_lb picks a backend for a
// new connection (or rejects or drops it when the VIP has none). With
// options:affinity_timeout a client that reached a backend recently goes
// back to it.
func SwitchLBVIPFlows(nb *relations.NB) engine.Rel[Flow] {
	frag, rejectTable := lbFragments(nb), egressQoSTable(StagesFor(nb))
	return engine.FlatMap(relations.WithFeatures(nb, vipsOnSwitches(nb, nb.LBVIPsByLB)), func(x relations.Featured[vipInScope]) []Flow {
		v := x.Of.VIP
		dp := on(switchLBSet(x.Of.Scope)).from(v.LB)
		ip, reg := ipMatch(v), regOrigDIPv4
		switch {
		case frag && v.IPv6:
			reg = regLBIPv6
		case frag:
			reg = regLBIPv4
		case v.IPv6:
			reg = regOrigDIPv6
		}
		preMatch := fmt.Sprintf("%s == 1 && %s.dst == %s", regConntrackNAT, ip, v.IP)
		preAction := reg + " = " + v.IP + "; "
		lbMatch := fmt.Sprintf("ct.new && %s.dst == %s", ip, v.IP)
		prio := 110
		if v.Port != "" {
			preMatch += fmt.Sprintf(" && %s.dst == %s", v.Proto, v.Port)
			preAction += regOrigTPDport + " = " + v.Port + "; "
			if frag {
				lbMatch += " && " + ctProtoPortMatch(v)
			} else {
				lbMatch += fmt.Sprintf(" && %s.dst == %s", v.Proto, v.Port)
			}
			prio = 120
		}
		action, balances := vipAction(v, x.Features, rejectTable)
		switch {
		case balances && frag:
			action = preAction + action + ");"
		case balances:
			action = regConntrackCommit + " = 0; " + action + ");"
		}
		flows := []Flow{
			dp.flow(LSInPreStateful, 120, preMatch, preAction+ctLB(x.Features)+";"),
			dp.flow(LSInLB, prio, lbMatch, action),
		}
		if frag {
			return append(flows, switchFragAffinityFlows(dp, v)...)
		}
		return append(flows, switchAffinityFlows(dp, v)...)
	})
}

// forwardsOnlyAnsweredVIPs: 26.03 forwards to the router only requests
// for the VIPs it answers ARP and ND for (ips_v4_reachable: not those of
// load balancers with options:neighbor_responder=none).
func forwardsOnlyAnsweredVIPs(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// vipInScope is a VIP of a load balancer in scope Scope.
type vipInScope struct {
	Scope string
	VIP   relations.LBVIP
}

// vipsOnSwitches pairs each VIP of vips (by load balancer) with the scopes
// of its load balancer that hold a switch.
func vipsOnSwitches(nb *relations.NB, vips engine.Index[string, relations.LBVIP]) engine.Rel[vipInScope] {
	scopes := engine.Distinct(engine.Map(nb.SwitchLBScopes, func(s relations.ScopeDatapath) string { return s.Scope }))
	onSwitches := engine.SemiJoin(nb.LBScopesByScope, engine.IndexBy(scopes, func(s string) string { return s }))
	return engine.Join(
		engine.IndexBy(onSwitches, func(s relations.LBScope) string { return s.LB }),
		vips,
		func(_ string, s relations.LBScope, v relations.LBVIP) vipInScope { return vipInScope{s.Scope, v} })
}

// switchLBSet is the datapath set of the switches in load balancer scope
// scope: the VIP flows of its load balancers are the same on each.
func switchLBSet(scope string) string { return datapathSet("ls-lb", scope) }

// SwitchLBSets: the switches in each load balancer scope.
func SwitchLBSets(nb *relations.NB) engine.Rel[DatapathSetMember] {
	return engine.Map(nb.SwitchLBScopes, func(s relations.ScopeDatapath) DatapathSetMember {
		return DatapathSetMember{switchLBSet(s.Scope), s.Datapath}
	})
}

// switchAffinityFlows are the flows of a VIP with options:affinity_timeout
// on a switch (northd.c build_lb_affinity_ls_flows): ls_in_lb_aff_check
// looks up the client's last backend, ls_in_lb (priority 150) sends the
// connection there, and ls_in_lb_aff_learn records the backend a new
// connection got. northd picks the family here by V4Mapped.
func switchAffinityFlows(dp onRow, v relations.LBVIP) []Flow {
	if v.AffinityTimeout == 0 {
		return nil
	}
	ip, regVIP, regBackend := "ip4", regOrigDIPv4, regLBAffBackend4
	if !v.V4Mapped() {
		ip, regVIP, regBackend = "ip6", regOrigDIPv6, regLBL2AffBackend6
	}
	check := fmt.Sprintf("ct.new && %s && %s == %s", ip, regVIP, v.IP)
	learnMatch := fmt.Sprintf("%s == 0 && ct.new && %s && %s == %s", regKnownLBSession, ip, regVIP, v.IP)
	lbAction := fmt.Sprintf("%s = 0; %s = %s; ", regConntrackCommit, regVIP, v.IP)
	if v.Port != "" {
		check += " && " + regOrigTPDport + " == " + v.Port
		learnMatch += " && " + regOrigTPDport + " == " + v.Port
		lbAction += regOrigTPDport + " = " + v.Port + "; "
	}
	return append([]Flow{dp.flow(LSInLBAffCheck, 100, check, regKnownLBSession+" = chk_lb_aff(); next;")},
		affinityBackendFlows(dp, v, LSInLBAffLearn, LSInLB, ip, regBackend, learnMatch, lbAction, "")...)
}

// switchFragAffinityFlows are switchAffinityFlows with lbFragments: the
// check matches the VIP and the protocol and port ct_extract stored, and
// the rest is lbRegAffinityFlows.
func switchFragAffinityFlows(dp onRow, v relations.LBVIP) []Flow {
	if v.AffinityTimeout == 0 {
		return nil
	}
	ip := ipMatch(v)
	check := fmt.Sprintf("ct.new && %s && %s.dst == %s", ip, ip, v.IP)
	if v.Port != "" {
		check += " && " + ctProtoPortMatch(v)
	}
	return append([]Flow{dp.flow(LSInLBAffCheck, 100, check, regKnownLBSession+" = chk_lb_aff(); next;")},
		lbRegAffinityFlows(dp, v, v.IPv6, LSInLBAffLearn, LSInLB, lbRegsAction(v), "")...)
}

// lbRegsAction keeps VIP v and its port in the load balancer registers
// (26.03's REG_LB_IPV4 or REG_LB_IPV6, REG_LB_PORT).
func lbRegsAction(v relations.LBVIP) string {
	action := lbIPReg(v.IPv6) + " = " + v.IP + "; "
	if v.Port != "" {
		action += regOrigTPDport + " = " + v.Port + "; "
	}
	return action
}

// lbIPReg is the load balancer register of addresses of a family.
func lbIPReg(v6 bool) string {
	if v6 {
		return regLBIPv6
	}
	return regLBIPv4
}

// lbRegAffinityFlows are the per-backend affinity flows of VIP v in 26.03,
// taken as of the family v6 (switches read it from the VIP's family,
// routers from its address: V4Mapped), on switches and routers but for
// their stages: the load balancer
// registers hold the VIP (lbRegsAction) when learnStage records the backend
// a new connection got, and the backend of a known session when lbStage
// (priority 150) sends a new connection to the VIP there, after lbAction,
// with ctFlag appended to ct_lb_mark's arguments.
func lbRegAffinityFlows(dp onRow, v relations.LBVIP, v6 bool, learnStage, lbStage Stage, lbAction, ctFlag string) []Flow {
	ip, reg := "ip4", lbIPReg(v6)
	if v6 {
		ip = "ip6"
	}
	learn := fmt.Sprintf("%s == 0 && ct.new && %s && %s == %s", regKnownLBSession, ip, reg, v.IP)
	if v.Port != "" {
		learn += " && " + regOrigTPDport + " == " + v.Port
	}
	var flows []Flow
	for _, b := range v.Backends.All() {
		port := affinityPort(b)
		learnMatch := learn + " && " + ip + ".dst == " + b.IP
		match := fmt.Sprintf("%s == 1 && ct.new && %s.dst == %s && %s == %s", regKnownLBSession, ip, v.IP, reg, b.IP)
		if port != "" {
			learnMatch += " && " + v.Proto + ".dst == " + port
			match += " && " + regOrigTPDport + " == " + port
		}
		flows = append(flows,
			dp.flow(learnStage, 100, learnMatch, commitLBAffOf(v, b, v6)),
			dp.flow(lbStage, 150, match, lbAction+"ct_lb_mark(backends="+vipPort(b.IP, port, v6)+ctFlag+");"))
	}
	return flows
}

// affinityBackendFlows are the per-backend affinity flows of VIP v, the same
// on switches and routers but for their stages and registers: learnStage
// records the backend a new connection to the VIP (learnMatch) got, and
// lbStage (priority 150) sends a new connection of a known session (the
// client's last backend in regBackend) to that backend, after lbAction,
// with ctFlag appended to ct_lb_mark's arguments.
func affinityBackendFlows(dp onRow, v relations.LBVIP, learnStage, lbStage Stage, ip, regBackend, learnMatch, lbAction, ctFlag string) []Flow {
	var flows []Flow
	for _, b := range v.Backends.All() {
		port := affinityPort(b)
		learn, match := learnMatch+" && "+ip+".dst == "+b.IP, fmt.Sprintf("%s == 1 && ct.new && %s && %s == %s", regKnownLBSession, ip, regBackend, b.IP)
		if port != "" {
			learn += " && " + v.Proto + ".dst == " + port
			match += " && " + regLBAffMatchPort + " == " + port
		}
		flows = append(flows,
			dp.flow(learnStage, 100, learn, commitLBAff(v, b)),
			dp.flow(lbStage, 150, match, lbAction+"ct_lb_mark(backends="+vipPort(b.IP, port, !v.V4Mapped())+ctFlag+");"))
	}
	return flows
}

// affinityPort is the port of backend b that affinity flows use: none for
// template backends, whose port northd does not read as a number.
func affinityPort(b relations.LBBackend) string {
	if b.Template {
		return ""
	}
	return b.Port
}

// commitLBAff is the action that records backend b as the client's choice
// for VIP v.
func commitLBAff(v relations.LBVIP, b relations.LBBackend) string {
	return commitLBAffOf(v, b, !v.V4Mapped())
}

// commitLBAffOf is commitLBAff with the VIP's family given: 26.03's switch
// flows read it from the VIP's address family, which a template VIP has
// too.
func commitLBAffOf(v relations.LBVIP, b relations.LBBackend, v6 bool) string {
	proto := ""
	if v.Port != "" {
		proto = ", proto = " + v.Proto
	}
	return fmt.Sprintf(`commit_lb_aff(vip = "%s", backend = "%s"%s, timeout = %d); /* drop */`,
		vipPort(v.IP, v.Port, v6), vipPort(b.IP, affinityPort(b), v6), proto, v.AffinityTimeout)
}

// eventVIPs are the VIPs without backends that raise an empty_lb_backends
// controller event instead of dropping (northd.c build_empty_lb_event_flow):
// their load balancer sets options:event, or NB_Global
// options:controller_event is set, and they do not reject.
func eventVIPs(nb *relations.NB) engine.Rel[relations.LBVIP] {
	empty := engine.Filter(nb.LBVIPs, func(v relations.LBVIP) bool { return v.NBackends == 0 && !v.Reject })
	global := engine.Filter(nb.LBGlobal, func(o relations.LBGlobalOptions) bool { return o.ControllerEvent })
	byGlobal := engine.Join(
		engine.IndexBy(engine.Filter(empty, func(v relations.LBVIP) bool { return !v.Event }),
			func(relations.LBVIP) struct{} { return struct{}{} }),
		engine.IndexBy(global, func(relations.LBGlobalOptions) struct{} { return struct{}{} }),
		func(_ struct{}, v relations.LBVIP, _ relations.LBGlobalOptions) relations.LBVIP { return v })
	return engine.Union(engine.Filter(empty, func(v relations.LBVIP) bool { return v.Event }), byGlobal)
}

// eventFlow is the controller event flow of VIP v in stage st.
func eventFlow(dp onRow, st Stage, v relations.LBVIP) Flow {
	match := fmt.Sprintf("%s.dst == %s && %s", ipMatch(v), v.IP, v.Proto)
	if v.Port != "" {
		match += fmt.Sprintf(" && %s.dst == %s", v.Proto, v.Port)
	}
	return dp.flow(st, 130, match, fmt.Sprintf(
		`trigger_event(event = "empty_lb_backends", vip = "%s", protocol = "%s", load_balancer = "%s");`,
		vipPort(v.IP, v.Port, v.IPv6), v.Proto, v.LB))
}

// SwitchLBEventFlows: ls_in_pre_lb priority 130 (northd.c
// build_lswitch_flows_for_lb): traffic to a VIP without backends raises an
// empty_lb_backends event for the CMS, when the load balancer or NB_Global
// asks for events.
func SwitchLBEventFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.Map(vipsOnSwitches(nb, engine.IndexBy(eventVIPs(nb), func(v relations.LBVIP) string { return v.LB })), func(x vipInScope) Flow {
		return eventFlow(on(switchLBSet(x.Scope)).from(x.VIP.LB), LSInPreLB, x.VIP)
	})
}

// monitorSource is a health-checked backend's monitoring source address on
// the switch of the port its ip_port_mappings entry names.
type monitorSource struct {
	LB     string // NB _uuid of the load balancer
	Switch string
	SrcIP  string
	IPv4   bool // the VIP is IPv4: probes use ARP, else ND
}

// SwitchLBServiceMonitorFlows: ls_in_arp_rsp priority 110 (northd.c
// build_lswitch_arp_nd_service_monitor): on the switch of a health-checked
// backend's monitored port, ARP requests and neighbour solicitations for
// the probes' source address are answered with NB_Global's
// svc_monitor_mac, whether the load balancer applies anywhere or not,
// unless the address is a router port's there (relations.LBMonitorLRP).
func SwitchLBServiceMonitorFlows(nb *relations.NB) engine.Rel[Flow] {
	type source struct {
		LB, Port, SrcIP string
		IPv4            bool
	}
	sources := engine.Distinct(engine.FlatMap(nb.LBVIPs, func(v relations.LBVIP) []source {
		if !v.HealthCheck {
			return nil
		}
		var out []source
		for _, b := range v.Backends.All() {
			if b.MonitorPort != "" && b.MonitorSrcIP != "" {
				out = append(out, source{v.LB, b.MonitorPort, b.MonitorSrcIP, !v.IPv6})
			}
		}
		return out
	}))
	sources = engine.AntiJoin(
		engine.IndexBy(sources, func(s source) monitorAddress { return monitorAddress{s.LB, s.Port, s.SrcIP} }),
		engine.IndexBy(nb.LBMonitorLRPs, func(m relations.LBMonitorLRP) monitorAddress { return monitorAddress{m.LB, m.Port, m.SrcIP} }))
	onSwitch := engine.Distinct(engine.Join(
		engine.IndexBy(sources, func(s source) string { return s.Port }),
		nb.PortsOnSwitchesByName(),
		func(_ string, s source, sp relations.SwitchPort) monitorSource {
			return monitorSource{s.LB, sp.Switch, s.SrcIP, s.IPv4}
		}))
	return engine.Join(
		engine.IndexBy(onSwitch, func(monitorSource) struct{} { return struct{}{} }),
		engine.IndexBy(engine.Filter(nb.LBGlobal, func(o relations.LBGlobalOptions) bool { return o.SvcMonitorMAC != "" }),
			func(relations.LBGlobalOptions) struct{} { return struct{}{} }),
		func(_ struct{}, s monitorSource, o relations.LBGlobalOptions) Flow {
			return monitorSourceResponse(on(s.Switch).from(s.LB), o.SvcMonitorMAC, s.SrcIP, s.IPv4)
		})
}

// monitorSourceResponse is the ls_in_arp_rsp priority 110 flow on dp
// (northd.c build_arp_nd_service_monitor_lflow) that answers ARP requests
// (ipv4) or neighbour solicitations for a service monitor's source address
// srcIP with mac.
func monitorSourceResponse(dp onRow, mac, srcIP string, ipv4 bool) Flow {
	if ipv4 {
		return dp.flow(LSInARPRsp, 110, "arp.tpa == "+srcIP+" && arp.op == 1",
			"eth.dst = eth.src; eth.src = "+mac+"; arp.op = 2; /* ARP reply */ arp.tha = arp.sha; "+
				"arp.sha = "+mac+"; arp.tpa = arp.spa; arp.spa = "+srcIP+"; "+
				"outport = inport; flags.loopback = 1; output;")
	}
	return dp.flow(LSInARPRsp, 110, "nd_ns && nd.target == "+srcIP,
		"nd_na { eth.dst = eth.src; eth.src = "+mac+"; ip6.src = "+srcIP+"; nd.target = "+srcIP+"; "+
			"nd.tll = "+mac+"; outport = inport; flags.loopback = 1; output; };")
}

// monitorAddress is a load balancer's health check source address SrcIP
// through logical port Port.
type monitorAddress struct{ LB, Port, SrcIP string }

// SwitchLBRouterPortMonitorFlows: ls_in_l2_lkup priority 110 (northd.c
// build_lb_health_check_response_lflows, 26.03): where a health check's
// source address is a router port's (relations.LBMonitorLRP), the replies
// of each backend it probes, sent to that port's MAC, go to ovn-controller
// on the backend's switch.
func SwitchLBRouterPortMonitorFlows(nb *relations.NB) engine.Rel[Flow] {
	type probed struct {
		monitorAddress
		IP, Port, Proto string
	}
	backends := engine.Distinct(engine.FlatMap(nb.LBVIPs, func(v relations.LBVIP) []probed {
		if !v.HealthCheck {
			return nil
		}
		var out []probed
		for _, b := range v.Backends.All() {
			if b.MonitorPort != "" && b.MonitorSrcIP != "" {
				out = append(out, probed{monitorAddress{v.LB, b.MonitorPort, b.MonitorSrcIP}, b.IP, b.Port, v.Proto})
			}
		}
		return out
	}))
	return engine.Join(
		engine.IndexBy(backends, func(p probed) monitorAddress { return p.monitorAddress }),
		engine.IndexBy(nb.LBMonitorLRPs, func(m relations.LBMonitorLRP) monitorAddress { return monitorAddress{m.LB, m.Port, m.SrcIP} }),
		func(_ monitorAddress, p probed, m relations.LBMonitorLRP) Flow {
			ip, unreachable := "ip4", "icmp4.type == 3"
			if strings.Contains(m.SrcIP, ":") {
				ip, unreachable = "ip6", "icmp6.type == 1"
			}
			match := fmt.Sprintf("inport == \"%s\" && %s.dst == %s && %s.src == %s && eth.dst == %s && ",
				p.monitorAddress.Port, ip, m.SrcIP, ip, p.IP, m.MAC)
			if p.Proto == "tcp" {
				match += "tcp.src == " + p.Port
			} else {
				match += unreachable
			}
			return on(m.Switch).flow(LSInL2Lkup, 110, match, "handle_svc_check(inport);")
		})
}

// SwitchLBRouterVIPFlows: ls_in_l2_lkup priority 80 (northd.c
// build_lswitch_rport_arp_req_flows): on a switch connected to an enabled
// router port, ARP requests and neighbour solicitations for a VIP of the
// router's load balancers that is in a subnet of that port go to the
// router alone (and to the switch's other ports, if it has any), like
// those for the router's own addresses. Where forwardsOnlyAnsweredVIPs,
// only the VIPs the router answers for count.
func SwitchLBRouterVIPFlows(nb *relations.NB) engine.Rel[Flow] {
	answeredOnly := forwardsOnlyAnsweredVIPs(nb)
	links := engine.Filter(routerLinks(nb), func(l routerLink) bool { return l.LRP.Enabled() })
	inScope := engine.Join(
		nb.RouterLBScopesByRouter,
		engine.IndexBy(links, func(l routerLink) string { return l.LRP.Router }),
		func(_ string, s relations.ScopeDatapath, l routerLink) engine.KV[string, routerLink] {
			return engine.KV[string, routerLink]{Key: s.Scope, Value: l}
		})
	return engine.JoinFlatMap(
		engine.IndexBy(inScope, func(kv engine.KV[string, routerLink]) string { return kv.Key }),
		nb.ScopeLBIPs,
		func(_ string, kv engine.KV[string, routerLink], sip relations.ScopedLBIP) []Flow {
			l, ip := kv.Value, sip.LBIP
			if !relations.PortReaches(l.LRP.Net, ip.IP) || answeredOnly && ip.Neighbor == relations.LBNeighborNone {
				return nil
			}
			match := "flags[1] == 0 && arp.op == 1 && arp.tpa == " + ip.IP
			if ip.IPv6 {
				match = "flags[1] == 0 && nd_ns && nd.target == " + ip.IP
			}
			return toRouterFlows(l, match)
		})
}
