package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterARPRequestFlows: lr_in_arp_request, the flows every router has
// (northd.c build_arp_request_flows_for_lrouter): a packet whose next hop's
// MAC is still unknown (eth.dst zero) is turned into an ARP request or a
// neighbour solicitation for the next hop; others are output.
func RouterARPRequestFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInARPRequest, 100, "eth.dst == 00:00:00:00:00:00 && ip4",
				"arp { eth.dst = ff:ff:ff:ff:ff:ff; arp.spa = reg1; arp.tpa = reg0; arp.op = 1; output; };"),
			dp.flow(LRInARPRequest, 100, "eth.dst == 00:00:00:00:00:00 && ip6",
				"nd_ns { nd.target = xxreg0; output; };"),
			dp.flow(LRInARPRequest, 0, "1", "output;"),
		}
	})
}
