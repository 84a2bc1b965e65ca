package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// Registers and register bits of the router pipeline that NAT flows use
// (northd.c REGBIT_* and REG_*).
const (
	regEgressLoopback = "reg9[0]"
	regPktLarger      = "reg9[1]"
	regDstNATIPLocal  = "reg9[4]"
	regInportEthAddr  = "xreg0[0..47]"
	regNextHopIsIPv4  = "reg9[9]"
)

// srcIPReg is REG_SRC_IPV4 or REG_SRC_IPV6: the source address of the
// router's ARP requests and neighbour solicitations. 26.03 moved IPv4's
// from reg1 to reg5.
func srcIPReg(rel schema.Release, v6 bool) string {
	switch {
	case v6:
		return "xxreg1"
	case rel >= schema.OVN2603:
		return "reg5"
	}
	return "reg1"
}

// nextHopFamily is the action by which 26.03's routing stages tell later
// stages whether the next hop is IPv4 (REGBIT_NEXTHOP_IS_IPV4), which may
// differ from the packet's family; "" in 23.03, whose stages match ip4 or
// ip6 instead (nextHopIs).
func nextHopFamily(rel schema.Release, v4 bool) string {
	if !marksNextHopFamily(rel) {
		return ""
	}
	if v4 {
		return regNextHopIsIPv4 + " = 1; "
	}
	return regNextHopIsIPv4 + " = 0; "
}

// nextHopIs matches packets whose next hop is of the family v4 says: the
// packet's own family in 23.03, REGBIT_NEXTHOP_IS_IPV4 in 26.03.
func nextHopIs(rel schema.Release, v4 bool) string {
	switch {
	case !marksNextHopFamily(rel):
		return "ip" + ipVersion(v4)
	case v4:
		return regNextHopIsIPv4 + " == 1"
	}
	return regNextHopIsIPv4 + " == 0"
}

// marksNextHopFamily: 26.03 routes IPv4 over IPv6 next hops (RFC 5549),
// so the routing stages record the next hop's family in a register.
func marksNextHopFamily(rel schema.Release) bool { return rel >= schema.OVN2603 }

// nextHopReg is REG_NEXT_HOP_IPV4 or REG_NEXT_HOP_IPV6.
func nextHopReg(v6 bool) string {
	if v6 {
		return "xxreg0"
	}
	return "reg0"
}

// residentPort is an is_chassis_resident() test for a port named in a NAT
// rule's logical_port: northd quotes the name as it is.
func residentPort(name string) string { return `is_chassis_resident("` + name + `")` }

// residentCR is an is_chassis_resident() test for a distributed gateway
// port's chassisredirect port.
func residentCR(d relations.DGP) string { return "is_chassis_resident(" + jsonKey(d.CRName()) + ")" }

// natRule is a NAT rule with the router-level option that changes its
// DNAT action: options:dnat_force_snat_ip on a gateway router.
type natRule struct {
	relations.NATRule
	forceSNATForDNAT bool
	release          schema.Release
	// commonZone: a distributed router SNATs and DNATs in one conntrack
	// zone; always in 23.03, with NB_Global options:use_common_zone in
	// 26.03.
	commonZone bool
	// zoneTracking: every chassis can name the zone of a conntrack commit
	// or lookup (ct_commit_to_zone, ct_next), which the separate-zone
	// flows of a distributed router's rule need.
	zoneTracking bool
	// commitAll: the router commits all its traffic (options:ct-commit-all),
	// so a distributed router's separate-zone flows are not needed.
	commitAll bool
}

// natRules joins each NAT rule with its router's dnat_force_snat_ip and,
// in 26.03, with use_common_zone and the chassis' conntrack zone features.
func natRules(nb *relations.NB) engine.Rel[natRule] {
	forced := engine.IndexBy(engine.Filter(nb.RouterForceSNATs, func(f relations.RouterForceSNAT) bool {
		return f.DNAT4 != "" || f.DNAT6 != ""
	}), func(f relations.RouterForceSNAT) string { return f.Router })
	rules := engine.IndexBy(nb.NATRules, func(r relations.NATRule) string { return r.Router })
	all := engine.Union(
		engine.Map(engine.SemiJoin(rules, forced), func(r relations.NATRule) natRule {
			return natRule{NATRule: r, forceSNATForDNAT: true, release: nb.Release, commonZone: true}
		}),
		engine.Map(engine.AntiJoin(rules, forced), func(r relations.NATRule) natRule { return natRule{NATRule: r, release: nb.Release, commonZone: true} }))
	if !natMarkNeedsCommonZone(nb.Release) {
		return all
	}
	keyed := engine.IndexBy(all, func(natRule) bool { return true })
	zoned := engine.Union(engine.SemiJoin(keyed, commonZone(nb)),
		engine.Map(engine.AntiJoin(keyed, commonZone(nb)), func(r natRule) natRule { r.commonZone = false; return r }))
	featured := engine.IndexBy(engine.Map(relations.WithFeatures(nb, zoned), func(x relations.Featured[natRule]) natRule {
		x.Of.zoneTracking = zoneTracking(x.Features)
		return x.Of
	}), func(r natRule) string { return r.Router })
	commitAll := routersCommittingAll(nb)
	return engine.Union(engine.AntiJoin(featured, commitAll),
		engine.Map(engine.SemiJoin(featured, commitAll), func(r natRule) natRule { r.commitAll = true; return r }))
}

