package rules

import (
	"fmt"
	"net/netip"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterARPRequestFlows: lr_in_arp_request, the flows every router has
// (northd.c build_arp_request_flows_for_lrouter): a packet whose next hop's
// MAC is still unknown (eth.dst zero) is turned into an ARP request or a
// neighbour solicitation for the next hop; others are output.
func RouterARPRequestFlows(nb *relations.NB) engine.Rel[Flow] {
	then, otherwise := arpRequestEnd(nb)
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInARPRequest, 100, "eth.dst == 00:00:00:00:00:00 && "+nextHopIs(nb.Release, true),
				"arp { eth.dst = ff:ff:ff:ff:ff:ff; arp.spa = "+srcIPReg(nb.Release, false)+"; arp.tpa = reg0; arp.op = 1; output; };"+then),
			dp.flow(LRInARPRequest, 100, "eth.dst == 00:00:00:00:00:00 && "+nextHopIs(nb.Release, false),
				"nd_ns { nd.target = xxreg0; output; };"+then),
			dp.flow(LRInARPRequest, 0, "1", otherwise),
		}
	})
}

// arpRequestEnd is what lr_in_arp_request does after sending an ARP
// request or a solicitation (then, after the "};") and with other
// packets: it outputs them where it is the last ingress stage (23.03);
// before lr_in_ecmp_stateful_egr (26.03) it passes both on, the packet
// that triggered the request included.
func arpRequestEnd(nb *relations.NB) (then, otherwise string) {
	if StagesFor(nb).Has(LRInECMPStatefulEgr) {
		return " next;", "next;"
	}
	return "", "output;"
}

// RouterStaticRouteNSFlows: lr_in_arp_request, priority 200, for each
// static route of a router whose next hop is a single IPv6 address,
// accepted or not (northd.c build_arp_request_flows_for_lrouter): the
// neighbour solicitation for that next hop goes to its solicited-node
// multicast address rather than the one nd_ns picks.
func RouterStaticRouteNSFlows(nb *relations.NB) engine.Rel[Flow] {
	then, _ := arpRequestEnd(nb)
	return engine.FlatMap(nb.RouterRoutes, func(r relations.RouterRoute) []Flow {
		nh := r.Route.Nexthop
		ip, plen, ok := relations.ParseCIDR(nh)
		if !ok || ip.Is4() || plen != 128 {
			return nil
		}
		b := ip.As16()
		sn := netip.AddrFrom16([16]byte{0xff, 0x02, 11: 0x01, 12: 0xff, 13: b[13], 14: b[14], 15: b[15]})
		return []Flow{on(r.Router).from(r.Route.UUID).flow(LRInARPRequest, 200,
			"eth.dst == 00:00:00:00:00:00 && "+nextHopIs(nb.Release, false)+" && xxreg0 == "+nh,
			fmt.Sprintf("nd_ns { eth.dst = 33:33:ff:%02x:%02x:%02x; ip6.dst = %s; nd.target = %s; output; };%s",
				b[13], b[14], b[15], relations.FormatIPv6(sn), nh, then))}
	})
}
