package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// RouterAdmissionFlows: lr_in_admission, the flows every router has
// (northd.c build_adm_ctrl_flows_for_lrouter). Logical VLANs and
// broadcast/multicast source MACs are never valid; everything not admitted
// by a port's flow is dropped. In 26.03, so are the ICMP "too big" errors
// the router generated itself (lr_in_larger_pkts) coming back through a
// tunnel.
func RouterAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		flows := []Flow{
			dp.flow(LRInAdmission, 100, "vlan.present || eth.src[40]", drop),
			dp.flow(LRInAdmission, 0, "1", drop),
		}
		if dropsTunnelledTooBig(nb.Release) {
			flows = append(flows, dp.flow(LRInAdmission, 110, "((ip4 && icmp4.type == 3 && icmp4.code == 4) ||"+
				" (ip6 && icmp6.type == 2 && icmp6.code == 0)) && flags.tunnel_rx == 1", drop))
		}
		return flows
	})
}

// dropsTunnelledTooBig: 26.03 drops ICMP "fragmentation needed" and
// "packet too big" errors that arrive through a tunnel (flags.tunnel_rx)
// unless they are for a distributed gateway port (RouterDGPTooBigFlows).
func dropsTunnelledTooBig(rel schema.Release) bool { return rel >= schema.OVN2603 }

// RouterDGPTooBigFlows: lr_in_admission, priority 120, per distributed
// gateway port in 26.03 (northd.c
// build_lrouter_icmp_packet_toobig_admin_flows): an ICMP "too big" error
// for the port's MAC that a tunnel brought to a chassis other than the
// gateway is turned back as if it came in on the port.
func RouterDGPTooBigFlows(nb *relations.NB) engine.Rel[Flow] {
	dgps := engine.Filter(nb.LRPs, func(p relations.LRP) bool { return p.DGP() && dropsTunnelledTooBig(nb.Release) })
	return engine.Map(dgps, func(p relations.LRP) Flow {
		return on(p.Router).flow(LRInAdmission, 120, fmt.Sprintf("((ip4 && icmp4.type == 3 && icmp4.code == 4) ||"+
			" (ip6 && icmp6.type == 2 && icmp6.code == 0)) && eth.dst == %s && !is_chassis_resident(%s) && flags.tunnel_rx == 1",
			p.Port.MAC, crKey(p)), "outport <-> inport; inport = "+jsonKey(p.Name())+"; next;")
	})
}

// RouterPortAdmissionFlows: lr_in_admission, per enabled router port
// (northd.c build_adm_ctrl_flows_for_lrouter_port): multicast frames and
// frames to the port's MAC are admitted, and the MAC is saved in
// xreg0[0..47] so later stages need not match on inport. The flows that
// check a gateway_mtu come from RouterPortGatewayMTUAdmissionFlows
// instead.
func RouterPortAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	ports := engine.Filter(nb.LRPs, func(p relations.LRP) bool { return p.Enabled() })
	return engine.FlatMap(ports, func(p relations.LRP) []Flow {
		var flows []Flow
		for _, a := range admissionMatches(p) {
			if !hasGatewayMTU(p) || !a.checksMTU(nb.Release) {
				flows = append(flows, onLRP(p).flow(LRInAdmission, 50, a.match, saveInportMAC(p)))
			}
		}
		return flows
	})
}

// RouterPortGatewayMTUAdmissionFlows: lr_in_admission for enabled router
// ports with a gateway_mtu (northd.c build_gateway_mtu_flow): the admission
// flows also check the packet length against the MTU into reg9[1], except
// for the traffic a priority-55 twin admits unchecked
// (gatewayMTUBypass).
func RouterPortGatewayMTUAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	ports := engine.Filter(nb.LRPGatewayMTUs, func(m relations.LRPGatewayMTU) bool { return m.LRP.Enabled() })
	return engine.FlatMap(ports, func(m relations.LRPGatewayMTU) []Flow {
		var flows []Flow
		for _, a := range admissionMatches(m.LRP) {
			if a.checksMTU(nb.Release) {
				flows = append(flows, gatewayMTUFlows(nb.Release, onLRP(m.LRP), m, LRInAdmission, a.match, saveInportMAC(m.LRP))...)
			}
		}
		return flows
	})
}

// hasGatewayMTU: the port's options:gateway_mtu is above zero
// (relations.LRPGatewayMTU).
func hasGatewayMTU(p relations.LRP) bool {
	return relations.SmapInt(p.Port.Options, "gateway_mtu", 0) > 0
}

// admission is one kind of frame a port admits.
type admission struct {
	match     string
	multicast bool
}

// checksMTU: the admission flow checks the port's gateway_mtu; since
// 26.03 multicast frames are admitted unchecked.
func (a admission) checksMTU(rel schema.Release) bool {
	return !a.multicast || !admitsMulticastUnchecked(rel)
}