// ipFamily is "4" or "6", as in "ip4.dst".
func (r natRule) ipFamily() string { return ipVersion(!r.V6) }

// portRange is ",RANGE" when the rule has an external_port_range.
func (r natRule) portRange() string {
	if r.NAT.ExternalPortRange == "" {
		return ""
	}
	return "," + r.NAT.ExternalPortRange
}

// resident is the is_chassis_resident() clause of a DGP rule: on the
// gateway chassis for centralized rules, on the logical port's chassis for
// distributed ones.
func (r natRule) resident() string {
	if r.Distributed {
		return residentPort(*r.NAT.LogicalPort)
	}
	return residentCR(r.DGP)
}

// natMatchPriorityOffset is where the priorities of the translation
// flows of rules with their own match start (northd.c
// NAT_PRIORITY_MATCH_OFFSET).
const natMatchPriorityOffset = 300

// priority is northd.c lrouter_nat_get_priority: a rule with its own
// match (NAT.match, 26.03) puts its translation flows at the offset plus
// its NAT.priority, above every rule without one; others keep def.
func (r natRule) priority(def int) int {
	if r.NAT.Match == "" {
		return def
	}
	return natMatchPriorityOffset + r.NAT.Priority
}

// withMatch narrows a translation flow's match by the rule's own match
// (NAT.match, 26.03), last, after the external IP filter.
func (r natRule) withMatch(match string) string {
	if r.NAT.Match == "" {
		return match
	}
	return match + " && (" + r.NAT.Match + ")"
}

// extIPMatch is northd.c lrouter_nat_add_ext_ip_match: a rule with
// allowed_ext_ips matches only those peers; one with exempted_ext_ips gets
// a flow two priorities higher that lets those peers pass untranslated.
// src tells whether the peer is the packet's source (DNAT) or its
// destination (SNAT). It returns the extended match and the exemption flow,
// if any.
func (r natRule) extIPMatch(match string, src bool, stage Stage, exemptPrio int) (string, []Flow) {
	dir := "dst"
	if src {
		dir = "src"
	}
	switch {
	case r.AllowedSet != "":
		return fmt.Sprintf("%s && ip%s.%s == $%s", match, r.ipFamily(), dir, r.AllowedSet), nil
	case r.ExemptedSet != "":
		return match, []Flow{on(r.Router).from(r.NAT.UUID).flow(stage, exemptPrio,
			fmt.Sprintf("%s && ip%s.%s == $%s", match, r.ipFamily(), dir, r.ExemptedSet), "next;")}
	}
	return match, nil
}

// RouterNATFlows: the translation flows of each NAT rule on a gateway
// router or a router with distributed gateway ports (northd.c
// build_lrouter_nat_defrag_and_lb's per-rule part: build_lrouter_in_unsnat_flow,
// build_lrouter_in_dnat_flow, build_lrouter_out_is_dnat_local,
// build_lrouter_out_undnat_flow, build_lrouter_out_snat_flow,
// build_lrouter_ingress_flow, and the lr_in_gw_redirect and lr_out_egr_loop
// flows). Replies are unSNATed before DNAT in lr_in_unsnat, new
// connections DNATed in lr_in_dnat and SNATed in lr_out_snat, DNAT replies
// unDNATed in lr_out_undnat. On a gateway router the rules use the
// router's conntrack zones; on a distributed router they apply to traffic
// through the rule's distributed gateway port, on the gateway chassis, or
// for distributed rules on the chassis of the rule's logical port, with
// its external MAC.
func RouterNATFlows(nb *relations.NB) engine.Rel[Flow] {
	admission := tableIn(nb, LRInAdmission)
	return engine.FlatMap(natRules(nb), func(r natRule) []Flow {
		var flows []Flow
		for _, f := range []func() []Flow{r.unsnatFlows, r.dnatFlows, r.undnatFlows, r.snatFlows} {
			flows = append(flows, f()...)
		}
		return append(flows, r.dgpFlows(admission)...)
	})
}

func (r natRule) hasSNAT() bool { return r.Type() != nb.NATTypeDNAT }
func (r natRule) hasDNAT() bool { return r.Type() != nb.NATTypeSNAT }

