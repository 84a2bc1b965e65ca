package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// RouterPortDeliveryFlows: lr_out_delivery for an enabled router port
// (northd.c build_egress_delivery_flows_for_lrouter_port): packets to the
// port are output, others dropped. When the router relays multicast, IP
// multicast leaving the port gets the port's MAC as source first.
//
// 23.03 adds the drop with each enabled port, 26.03 on every router
// (deliveryDropOnEveryRouter), so that only 26.03's routers without one
// have it.
func RouterPortDeliveryFlows(nb *relations.NB) engine.Rel[Flow] {
	relay := engine.Map(engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return r.McastRelay }),
		func(r relations.RouterConfig) string { return r.UUID })
	enabled := engine.IndexBy(engine.Filter(nb.LRPs, relations.LRP.Enabled), lrpRouter)
	relaying := engine.SemiJoin(enabled, engine.IndexBy(relay, func(r string) string { return r }))
	delivery := engine.FlatMap(engine.Filter(nb.LRPs, relations.LRP.Enabled), func(p relations.LRP) []Flow {
		dp := on(p.Router)
		flows := []Flow{dp.flow(LROutDelivery, 100, "outport == "+jsonKey(p.Name()), "output;")}
		if !deliveryDropOnEveryRouter(nb.Release) {
			flows = append(flows, dp.flow(LROutDelivery, 0, "1", drop))
		}
		return flows
	})
	everyRouter := engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		if deliveryDropOnEveryRouter(nb.Release) {
			return []Flow{on(r.UUID).flow(LROutDelivery, 0, "1", drop)}
		}
		return nil
	})
	mcast := engine.Map(relaying, func(p relations.LRP) Flow {
		return on(p.Router).flow(LROutDelivery, 110, "(ip4.mcast || ip6.mcast) && outport == "+jsonKey(p.Name()),
			"eth.src = "+p.Net.MAC.String()+"; output;")
	})
	return engine.Union(delivery, everyRouter, mcast)
}

// deliveryDropOnEveryRouter: 26.03 adds lr_out_delivery's default drop
// with the router's own flows rather than with each enabled port's.
func deliveryDropOnEveryRouter(rel schema.Release) bool { return rel >= schema.OVN2603 }
