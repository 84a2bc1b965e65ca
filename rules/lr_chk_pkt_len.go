package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterChkPktLenFlows: lr_in_chk_pkt_len and lr_in_larger_pkts, the flows
// every router has (northd.c build_check_pkt_len_flows_for_lrouter):
// packets are allowed whatever their length unless a gateway_mtu flow
// says otherwise.
func RouterChkPktLenFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInChkPktLen, 0, "1", "next;"),
			dp.flow(LRInLargerPkts, 0, "1", "next;"),
		}
	})
}

// RouterPortGatewayMTUFlows: lr_in_chk_pkt_len and lr_in_ip_input for a
// router port with a gateway_mtu (northd.c build_check_pkt_len_flows_for_lrp):
// the length of packets routed out of the port is checked into reg9[1],
// and a too-large packet that came in on the port itself gets an ICMP
// "fragmentation needed" (IPv4) or "packet too big" (IPv6) error from it.
func RouterPortGatewayMTUFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.LRPGatewayMTUs, func(m relations.LRPGatewayMTU) []Flow {
		flows := gatewayMTUFlows(onLRP(m.LRP), m, LRInChkPktLen, "outport == "+jsonKey(m.LRP.Name()), "next;")
		return append(flows, packetTooBigFlows(StagesFor(nb), m.LRP, m.MTU, LRInIPInput, "")...)
	})
}

// RouterPortLargerPktsFlows: lr_in_larger_pkts for each other port of a
// router that has a port with a gateway_mtu (northd.c
// build_check_pkt_len_flows_for_lrp): a too-large packet from that port to
// the gateway_mtu port gets the ICMP error from the port it came in on.
func RouterPortLargerPktsFlows(nb *relations.NB) engine.Rel[Flow] {
	type inOut struct {
		in  relations.LRP
		out relations.LRPGatewayMTU
	}
	pairs := engine.Join(
		engine.IndexBy(nb.LRPs, lrpRouter),
		engine.IndexBy(nb.LRPGatewayMTUs, func(m relations.LRPGatewayMTU) string { return m.LRP.Router }),
		func(_ string, in relations.LRP, out relations.LRPGatewayMTU) inOut { return inOut{in, out} })
	return engine.FlatMap(pairs, func(x inOut) []Flow {
		if x.in.Port.UUID == x.out.LRP.Port.UUID {
			return nil
		}
		return packetTooBigFlows(StagesFor(nb), x.in, x.out.MTU, LRInLargerPkts, "outport == "+jsonKey(x.out.LRP.Name())+" && ")
	})
}

// packetTooBigFlows is northd.c build_icmperr_pkt_big_flows: packets from
// port in that reg9[1] marks too large, and that are not already looped
// back errors, become an ICMP error from in's first address back to the
// sender, reporting mtu, sent through the pipeline again from the start
// (t's lr_in_admission).
func packetTooBigFlows(t *StageTable, in relations.LRP, mtu int, stage Stage, outMatch string) []Flow {
	dp, key, restart := onLRP(in), jsonKey(in.Name()), t.Table(LRInAdmission)
	var flows []Flow
	if len(in.Net.IPv4) > 0 {
		flows = append(flows, dp.flow(stage, 150,
			fmt.Sprintf("inport == %s && %sip4 && reg9[1] && reg9[0] == 0", key, outMatch),
			fmt.Sprintf("icmp4_error {reg9[0] = 1; reg9[1] = 0; eth.dst = %s; ip4.dst = ip4.src; ip4.src = %s; ip.ttl = 255; "+
				"icmp4.type = 3; /* Destination Unreachable. */ icmp4.code = 4; /* Frag Needed and DF was Set. */ "+
				"icmp4.frag_mtu = %d; next(pipeline=ingress, table=%d); };",
				in.Net.MAC, in.Net.IPv4[0].AddrS, mtu, restart)))
	}
	return append(flows, dp.flow(stage, 150,
		fmt.Sprintf("inport == %s && %sip6 && reg9[1] && reg9[0] == 0", key, outMatch),
		fmt.Sprintf("icmp6_error {reg9[0] = 1; reg9[1] = 0; eth.dst = %s; ip6.dst = ip6.src; ip6.src = %s; ip.ttl = 255; "+
			"icmp6.type = 2; /* Packet Too Big. */ icmp6.code = 0; "+
			"icmp6.frag_mtu = %d; next(pipeline=ingress, table=%d); };",
			in.Net.MAC, in.Net.IPv6[0].AddrS, mtu, restart)))
}
