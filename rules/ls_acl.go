package rules

import (
	"fmt"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
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

	// 26.03's ACL verdicts, set in the eval stages and acted on in the
	// action stages (aclVerdicts), and the registers the stateful stage
	// commits to conntrack.
	regACLVerdictAllow  = "reg8[16]"
	regACLVerdictDrop   = "reg8[17]"
	regACLVerdictReject = "reg8[18]"
	regACLHintPersisted = "reg0[21]"
	regACLPersistID     = "reg0[20]"
	regACLID            = "reg2[16..31]"
	regNFEnabled        = "reg8[21]"
	regNFOrigDir        = "reg8[22]"
	regNFLoopback       = "reg8[23]"
	regNFGroupID        = "reg0[22..29]"
	regACLTier          = "reg8[30..31]"

	// 26.03's ACL sampling: the observation points and collectors of new
	// and established traffic, and the ACL stage that observed it.
	regObsPointNew     = "reg3"
	regObsPointEst     = "reg9"
	regObsCollectorNew = "reg8[0..7]"
	regObsCollectorEst = "reg8[8..15]"
	regACLObsStage     = "reg8[19..20]"
)

// aclVerdicts: 26.03 splits each ACL stage in three (northd.c build_acls,
// consider_acl, build_acl_action_lflows): eval, where the ACLs set a
// verdict bit (allow, drop or reject) and the conntrack defaults decide
// as before; sample, for ACL sampling; and action, which acts on the
// verdict and applies the default (NB_Global default_acl_drop) when no
// ACL matched. The ACL stages' registers carry the network function
// (reg8[21]) of replies too.
func aclVerdicts(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// aclStages are the stages of ingress ACLs before and after load
// balancing and of egress ACLs: those where ACLs decide (ls_in_acl...;
// ls_in_acl_eval... with aclVerdicts).
type aclStages struct{ in, afterLB, out Stage }

func aclStagesOf(nb *relations.NB) aclStages {
	if aclVerdicts(nb) {
		return aclStages{LSInACLEval, LSInACLAfterLBEval, LSOutACLEval}
	}
	return aclStages{LSInACL, LSInACLAfterLB, LSOutACL}
}

// observation is the observation stage of stage s that a labelled ACL
// records (northd.c enum acl_observation_stage).
func (st aclStages) observation(s Stage) int {
	switch s {
	case st.afterLB:
		return 1
	case st.out:
		return 2
	}
	return 0
}

// of is the stage of ACL a.
func (st aclStages) of(a *nb.ACL) Stage {
	switch relations.StageOfACL(a) {
	case relations.ACLEgress:
		return st.out
	case relations.ACLIngressAfterLB:
		return st.afterLB
	}
	return st.in
}

// ipv6CTOmitMatch is northd's IPV6_CT_OMIT_MATCH: IPv6 service protocols
// that conntrack does not track well, so ACLs always let them through.
const ipv6CTOmitMatch = "nd || nd_ra || nd_rs || mldv1 || mldv2"

// maxPriority is UINT16_MAX, the highest logical flow priority.
const maxPriority = 65535

// SwitchACLDefaultFlows: ls_in_acl, ls_out_acl and ls_in_acl_after_lb, the
// flows a switch has whatever its ACLs (northd.c build_acls, before and
// after the per-ACL flows). Without ACLs or load balancers the stages are
// skipped. With ACLs, what no ACL matches is allowed, or dropped under
// NB_Global default_acl_drop. A stateful switch commits new connections,
// drops invalid ones and those marked blocked in the reply direction, and
// lets replies and related traffic of allowed connections through above
// any ACL priority.
func SwitchACLDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	if aclVerdicts(nb) {
		t := StagesFor(nb)
		return engine.FlatMap(nb.SwitchACLFacts, func(f relations.SwitchACLFacts) []Flow { return aclVerdictDefaultFlows(t, f) })
	}
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
	blocked := ctBits(f.Features) + ".blocked"
	invalid := inv + "(ct.est && ct.rpl && " + blocked + " == 1)"
	reply := fmt.Sprintf("ct.est && !ct.rel && !ct.new%s && ct.rpl && %s == 0", notInv, blocked)
	related := fmt.Sprintf("!ct.est && ct.rel && !ct.new%s && %s == 0", notInv, blocked)
	// Related traffic is NATed as its connection only where every chassis
	// can (ct_lb_related).
	relatedIn, relatedOut := regACLHintAllowRel+" = 1; next;", "next;"
	if f.Features.CTLBRelated {
		relatedIn, relatedOut = regACLHintAllowRel+" = 1; ct_commit_nat;", "ct_commit_nat;"
	}
	return []Flow{
		// A connection marked blocked that policy allows again is recommitted.
		dp.flow(LSInACL, 1, "ip && ct.est && "+blocked+" == 1", commit),
		dp.flow(LSOutACL, 1, "ip && ct.est && "+blocked+" == 1", commit),
		dp.flow(LSInACL, 1, "ip && !ct.est", newConn),
		dp.flow(LSOutACL, 1, "ip && !ct.est", newConn),
		dp.flow(LSInACL, maxPriority-3, invalid, drop),
		dp.flow(LSOutACL, maxPriority-3, invalid, drop),
		dp.flow(LSInACL, maxPriority-3, reply,
			regACLHintDrop+" = 0; "+regACLHintBlock+" = 0; "+regACLHintAllowRel+" = 1; next;"),
		dp.flow(LSOutACL, maxPriority-3, reply, "next;"),
		dp.flow(LSInACL, maxPriority-3, related, relatedIn),
		dp.flow(LSOutACL, maxPriority-3, related, relatedOut),
		dp.flow(LSInACLAfterLB, maxPriority-3, regACLHintAllowRel+" == 1", "next;"),
	}
}

