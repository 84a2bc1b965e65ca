package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// maxNetworkID is the largest flags.network_id, a 4-bit field
// (logical-fields.h OVN_MAX_NETWORK_ID).
const maxNetworkID = 15

// RouterNetworkIDFlows: lr_in_network_id, a 26.03 stage (northd.c
// build_lrouter_network_id_flows): a packet whose next hop lies in a
// network of its output port gets that network's index among the port's
// networks of its family in flags.network_id (0 past the 16th), for
// ovn-controller to pick the port's source address by; other packets get
// 0. The IPv6 link-local network, listed last, has no flow. The
// priority-0 flow serves controllers that lack the flag.
func RouterNetworkIDFlows(nb *relations.NB) engine.Rel[Flow] {
	defaults := engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInNetworkID, 105, "1", "flags.network_id = 0; next;"),
			dp.flow(LRInNetworkID, 0, "1", "next;"),
		}
	})
	ports := engine.FlatMap(nb.LRPs, func(p relations.LRP) []Flow {
		dp, key := on(p.Router), jsonKey(p.Name())
		flow := func(i int, family, reg, addr string, plen int) Flow {
			if i > maxNetworkID {
				i = 0
			}
			return dp.flow(LRInNetworkID, 110, fmt.Sprintf("outport == %s && %s && %s == %s/%d", key, family, reg, addr, plen),
				fmt.Sprintf("flags.network_id = %d; next;", i))
		}
		var flows []Flow
		for i, a := range p.Net.IPv4 {
			flows = append(flows, flow(i, "ip4", nextHopReg(false), a.AddrS, a.Plen))
		}
		for i, a := range p.Net.IPv6[:len(p.Net.IPv6)-1] {
			flows = append(flows, flow(i, "ip6", nextHopReg(true), a.AddrS, a.Plen))
		}
		return flows
	})
	return engine.Union(defaults, ports)
}