// admitsMulticastUnchecked: 26.03 builds the multicast admission flow
// without build_gateway_mtu_flow.
func admitsMulticastUnchecked(rel schema.Release) bool { return rel >= schema.OVN2603 }

// admissionMatches are the frames a port admits: multicast, and unicast
// to its MAC except on a distributed gateway port, whose unicast admission
// depends on where its peer's VTEP ports are and is left to the gateway
// rules.
func admissionMatches(p relations.LRP) []admission {
	key := jsonKey(p.Name())
	mcast := admission{match: "eth.mcast && inport == " + key, multicast: true}
	if p.DGP() {
		return []admission{mcast}
	}
	return []admission{mcast, {match: fmt.Sprintf("eth.dst == %s && inport == %s", p.Net.MAC, key)}}
}

// saveInportMAC stores the receiving port's MAC in REG_INPORT_ETH_ADDR.
func saveInportMAC(p relations.LRP) string {
	return fmt.Sprintf("xreg0[0..47] = %s; next;", p.Net.MAC)
}

// crKey is the JSON key of a distributed gateway port's chassisredirect
// port.
func crKey(p relations.LRP) string { return jsonKey("cr-" + p.Name()) }

// gatewayMTUFlows is northd.c build_gateway_mtu_flow: a priority-50 flow
// that checks the packet length before actions, and a priority-55 flow
// for the traffic that gatewayMTUBypass lets through unchecked.
func gatewayMTUFlows(rel schema.Release, dp onRow, m relations.LRPGatewayMTU, stage Stage, match, actions string) []Flow {
	flows := []Flow{dp.flow(stage, 50, match, fmt.Sprintf("reg9[1] = check_pkt_larger(%d); %s", m.CheckLen, actions))}
	if bypass, ok := gatewayMTUBypass(rel, m.LRP); ok {
		flows = append(flows, dp.flow(stage, 55, match+" && ("+bypass+")", actions))
	}
	return flows
}

// gatewayMTUBypass is the traffic a port's MTU check lets through:
// options:gateway_mtu_bypass, and since 26.03 ARP as well; ok is false
// when there is none.
func gatewayMTUBypass(rel schema.Release, p relations.LRP) (bypass string, ok bool) {
	bypass, ok = p.Port.Options["gateway_mtu_bypass"]
	if !mtuBypassesARP(rel) {
		return bypass, ok
	}
	if ok {
		return "arp || " + bypass, true
	}
	return "arp", true
}

// mtuBypassesARP: 26.03 never checks the length of ARP frames against a
// gateway_mtu.
func mtuBypassesARP(rel schema.Release) bool { return rel >= schema.OVN2603 }

// routerRules are the logical router flow families.
var routerRules = []Rule{
	RouterAdmissionFlows,
	RouterPortAdmissionFlows,
	RouterPortGatewayMTUAdmissionFlows,
	RouterDGPTooBigFlows,
	RouterNeighborFlows,
	RouterPortNeighborFlows,
	RouterDGPNeighborMcastFlows,
	RouterIPInputFlows,
	RouterPortIPv4InputFlows,
	RouterPortARPReplyFlows,
	RouterPortIPv6InputFlows,
	RouterPortUnreachableFlows,
	RouterPortOwnIPDropFlows,
	RouterNDRAFlows,
	RouterPortNDRAFlows,
	RouterRoutingFlows,
	RouterMcastRoutingFlows,
	RouterIGMPGroupFlows,
	RouterMcastFloodInputFlows,
	RouterPortConnectedRouteFlows,
	RouterARPResolveFlows,
	SwitchPortNeighborFlows,
	VirtualPortNeighborFlows,
	RouterPeerViaSwitchNeighborFlows,
	RouterPeerNeighborFlows,
	RouterPolicyFlows,
	RouterChkPktLenFlows,
	RouterPortGatewayMTUFlows,
	RouterPortLargerPktsFlows,
	RouterNetworkIDFlows,
	RouterARPRequestFlows,
	RouterPortDeliveryFlows,
	RouterNATStageDefaultFlows,
	RouterStaticRouteFlows,
	RouterLearnedRouteFlows,
	RouterBFDFlows,
	RouterECMPRouteFlows,
	RouterECMPSymmetricReplyFlows,
	RouterPortECMPStatefulEgrFlows,
	RouterRouteTableFlows,
	RouterStaticRouteNSFlows,
	RouterPolicyRuleFlows,
	RouterPolicyRerouteFlows,
	RouterPolicyECMPFlows,
	RouterDHCPRelayFlows, // lr_dhcp_relay.go
	SwitchDHCPRelayFlows,
}