// aclVerdictDefaultFlows are SwitchACLDefaultFlows with aclVerdicts: the
// eval stages pass what no ACL matched (or skip the ACLs altogether on a
// switch with neither ACLs nor load balancers), the conntrack defaults set
// verdicts, and the action stages act on them.
func aclVerdictDefaultFlows(t *StageTable, f relations.SwitchACLFacts) []Flow {
	dp := on(f.Switch)
	allow := regACLVerdictAllow + " = 1; next;"
	var flows []Flow
	if !f.HasACLs && !f.HasLBVIP {
		flows = append(flows,
			dp.flow(LSInACLEval, maxPriority, "1", "next;"),
			dp.flow(LSOutACLEval, maxPriority, "1", "next;"))
	} else {
		flows = append(flows,
			dp.flow(LSInACLEval, 0, "1", "next;"),
			dp.flow(LSOutACLEval, 0, "1", "next;"))
	}
	flows = append(flows, dp.flow(LSInACLAfterLBEval, 0, "1", "next;"))
	if f.Stateful() {
		invalid := "(ct.est && ct.rpl && ct_mark.blocked == 1)"
		// With enable-stateless-acl-with-lb, traffic that skipped
		// conntrack on the way in is not invalid on the way out.
		if f.UseCtInvMatch && !f.StatelessACLWithLB {
			invalid = "ct.inv || " + invalid
		}
		const (
			reply   = "ct.est && !ct.rel && ct.rpl && ct_mark.blocked == 0"
			related = "!ct.est && ct.rel && !ct.new && ct_mark.blocked == 0"
			persist = "ct.est && ct_mark.allow_established == 1"
		)
		nf := regNFEnabled + " = ct_label.nf; "
		for _, st := range []Stage{LSInACLEval, LSOutACLEval} {
			// What is flagged only in the ingress pipeline tells the
			// after-LB stage that the connection was allowed already.
			hintReply, hintRelated, hintPersist := "", "", ""
			if st == LSInACLEval {
				hintReply = regACLHintDrop + " = 0; " + regACLHintBlock + " = 0; " + regACLHintAllowRel + " = 1; "
				hintRelated = regACLHintAllowRel + " = 1; "
				hintPersist = regACLHintPersisted + " = 1; "
			}
			flows = append(flows,
				// A connection marked blocked that policy allows again is
				// recommitted by the stateful stage.
				dp.flow(st, 1, "ip && ct.est && ct_mark.blocked == 1", allow),
				dp.flow(st, 1, "ip && !ct.est", "next;"),
				dp.flow(st, maxPriority-3, invalid, regACLVerdictDrop+" = 1; next;"),
				dp.flow(st, maxPriority-3, reply, hintReply+nf+allow),
				dp.flow(st, maxPriority-3, related, hintRelated+nf+regACLVerdictAllow+" = 1; ct_commit_nat;"),
				dp.flow(st, maxPriority-3, persist, hintPersist+nf+allow))
		}
		flows = append(flows,
			dp.flow(LSInACLAfterLBEval, maxPriority-3, regACLHintAllowRel+" == 1", allow),
			dp.flow(LSInACLAfterLBEval, maxPriority-3, regACLHintPersisted+" == 1", allow))
	}
	for _, st := range []Stage{LSInACLEval, LSOutACLEval, LSInACLAfterLBEval} {
		flows = append(flows, dp.flow(st, maxPriority-3, ipv6CTOmitMatch, allow))
	}
	for _, st := range []Stage{LSInACLSample, LSOutACLSample, LSInACLAfterLBSample} {
		flows = append(flows, dp.flow(st, 0, "1", "next;"))
	}
	if f.HasACLs || f.HasLBVIP {
		// Service monitor probes and their replies skip the ACLs.
		flows = append(flows,
			dp.flow(LSInACLEval, 34000, "eth.dst == $svc_monitor_mac", allow),
			dp.flow(LSOutACLEval, 34000, "eth.src == $svc_monitor_mac", allow))
	}
	const clearVerdict = regACLVerdictAllow + " = 0; " + regACLVerdictDrop + " = 0; " + regACLVerdictReject + " = 0; "
	for _, s := range []struct {
		action, eval Stage
		tiers        int
	}{
		{LSInACLAction, LSInACLEval, f.MaxTiers[relations.ACLIngress]},
		{LSInACLAfterLBAction, LSInACLAfterLBEval, f.MaxTiers[relations.ACLIngressAfterLB]},
		{LSOutACLAction, LSOutACLEval, f.MaxTiers[relations.ACLEgress]},
	} {
		st := s.action
		if !f.HasACLs {
			flows = append(flows, dp.flow(st, 0, "1", "next;"))
			continue
		}
		otherwise := "next;"
		if f.DefaultACLDrop {
			otherwise = implicitDrop
		}
		clear := clearVerdict
		if s.tiers > 0 {
			clear += regACLTier + " = 0; "
		}
		flows = append(flows,
			dp.flow(st, 1000, regACLVerdictAllow+" == 1", clear+"next;"),
			dp.flow(st, 1000, regACLVerdictDrop+" == 1", clear+implicitDrop),
			dp.flow(st, 1000, regACLVerdictReject+" == 1", clear+rejectAction(t, st.Pipeline())),
			dp.flow(st, 0, "1", clear+otherwise))
		// What no ACL of a tier decided (no verdict, or a pass) is
		// evaluated again by the next tier's ACLs.
		for tier := range s.tiers {
			flows = append(flows, dp.flow(st, 500, fmt.Sprintf("%s == %d", regACLTier, tier),
				fmt.Sprintf("%s = %d; next(pipeline=%s,table=%d);", regACLTier, tier+1, st.Pipeline(), t.Table(s.eval))))
		}
	}
	return flows
}

