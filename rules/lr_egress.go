package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterPortDeliveryFlows: lr_out_delivery for an enabled router port
// (northd.c build_egress_delivery_flows_for_lrouter_port): packets to the
// port are output, others dropped. When the router relays multicast, IP
// multicast leaving the port gets the port's MAC as source first.
func RouterPortDeliveryFlows(nb *relations.NB) engine.Rel[Flow] {
	relay := engine.Map(engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return r.McastRelay }),
		func(r relations.RouterConfig) string { return r.UUID })
	enabled := engine.IndexBy(engine.Filter(nb.LRPs, relations.LRP.Enabled), lrpRouter)
	relaying := engine.SemiJoin(enabled, engine.IndexBy(relay, func(r string) string { return r }))
	delivery := engine.FlatMap(engine.Filter(nb.LRPs, relations.LRP.Enabled), func(p relations.LRP) []Flow {
		dp := on(p.Router)
		return []Flow{
			dp.flow(LROutDelivery, 100, "outport == "+jsonKey(p.Name()), "output;"),
			dp.flow(LROutDelivery, 0, "1", drop),
		}
	})
	mcast := engine.Map(relaying, func(p relations.LRP) Flow {
		return on(p.Router).flow(LROutDelivery, 110, "(ip4.mcast || ip6.mcast) && outport == "+jsonKey(p.Name()),
			"eth.src = "+p.Net.MAC.String()+"; output;")
	})
	return engine.Union(delivery, mcast)
}
