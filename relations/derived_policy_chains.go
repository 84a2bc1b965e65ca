package relations

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// policyChains: 26.03 groups a router's policies into chains (the
// policy's chain column) that jump policies enter (action jump,
// jump_chain), and skips the policies it cannot use (northd.c
// build_route_policies); 23.03's NB has neither column and uses every
// policy, rerouting to the deprecated nexthop column when nexthops is
// empty.
func policyChains(r schema.Release) bool { return r >= schema.OVN2603 }

// NoChain is RouterPolicy.Chain for a policy whose flow does not match on
// the chain register.
const NoChain = -1

// policyVerdict is a policy with its chain ids, or why northd skips it.
type policyVerdict struct {
	Policy RouterPolicy
	Skip   string
}

// placedPolicy is a policy with what orders it in northd's walk: its
// router's bucket in the routers' table, and the router's name for the
// warnings.
type placedPolicy struct {
	Policy     RouterPolicy
	Bucket     uint32
	RouterName string
}

// chainPolicies gives the policies of enabled routers their chain ids as
// 26.03's build_route_policies does, and leaves out those it skips
// (reported by Step as northd warns). Chain names are numbered from 1, over
// all routers, in the order northd meets them: routers in its routers'
// table walk order (ascending bucket, then NB _uuid, as compareClaims
// takes it), each router's policies in _uuid order, a router's chain names
// all numbered before its policies are read. A policy of the default chain
// matches chain 0, or does not match on the chain register while no router
// walked so far, its own included, has a chain. Skipped: a policy that
// sets the deprecated nexthop column, a jump to no chain or to a chain no
// policy is in, and a reroute naming an output_port with other than one
// next hop. All routers' policies are one group: a chain's number depends
// on every router walked before.
func chainPolicies(n *NB, policies engine.Rel[RouterPolicy]) engine.Rel[RouterPolicy] {
	if !policyChains(n.Release) {
		return engine.Map(policies, func(p RouterPolicy) RouterPolicy {
			p.Chain = NoChain
			return p
		})
	}
	named := engine.Join(engine.IndexBy(policies, func(p RouterPolicy) string { return p.Router }),
		engine.IndexBy(n.RouterConfigs, func(r RouterConfig) string { return r.UUID }),
		func(_ string, p RouterPolicy, r RouterConfig) placedPolicy {
			return placedPolicy{Policy: p, RouterName: r.Name}
		})
	placed := engine.Join(engine.IndexBy(named, toUnit), engine.IndexBy(n.datapathMasks, toUnit),
		func(_ unit, p placedPolicy, m claimMasks) placedPolicy {
			p.Bucket = datapathHash(p.Policy.Router) & m.Router
			return p
		})
	verdicts := engine.GroupBy(engine.IndexBy(placed, toUnit), func(_ unit, ps []placedPolicy) []policyVerdict {
		slices.SortFunc(ps, func(a, b placedPolicy) int {
			return cmp.Or(cmp.Compare(a.Bucket, b.Bucket), cmp.Compare(a.Policy.Router, b.Policy.Router),
				cmp.Compare(a.Policy.Policy.UUID, b.Policy.Policy.UUID))
		})
		ids := map[string]int{}
		out := make([]policyVerdict, 0, len(ps))
		for router := range chunkBy(ps, func(p placedPolicy) string { return p.Policy.Router }) {
			for _, p := range router {
				if c := p.Policy.Policy.Chain; c != nil && *c != "" && ids[*c] == 0 {
					ids[*c] = len(ids) + 1
				}
			}
			for _, p := range router {
				out = append(out, chainVerdict(p, ids))
			}
		}
		return out
	})
	engine.Report(engine.Filter(verdicts, func(v policyVerdict) bool { return v.Skip != "" }), "router policy",
		func(v policyVerdict) error { return errors.New(v.Skip) })
	return engine.Map(engine.Filter(verdicts, func(v policyVerdict) bool { return v.Skip == "" }),
		func(v policyVerdict) RouterPolicy { return v.Policy })
}

// chainVerdict is what build_route_policies makes of policy p once the
// chains of its router and of those before it have the ids in ids.
func chainVerdict(p placedPolicy, ids map[string]int) policyVerdict {
	rp, rule := p.Policy, p.Policy.Policy
	skip := func(format string, args ...any) policyVerdict {
		return policyVerdict{rp, fmt.Sprintf("Logical router: %s, policy ", p.RouterName) + fmt.Sprintf(format, args...)}
	}
	if rule.Nexthop != nil && *rule.Nexthop != "" {
		return skip(`uses deprecated column "nexthop", this column is ignored. Please use "nexthops" column instead.`)
	}
	if rule.Chain != nil && *rule.Chain != "" {
		rp.Chain = ids[*rule.Chain]
	}
	if rule.Action == nb.LogicalRouterPolicyActionJump {
		if rule.JumpChain == nil || *rule.JumpChain == "" {
			return skip("action 'jump' has empty target")
		}
		if rp.JumpChain = ids[*rule.JumpChain]; rp.JumpChain == 0 {
			return skip("action 'jump' follows to non-existent chain %s", *rule.JumpChain)
		}
	}
	if len(ids) == 0 {
		rp.Chain = NoChain
	}
	if rule.Action == nb.LogicalRouterPolicyActionReroute && rule.OutputPort != nil && len(rule.Nexthops) != 1 {
		chain := "<Default>"
		if rule.Chain != nil {
			chain = *rule.Chain
		}
		return skip("(chain: '%s', match: '%s', priority %d): output_port only supported on non-ECMP reroute policies",
			chain, rule.Match, rule.Priority)
	}
	return policyVerdict{Policy: rp}
}

// chunkBy yields the runs of consecutive elements of s with the same key.
func chunkBy[T any, K comparable](s []T, key func(T) K) func(yield func([]T) bool) {
	return func(yield func([]T) bool) {
		for start := 0; start < len(s); {
			end := start + 1
			for end < len(s) && key(s[end]) == key(s[start]) {
				end++
			}
			if !yield(s[start:end]) {
				return
			}
			start = end
		}
	}
}