// switchStatefulRules are the switch flow families of the conntrack stages
// (pre-ACL to stateful) and of DHCP and DNS.
var switchStatefulRules = []Rule{
	SwitchPreACLFlows,
	SwitchACLHintFlows,
	SwitchACLDefaultFlows,
	SwitchACLFlows,
	SwitchPreLBFlows,
	SwitchInterconnMcastFlows,
	SwitchConntrackSkipFlows,
	SwitchEVPNConntrackSkipFlows,
	SwitchLBDefaultFlows,
	SwitchHairpinFlows,
	SwitchVTEPHairpinFlows,
	SwitchPreStatefulFlows,
	SwitchStatefulFlows,
	SwitchStatelessACLLBFlows,  // ls_stateless_acl_lb.go
	SwitchStatelessACLVIPFlows, // ls_stateless_acl_lb.go
	SwitchNetworkFunctionDefaultFlows,
	SwitchNetworkFunctionFlows,
	SwitchQoSFlows,
	SwitchQoSRuleFlows,
	SwitchDHCPDNSDefaultFlows,
	SwitchDHCPFlows,
	SwitchDHCPReplyACLFlows,
	SwitchDNSFlows,
	SwitchExternalPortFlows, // ls_external_port.go
}

// switchFactsBySwitch arranges the switch ACL facts by switch, for rules
// that join per-port tuples to their switch's facts.
func switchFactsBySwitch(nb *relations.NB) engine.Index[string, relations.SwitchACLFacts] {
	return engine.IndexBy(nb.SwitchACLFacts, func(f relations.SwitchACLFacts) string { return f.Switch })
}