// unsnatFlows: lr_in_unsnat, replies to SNATed traffic get their
// destination translated back.
func (r natRule) unsnatFlows() []Flow {
	if !r.hasSNAT() {
		return nil
	}
	dp, ip := on(r.Router).from(r.NAT.UUID), r.ipFamily()
	if r.GW.Gateway {
		action := "ct_snat;"
		if r.Stateless() {
			action = "next;"
		}
		return []Flow{dp.flow(LRInUnSNAT, 90, fmt.Sprintf("ip && ip%s.dst == %s", ip, r.NAT.ExternalIP), action)}
	}
	resident := ""
	if !r.Distributed {
		resident = " && " + residentCR(r.DGP)
	}
	if r.release >= schema.OVN2603 {
		match := fmt.Sprintf("ip && ip%s.dst == %s && inport == %s%s", ip, r.NAT.ExternalIP, jsonKey(r.DGP.Name()), resident)
		switch {
		case r.Stateless():
			return []Flow{dp.flow(LRInUnSNAT, 100, match, "next;")}
		case !r.commonZone:
			return []Flow{dp.flow(LRInUnSNAT, 100, match, "ct_snat;")}
		}
		return []Flow{
			dp.flow(LRInUnSNAT, 100, match+" && flags.loopback == 0", "ct_snat_in_czone;"),
			dp.flow(LRInUnSNAT, 100, match+" && flags.loopback == 1 && flags.use_snat_zone == 1", "ct_snat;"),
		}
	}
	base := fmt.Sprintf("ip && ip%s.dst == %s && inport == %s && ", ip, r.NAT.ExternalIP, jsonKey(r.DGP.Name()))
	if r.Stateless() {
		return []Flow{dp.flow(LRInUnSNAT, 100, base+"flags.loopback == 0"+resident, "next;")}
	}
	return []Flow{
		dp.flow(LRInUnSNAT, 100, base+"flags.loopback == 0"+resident, "ct_snat_in_czone;"),
		dp.flow(LRInUnSNAT, 100, base+"flags.loopback == 1 && flags.use_snat_zone == 1"+resident, "ct_snat;"),
	}
}

// dnatFlows: lr_in_dnat, traffic to the external IP gets its destination
// translated to the logical IP.
func (r natRule) dnatFlows() []Flow {
	if !r.hasDNAT() {
		return nil
	}
	dp, ip := on(r.Router).from(r.NAT.UUID), r.ipFamily()
	if r.GW.Gateway {
		prio := r.priority(100)
		match, flows := r.extIPMatch(fmt.Sprintf("ip && ip%s.dst == %s", ip, r.NAT.ExternalIP), true, LRInDNAT, prio+2)
		match = r.withMatch(match)
		var actions string
		if r.forceSNATForDNAT {
			// Tell lr_out_snat to SNAT what was DNATed.
			actions = "flags.force_snat_for_dnat = 1; "
		}
		// The router may send the packet back out of its input port.
		if r.Stateless() {
			actions += fmt.Sprintf("flags.loopback = 1; ip%s.dst=%s; next;", ip, r.NAT.LogicalIP)
		} else {
			actions += fmt.Sprintf("flags.loopback = 1; ct_dnat(%s%s);", r.NAT.LogicalIP, r.portRange())
		}
		return append(flows, dp.flow(LRInDNAT, prio, match, actions))
	}
	match := fmt.Sprintf("ip && ip%s.dst == %s && inport == %s", ip, r.NAT.ExternalIP, jsonKey(r.DGP.Name()))
	if !r.Distributed {
		match += " && " + residentCR(r.DGP)
	}
	prio := r.priority(100)
	match, flows := r.extIPMatch(match, true, LRInDNAT, prio+2)
	match = r.withMatch(match)
	actions := fmt.Sprintf("%s(%s%s);", r.zoneAction("ct_dnat"), r.NAT.LogicalIP, r.portRange())
	if r.Stateless() {
		actions = fmt.Sprintf("ip%s.dst=%s; next;", ip, r.NAT.LogicalIP)
	}
	return append(flows, dp.flow(LRInDNAT, prio, match, actions))
}

