package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// Registers of the switch conntrack stages (northd.c REGBIT_* and REG_*).
const (
	regConntrackDefrag = "reg0[0]"
	regConntrackCommit = "reg0[1]"
	regConntrackNAT    = "reg0[2]"
	regACLHintAllowNew = "reg0[7]"
	regACLHintAllow    = "reg0[8]"
	regACLHintDrop     = "reg0[9]"
	regACLHintBlock    = "reg0[10]"
	regACLLabel        = "reg0[13]"
	regACLStateless    = "reg0[16]"
	regACLHintAllowRel = "reg0[17]"
	regLabel           = "reg3"
)

// ipv6CTOmitMatch is northd's IPV6_CT_OMIT_MATCH: IPv6 service protocols
// that conntrack does not track well, so ACLs always let them through.
const ipv6CTOmitMatch = "nd || nd_ra || nd_rs || mldv1 || mldv2"

// maxPriority is UINT16_MAX, the highest logical flow priority.
const maxPriority = 65535

// SwitchPreACLFlows: ls_in_pre_acl and ls_out_pre_acl, the per-switch
// flows (northd.c build_pre_acls). Packets go on by default; a switch with
// an allow-related ACL sends IP traffic to conntrack (reg0[0], defragment
// and track) except the ND/MLD/DHCPv6 and multicast packets conntrack
// cannot follow. Service monitor packets never go to conntrack.
func SwitchPreACLFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchACLFacts, func(f relations.SwitchACLFacts) []Flow {
		dp := on(f.Switch)
		flows := []Flow{
			dp.flow(LSInPreACL, 0, "1", "next;"),
			dp.flow(LSOutPreACL, 0, "1", "next;"),
			dp.flow(LSInPreACL, 110, "eth.dst == $svc_monitor_mac", "next;"),
			dp.flow(LSOutPreACL, 110, "eth.src == $svc_monitor_mac", "next;"),
		}
		if !f.HasStatefulACL {
			return flows
		}
		const noCT = "nd || nd_rs || nd_ra || mldv1 || mldv2 || (udp && udp.src == 546 && udp.dst == 547)"
		for _, st := range []Stage{LSInPreACL, LSOutPreACL} {
			flows = append(flows,
				dp.flow(st, 110, noCT, "next;"),
				dp.flow(st, 110, "eth.mcast", "next;"),
				dp.flow(st, 100, "ip", regConntrackDefrag+" = 1; next;"))
		}
		return flows
	})
}

// SwitchACLHintFlows: ls_in_acl_hint and ls_out_acl_hint (northd.c
// build_acl_hints). On a switch with ACLs or load balancers the hints
// record, from the conntrack state, which kinds of ACL flows a packet may
// hit (reg0[7..10]), so the ACL stage matches registers rather than ct
// flags; elsewhere the stage is skipped at the highest priority.
func SwitchACLHintFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchACLFacts, func(f relations.SwitchACLFacts) []Flow {
		dp := on(f.Switch)
		var flows []Flow
		for _, st := range []Stage{LSInACLHint, LSOutACLHint} {
			if !f.HasACLs && !f.HasLBVIP {
				flows = append(flows, dp.flow(st, maxPriority, "1", "next;"))
			} else {
				flows = append(flows, dp.flow(st, 0, "1", "next;"))
			}
			if !f.Stateful() {
				continue
			}
			flows = append(flows,
				dp.flow(st, 7, "ct.new && !ct.est", regACLHintAllowNew+" = 1; "+regACLHintDrop+" = 1; next;"),
				dp.flow(st, 6, "!ct.new && ct.est && !ct.rpl && ct_mark.blocked == 1", regACLHintAllowNew+" = 1; "+regACLHintDrop+" = 1; next;"),
				dp.flow(st, 5, "!ct.trk", regACLHintAllow+" = 1; "+regACLHintDrop+" = 1; next;"),
				dp.flow(st, 4, "!ct.new && ct.est && !ct.rpl && ct_mark.blocked == 0", regACLHintAllow+" = 1; "+regACLHintBlock+" = 1; next;"),
				dp.flow(st, 3, "!ct.est", regACLHintDrop+" = 1; next;"),
				dp.flow(st, 2, "ct.est && ct_mark.blocked == 1", regACLHintDrop+" = 1; next;"),
				dp.flow(st, 1, "ct.est && ct_mark.blocked == 0", regACLHintBlock+" = 1; next;"))
		}
		return flows
	})
}