// aclOnSwitch is an ACL that applies to a switch, with the switch facts and
// meters its flows read.
type aclOnSwitch struct {
	ACL   *nb.ACL
	Facts relations.SwitchACLFacts
	// FairMeter: the ACL's meter is a fair meter, so its log uses a meter
	// of its own, named after the meter and the ACL.
	FairMeter bool
	// Sampling are the ACL's samples (26.03); zero without.
	Sampling relations.ACLSampling
	// NFGroupID is the id of the network function group the ACL sends
	// its connections through (26.03); 0 without.
	NFGroupID int
}

// aclsOnSwitches joins each ACL that applies to a switch with the
// switch's facts and the fairness of the ACL's meter.
func aclsOnSwitches(n *relations.NB) engine.Rel[aclOnSwitch] {
	withFacts := engine.Join(
		engine.IndexBy(n.SwitchACLs, func(sa relations.SwitchACL) string { return sa.Switch }),
		switchFactsBySwitch(n),
		func(_ string, sa relations.SwitchACL, f relations.SwitchACLFacts) aclOnSwitch {
			return aclOnSwitch{ACL: sa.ACL, Facts: f}
		})
	fairMeters := engine.Map(
		engine.Filter(n.Meters.Rows, func(m *nb.Meter) bool { return m.Fair != nil && *m.Fair }),
		func(m *nb.Meter) string { return m.Name })
	metered := engine.Filter(n.ACLs.Rows, func(a *nb.ACL) bool { return a.Meter != nil })
	fairACLs := engine.Distinct(engine.Join(
		engine.IndexBy(metered, func(a *nb.ACL) string { return *a.Meter }),
		engine.IndexBy(fairMeters, func(name string) string { return name }),
		func(_ string, a *nb.ACL, _ string) *nb.ACL { return a }))
	byACL := engine.IndexBy(withFacts, func(x aclOnSwitch) *nb.ACL { return x.ACL })
	fair := engine.IndexBy(fairACLs, func(a *nb.ACL) *nb.ACL { return a })
	metersKnown := engine.IndexBy(engine.Union(
		engine.Join(byACL, fair, func(_ *nb.ACL, x aclOnSwitch, _ *nb.ACL) aclOnSwitch {
			x.FairMeter = true
			return x
		}),
		engine.AntiJoin(byACL, fair)), func(x aclOnSwitch) string { return x.ACL.UUID })
	samplings := engine.IndexBy(n.ACLSamplings, func(s relations.ACLSampling) string { return s.ACL })
	sampled := engine.IndexBy(engine.Union(
		engine.Join(metersKnown, samplings, func(_ string, x aclOnSwitch, s relations.ACLSampling) aclOnSwitch {
			x.Sampling = s
			return x
		}),
		engine.AntiJoin(metersKnown, samplings)), func(x aclOnSwitch) string { return x.ACL.UUID })
	nfs := engine.IndexBy(n.NetworkFunctionACLs, func(a relations.NetworkFunctionACL) string { return a.ACL })
	return engine.Union(
		engine.Join(sampled, nfs, func(_ string, x aclOnSwitch, a relations.NetworkFunctionACL) aclOnSwitch {
			x.NFGroupID = a.GroupID
			return x
		}),
		engine.AntiJoin(sampled, nfs))
}

// SwitchACLFlows: ls_in_acl, ls_in_acl_after_lb and ls_out_acl, one set of
// flows per ACL that applies to a switch, at the ACL's priority + 1000
// (northd.c consider_acl). On a stateful switch an allow commits new
// connections and a drop or reject also marks established ones blocked;
// elsewhere they simply pass or drop. On a switch that uses conntrack, an
// allow-stateless ACL also marks the traffic it matches stateless (reg0[16])
// in ls_in_pre_acl or ls_out_pre_acl (northd.c build_stateless_filters), so
// that pre-LB and pre-stateful keep it out of conntrack. With aclVerdicts,
// a sampled ACL's flows in the sample stages too (aclSampleFlows).
func SwitchACLFlows(n *relations.NB) engine.Rel[Flow] {
	verdicts, stages := aclVerdicts(n), aclStagesOf(n)
	acls := aclsOnSwitches(n)
	flows := engine.FlatMap(acls, func(x aclOnSwitch) []Flow {
		var flows []Flow
		if verdicts {
			flows = aclVerdictFlows(stages, x)
		} else {
			flows = aclFlows(StagesFor(n), stages, x)
		}
		if x.ACL.Action == nb.ACLActionAllowStateless && x.Facts.Stateful() {
			stage := LSOutPreACL
			if x.ACL.Direction == nb.ACLDirectionFromLport {
				stage = LSInPreACL
			}
			flows = append(flows, on(x.Facts.Switch).from(x.ACL.UUID).flow(stage, x.ACL.Priority+1000, x.ACL.Match, regACLStateless+" = 1; next;"))
		}
		return flows
	})
	if !verdicts {
		return flows
	}
	return engine.Union(flows, aclSampleFlows(n, acls))
}

