package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
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
// In 26.03 the check also saves the conntrack state for lr_in_larger_pkts,
// and the errors it sends for replies are SNATed back (lr_out_post_snat).
func RouterPortGatewayMTUFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(relations.WithFeatures(nb, nb.LRPGatewayMTUs), func(x relations.Featured[relations.LRPGatewayMTU]) []Flow {
		m, dp := x.Of, onLRP(x.Of.LRP)
		checked := "next;"
		if savesCTStateForTooBig(nb.Release) && x.Features.CTStateSave {
			checked = "reg4[0..7] = ct_state_save(); next;"
		}
		flows := gatewayMTUFlows(nb.Release, dp, m, LRInChkPktLen, "outport == "+jsonKey(m.LRP.Name()), checked)
		flows = append(flows, packetTooBigFlows(StagesFor(nb), m.LRP, m.MTU, LRInIPInput, "")...)
		if savesCTStateForTooBig(nb.Release) && x.Features.CTCommitNATv2 {
			flows = append(flows, dp.flow(LROutPostSNAT, 100, "icmp && flags.icmp_snat == 1", "ct_commit_nat(snat);"))
		}
		return flows
	})
}

// savesCTStateForTooBig: 26.03 saves the conntrack state of a packet
// whose length it checks (ct_state_save into REG_CT_STATE, reg4[0..7]),
// and answers a too-large reply of a DNATed connection with an error
// SNATed back through that connection (flags.icmp_snat). Where some
// chassis lacks ct_state_save (relations.Features.CTStateSave) the reply
// is told by its current conntrack state instead; where some chassis
// lacks ct_commit_nat_v2 (Features.CTCommitNATv2) the error is not
// committed for SNAT.
func savesCTStateForTooBig(rel schema.Release) bool { return rel >= schema.OVN2603 }

// RouterPortLargerPktsFlows: lr_in_larger_pkts for each other port of a
// router that has a port with a gateway_mtu (northd.c
// build_check_pkt_len_flows_for_lrp): a too-large packet from that port to
// the gateway_mtu port gets the ICMP error from the port it came in on; in
// 26.03 one that is a reply of a DNATed connection (the saved conntrack
// state: tracked, reply, dnat) first gets one marked for SNAT.
func RouterPortLargerPktsFlows(nb *relations.NB) engine.Rel[Flow] {
	type inOut struct {
		in  relations.LRP
		out relations.LRPGatewayMTU
	}
	pairs := engine.Join(
		engine.IndexBy(nb.LRPs, lrpRouter),
		engine.IndexBy(nb.LRPGatewayMTUs, func(m relations.LRPGatewayMTU) string { return m.LRP.Router }),
		func(_ string, in relations.LRP, out relations.LRPGatewayMTU) inOut { return inOut{in, out} })
	return engine.FlatMap(relations.WithFeatures(nb, pairs), func(f relations.Featured[inOut]) []Flow {
		x := f.Of
		if x.in.Port.UUID == x.out.LRP.Port.UUID {
			return nil
		}
		t, outMatch := StagesFor(nb), "outport == "+jsonKey(x.out.LRP.Name())+" && "
		var flows []Flow
		if savesCTStateForTooBig(nb.Release) {
			replyOfDNAT := " && ct.trk && ct.rpl && ct.dnat"
			if f.Features.CTStateSave {
				replyOfDNAT = " && reg4[5] && reg4[3] && reg4[7]"
			}
			flows = tooBigFlows(t, x.in, x.out.MTU, LRInLargerPkts, 160, outMatch, replyOfDNAT, "flags.icmp_snat = 1; ")
		}
		return append(flows, packetTooBigFlows(t, x.in, x.out.MTU, LRInLargerPkts, outMatch)...)
	})
}

// packetTooBigFlows is northd.c build_icmperr_pkt_big_flows's priority-150
// flows: packets from port in that reg9[1] marks too large, and that are
// not already looped back errors, become an ICMP error from in's first
// address back to the sender, reporting mtu, sent through the pipeline
// again from the start (t's lr_in_admission).
func packetTooBigFlows(t *StageTable, in relations.LRP, mtu int, stage Stage, outMatch string) []Flow {
	return tooBigFlows(t, in, mtu, stage, 150, outMatch, "", "")
}

// tooBigFlows is northd.c create_icmp_need_frag_lflow for IPv4 and IPv6,
// with extraMatch after the match and extraActions first in the error's
// actions.
func tooBigFlows(t *StageTable, in relations.LRP, mtu int, stage Stage, priority int, outMatch, extraMatch, extraActions string) []Flow {
	dp, key, restart := onLRP(in), jsonKey(in.Name()), t.Table(LRInAdmission)
	var flows []Flow
	if len(in.Net.IPv4) > 0 {
		flows = append(flows, dp.flow(stage, priority,
			fmt.Sprintf("inport == %s && %sip4 && reg9[1] && reg9[0] == 0%s", key, outMatch, extraMatch),
			fmt.Sprintf("icmp4_error {%sreg9[0] = 1; reg9[1] = 0; eth.dst = %s; ip4.dst = ip4.src; ip4.src = %s; ip.ttl = 255; "+
				"icmp4.type = 3; /* Destination Unreachable. */ icmp4.code = 4; /* Frag Needed and DF was Set. */ "+
				"icmp4.frag_mtu = %d; next(pipeline=ingress, table=%d); };",
				extraActions, in.Net.MAC, in.Net.IPv4[0].AddrS, mtu, restart)))
	}
	return append(flows, dp.flow(stage, priority,
		fmt.Sprintf("inport == %s && %sip6 && reg9[1] && reg9[0] == 0%s", key, outMatch, extraMatch),
		fmt.Sprintf("icmp6_error {%sreg9[0] = 1; reg9[1] = 0; eth.dst = %s; ip6.dst = ip6.src; ip6.src = %s; ip.ttl = 255; "+
			"icmp6.type = 2; /* Packet Too Big. */ icmp6.code = 0; "+
			"icmp6.frag_mtu = %d; next(pipeline=ingress, table=%d); };",
			extraActions, in.Net.MAC, in.Net.IPv6[0].AddrS, mtu, restart)))
}
