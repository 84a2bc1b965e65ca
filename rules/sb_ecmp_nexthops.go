package rules

import (
	"cmp"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// ECMPNexthop is an SB ECMP_Nexthop row (en-ecmp-nexthop.c
// build_ecmp_nexthop_table): the next hop of a static route with
// options:ecmp_symmetric_reply, printed as northd parsed it
// (ipv6_format_mapped), and the router port the route leaves by, whose
// binding and datapath the row refers to. ovn-controller flushes the
// connections committed through a next hop once its row goes.
type ECMPNexthop struct {
	Nexthop, Port string
}

// CompareECMPNexthops orders next hops by port, then address.
func CompareECMPNexthops(a, b ECMPNexthop) int {
	return cmp.Or(cmp.Compare(a.Port, b.Port), cmp.Compare(a.Nexthop, b.Nexthop))
}

// writesECMPNexthops: 26.03 has the ECMP_Nexthop table, 23.03 not.
func writesECMPNexthops(r schema.Release) bool { return r >= schema.OVN2603 }

// SBECMPNexthops computes the next hops of the accepted symmetric-reply
// routes that have one, while NB_Global options:ecmp_nexthop_monitor_enable
// is true; without it northd deletes every row.
func SBECMPNexthops(n *relations.NB) engine.Rel[ECMPNexthop] {
	one := func(ECMPNexthop) struct{} { return struct{}{} }
	enabled := engine.Distinct(engine.FlatMap(n.Global.Rows, func(g *nb.NBGlobal) []struct{} {
		if writesECMPNexthops(n.Release) && relations.SmapBool(g.Options, "ecmp_nexthop_monitor_enable", false) {
			return []struct{}{{}}
		}
		return nil
	}))
	hops := engine.FlatMap(n.Routes, func(r relations.StaticRoute) []ECMPNexthop {
		if !r.SymmetricReply() || r.Discard || !r.Gateway.IsValid() {
			return nil
		}
		return []ECMPNexthop{{Nexthop: printAddr(r.Gateway), Port: r.Out.Name()}}
	})
	return engine.Distinct(engine.SemiJoin(engine.IndexBy(hops, one), engine.IndexBy(enabled, func(struct{}) struct{} { return struct{}{} })))
}