// SwitchACLDefaultFlows: ls_in_acl, ls_out_acl and ls_in_acl_after_lb, the
// flows a switch has whatever its ACLs (northd.c build_acls, before and
// after the per-ACL flows). Without ACLs or load balancers the stages are
// skipped. With ACLs, what no ACL matches is allowed, or dropped under
// NB_Global default_acl_drop. A stateful switch commits new connections,
// drops invalid ones and those marked blocked in the reply direction, and
// lets replies and related traffic of allowed connections through above
// any ACL priority.
func SwitchACLDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchACLFacts, func(f relations.SwitchACLFacts) []Flow {
		dp := on(f.Switch)
		var flows []Flow
		switch {
		case !f.HasACLs && !f.HasLBVIP:
			flows = append(flows,
				dp.flow(LSInACL, maxPriority, "1", "next;"),
				dp.flow(LSOutACL, maxPriority, "1", "next;"),
				dp.flow(LSInACLAfterLB, 0, "1", "next;"))
		case !f.HasACLs:
			flows = append(flows,
				dp.flow(LSInACL, 0, "1", "next;"),
				dp.flow(LSOutACL, 0, "1", "next;"),
				dp.flow(LSInACLAfterLB, 0, "1", "next;"))
		default:
			action := "next;"
			if f.DefaultACLDrop {
				action = drop
			}
			flows = append(flows,
				dp.flow(LSInACL, 0, "1", action),
				dp.flow(LSOutACL, 0, "1", action),
				dp.flow(LSInACLAfterLB, 0, "1", action))
		}
		if f.Stateful() {
			flows = append(flows, statefulACLFlows(dp, f)...)
		}
		for _, st := range []Stage{LSInACL, LSOutACL, LSInACLAfterLB} {
			flows = append(flows, dp.flow(st, maxPriority-3, ipv6CTOmitMatch, "next;"))
		}
		if f.HasACLs || f.HasLBVIP {
			// Service monitor probes and their replies skip the ACLs.
			flows = append(flows,
				dp.flow(LSInACL, 34000, "eth.dst == $svc_monitor_mac", "next;"),
				dp.flow(LSOutACL, 34000, "eth.src == $svc_monitor_mac", "next;"))
		}
		return flows
	})
}

// statefulACLFlows are the conntrack flows of ls_in_acl, ls_out_acl and
// ls_in_acl_after_lb on a switch with stateful ACLs or load balancers.
func statefulACLFlows(dp on, f relations.SwitchACLFacts) []Flow {
	commit := regConntrackCommit + " = 1; next;"
	newConn := commit
	if f.DefaultACLDrop {
		newConn = drop
	}
	inv, notInv := "", ""
	if f.UseCtInvMatch {
		inv, notInv = "ct.inv || ", " && !ct.inv"
	}
	invalid := inv + "(ct.est && ct.rpl && ct_mark.blocked == 1)"
	reply := fmt.Sprintf("ct.est && !ct.rel && !ct.new%s && ct.rpl && ct_mark.blocked == 0", notInv)
	related := fmt.Sprintf("!ct.est && ct.rel && !ct.new%s && ct_mark.blocked == 0", notInv)
	return []Flow{
		// A connection marked blocked that policy allows again is recommitted.
		dp.flow(LSInACL, 1, "ip && ct.est && ct_mark.blocked == 1", commit),
		dp.flow(LSOutACL, 1, "ip && ct.est && ct_mark.blocked == 1", commit),
		dp.flow(LSInACL, 1, "ip && !ct.est", newConn),
		dp.flow(LSOutACL, 1, "ip && !ct.est", newConn),
		dp.flow(LSInACL, maxPriority-3, invalid, drop),
		dp.flow(LSOutACL, maxPriority-3, invalid, drop),
		dp.flow(LSInACL, maxPriority-3, reply,
			regACLHintDrop+" = 0; "+regACLHintBlock+" = 0; "+regACLHintAllowRel+" = 1; next;"),
		dp.flow(LSOutACL, maxPriority-3, reply, "next;"),
		dp.flow(LSInACL, maxPriority-3, related, regACLHintAllowRel+" = 1; ct_commit_nat;"),
		dp.flow(LSOutACL, maxPriority-3, related, "ct_commit_nat;"),
		dp.flow(LSInACLAfterLB, maxPriority-3, regACLHintAllowRel+" == 1", "next;"),
	}
}

// switchStatefulRules are the switch flow families of the conntrack stages
// (pre-ACL to stateful) and of DHCP and DNS.
var switchStatefulRules = []Rule{
	SwitchPreACLFlows,
	SwitchACLHintFlows,
	SwitchACLDefaultFlows,
	SwitchPreLBFlows,
	SwitchConntrackSkipFlows,
	SwitchLBDefaultFlows,
	SwitchHairpinFlows,
	SwitchPreStatefulFlows,
	SwitchStatefulFlows,
	SwitchQoSFlows,
	SwitchDHCPDNSDefaultFlows,
	SwitchDHCPFlows,
	SwitchDHCPReplyACLFlows,
	SwitchDNSFlows,
}

// switchFactsBySwitch arranges the switch ACL facts by switch, for rules
// that join per-port tuples to their switch's facts.
func switchFactsBySwitch(nb *relations.NB) engine.Index[string, relations.SwitchACLFacts] {
	return engine.IndexBy(nb.SwitchACLFacts, func(f relations.SwitchACLFacts) string { return f.Switch })
}
