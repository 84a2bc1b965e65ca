package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterPolicyFlows: lr_in_policy and lr_in_policy_ecmp, the flows every
// router has (northd.c build_ingress_policy_flows_for_lrouter): packets no
// policy matches go on with no ECMP group, which the ECMP stage lets
// through; an ECMP group member that no flow selects is dropped.
func RouterPolicyFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInPolicy, 0, "1", "reg8[0..15] = 0; next;"),
			dp.flow(LRInPolicyECMP, 150, "reg8[0..15] == 0", "next;"),
			dp.flow(LRInPolicyECMP, 0, "1", drop),
		}
	})
}
