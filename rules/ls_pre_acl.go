package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// SwitchPreACLFlows: ls_in_pre_acl and ls_out_pre_acl, the per-switch
// flows (northd.c build_pre_acls). Packets go on by default; a switch with
// an allow-related ACL sends IP traffic to conntrack (reg0[0], defragment
// and track) except the ND/MLD/DHCPv6 and multicast packets conntrack
// cannot follow. Service monitor packets never go to conntrack.
func SwitchPreACLFlows(nb *relations.NB) engine.Rel[Flow] {
	pmtu := tunnelPMTUAdmission(nb)
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
		if pmtu {
			// Tunnelled "packet too big" errors are not tracked.
			flows = append(flows, dp.flow(LSInPreACL, 110, packetTooBig+" && flags.tunnel_rx == 1", "next;"))
		}
		const noCT = "nd || nd_rs || nd_ra || mldv1 || mldv2 || (udp && udp.src == 546 && udp.dst == 547)"
		for _, st := range []Stage{LSInPreACL, LSOutPreACL} {
			flows = append(flows,
				dp.flow(st, 110, noCT, "next;"),
				dp.flow(st, 100, "ip", regConntrackDefrag+" = 1; next;"))
			// Translated ACL matches need multicast tracked too.
			if !f.ACLCTTranslation {
				flows = append(flows, dp.flow(st, 110, "eth.mcast", "next;"))
			}
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
	// With aclVerdicts, a new connection (or a blocked one that may be
	// allowed again) is committed whatever ACL allows it.
	commit := ""
	if aclVerdicts(nb) {
		commit = regConntrackCommit + " = 1; "
	}
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
			blocked := ctBits(f.Features) + ".blocked"
			flows = append(flows,
				dp.flow(st, 7, "ct.new && !ct.est", regACLHintAllowNew+" = 1; "+regACLHintDrop+" = 1; "+commit+"next;"),
				dp.flow(st, 6, "!ct.new && ct.est && !ct.rpl && "+blocked+" == 1", regACLHintAllowNew+" = 1; "+regACLHintDrop+" = 1; "+commit+"next;"),
				dp.flow(st, 5, "!ct.trk", regACLHintAllow+" = 1; "+regACLHintDrop+" = 1; next;"),
				dp.flow(st, 4, "!ct.new && ct.est && !ct.rpl && "+blocked+" == 0", regACLHintAllow+" = 1; "+regACLHintBlock+" = 1; next;"),
				dp.flow(st, 3, "!ct.est", regACLHintDrop+" = 1; next;"),
				dp.flow(st, 2, "ct.est && "+blocked+" == 1", regACLHintDrop+" = 1; next;"),
				dp.flow(st, 1, "ct.est && "+blocked+" == 0", regACLHintBlock+" = 1; next;"))
		}
		return flows
	})
}