func aclFlows(t *StageTable, stages aclStages, x aclOnSwitch) []Flow {
	a, dp := x.ACL, on(x.Facts.Switch).from(x.ACL.UUID)
	stage, prio := stages.of(a), a.Priority+1000
	log := aclLog(x)
	stateful := x.Facts.Stateful()
	switch a.Action {
	case nb.ACLActionAllowStateless:
		return []Flow{dp.flow(stage, prio, a.Match, log+"next;")}
	case nb.ACLActionAllow, nb.ACLActionAllowRelated:
		if !stateful {
			return []Flow{dp.flow(stage, prio, a.Match, log+"next;")}
		}
		label := ""
		if a.Label != 0 {
			label = fmt.Sprintf("%s = 1; %s = %d; ", regACLLabel, regLabel, a.Label)
		}
		flows := []Flow{
			dp.flow(stage, prio, regACLHintAllowNew+" == 1 && ("+a.Match+")",
				regConntrackCommit+" = 1; "+label+log+"next;"),
		}
		// Established connections are recommitted only to update a label.
		recommit := ""
		if label != "" {
			recommit = regConntrackCommit + " = 1; " + label
		}
		flows = append(flows, dp.flow(stage, prio, regACLHintAllow+" == 1 && ("+a.Match+")", recommit+log+"next;"))
		translated(flows, x.Facts)
		if a.Log && a.Label != 0 && relations.SmapBool(a.Options, "log-related", false) {
			// Replies and related traffic pass at 65532 in the other
			// direction; log them just above.
			other := LSInACL
			if a.Direction == nb.ACLDirectionFromLport {
				other = LSOutACL
			}
			notInv := ""
			if x.Facts.UseCtInvMatch {
				notInv = " && !ct.inv"
			}
			blocked := ctBits(x.Facts.Features) + ".blocked"
			flows = append(flows,
				dp.flow(other, maxPriority-2, fmt.Sprintf(
					"ct.est && !ct.rel && !ct.new%s && ct.rpl && %s == 0 && ct_label.label == %d", notInv, blocked, a.Label), log+"next;"),
				dp.flow(other, maxPriority-2, fmt.Sprintf(
					"!ct.est && ct.rel && !ct.new%s && %s == 0 && ct_label.label == %d", notInv, blocked, a.Label), log+"next;"))
		}
		return flows
	case nb.ACLActionDrop, nb.ACLActionReject:
		reject := a.Action == nb.ACLActionReject
		if !stateful {
			if reject {
				return []Flow{rejectFlow(t, dp, stage, a, "", "", log)}
			}
			return []Flow{dp.flow(stage, prio, a.Match, log+implicitDrop)}
		}
		// New or untracked traffic is dropped; an established connection
		// the policy now refuses is marked blocked, then dropped.
		block := "ct_commit { " + ctBits(x.Facts.Features) + ".blocked = 1; }; "
		if reject {
			return []Flow{
				rejectFlow(t, dp, stage, a, regACLHintDrop+" == 1", "", log),
				rejectFlow(t, dp, stage, a, regACLHintBlock+" == 1", block, log),
			}
		}
		return []Flow{
			dp.flow(stage, prio, regACLHintDrop+" == 1 && ("+a.Match+")", log+implicitDrop),
			dp.flow(stage, prio, regACLHintBlock+" == 1 && ("+a.Match+")", block+log+implicitDrop),
		}
	}
	return nil
}

