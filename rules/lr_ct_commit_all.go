package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// readsCTCommitAll: 26.03 lets a router commit all its traffic to
// conntrack (Logical_Router options:ct-commit-all); 23.03 has no such
// option.
func readsCTCommitAll(r schema.Release) bool { return r >= schema.OVN2603 }

// routersCommittingAll are the NB _uuids of the routers with
// options:ct-commit-all, in the releases that read it.
func routersCommittingAll(n *relations.NB) engine.Index[string, string] {
	reads := readsCTCommitAll(n.Release)
	return engine.IndexBy(engine.Map(engine.Filter(n.Routers.Rows, func(lr *nb.LogicalRouter) bool {
		return reads && relations.SmapBool(lr.Options, "ct-commit-all", false)
	}), func(lr *nb.LogicalRouter) string { return lr.UUID }), identity)
}

// statefulRouters are the routers whose NAT northd deems stateful
// (build_lrouter_nat_defrag_and_lb): a load balancer VIP, a force-SNAT
// address for DNAT or load balancing, or a NAT rule that is not stateless.
func statefulRouters(n *relations.NB) engine.Index[string, string] {
	return engine.IndexBy(engine.Distinct(engine.Union(
		engine.Map(engine.Filter(n.RouterLBConfigs, func(r relations.RouterLBConfig) bool { return r.HasLBVIP }),
			func(r relations.RouterLBConfig) string { return r.Router }),
		engine.Map(engine.Filter(n.RouterForceSNATs, func(f relations.RouterForceSNAT) bool {
			return f.DNAT4 != "" || f.DNAT6 != "" || f.LB4 != "" || f.LB6 != "" || f.LBRouterIP
		}), func(f relations.RouterForceSNAT) string { return f.Router }),
		engine.Map(engine.Filter(n.NATRules, func(r relations.NATRule) bool { return !r.Stateless() }),
			func(r relations.NATRule) string { return r.Router }))), identity)
}

// committingAll are the stateful routers with options:ct-commit-all.
func committingAll(n *relations.NB) engine.Index[string, string] {
	return engine.IndexBy(engine.SemiJoin(routersCommittingAll(n), statefulRouters(n)), identity)
}

func identity(s string) string { return s }

// GatewayRouterCommitFlows: lr_out_post_undnat priority 50 on a gateway
// router with NAT rules or a load balancer VIP (northd.c
// build_lrouter_nat_defrag_and_lb): new connections started from the
// other side are committed, so their flows are tracked, unless the router
// commits all its traffic anyway (RouterCommitAllFlows).
func GatewayRouterCommitFlows(n *relations.NB) engine.Rel[Flow] {
	gateways := engine.IndexBy(engine.Filter(n.RouterGateways, func(g relations.RouterGateway) bool { return g.Gateway }),
		func(g relations.RouterGateway) string { return g.Router })
	natOrVIP := engine.IndexBy(engine.Distinct(engine.Union(
		engine.Map(n.RouterNATs, func(r relations.RouterNAT) string { return r.Router }),
		engine.Map(engine.Filter(n.RouterLBConfigs, func(r relations.RouterLBConfig) bool { return r.HasLBVIP }),
			func(r relations.RouterLBConfig) string { return r.Router }))), identity)
	routers := engine.IndexBy(engine.SemiJoin(gateways, natOrVIP), func(g relations.RouterGateway) string { return g.Router })
	return engine.Map(engine.AntiJoin(routers, committingAll(n)), func(g relations.RouterGateway) Flow {
		return on(g.Router).flow(LROutPostUnDNAT, 50, "ip && ct.new", "ct_commit { } ; next; ")
	})
}

// RouterCommitAllFlows: a stateful router with options:ct-commit-all
// commits every new connection in the DNAT zone on its way in and in the
// SNAT zone on its way out, and looks replies up there, at priority 10 of
// lr_in_defrag, lr_in_dnat, lr_in_post_unsnat, lr_out_post_undnat and
// lr_out_snat (northd.c build_gw_lrouter_commit_all,
// build_dgp_lrouter_commit_all): all its traffic on a gateway router,
// that through each distributed gateway port on its chassis otherwise.
// Whether a connection was new when it came in, or not tracked, is kept
// in flags for the egress pipeline, the SNAT zone's state being another.
// Only where every chassis can name the zone of a commit or lookup.
func RouterCommitAllFlows(n *relations.NB) engine.Rel[Flow] {
	all := committingAll(n)
	gateways := relations.WithFeatures(n, engine.SemiJoin(engine.IndexBy(
		engine.Filter(n.RouterGateways, func(g relations.RouterGateway) bool { return g.Gateway }),
		func(g relations.RouterGateway) string { return g.Router }), all))
	dgps := relations.WithFeatures(n, engine.SemiJoin(engine.IndexBy(n.DGPs, func(d relations.DGP) string { return d.LRP.Router }), all))
	return engine.Union(
		engine.FlatMap(gateways, func(x relations.Featured[relations.RouterGateway]) []Flow {
			if !zoneTracking(x.Features) {
				return nil
			}
			return commitAllFlows(on(x.Of.Router), "", "")
		}),
		engine.FlatMap(dgps, func(x relations.Featured[relations.DGP]) []Flow {
			if !zoneTracking(x.Features) {
				return nil
			}
			d := x.Of
			port := jsonKey(d.Name())
			return commitAllFlows(on(d.LRP.Router), " && inport == "+port+" && "+residentCR(d), " && outport == "+port+" && "+residentCR(d))
		}))
}

// zoneTracking: every chassis can name the zone of a conntrack commit or
// lookup (ct_commit_to_zone, ct_next).
func zoneTracking(f relations.Features) bool { return f.CTCommitToZone && f.CTNextZone }

// commitAllFlows are the flows of RouterCommitAllFlows, the ingress ones
// narrowed by in and the egress ones by out.
func commitAllFlows(dp on, in, out string) []Flow {
	return []Flow{
		dp.flow(LRInDefrag, 10, "ip && (!ct.trk || !ct.rpl)"+in, "ct_next(dnat);"),
		dp.flow(LRInDNAT, 10, "ip && ct.new"+in, "ct_commit_to_zone(dnat);"),
		dp.flow(LRInPostUnSNAT, 10, "ip && ct.new"+in, "flags.unsnat_new = 1; next;"),
		dp.flow(LRInPostUnSNAT, 10, "ip && !ct.trk"+in, "flags.unsnat_not_tracked = 1; next;"),
		dp.flow(LROutPostUnDNAT, 10, "ip && (!ct.trk || !ct.rpl) && flags.unsnat_not_tracked == 1"+out, "ct_next(snat);"),
		dp.flow(LROutPostUnDNAT, 10, "ip && flags.unsnat_new == 1"+out, "next;"),
		dp.flow(LROutSNAT, 10, "ip && (!ct.trk || !ct.rpl) && flags.unsnat_new == 1"+out, "ct_commit_to_zone(snat);"),
		dp.flow(LROutSNAT, 10, "ip && ct.new"+out, "ct_commit_to_zone(snat);"),
	}
}