// undnatFlows: lr_out_chk_dnat_local and lr_out_undnat on a distributed
// router. Traffic to the external IP on the chassis that applies the rule
// is marked as locally DNATed, and replies from the logical IP leaving
// through the gateway port get their source translated back.
func (r natRule) undnatFlows() []Flow {
	if r.GW.DGPs == 0 {
		return nil
	}
	dp, ip := on(r.Router).from(r.NAT.UUID), r.ipFamily()
	var flows []Flow
	if r.commonZone {
		flows = append(flows, dp.flow(LROutChkDNATLocal, 50, fmt.Sprintf("ip && ip%s.dst == %s && %s", ip, r.NAT.ExternalIP, r.resident()),
			regDstNATIPLocal+" = 1; next;"))
	}
	if !r.hasDNAT() {
		return flows
	}
	match := fmt.Sprintf("ip && ip%s.src == %s && outport == %s", ip, r.NAT.LogicalIP, jsonKey(r.DGP.Name()))
	if !r.Distributed {
		match += " && " + residentCR(r.DGP)
	}
	actions := r.ethSrc()
	if r.Stateless() {
		actions += "next;"
	} else {
		actions += r.zoneAction("ct_dnat") + ";"
	}
	return append(flows, dp.flow(LROutUnDNAT, 100, match, actions))
}

// zoneAction is the NAT action ct_snat or ct_dnat of a distributed
// router's rule: in the common zone (ct_snat_in_czone) when the router
// has one.
func (r natRule) zoneAction(action string) string {
	if r.commonZone {
		return action + "_in_czone"
	}
	return action
}

// ethSrc sets a distributed rule's external MAC as the source MAC.
func (r natRule) ethSrc() string {
	if !r.Distributed {
		return ""
	}
	return "eth.src = " + r.MAC.String() + "; "
}

// snatFlows: lr_out_snat, traffic from the logical IP (or network) gets
// its source translated to the external IP; the longest logical prefix
// wins. On a distributed router, traffic already DNATed on this chassis
// (reg9[4]) is SNATed in the common zone.
func (r natRule) snatFlows() []Flow {
	if !r.hasSNAT() {
		return nil
	}
	dp, ip := on(r.Router).from(r.NAT.UUID), r.ipFamily()
	if r.GW.Gateway {
		prio := r.priority(r.CIDRBits + 1)
		match, flows := r.extIPMatch(fmt.Sprintf("ip && ip%s.src == %s", ip, r.NAT.LogicalIP), false, LROutSNAT, prio+2)
		match = r.withMatch(match)
		if r.Stateless() {
			return append(flows, dp.flow(LROutSNAT, prio, match, fmt.Sprintf("ip%s.src=%s; next;", ip, r.NAT.ExternalIP)))
		}
		return append(flows, dp.flow(LROutSNAT, prio, match+" && (!ct.trk || !ct.rpl)",
			fmt.Sprintf("ct_snat(%s%s);", r.NAT.ExternalIP, r.portRange())))
	}
	prio := r.priority(r.CIDRBits + 1 + 128)
	match := fmt.Sprintf("ip && ip%s.src == %s && outport == %s && %s", ip, r.NAT.LogicalIP, jsonKey(r.DGP.Name()), r.resident())
	match, flows := r.extIPMatch(match, false, LROutSNAT, prio+2)
	match = r.withMatch(match)
	if r.Stateless() {
		return append(flows, dp.flow(LROutSNAT, prio, match, r.ethSrc()+fmt.Sprintf("ip%s.src=%s; next;", ip, r.NAT.ExternalIP)))
	}
	if !r.commonZone {
		return append(flows, r.separateZoneSNATFlows(match, prio)...)
	}
	if r.release >= schema.OVN2603 {
		match += " && (!ct.trk || !ct.rpl)"
	}
	return append(flows,
		dp.flow(LROutSNAT, prio, match, r.ethSrc()+fmt.Sprintf("ct_snat_in_czone(%s%s);", r.NAT.ExternalIP, r.portRange())),
		dp.flow(LROutSNAT, prio+1, match+" && "+regDstNATIPLocal+" == 1",
			r.ethSrc()+fmt.Sprintf("%s = 0; ct_snat(%s%s);", regDstNATIPLocal, r.NAT.ExternalIP, r.portRange())))
}

