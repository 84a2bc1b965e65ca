package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterNATStageDefaultFlows: the flows every router has in the stages that
// NAT, load balancing and distributed gateway ports add to (northd.c
// build_lrouter_nat_defrag_and_lb, build_lb_affinity_default_flows and
// build_gateway_redirect_flows_for_lrouter): without such configuration
// packets pass through unchanged. Neighbour solicitations the router
// generates itself skip SNAT conntrack.
func RouterNATStageDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInUnSNAT, 0, "1", "next;"),
			dp.flow(LRInDefrag, 0, "1", "next;"),
			dp.flow(LRInLBAffCheck, 0, "1", "next;"),
			dp.flow(LRInDNAT, 0, "1", "next;"),
			dp.flow(LRInLBAffLearn, 0, "1", "next;"),
			dp.flow(LRInECMPStateful, 0, "1", "next;"),
			dp.flow(LRInGWRedirect, 0, "1", "next;"),
			dp.flow(LROutChkDNATLocal, 0, "1", "reg9[4] = 0; next;"),
			dp.flow(LROutUnDNAT, 0, "1", "next;"),
			dp.flow(LROutPostUnDNAT, 0, "1", "next;"),
			dp.flow(LROutSNAT, 0, "1", "next;"),
			dp.flow(LROutSNAT, 120, "nd_ns", "next;"),
			dp.flow(LROutPostSNAT, 0, "1", "next;"),
			dp.flow(LROutEgrLoop, 0, "1", "next;"),
			// The stages 26.03 added pass packets on by default; the last
			// ingress stage outputs them.
			dp.flow(LRInPostUnSNAT, 0, "1", "next;"),
			dp.flow(LRInCTExtract, 0, "1", "next;"),
			dp.flow(LRInDHCPRelayReq, 0, "1", "next;"),
			dp.flow(LRInDHCPRelayRespChk, 0, "1", "next;"),
			dp.flow(LRInDHCPRelayResp, 0, "1", "next;"),
			dp.flow(LRInECMPStatefulEgr, 0, "1", "output;"),
		}
	})
}
