package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// SwitchPreStatefulFlows: ls_in_pre_stateful and ls_out_pre_stateful, the
// per-switch flows (northd.c build_pre_stateful): packets the earlier stages
// marked go to conntrack, with load-balancer NAT (reg0[2], ct_lb_mark or
// ct_lb) or for tracking and defragmentation only (reg0[0], ct_next).
func SwitchPreStatefulFlows(nb *relations.NB) engine.Rel[Flow] {
	frag := lbFragments(nb)
	return engine.FlatMap(relations.WithFeatures(nb, nb.SwitchDatapaths), func(sw relations.Featured[relations.Switch]) []Flow {
		dp := on(sw.Of.UUID)
		var flows []Flow
		if frag {
			flows = append(flows, dp.flow(LSInPreStateful, 115, regConntrackNAT+" == 1 && ip.is_frag", regIPFrag+" = 1; "+ctLB(sw.Features)+";"))
		}
		for _, st := range []Stage{LSInPreStateful, LSOutPreStateful} {
			flows = append(flows,
				dp.flow(st, 0, "1", "next;"),
				dp.flow(st, 110, regConntrackNAT+" == 1", ctLB(sw.Features)+";"),
				dp.flow(st, 100, regConntrackDefrag+" == 1", "ct_next;"))
		}
		return flows
	})
}

// SwitchStatefulFlows: ls_in_stateful and ls_out_stateful, the per-switch
// flows (northd.c build_stateful): connections the ACL stages asked to
// commit (reg0[1]) are committed unblocked, with the ACL label from reg3
// when an ACL set one (reg0[13]).
func SwitchStatefulFlows(nb *relations.NB) engine.Rel[Flow] {
	if aclVerdicts(nb) {
		return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow { return aclStateCommits(on(sw.UUID)) })
	}
	return engine.FlatMap(relations.WithFeatures(nb, nb.SwitchDatapaths), func(sw relations.Featured[relations.Switch]) []Flow {
		dp := on(sw.Of.UUID)
		blocked := ctBits(sw.Features) + ".blocked"
		var flows []Flow
		for _, st := range []Stage{LSInStateful, LSOutStateful} {
			flows = append(flows,
				dp.flow(st, 0, "1", "next;"),
				dp.flow(st, 100, regConntrackCommit+" == 1 && "+regACLLabel+" == 1",
					"ct_commit { "+blocked+" = 0; ct_label.label = "+regLabel+"; }; next;"),
				dp.flow(st, 100, regConntrackCommit+" == 1 && "+regACLLabel+" == 0",
					"ct_commit { "+blocked+" = 0; }; next;"))
		}
		return flows
	})
}

// aclStateCommits are SwitchStatefulFlows with aclVerdicts: the commit
// also records whether the ACL persists established connections (reg0[20])
// and its ID (reg2[16..31]), a labelled ACL's observation stage, collector
// and point, and the connection's network function group (reg8[21],
// reg0[22..29]), if any.
func aclStateCommits(dp on) []Flow {
	const (
		acl        = "ct_mark.blocked = 0; ct_mark.allow_established = reg0[20]; "
		obs        = "ct_mark.obs_stage = reg8[19..20]; ct_mark.obs_collector_id = reg8[8..15]; ct_label.obs_point_id = reg9; "
		id         = "ct_label.acl_id = reg2[16..31]; "
		noNF       = "ct_label.nf = 0; ct_label.nf_id = 0; "
		nf         = "ct_label.nf = 1; ct_label.nf_id = " + regNFGroupID + "; "
		labelled   = regConntrackCommit + " == 1 && " + regACLLabel + " == 1"
		unlabelled = regConntrackCommit + " == 1 && " + regACLLabel + " == 0"
		withNF     = " && " + regNFEnabled + " == 1"
	)
	var flows []Flow
	for _, st := range []Stage{LSInStateful, LSOutStateful} {
		flows = append(flows,
			dp.flow(st, 0, "1", "next;"),
			dp.flow(st, 100, labelled, "ct_commit { "+acl+obs+id+noNF+"}; next;"),
			dp.flow(st, 100, unlabelled, "ct_commit { "+acl+id+noNF+"}; next;"),
			dp.flow(st, 110, unlabelled+withNF, "ct_commit { "+acl+id+nf+"}; next;"),
			dp.flow(st, 110, labelled+withNF, "ct_commit { "+acl+obs+id+nf+"}; next;"))
	}
	return flows
}
