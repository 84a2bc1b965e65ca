package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterAdmissionFlows: lr_in_admission, the flows every router has
// (northd.c build_adm_ctrl_flows_for_lrouter). Logical VLANs and
// broadcast/multicast source MACs are never valid; everything not admitted
// by a port's flow is dropped.
func RouterAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInAdmission, 100, "vlan.present || eth.src[40]", drop),
			dp.flow(LRInAdmission, 0, "1", drop),
		}
	})
}

// RouterPortAdmissionFlows: lr_in_admission, per enabled router port
// (northd.c build_adm_ctrl_flows_for_lrouter_port): multicast frames and
// frames to the port's MAC are admitted, and the MAC is saved in
// xreg0[0..47] so later stages need not match on inport. Ports with a
// gateway_mtu get their flows from
// RouterPortGatewayMTUAdmissionFlows instead.
func RouterPortAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	ports := engine.Filter(nb.LRPs, func(p relations.LRP) bool {
		return p.Enabled() && relations.SmapInt(p.Port.Options, "gateway_mtu", 0) <= 0
	})
	return engine.FlatMap(ports, func(p relations.LRP) []Flow {
		var flows []Flow
		for _, match := range admissionMatches(p) {
			flows = append(flows, on(p.Router).flow(LRInAdmission, 50, match, saveInportMAC(p)))
		}
		return flows
	})
}

// RouterPortGatewayMTUAdmissionFlows: lr_in_admission for enabled router
// ports with a gateway_mtu (northd.c build_gateway_mtu_flow): the admission
// flows also check the packet length against the MTU into reg9[1], except
// for traffic matching options:gateway_mtu_bypass, which a priority-55 twin
// admits unchecked.
func RouterPortGatewayMTUAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	ports := engine.Filter(nb.LRPGatewayMTUs, func(m relations.LRPGatewayMTU) bool { return m.LRP.Enabled() })
	return engine.FlatMap(ports, func(m relations.LRPGatewayMTU) []Flow {
		var flows []Flow
		for _, match := range admissionMatches(m.LRP) {
			flows = append(flows, gatewayMTUFlows(m, LRInAdmission, match, saveInportMAC(m.LRP))...)
		}
		return flows
	})
}

// admissionMatches are the frames a port admits: multicast, and unicast
// to its MAC except on a distributed gateway port, whose unicast admission
// depends on where its peer's VTEP ports are and is left to the gateway
// rules.
func admissionMatches(p relations.LRP) []string {
	key := jsonKey(p.Name())
	if p.DGP() {
		return []string{"eth.mcast && inport == " + key}
	}
	return []string{"eth.mcast && inport == " + key, fmt.Sprintf("eth.dst == %s && inport == %s", p.Net.MAC, key)}
}

// saveInportMAC stores the receiving port's MAC in REG_INPORT_ETH_ADDR.
func saveInportMAC(p relations.LRP) string {
	return fmt.Sprintf("xreg0[0..47] = %s; next;", p.Net.MAC)
}

// crKey is the JSON key of a distributed gateway port's chassisredirect
// port.
func crKey(p relations.LRP) string { return jsonKey("cr-" + p.Name()) }

// gatewayMTUFlows is northd.c build_gateway_mtu_flow: a priority-50 flow
// that checks the packet length before actions, and when the port has
// options:gateway_mtu_bypass a priority-55 flow for the bypassed traffic
// that does not.
func gatewayMTUFlows(m relations.LRPGatewayMTU, stage Stage, match, actions string) []Flow {
	dp := on(m.LRP.Router)
	flows := []Flow{dp.flow(stage, 50, match, fmt.Sprintf("reg9[1] = check_pkt_larger(%d); %s", m.CheckLen, actions))}
	if bypass, ok := m.LRP.Port.Options["gateway_mtu_bypass"]; ok {
		flows = append(flows, dp.flow(stage, 55, match+" && ("+bypass+")", actions))
	}
	return flows
}

// routerRules are the logical router flow families.
var routerRules = []Rule{
	RouterAdmissionFlows,
	RouterPortAdmissionFlows,
	RouterPortGatewayMTUAdmissionFlows,
	RouterNeighborFlows,
	RouterPortNeighborFlows,
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
	RouterARPRequestFlows,
	RouterPortDeliveryFlows,
	RouterNATStageDefaultFlows,
	RouterStaticRouteFlows,
	RouterBFDFlows,
	RouterECMPRouteFlows,
	RouterECMPSymmetricReplyFlows,
	RouterRouteTableFlows,
	RouterStaticRouteNSFlows,
	RouterPolicyRuleFlows,
	RouterPolicyRerouteFlows,
	RouterPolicyECMPFlows,
}
