package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// statelessACLLB is a load balancer that a switch with
// other_config:enable-stateless-acl-with-lb lists in its load_balancer
// column (northd.c handle_od_lb_datapath_modes: a load balancer group's do
// not count).
type statelessACLLB struct {
	Switch string
	LB     string
}

// statelessACLLBs are the load balancers of switches with
// enable-stateless-acl-with-lb (relations.Switch.StatelessACLWithLB).
func statelessACLLBs(n *relations.NB) engine.Rel[statelessACLLB] {
	switches := engine.IndexBy(engine.Filter(n.SwitchDatapaths, func(s relations.Switch) bool { return s.StatelessACLWithLB }),
		func(s relations.Switch) string { return s.UUID })
	return engine.Join(engine.IndexBy(n.Refs.SwitchLBs, func(r relations.Ref) string { return r.Owner }), switches,
		func(sw string, r relations.Ref, _ relations.Switch) statelessACLLB {
			return statelessACLLB{sw, r.Target}
		})
}

// SwitchStatelessACLLBFlows: ls_out_pre_lb priority 115 and
// ls_out_stateful priority 110 on a switch with
// enable-stateless-acl-with-lb and a load balancer of its own (northd.c
// build_lb_rules_for_stateless_acl): what stateless ACLs let through still
// goes to conntrack on its way out, so that load balanced replies are
// un-NATed, but a new connection is not committed there.
func SwitchStatelessACLLBFlows(n *relations.NB) engine.Rel[Flow] {
	switches := engine.Distinct(engine.Map(statelessACLLBs(n), func(s statelessACLLB) string { return s.Switch }))
	return engine.FlatMap(switches, func(sw string) []Flow {
		return []Flow{
			on(sw).flow(LSOutPreLB, 115, regACLStateless+" == 1", regConntrackNAT+" = 1; next;"),
			on(sw).flow(LSOutStateful, 110, regACLStateless+" == 1 && ct.new", "next;"),
		}
	})
}

// SwitchStatelessACLVIPFlows: ls_in_pre_stateful priority 150 (and 105
// for a VIP with a port or a load balancer with options:hairpin_snat_ip)
// for each VIP of a switch's own load balancers on a switch with
// enable-stateless-acl-with-lb (northd.c build_lb_rules_pre_stateful):
// traffic to the VIP goes to conntrack, with the VIP kept for the hairpin
// stages, whether or not an ACL marked it stateless.
func SwitchStatelessACLVIPFlows(n *relations.NB) engine.Rel[Flow] {
	lbs := engine.IndexBy(statelessACLLBs(n), func(s statelessACLLB) string { return s.LB })
	return engine.JoinFlatMap(lbs, n.LBVIPsByLB, func(_ string, s statelessACLLB, v relations.LBVIP) []Flow {
		dp := on(s.Switch)
		ip := ipMatch(v)
		match := ip + ".dst == " + v.IP
		if v.Port != "" {
			match += " && " + v.Proto + ".dst == " + v.Port
		}
		flows := []Flow{dp.flow(LSInPreStateful, 150, match, lbRegsAction(v)+"ct_lb_mark;")}
		switch {
		case v.HairpinSNATIP != "":
			flows = append(flows, dp.flow(LSInPreStateful, 105, v.Proto+" && "+ip+".dst == "+v.HairpinSNATIP, "ct_lb_mark;"))
		case v.Port != "":
			flows = append(flows, dp.flow(LSInPreStateful, 105, v.Proto+" && "+ip+".dst == "+v.IP, "ct_lb_mark;"))
		}
		return flows
	})
}