// aclVerdictFlows are an ACL's flows with aclVerdicts (northd.c
// consider_acl, build_acl_log_related_flows): as aclFlows', but the ACL
// sets its verdict and goes on to the action stage, a label is also the
// observation point of the ACL's stage, and blocking a connection also
// clears its observation point. On a stage with tiered ACLs each flow also
// matches the ACL's tier; a pass ACL sets no verdict, so the action stage
// hands its traffic to the next tier.
func aclVerdictFlows(stages aclStages, x aclOnSwitch) []Flow {
	a, dp := x.ACL, on(x.Facts.Switch).from(x.ACL.UUID)
	stage, prio := stages.of(a), a.Priority+1000
	var verdict string
	switch a.Action {
	case nb.ACLActionDrop:
		verdict = regACLVerdictDrop + " = 1; "
	case nb.ACLActionReject:
		verdict = regACLVerdictReject + " = 1; "
	case nb.ACLActionPass:
		// No verdict: the next tier, or the default, decides.
	default:
		verdict = regACLVerdictAllow + " = 1; "
	}
	// On a tiered stage an ACL matches only while its tier is evaluated.
	tier := ""
	if x.Facts.MaxTiers[relations.StageOfACL(a)] > 0 {
		tier = fmt.Sprintf("%s == %d && ", regACLTier, a.Tier)
	}
	logVerdict := aclLog(x) + verdict
	obsStage := stages.observation(stage)
	// Only a stateful ACL that allows samples established connections.
	observeNew := logVerdict + aclObservation(x, obsStage, false)
	statefulAllow := x.Facts.Stateful() && (a.Action == nb.ACLActionAllow || a.Action == nb.ACLActionAllowRelated)
	if x.NFGroupID != 0 && !statefulAllow {
		// Only a stateful allow can send its connections through a
		// network function; northd writes no flows for the others.
		return nil
	}
	if !x.Facts.Stateful() || a.Action == nb.ACLActionAllowStateless || a.Action == nb.ACLActionPass {
		return []Flow{dp.flow(stage, prio, tier+"("+a.Match+")", observeNew+"next;")}
	}
	switch a.Action {
	case nb.ACLActionAllow, nb.ACLActionAllowRelated:
		observe := aclObservation(x, obsStage, true) + nfRedirect(x.NFGroupID)
		// Established connections are recommitted only to update their
		// label, observation point or network function.
		recommit := ""
		if a.Label != 0 || x.Sampling.Est.Set() || x.NFGroupID != 0 {
			recommit = regConntrackCommit + " = 1; "
		}
		flows := translated([]Flow{
			dp.flow(stage, prio, tier+regACLHintAllowNew+" == 1 && ("+a.Match+")", logVerdict+aclPersistID(x)+observe+"next;"),
			dp.flow(stage, prio, tier+regACLHintAllow+" == 1 && ("+a.Match+")", logVerdict+recommit+observe+"next;"),
		}, x.Facts)
		if a.Log && a.Label != 0 && relations.SmapBool(a.Options, "log-related", false) {
			// Replies and related traffic pass at 65532 in the other
			// direction; log them just above.
			other := stages.in
			if a.Direction == nb.ACLDirectionFromLport {
				other = stages.out
			}
			actions := aclLog(x) + regNFEnabled + " = ct_label.nf; " + regACLVerdictAllow + " = 1; next;"
			flows = append(flows,
				dp.flow(other, maxPriority-2, fmt.Sprintf("ct.est && !ct.rel && ct.rpl && ct_mark.blocked == 0 && ct_label.label == %d", a.Label), actions),
				dp.flow(other, maxPriority-2, fmt.Sprintf("!ct.est && ct.rel && !ct.new && ct_mark.blocked == 0 && ct_label.label == %d", a.Label), actions))
		}
		return flows
	case nb.ACLActionDrop, nb.ACLActionReject:
		// New or untracked traffic gets the verdict; an established
		// connection the policy now refuses is marked blocked first.
		return translated([]Flow{
			dp.flow(stage, prio, tier+regACLHintDrop+" == 1 && ("+a.Match+")", observeNew+"next;"),
			dp.flow(stage, prio, tier+regACLHintBlock+" == 1 && ("+a.Match+")",
				observeNew+fmt.Sprintf("ct_commit { ct_mark.blocked = 1; ct_label.obs_point_id = %d; }; next;", x.Sampling.Est.Metadata)),
		}, x.Facts)
	}
	return nil
}

// translated marks a stateful ACL's flows for L4 matches on the
// connection's original fields (Flow.CTTranslation) when NB_Global asks
// for it, and returns them.
func translated(flows []Flow, f relations.SwitchACLFacts) []Flow {
	for i := range flows {
		flows[i].CTTranslation = f.ACLCTTranslation
	}
	return flows
}

