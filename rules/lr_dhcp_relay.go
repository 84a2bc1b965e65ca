package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterDHCPRelayFlows: a router port with a DHCP relay (26.03,
// relations.DHCPRelay) whose peer switch has other_config:dhcp_relay_port
// relays the DHCPv4 requests that come in from that switch to its server
// and the server's replies back (northd.c
// build_dhcp_relay_flows_for_lrouter_port), from the port's first IPv4
// address: lr_in_ip_input checks a broadcast request (dhcp_relay_req_chk,
// metered as dhcpv4-relay) and admits the server's replies to that
// address, lr_in_dhcp_relay_req rewrites a request that passed the check
// to the server and drops the others, lr_in_dhcp_relay_resp_chk checks a
// reply and lr_in_dhcp_relay_resp sends one that passed back out of the
// port and drops the others.
func RouterDHCPRelayFlows(nb *relations.NB) engine.Rel[Flow] {
	onRelaySwitch := engine.SemiJoin(engine.IndexBy(nb.DHCPRelays, func(r relations.DHCPRelay) string { return r.Peer.Switch }),
		engine.IndexBy(nb.RelaySwitches, func(s relations.RelaySwitch) string { return s.Switch }))
	return engine.FlatMap(onRelaySwitch, func(r relations.DHCPRelay) []Flow {
		lrp := r.Peer.LRP
		if len(lrp.Net.IPv4) == 0 {
			return nil
		}
		dp, port, addr, server := on(lrp.Router).from(lrp.Port.UUID), jsonKey(lrp.Name()), lrp.Net.IPv4[0].AddrS, r.Server
		request := fmt.Sprintf("inport == %s && ip4.src == 0.0.0.0 && ip4.dst == 255.255.255.255 && udp.src == 68 && udp.dst == 67", port)
		reply := fmt.Sprintf("ip4.src == %s && reg2 == %s && udp.src == 67 && udp.dst == 67", server, addr)
		return []Flow{
			dp.flow(LRInIPInput, 110, fmt.Sprintf(
				"inport == %s && ip4.src == 0.0.0.0 && ip4.dst == 255.255.255.255 && ip.frag == 0 && udp.src == 68 && udp.dst == 67", port),
				fmt.Sprintf("reg9[7] = dhcp_relay_req_chk(%s, %s);next; /* DHCP_RELAY_REQ */", addr, server)),
			dp.flow(LRInDHCPRelayReq, 100, request+" && reg9[7]",
				fmt.Sprintf("ip4.src = %s; ip4.dst = %s; udp.src = 67; next; /* DHCP_RELAY_REQ */", addr, server)),
			dp.flow(LRInDHCPRelayReq, 1, request+" && reg9[7] == 0", "drop; /* DHCP_RELAY_REQ */"),
			dp.flow(LRInIPInput, 110, fmt.Sprintf(
				"ip4.src == %s && ip4.dst == %s && ip.frag == 0 && udp.src == 67 && udp.dst == 67", server, addr),
				"next; /* DHCP_RELAY_RESP */"),
			dp.flow(LRInDHCPRelayRespChk, 100, fmt.Sprintf(
				"ip4.src == %s && ip4.dst == %s && udp.src == 67 && udp.dst == 67", server, addr),
				fmt.Sprintf("reg2 = ip4.dst; reg9[8] = dhcp_relay_resp_chk(%s, %s); next; /* DHCP_RELAY_RESP */", addr, server)),
			dp.flow(LRInDHCPRelayResp, 100, reply+" && reg9[8]",
				fmt.Sprintf("ip4.src = %s; udp.dst = 68; outport = %s; output; /* DHCP_RELAY_RESP */", addr, port)),
			dp.flow(LRInDHCPRelayResp, 1, reply+" && reg9[8] == 0", "drop; /* DHCP_RELAY_RESP */"),
		}
	})
}

// SwitchDHCPRelayFlows: on a switch with other_config:dhcp_relay_port
// (26.03) that has router ports, the DHCPv4 broadcast requests of each
// VIF go straight to the router port peered with the switch port it
// names, when that port relays DHCP (northd.c
// build_lswitch_dhcp_relay_flows): ls_in_l2_lkup sets the router port's
// MAC and outputs to the named port. The request is the VIF's, from the
// MAC of its first address.
func SwitchDHCPRelayFlows(nb *relations.NB) engine.Rel[Flow] {
	type relayOn struct {
		Switch string
		Relay  relations.DHCPRelay
	}
	relays := engine.Join(engine.IndexBy(nb.RelaySwitches, func(s relations.RelaySwitch) string { return s.Port }),
		engine.IndexBy(nb.DHCPRelays, func(r relations.DHCPRelay) string { return r.Peer.LSP.Name }),
		func(_ string, s relations.RelaySwitch, r relations.DHCPRelay) relayOn { return relayOn{s.Switch, r} })
	withRouterPorts := engine.SemiJoin(engine.IndexBy(relays, func(r relayOn) string { return r.Switch }),
		engine.IndexBy(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.Switch }))
	vifs := engine.Filter(nb.LSPs, func(p relations.LSP) bool { return p.Port.Type == "" && len(p.Addrs.Static) > 0 })
	return engine.Join(engine.IndexBy(vifs, func(p relations.LSP) string { return p.Switch }),
		engine.IndexBy(engine.Distinct(withRouterPorts), func(r relayOn) string { return r.Switch }),
		func(_ string, p relations.LSP, r relayOn) Flow {
			return onPort{p.Switch, p.Name()}.from(p.Port.UUID).flow(LSInL2Lkup, 100, fmt.Sprintf(
				"inport == %s && eth.src == %s && ip4.src == 0.0.0.0 && ip4.dst == 255.255.255.255 && udp.src == 68 && udp.dst == 67",
				jsonKey(p.Name()), p.Addrs.Static[0].MAC),
				fmt.Sprintf("eth.dst = %s; outport = %s; next; /* DHCP_RELAY_REQ */", r.Relay.Peer.LRP.Net.MAC, jsonKey(r.Relay.Peer.LSP.Name)))
		})
}