// separateZoneSNATFlows: lr_out_snat, lr_out_post_undnat and
// lr_out_post_snat for a rule on a distributed router whose SNAT and DNAT
// zones are apart (26.03 without use_common_zone; northd.c
// build_lrouter_out_snat_flow): traffic from the logical IP (match) is
// SNATed unless it is a reply, after going through the zone that a
// dnat_and_snat rule's DNAT used (snat for a SNAT rule); traffic to the
// logical IP coming in through the gateway port is translated in that
// zone and committed there when new. Only the SNAT flow names the rule
// (26.03 adds the other three with no stage-hint), and only it is written
// when some chassis cannot name a conntrack zone or the router commits all
// its traffic.
func (r natRule) separateZoneSNATFlows(match string, prio int) []Flow {
	dp, hinted, ip := on(r.Router), on(r.Router).from(r.NAT.UUID), r.ipFamily()
	match += " && (!ct.trk || !ct.rpl)"
	snat := hinted.flow(LROutSNAT, prio, match, r.ethSrc()+fmt.Sprintf("ct_snat(%s%s);", r.NAT.ExternalIP, r.portRange()))
	if !r.zoneTracking || r.commitAll {
		return []Flow{snat}
	}
	zone, offset := "snat", 0
	if r.Type() == nb.NATTypeDNATAndSNAT {
		zone, offset = "dnat", 5
	}
	reverse := fmt.Sprintf("ip && ip%s.dst == %s && inport == %s && %s", ip, r.NAT.LogicalIP, jsonKey(r.DGP.Name()), r.resident())
	// The exemption of traffic from the exempted peers goes to lr_in_dnat,
	// at the DNAT flows' priority plus two, as for DNAT.
	reverse, exempt := r.extIPMatch(reverse, true, LRInDNAT, r.priority(100)+2)
	reverse = r.withMatch(reverse)
	return append(exempt,
		snat,
		dp.flow(LROutPostUnDNAT, 70+offset, match, "ct_next("+zone+");"),
		dp.flow(LROutSNAT, prio+offset, reverse+" && (!ct.trk || !ct.rpl)", "ct_"+zone+";"),
		dp.flow(LROutPostSNAT, prio+offset, reverse+" && ct.new", "ct_commit_to_zone("+zone+");"))
}

// dgpFlows: the flows of a rule on a distributed router outside the NAT
// stages. Traffic from a SNAT external IP arriving on the gateway port
// skips the router-owned-source drop (lr_in_ip_input). For a
// distributed rule, the external MAC is admitted on the logical port's
// chassis (lr_in_admission), and traffic from the logical IP leaving
// through the gateway port is sent from there with the external MAC and
// IP (lr_in_gw_redirect). Traffic to the external IP leaving through the
// gateway port loops back into the ingress pipeline to be DNATed
// (lr_out_egr_loop).
func (r natRule) dgpFlows(admission int) []Flow {
	if r.GW.DGPs == 0 {
		return nil
	}
	dp, ip, key := on(r.Router).from(r.NAT.UUID), r.ipFamily(), jsonKey(r.DGP.Name())
	var flows []Flow
	if r.Type() == nb.NATTypeSNAT {
		flows = append(flows, dp.flow(LRInIPInput, 120, fmt.Sprintf("inport == %s && ip%s.src == %s", key, ip, r.NAT.ExternalIP), "next;"))
	}
	if r.Distributed {
		flows = append(flows, dp.flow(LRInGWRedirect, 100,
			fmt.Sprintf("ip%s.src == %s && outport == %s && %s", ip, r.NAT.LogicalIP, key, r.resident()),
			fmt.Sprintf("eth.src = %s; %s = %s; next;", *r.NAT.ExternalMAC, srcIPReg(r.release, r.V6), r.NAT.ExternalIP)))
	}
	match, actions := r.egressLoopback(admission)
	return append(flows, dp.flow(LROutEgrLoop, 100, match, actions))
}

// egressLoopback is the match and actions of a DGP rule's lr_out_egr_loop
// flow.
func (r natRule) egressLoopback(admission int) (match, actions string) {
	// The looped-back packet's unSNAT uses the SNAT zone when it was
	// DNATed locally, which only a common zone tells apart.
	useSNATZone := ""
	if r.commonZone {
		useSNATZone = "flags.use_snat_zone = " + regDstNATIPLocal + "; "
	}
	var clear strings.Builder
	for i := range 10 {
		fmt.Fprintf(&clear, "reg%d = 0; ", i)
	}
	return fmt.Sprintf("ip%s.dst == %s && outport == %s && %s", r.ipFamily(), r.NAT.ExternalIP, jsonKey(r.DGP.Name()), r.resident()),
		"clone { ct_clear; inport = outport; outport = \"\"; eth.dst <-> eth.src; flags = 0; flags.loopback = 1; " +
			useSNATZone + clear.String() + regEgressLoopback + " = 1; " +
			fmt.Sprintf("next(pipeline=ingress, table=%d); };", admission)
}

// lastNATFlowText is the match and actions of the flow that 26.03's
// build_lrouter_nat_defrag_and_lb writes last on a router with distributed
// gateway ports: the lr_out_check_dnat_local flow with a common zone, else
// the lr_out_egr_loop flow of its last rule in _uuid order. 26.03's
// build_lr_gateway_redirect_flows_for_nats builds on the buffers that
// leaves instead of its own match (natRedirectOnLastNATText).
func lastNATFlowText(nb *relations.NB) engine.Rel[engine.KV[string, [2]string]] {
	admission := tableIn(nb, LRInAdmission)
	onDGPRouters := engine.Filter(natRules(nb), func(r natRule) bool { return r.GW.DGPs > 0 })
	last := engine.Min(engine.IndexBy(onDGPRouters, func(r natRule) string { return r.Router }),
		func(a, b natRule) int { return cmp.Compare(b.NAT.UUID, a.NAT.UUID) })
	return engine.Map(last, func(kv engine.KV[string, natRule]) engine.KV[string, [2]string] {
		r := kv.Value
		if r.commonZone {
			return engine.KV[string, [2]string]{Key: kv.Key, Value: [2]string{"ip && ct_mark.natted == 1", regDstNATIPLocal + " = 1; next;"}}
		}
		match, actions := r.egressLoopback(admission)
		return engine.KV[string, [2]string]{Key: kv.Key, Value: [2]string{match, actions}}
	})
}