// aclObservation records, for the sample stage and the conntrack commit,
// the observation points of an ACL's traffic (its label, else its
// samples' metadata) and the collector of each sample that has only one,
// with the ACL's observation stage (northd.c
// build_acl_sample_label_action); est: of established connections too.
func aclObservation(x aclOnSwitch, obsStage int, est bool) string {
	a, sampleNew, sampleEst := x.ACL, x.Sampling.New, relations.Sample{}
	if est {
		sampleEst = x.Sampling.Est
	}
	if a.Label == 0 && !sampleNew.Set() && !sampleEst.Set() {
		return ""
	}
	pointNew, pointEst, collectorNew, collectorEst := a.Label, a.Label, 0, 0
	if a.Label == 0 {
		pointNew, pointEst = sampleNew.Metadata, sampleEst.Metadata
		collectorNew, collectorEst = onlyCollectorID(sampleNew), onlyCollectorID(sampleEst)
	}
	return fmt.Sprintf("%s = 1; %s = %d; %s = %d; %s = %d; %s = %d; %s = %d; ", regACLLabel,
		regObsPointNew, pointNew, regObsPointEst, pointEst,
		regObsCollectorNew, collectorNew, regObsCollectorEst, collectorEst, regACLObsStage, obsStage)
}

// onlyCollectorID is the id of s's collector if it has exactly one, else 0.
func onlyCollectorID(s relations.Sample) int {
	c, _ := s.OnlyCollector()
	return c.ID
}

// implicitDrop is northd's debug_implicit_drop_action() with no debug drop
// sampling configured.
const implicitDrop = "/* drop */"

// rejectFlow is a reject ACL's flow (northd.c build_reject_acl_rules): the
// packet is answered (TCP RST or ICMP unreachable) and the answer goes to
// the other pipeline, past the ACLs.
func rejectFlow(t *StageTable, dp onRow, stage Stage, a *nb.ACL, extraMatch, extraActions, log string) Flow {
	match := a.Match
	if extraMatch != "" {
		match = "(" + extraMatch + ") && " + a.Match
	}
	actions := log
	if extraActions != "" {
		actions += extraActions + " "
	}
	return dp.flow(stage, a.Priority+1000, match, actions+rejectAction(t, stage.Pipeline()))
}

// rejectAction answers the packet (TCP RST or ICMP unreachable) from an
// ACL stage of pipeline p and sends the answer to the other pipeline, past
// its ACLs: to the egress QoS stage, or to ingress L2 lookup (northd.c
// build_acl_reject_action).
func rejectAction(t *StageTable, p Pipeline) string {
	next := fmt.Sprintf("next(pipeline=egress,table=%d);", egressQoSTable(t))
	if p == Egress {
		next = fmt.Sprintf("next(pipeline=ingress,table=%d);", t.Table(LSInL2Lkup))
	}
	return "reg0 = 0; reject { /* eth.dst <-> eth.src; ip.dst <-> ip.src; is implicit. */ outport <-> inport; " + next + " };"
}

// egressQoSTable is the first egress QoS stage's table, where a switch's
// rejections re-enter the egress pipeline.
func egressQoSTable(t *StageTable) int {
	if t.Has(LSOutQoS) {
		return t.Table(LSOutQoS)
	}
	return t.Table(LSOutQoSMark)
}

// aclLog is the log() action of an ACL with log=true, else "" (northd.c
// build_acl_log).
func aclLog(x aclOnSwitch) string {
	a := x.ACL
	if !a.Log {
		return ""
	}
	var parts []string
	if a.Name != nil {
		parts = append(parts, `name="`+*a.Name+`"`)
	}
	severity := "info"
	if a.Severity != nil {
		severity = *a.Severity
	}
	parts = append(parts, "severity="+severity)
	switch a.Action {
	case nb.ACLActionDrop:
		parts = append(parts, "verdict=drop")
	case nb.ACLActionReject:
		parts = append(parts, "verdict=reject")
	case nb.ACLActionPass:
		parts = append(parts, "verdict=pass")
	default:
		parts = append(parts, "verdict=allow")
	}
	if a.Meter != nil {
		meter := *a.Meter
		if x.FairMeter {
			meter += "__" + a.UUID
		}
		parts = append(parts, `meter="`+meter+`"`)
	}
	return "log(" + strings.Join(parts, ", ") + "); "
}
