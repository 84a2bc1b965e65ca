package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// aclSampleFlows: ls_in_acl_sample, ls_in_acl_after_lb_sample and
// ls_out_acl_sample, the flows of each ACL with a sample (northd.c
// build_acl_sample_flows, 26.03). The ACL's eval flow recorded its
// observation point and collector (aclObservation); the sample stage of
// its direction samples the packets of new connections, and, on a switch
// with stateful ACLs, both directions sample the packets of the
// connections it allowed, by the point conntrack keeps. A sample with a
// single collector, when every chassis samples from registers
// (Features.SampleWithRegisters), is sampled by a flow of the collector,
// shared by every ACL that uses it; others by flows of their own point. The domains are the Sampling_App ids of
// acl-new and acl-est.
func aclSampleFlows(n *relations.NB, acls engine.Rel[aclOnSwitch]) engine.Rel[Flow] {
	one := func(aclOnSwitch) struct{} { return struct{}{} }
	sampled := engine.IndexBy(engine.Filter(acls, func(x aclOnSwitch) bool { return x.Sampling.ACL != "" }), one)
	apps := engine.IndexBy(n.SamplingApps, func(relations.SamplingApps) struct{} { return struct{}{} })
	return engine.Union(
		engine.JoinFlatMap(sampled, apps, func(_ struct{}, x aclOnSwitch, a relations.SamplingApps) []Flow {
			return aclSampled(x, a)
		}),
		engine.FlatMap(engine.AntiJoin(sampled, apps), func(x aclOnSwitch) []Flow {
			return aclSampled(x, relations.SamplingApps{})
		}))
}

// aclSampleStages are each ACL stage's sample stage and observation stage.
var aclSampleStages = [...]struct {
	stage       Stage
	observation int
}{
	relations.ACLIngress:        {LSInACLSample, 0},
	relations.ACLIngressAfterLB: {LSInACLAfterLBSample, 1},
	relations.ACLEgress:         {LSOutACLSample, 2},
}

// replyStage is the sample stage of the replies of a connection that
// sample stage s saw start: the other pipeline's.
func replyStage(s Stage) Stage {
	if s == LSOutACLSample {
		return LSInACLSample
	}
	return LSOutACLSample
}

// aclSampled are the sample-stage flows of one sampled ACL on a switch.
func aclSampled(x aclOnSwitch, apps relations.SamplingApps) []Flow {
	a, s, dp := x.ACL, x.Sampling, on(x.Facts.Switch)
	sampleEst := x.Facts.HasStatefulACL && s.Est.Set() && a.Action == nb.ACLActionAllowRelated
	stateful := x.Facts.HasStatefulACL && a.Action != nb.ACLActionAllowStateless
	if !s.New.Set() && !sampleEst {
		return nil
	}
	st := aclSampleStages[relations.StageOfACL(a)]
	var flows []Flow
	newConn := "ip"
	switch {
	case stateful && st.stage == LSOutACLSample:
		// A to-lport packet may have left conntrack (skip_port_from_conntrack).
		newConn = "ip && (ct.new || !ct.trk)"
	case stateful:
		newConn = "ip && ct.new"
	}
	registers := x.Facts.Features.SampleWithRegisters
	if c, ok := s.New.OnlyCollector(); ok && registers {
		prio := 900
		if stateful {
			prio = 1000
		}
		flows = append(flows, dp.flow(st.stage, prio,
			fmt.Sprintf("%s && %s == %d && %s == %d", newConn, regObsCollectorNew, c.ID, regACLObsStage, st.observation),
			sampleFromRegister(c, apps.ACLNew, regObsPointNew)))
	} else if s.New.Set() {
		flows = append(flows, dp.flow(st.stage, 1100,
			fmt.Sprintf("%s && %s == %d", newConn, regObsPointNew, observationPoint(a, s.New)),
			aclSampleAction(a, s.New, apps.ACLNew)))
	}
	if !stateful {
		return flows
	}
	const established = "flags.pkt_sampled == 0 && ip && ct.trk && (ct.est || ct.rel) && "
	if c, ok := s.Est.OnlyCollector(); ok && registers {
		action := sampleFromRegister(c, apps.ACLEst, "ct_label.obs_point_id")
		return append(flows,
			dp.flow(st.stage, 1000, fmt.Sprintf("%sct_label.obs_unused == 0 && !ct.rpl && ct_mark.obs_collector_id == %d && ct_mark.obs_stage == %d",
				established, c.ID, st.observation), action),
			dp.flow(replyStage(st.stage), 1000, fmt.Sprintf("%sct_label.obs_unused == 0 && ct.rpl && ct_mark.obs_collector_id == %d",
				established, c.ID), action))
	}
	if !s.Est.Set() {
		return flows
	}
	// The whole label is matched: some NICs offload no masked ct_label.
	point := fmt.Sprintf("ct_label.obs_point_id == %d && ct_label.obs_unused == 0", observationPoint(a, s.Est))
	action := aclSampleAction(a, s.Est, apps.ACLEst)
	return append(flows,
		dp.flow(st.stage, 1200, established+"!ct.rpl && "+point, action),
		dp.flow(replyStage(st.stage), 1200, established+"ct.rpl && "+point, action))
}

// observationPoint is the observation point of an ACL's sampled traffic:
// its label, else the sample's metadata.
func observationPoint(a *nb.ACL, s relations.Sample) int {
	if a.Label != 0 {
		return a.Label
	}
	return s.Metadata
}

// sampleFromRegister samples to collector c in domain, at the observation
// point the packet carries in point.
func sampleFromRegister(c relations.Collector, domain int, point string) string {
	return fmt.Sprintf("flags.pkt_sampled = 1; sample(probability=%d,collector_set=%d,obs_domain=%d,obs_point=%s); next;",
		c.Probability, c.SetID, domain, point)
}

// aclSampleAction samples to each of s's collectors (northd.c
// build_acl_sample_action): in domain at s's point, or, for a labelled
// ACL, in domain 0 at the label. Without a domain it is empty, as northd
// writes it.
func aclSampleAction(a *nb.ACL, s relations.Sample, domain int) string {
	if domain == 0 {
		return ""
	}
	if a.Label != 0 {
		domain = 0
	}
	actions := ""
	if s.Collectors.Len() > 0 {
		actions = "flags.pkt_sampled = 1; "
	}
	for c := range s.Collectors.All() {
		actions += fmt.Sprintf("sample(probability=%d,collector_set=%d,obs_domain=%d,obs_point=%d);",
			c.Probability, c.SetID, domain, observationPoint(a, s))
	}
	return actions + " next;"
}