// DistributedNATAdmissionFlows: lr_in_admission for distributed NAT rules
// (northd.c build_lrouter_ingress_flow): packets to the rule's external
// MAC are admitted on the gateway port on the chassis of the rule's
// logical port, with the gateway port's MTU check when it has a
// gateway_mtu. With a gateway_mtu, packets to the external IP that are too
// big get an ICMP error from the external MAC and IP (lr_in_ip_input).
func DistributedNATAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	distributed := engine.IndexBy(engine.Filter(nb.NATRules, func(r relations.NATRule) bool { return r.Distributed }),
		func(r relations.NATRule) string { return r.DGP.LRP.Port.UUID })
	mtus := engine.IndexBy(nb.LRPGatewayMTUs, func(m relations.LRPGatewayMTU) string { return m.LRP.Port.UUID })
	admit := func(r relations.NATRule) (string, string) {
		return fmt.Sprintf("eth.dst == %s && inport == %s && %s", r.MAC, jsonKey(r.DGP.Name()), residentPort(*r.NAT.LogicalPort)),
			fmt.Sprintf("%s = %s; next;", regInportEthAddr, r.DGP.LRP.Net.MAC)
	}
	type ruleMTU struct {
		r relations.NATRule
		m relations.LRPGatewayMTU
	}
	withMTU := engine.FlatMap(engine.Join(distributed, mtus, func(_ string, r relations.NATRule, m relations.LRPGatewayMTU) ruleMTU {
		return ruleMTU{r, m}
	}), func(x ruleMTU) []Flow {
		match, actions := admit(x.r)
		return append(gatewayMTUFlows(nb.Release, on(x.r.Router).from(x.r.NAT.UUID), x.m, LRInAdmission, match, actions), natPktTooBig(x.r, x.m.MTU))
	})
	plain := engine.FlatMap(engine.AntiJoin(distributed, mtus), func(r relations.NATRule) []Flow {
		match, actions := admit(r)
		flows := []Flow{on(r.Router).from(r.NAT.UUID).flow(LRInAdmission, 50, match, actions)}
		// northd checks the option against zero, not above it.
		if mtu := relations.SmapInt(r.DGP.LRP.Port.Options, "gateway_mtu", 0); mtu != 0 {
			flows = append(flows, natPktTooBig(r, mtu))
		}
		return flows
	})
	return engine.Union(withMTU, plain)
}

// natPktTooBig is northd.c build_lrouter_ingress_nat_check_pkt_len: an
// ICMP "fragmentation needed" or "packet too big" error for a packet to a
// distributed rule's external IP that exceeds the gateway port's MTU.
func natPktTooBig(r relations.NATRule, mtu int) Flow {
	key := jsonKey(r.DGP.Name())
	match := fmt.Sprintf("inport == %s && %s && %s == 0", key, regPktLarger, regEgressLoopback)
	ext, extMAC := r.NAT.ExternalIP, *r.NAT.ExternalMAC
	if r.V6 {
		return on(r.Router).from(r.NAT.UUID).flow(LRInIPInput, 160, match+" && ip6 && ip6.dst == "+ext, fmt.Sprintf(
			"icmp6_error {%s = 1; %s = 0; eth.dst = eth.src; eth.src = %s; ip6.dst = ip6.src; ip6.src = %s; ip.ttl = 254; "+
				"icmp6.type = 2; /* Packet Too Big. */ icmp6.code = 0; icmp6.frag_mtu = %d; outport = %s; flags.loopback = 1; output; };",
			regEgressLoopback, regPktLarger, extMAC, ext, mtu, key))
	}
	return on(r.Router).from(r.NAT.UUID).flow(LRInIPInput, 160, match+" && ip4 && ip4.dst == "+ext, fmt.Sprintf(
		"icmp4_error {%s = 1; %s = 0; eth.dst = eth.src; eth.src = %s; ip4.dst = ip4.src; ip4.src = %s; ip.ttl = 254; "+
			"icmp4.type = 3; /* Destination Unreachable. */ icmp4.code = 4; /* Frag Needed and DF was Set. */ "+
			"icmp4.frag_mtu = %d; outport = %s; flags.loopback = 1; output; };",
		regEgressLoopback, regPktLarger, extMAC, ext, mtu, key))
}

