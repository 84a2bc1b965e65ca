package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
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

// RouterPolicyRuleFlows: lr_in_policy for allow, drop and jump policies
// (northd.c build_routing_policy_flow): the policy's match, at its
// priority, passes the packet on to resolution (marking it with
// options:pkt_mark if set), drops it, or (26.03) sends it back to this
// stage in the chain it jumps to. The match is copied as written, within
// the policy's chain (chainMatch).
func RouterPolicyRuleFlows(nb *relations.NB) engine.Rel[Flow] {
	policyTable := tableIn(nb, LRInPolicy)
	return engine.FlatMap(nb.RouterPolicies, func(p relations.RouterPolicy) []Flow {
		var actions string
		switch p.Policy.Action {
		case "allow":
			actions = pktMark(p) + "reg8[0..15] = 0; next;"
		case "drop":
			actions = drop
		case "jump":
			actions = fmt.Sprintf("reg9[16..31]=%d; next(pipeline=ingress, table=%d);", p.JumpChain, policyTable)
		default:
			return nil
		}
		return []Flow{on(p.Router).from(p.Policy.UUID).flow(LRInPolicy, p.Policy.Priority, chainMatch(p), actions)}
	})
}

// chainMatch is the match of a policy's flow: within its chain, the value
// of the chain register, once the router has chains (26.03). An ECMP
// reroute's flow matches only the policy's own match, in any chain.
func chainMatch(p relations.RouterPolicy) string {
	if p.Chain == relations.NoChain {
		return p.Policy.Match
	}
	return fmt.Sprintf("reg9[16..31] == %d && (%s)", p.Chain, p.Policy.Match)
}

// RouterPolicyRerouteFlows: lr_in_policy for reroute policies with one next
// hop (northd.c build_routing_policy_flow): matching packets are routed to
// the next hop through the first router port whose networks hold it; a
// next hop no port reaches gets no flow.
func RouterPolicyRerouteFlows(nb *relations.NB) engine.Rel[Flow] {
	single := engine.Filter(nb.PolicyNexthops, func(h relations.PolicyNexthop) bool { return !h.Policy.ECMP() })
	return engine.Map(single, func(h relations.PolicyNexthop) Flow {
		return on(h.Policy.Router).from(h.Policy.Policy.UUID).flow(LRInPolicy, h.Policy.Policy.Priority, chainMatch(h.Policy),
			pktMark(h.Policy)+rerouteTo(nb.Release, h)+" flags.loopback = 1; reg8[0..15] = 0; "+nextHopFamily(nb.Release, nexthopV4(h))+"next;")
	})
}

// RouterPolicyECMPFlows: lr_in_policy and lr_in_policy_ecmp for reroute
// policies with several next hops (northd.c
// build_ecmp_routing_policy_flows): the policy flow picks a member of the
// policy's ECMP group with select(), then a flow per member reroutes to its
// next hop. Next hops of different address families void the policy. Like
// northd, which stops at the first next hop no port reaches, the members
// before it keep their flows but the policy gets none. 26.03
// (policyNexthopsReachedOnly) keeps only the next hops some port reaches,
// numbers them from 1 and checks only their families; the policy flow of
// a group of one names its member.
func RouterPolicyECMPFlows(nb *relations.NB) engine.Rel[Flow] {
	reachedOnly := policyNexthopsReachedOnly(nb.Release)
	ecmp := engine.Filter(nb.PolicyNexthops, func(h relations.PolicyNexthop) bool { return h.Policy.ECMP() })
	return engine.GroupBy(engine.IndexBy(ecmp, func(h relations.PolicyNexthop) string { return h.Policy.Policy.UUID }),
		func(_ string, hs []relations.PolicyNexthop) []Flow {
			p := hs[0].Policy
			reached := make([]*relations.PolicyNexthop, len(p.Nexthops()))
			for i := range hs {
				reached[hs[i].Index] = &hs[i]
			}
			isNil := func(h *relations.PolicyNexthop) bool { return h == nil }
			members, families := reached, p.Nexthops()
			if reachedOnly {
				members, families = slices.DeleteFunc(reached, isNil), nil
				for _, h := range members {
					families = append(families, h.Policy.Nexthops()[h.Index])
				}
			} else if i := slices.IndexFunc(reached, isNil); i >= 0 {
				members = reached[:i]
			}
			for _, nh := range families {
				if strings.Contains(nh, ".") != strings.Contains(families[0], ".") {
					return nil
				}
			}
			dp := on(p.Router).from(p.Policy.UUID)
			var flows []Flow
			for i, h := range members {
				flows = append(flows, dp.flow(LRInPolicyECMP, 100,
					fmt.Sprintf("reg8[0..15] == %d && reg8[16..31] == %d", p.ECMPGroup, i+1),
					pktMark(p)+rerouteTo(nb.Release, *h)+" flags.loopback = 1; "+nextHopFamily(nb.Release, nexthopV4(*h))+"next;"))
			}
			if !reachedOnly && len(members) < len(reached) {
				return flows
			}
			if len(members) == 1 {
				return append(flows, dp.flow(LRInPolicy, p.Policy.Priority, p.Policy.Match,
					fmt.Sprintf("reg8[0..15] = %d; reg8[16..31] = 1; next;", p.ECMPGroup)))
			}
			numbers := make([]string, len(members))
			for i := range numbers {
				numbers[i] = fmt.Sprint(i + 1)
			}
			return append(flows, dp.flow(LRInPolicy, p.Policy.Priority, p.Policy.Match,
				fmt.Sprintf("reg8[0..15] = %d; reg8[16..31] = select(%s);", p.ECMPGroup, strings.Join(numbers, ", "))))
		})
}

// policyNexthopsReachedOnly: 26.03 reroutes an ECMP policy over the next
// hops a port reaches, leaving the others out.
func policyNexthopsReachedOnly(rel schema.Release) bool { return rel >= schema.OVN2603 }

// pktMark is the action that sets options:pkt_mark, if it is set.
func pktMark(p relations.RouterPolicy) string {
	if m := relations.SmapUint(p.Policy.Options, "pkt_mark", 0); m != 0 {
		return fmt.Sprintf("pkt.mark = %d; ", m)
	}
	return ""
}

// rerouteTo sets the next hop and source registers, the source MAC and the
// output port for next hop h.
func rerouteTo(rel schema.Release, h relations.PolicyNexthop) string {
	return fmt.Sprintf("%s = %s; %s = %s; eth.src = %s; outport = %s;",
		nextHopReg(!nexthopV4(h)), h.Policy.Nexthops()[h.Index], srcIPReg(rel, !nexthopV4(h)), h.Addr, h.Port.Net.MAC, jsonKey(h.Port.Name()))
}

// nexthopV4 tells whether next hop h is IPv4 by a dot, as northd does.
func nexthopV4(h relations.PolicyNexthop) bool {
	return strings.Contains(h.Policy.Nexthops()[h.Index], ".")
}