// DistributedNATVirtualPortFlows: lr_in_gw_redirect, priority 80 (northd.c
// build_lrouter_nat_defrag_and_lb): traffic of a distributed NAT rule
// whose logical port is a virtual port is dropped until a parent claims
// the port, lest it be centralized and mislead the top-of-rack switch.
func DistributedNATVirtualPortFlows(nb *relations.NB) engine.Rel[Flow] {
	virtual := nb.PortsOnSwitchesOfType(relations.LSPTypeVirtual)
	distributed := engine.Filter(nb.NATRules, func(r relations.NATRule) bool { return r.Distributed })
	return engine.Join(
		engine.IndexBy(distributed, func(r relations.NATRule) string { return *r.NAT.LogicalPort }),
		engine.IndexBy(virtual, func(sp relations.SwitchPort) string { return sp.Port.Name }),
		func(_ string, r relations.NATRule, _ relations.SwitchPort) Flow {
			return on(r.Router).from(r.NAT.UUID).flow(LRInGWRedirect, 80,
				fmt.Sprintf("ip%s.src == %s && outport == %s", ipVersion(!r.V6), r.NAT.LogicalIP, jsonKey(r.DGP.Name())), drop)
		})
}

// natIP is a NAT rule's external IP on a router, as written.
type natIP struct{ Router, IP string }

// DistributedNATNeighborFlows: lr_in_arp_resolve for the external IPs of
// NAT rules on a distributed router (northd.c
// build_lrouter_nat_defrag_and_lb), from the first rule (in _uuid order)
// with each external IP, hinted by any rule of that IP: traffic that came in on the gateway port and is
// still addressed to the external IP after unSNAT and DNAT is dropped to
// avoid a loop; traffic from other ports to the external IP resolves to
// the rule's external MAC or the gateway port's MAC, for east-west NAT.
// With a bridged redirect, a distributed rule's traffic looks its next hop
// up on the logical port's chassis.
func DistributedNATNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	dgpRules := engine.Filter(nb.NATRules, func(r relations.NATRule) bool { return !r.GW.Gateway })
	return engine.GroupBy(engine.IndexBy(dgpRules, func(r relations.NATRule) natIP { return natIP{r.Router, r.NAT.ExternalIP} }),
		func(_ natIP, rs []relations.NATRule) []Flow {
			first := slices.MinFunc(rs, func(a, b relations.NATRule) int { return cmp.Compare(a.NAT.UUID, b.NAT.UUID) })
			// Any rule of the address may name the flows: the SB row keeps
			// the hint of the rule that made it first (23.03 rewrites a
			// row's hint only when its northd version changes), which the
			// order of NB changes tells, not the NB.
			var flows []Flow
			for _, r := range rs {
				flows = append(flows, natNeighborFlows(first, on(first.Router).from(r.NAT.UUID))...)
			}
			return flows
		})
}

// natNeighborFlows are DistributedNATNeighborFlows' flows of rule r on dp.
func natNeighborFlows(r relations.NATRule, dp onRow) []Flow {
	key, ip := jsonKey(r.DGP.Name()), ipVersion(!r.V6)
	mac := r.DGP.LRP.Net.MAC.String()
	if r.Distributed {
		mac = *r.NAT.ExternalMAC
	}
	flows := []Flow{
		dp.flow(LRInARPResolve, 150, fmt.Sprintf("inport == %s && outport == %s && ip%s.dst == %s", key, key, ip, r.NAT.ExternalIP), drop),
		dp.flow(LRInARPResolve, 100, fmt.Sprintf("outport == %s && %s == %s", key, nextHopReg(r.V6), r.NAT.ExternalIP),
			"eth.dst = "+mac+"; next;"),
	}
	if r.GW.RedirectBridged && r.Distributed {
		lookup := "get_arp(outport, reg0); next;"
		if r.V6 {
			lookup = "get_nd(outport, xxreg0); next;"
		}
		flows = append(flows, dp.flow(LRInARPResolve, 90,
			fmt.Sprintf("outport == %s && ip%s.src == %s && %s", jsonKey(r.GW.FirstDGP), ip, r.NAT.LogicalIP, residentPort(*r.NAT.LogicalPort)),
			lookup))
	}
	return flows
}

// RouterNATStatefulFlows: the router-wide NAT flows (northd.c
// build_lrouter_nat_defrag_and_lb). On a gateway router with NAT rules,
// every IP packet but ND goes through the DNAT zone in lr_out_undnat so
// replies to DNATed connections are unDNATed (GatewayRouterCommitFlows
// commits new ones). On any router where NAT applies,
// NATed connections are marked locally DNATed (lr_out_chk_dnat_local);
// in 26.03 only when SNAT and DNAT share a zone (commonZoneMarks).
func RouterNATStatefulFlows(nb *relations.NB) engine.Rel[Flow] {
	withNAT := engine.IndexBy(engine.Distinct(engine.Map(nb.RouterNATs, func(r relations.RouterNAT) string { return r.Router })),
		func(r string) string { return r })
	capable := engine.IndexBy(engine.Filter(nb.RouterGateways, relations.RouterGateway.NATCapable),
		func(g relations.RouterGateway) string { return g.Router })
	routers := relations.WithFeatures(nb, engine.SemiJoin(capable, withNAT))
	marking := routers
	if natMarkNeedsCommonZone(nb.Release) {
		marking = engine.SemiJoin(engine.IndexBy(routers, func(relations.Featured[relations.RouterGateway]) bool { return true }),
			commonZone(nb))
	}
	marks := engine.Map(marking, func(x relations.Featured[relations.RouterGateway]) Flow {
		return on(x.Of.Router).from(x.Of.Router).flow(LROutChkDNATLocal, 50, "ip && "+ctBits(x.Features)+".natted == 1", regDstNATIPLocal+" = 1; next;")
	})
	return engine.Union(marks, engine.FlatMap(routers, func(x relations.Featured[relations.RouterGateway]) []Flow {
		g, dp := x.Of, on(x.Of.Router)
		var flows []Flow
		if g.Gateway {
			flows = append(flows,
				dp.flow(LROutUnDNAT, 100, "nd || nd_rs || nd_ra", "next;"),
				dp.flow(LROutUnDNAT, 50, "ip", "flags.loopback = 1; ct_dnat;"))
		}
		return flows
	}))
}

// natMarkNeedsCommonZone: 26.03 marks NATed connections as DNATed locally
// only where SNAT and DNAT share a conntrack zone (NB_Global
// options:use_common_zone).
func natMarkNeedsCommonZone(rel schema.Release) bool { return rel >= schema.OVN2603 }

// commonZone holds true, under the key true, while NB_Global has
// options:use_common_zone.
func commonZone(n *relations.NB) engine.Index[bool, bool] {
	set := engine.FlatMap(n.Global.Rows, func(g *nb.NBGlobal) []bool {
		if relations.SmapBool(g.Options, "use_common_zone", false) {
			return []bool{true}
		}
		return nil
	})
	return engine.IndexBy(set, func(b bool) bool { return b })
}

// RouterDNATForceSNATFlows: lr_in_unsnat priority 110 and lr_out_snat
// priority 100 on a gateway router with options:dnat_force_snat_ip
// (northd.c build_lrouter_force_snat_flows): DNATed traffic is SNATed to
// the address of its family, and traffic to that address unSNATed.
func RouterDNATForceSNATFlows(nb *relations.NB) engine.Rel[Flow] {
	gateway := engine.IndexBy(engine.Filter(nb.RouterGateways, func(g relations.RouterGateway) bool { return g.Gateway }),
		func(g relations.RouterGateway) string { return g.Router })
	forced := engine.SemiJoin(engine.IndexBy(nb.RouterForceSNATs, func(f relations.RouterForceSNAT) string { return f.Router }), gateway)
	return engine.FlatMap(forced, func(f relations.RouterForceSNAT) []Flow {
		dp := on(f.Router)
		var flows []Flow
		for _, a := range []struct{ ver, ip string }{{"4", f.DNAT4}, {"6", f.DNAT6}} {
			if a.ip != "" {
				flows = append(flows,
					dp.flow(LRInUnSNAT, 110, fmt.Sprintf("ip%s && ip%s.dst == %s", a.ver, a.ver, a.ip), "ct_snat;"),
					dp.flow(LROutSNAT, 100, "flags.force_snat_for_dnat == 1 && ip"+a.ver, "ct_snat("+a.ip+");"))
			}
		}
		return flows
	})
}

// routerNATRules are the gateway router, distributed gateway port and NAT
// flow families.
var routerNATRules = []Rule{
	RouterNATFlows,
	DistributedNATAdmissionFlows,
	DistributedNATVirtualPortFlows,
	DistributedNATNeighborFlows,
	RouterNATStatefulFlows,
	GatewayRouterCommitFlows, // lr_ct_commit_all.go
	RouterCommitAllFlows,
	RouterNATResponderFlows,
	DGPNATResponderFlows,
	RouterPortOwnIPFlows,
	RouterGatewayRedirectFlows,
	DGPBridgedNeighborFlows,
	DGPRouterPortARPReplyFlows,
	DGPAdmissionFlows,
	RouterDNATForceSNATFlows,
	RoutableNATFlows,
}
