package rules

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// RouterIPInputFlows: lr_in_ip_input, the flows every router has (northd.c
// build_misc_local_traffic_drop_flows_for_lrouter): L3 admission control
// drops martian sources and destinations, ARP and ND not handled by a
// port's flow, reserved and (unless the router relays it) other multicast,
// local broadcast, and expiring TTLs; the rest goes on to routing.
func RouterIPInputFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		mcast := drop
		if r.McastRelay {
			mcast = "next;"
		}
		return []Flow{
			dp.flow(LRInIPInput, 100, "ip4.src_mcast ||"+
				"ip4.src == 255.255.255.255 || "+
				"ip4.src == 127.0.0.0/8 || "+
				"ip4.dst == 127.0.0.0/8 || "+
				"ip4.src == 0.0.0.0/8 || "+
				"ip4.dst == 0.0.0.0/8", drop),
			dp.flow(LRInIPInput, 85, "arp || nd", drop),
			// Router solicitations and advertisements reach the ND RA stages.
			dp.flow(LRInIPInput, 84, "nd_rs || nd_ra", "next;"),
			dp.flow(LRInIPInput, 83, "ip6.mcast_rsvd", drop),
			dp.flow(LRInIPInput, 82, "ip4.mcast || ip6.mcast", mcast),
			dp.flow(LRInIPInput, 50, "eth.bcast", drop),
			// Expiring multicast is dropped silently (RFC 1812 5.3.1), other
			// traffic gets the priority-31 ICMP time exceeded first.
			dp.flow(LRInIPInput, 32, "ip.ttl == {0, 1} && !ip.later_frag && (ip4.mcast || ip6.mcast)", drop),
			dp.flow(LRInIPInput, ttlDropPriority(nb.Release), "ip.ttl == {0, 1}", drop),
			dp.flow(LRInIPInput, 0, "1", "next;"),
		}
	})
}

// ttlDropPriority is the priority of the drop of expiring packets: 30 in
// 23.03; 29 in 26.03, whose ports answer every expiring packet from them
// at 30 (not only those from their networks, at 31).
func ttlDropPriority(rel schema.Release) int {
	if portsAnswerAnyExpiredTTL(rel) {
		return 29
	}
	return 30
}

// portsAnswerAnyExpiredTTL: 26.03's router ports send ICMP time exceeded
// for expiring packets from any source, from their first address.
func portsAnswerAnyExpiredTTL(rel schema.Release) bool { return rel >= schema.OVN2603 }

// RouterMcastFloodInputFlows: lr_in_ip_input, priority 120, on routers
// that flood multicast statically (northd.c
// build_misc_local_traffic_drop_flows_for_lrouter): IGMP and MLD, whose
// TTL is 1, escape the TTL drop.
func RouterMcastFloodInputFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.GroupBy(floodStaticRouters(nb), func(router string, _ []string) []Flow {
		dp := on(router)
		return []Flow{
			dp.flow(LRInIPInput, 120, "igmp && ip.ttl == 1", "next;"),
			dp.flow(LRInIPInput, 120, "(mldv1 || mldv2) && ip.ttl == 1", "next;"),
		}
	})
}

// RouterPortIPv4InputFlows: lr_in_ip_input for a router port's IPv4
// networks (northd.c build_lrouter_ipv4_ip_input): drop packets that claim
// to come from the router's own or broadcast addresses, answer ICMP echo
// for the router's addresses, send ICMP time exceeded for expiring packets
// that came in on the port: in 23.03 from each network's address, in 26.03
// from the address of the network they came from, or else the first.
func RouterPortIPv4InputFlows(nb *relations.NB) engine.Rel[Flow] {
	anySource := portsAnswerAnyExpiredTTL(nb.Release)
	return engine.FlatMap(nb.LRPs, func(p relations.LRP) []Flow {
		v4 := p.Net.IPv4
		if len(v4) == 0 {
			return nil
		}
		dp, key := onLRP(p), jsonKey(p.Name())
		flows := []Flow{
			dp.flow(LRInIPInput, 100, "ip4.src == "+v4Networks(p.Net, true)+" && reg9[0] == 0", drop),
			dp.flow(LRInIPInput, 90, "ip4.dst == "+v4Networks(p.Net, false)+" && icmp4.type == 8 && icmp4.code == 0",
				"ip4.dst <-> ip4.src; ip.ttl = 255; icmp4.type = 0; flags.loopback = 1; next; "),
		}
		for _, a := range v4 {
			// A distributed gateway port's errors leave from the gateway
			// chassis, which owns its addresses: swap rather than rewrite.
			src := "ip4.dst = ip4.src; ip4.src = " + a.AddrS
			if p.DGP() {
				src = "ip4.dst <-> ip4.src"
			}
			fromNetwork := ""
			if anySource {
				fromNetwork = fmt.Sprintf("ip4.src == %s/%d && ", a.NetworkS, a.Plen)
			}
			flows = append(flows,
				dp.flow(LRInIPInput, 31, "inport == "+key+" && ip4 && "+fromNetwork+"ip.ttl == {0, 1} && !ip.later_frag",
					ttlExceeded4(src+" ", key)))
		}
		if anySource {
			flows = append(flows, dp.flow(LRInIPInput, 30, "inport == "+key+" && ip4 && ip.ttl == {0, 1} && !ip.later_frag",
				ttlExceeded4("ip4.dst = ip4.src; ip4.src = "+v4[0].AddrS, key)))
		}
		return flows
	})
}

// ttlExceeded4 answers an expiring IPv4 packet with ICMP time exceeded
// out of port key, its addresses set by setIPs.
func ttlExceeded4(setIPs, key string) string {
	return "icmp4 {eth.dst <-> eth.src; icmp4.type = 11; /* Time exceeded */ " +
		"icmp4.code = 0; /* TTL exceeded in transit */ " + setIPs + "; ip.ttl = 254; " +
		"outport = " + key + "; flags.loopback = 1; output; };"
}

// RouterPortARPReplyFlows: lr_in_ip_input, priority 90, for the IPv4
// addresses of the ports of routers without distributed gateway ports
// (northd.c build_lrouter_ipv4_ip_input): ARP requests for a port's
// address from its networks are answered with the port's MAC. With a
// distributed gateway port, where the answer comes from depends on the
// gateway chassis, which the gateway rules handle.
func RouterPortARPReplyFlows(nb *relations.NB) engine.Rel[Flow] {
	ports := engine.AntiJoin(engine.IndexBy(nb.LRPs, lrpRouter), dgpRouters(nb))
	return engine.FlatMap(ports, func(p relations.LRP) []Flow {
		flows := make([]Flow, len(p.Net.IPv4))
		for i, a := range p.Net.IPv4 {
			flows[i] = arpReply(onLRP(p), p, a.AddrS, fmt.Sprintf("arp.spa == %s/%d", a.NetworkS, a.Plen))
		}
		return flows
	})
}

// RouterPortIPv6InputFlows: lr_in_ip_input for a router port's IPv6
// networks, link-local address included (northd.c
// build_ipv6_input_flows_for_lrouter_port and
// build_dhcpv6_reply_flows_for_lrouter_port): answer ICMPv6 echo and
// neighbour solicitations for the router's addresses, send ICMPv6 time
// exceeded for expiring packets from the port's global networks (and in
// 26.03 from anywhere else, from its first address), and hand DHCPv6
// replies to the router's prefix delegation client: on every port in
// 23.03, on those with options:prefix_delegation in 26.03. A distributed
// gateway port answers solicitations on its gateway chassis only, unless
// its router has a distributed load balancer (od_is_centralized).
func RouterPortIPv6InputFlows(nb *relations.NB) engine.Rel[Flow] {
	anySource := portsAnswerAnyExpiredTTL(nb.Release)
	type answering struct {
		p        relations.LRP
		resident bool // on the gateway chassis only
	}
	dgps := engine.Map(engine.Filter(nb.LRPs, relations.LRP.DGP), func(p relations.LRP) answering { return answering{p, true} })
	ports := engine.Union(
		engine.Map(engine.Filter(nb.LRPs, func(p relations.LRP) bool { return !p.DGP() }),
			func(p relations.LRP) answering { return answering{p: p} }),
		markBy(dgps, func(a answering) string { return a.p.Router }, nb.RoutersWithDistributedLB,
			func(a answering) answering { a.resident = false; return a }))
	return engine.FlatMap(ports, func(a answering) []Flow {
		p := a.p
		dp, key := onLRP(p), jsonKey(p.Name())
		flows := []Flow{
			dp.flow(LRInIPInput, 90, "ip6.dst == "+v6Networks(p.Net)+" && icmp6.type == 128 && icmp6.code == 0",
				"ip6.dst <-> ip6.src; ip.ttl = 255; icmp6.type = 129; flags.loopback = 1; next; "),
		}
		resident := ""
		if a.resident {
			resident = "is_chassis_resident(" + crKey(p) + ")"
		}
		dhcpv6Client := !dhcpv6ReplyNeedsPrefixDelegation(nb.Release) || relations.SmapBool(p.Port.Options, "prefix_delegation", false)
		for i, a := range p.Net.IPv6 {
			if dhcpv6Client {
				// 23.03 and 26.03 give this flow no hint.
				flows = append(flows, on(p.Router).flow(LRInIPInput, 100, "ip6.dst == "+a.AddrS+" && udp.src == 547 && udp.dst == 546",
					"reg0 = 0; handle_dhcpv6_reply;"))
			}
			flows = append(flows, ndReply(p, "nd_na_router", a.AddrS, a.SNAddrS, resident))
			if !answersExpiredTTLFrom(nb.Release, p, i) {
				continue
			}
			src := "ip6.dst = ip6.src; ip6.src = " + a.AddrS
			if p.DGP() {
				src = "ip6.dst <-> ip6.src"
			}
			flows = append(flows, dp.flow(LRInIPInput, 31,
				fmt.Sprintf("inport == %s && ip6 && ip6.src == %s/%d && ip.ttl == {0, 1} && !ip.later_frag", key, a.NetworkS, a.Plen),
				"icmp6 {eth.dst <-> eth.src; "+src+" ; ip.ttl = 254; icmp6.type = 3; /* Time exceeded */ "+
					"icmp6.code = 0; /* TTL exceeded in transit */ outport = "+key+"; flags.loopback = 1; output; };"))
		}
		if anySource {
			flows = append(flows, dp.flow(LRInIPInput, 30, "inport == "+key+" && ip6 && ip.ttl == {0, 1} && !ip.later_frag",
				"icmp6 {eth.dst <-> eth.src; ip6.dst = ip6.src; ip6.src = "+p.Net.IPv6[0].AddrS+"; ip.ttl = 254; "+
					"icmp6.type = 3; /* Time exceeded */ icmp6.code = 0; /* TTL exceeded in transit */ "+
					"outport = "+key+"; flags.loopback = 1; output; };"))
		}
		return flows
	})
}

// answersExpiredTTLFrom: port p answers an expired TTL from the network of
// its i-th IPv6 address with that address (priority 31).
func answersExpiredTTLFrom(rel schema.Release, p relations.LRP, i int) bool {
	if ttlExpiredSkipsOnlyPortLLA(rel) {
		return i < len(p.Net.IPv6)-1
	}
	return !isLinkLocal(p.Net.IPv6[i].Network)
}

// ttlExpiredSkipsOnlyPortLLA: 26.03 skips only the link-local address made
// from the port's MAC, always the last
// (build_lrouter_ipv6_default_ttl_expired_flows); 23.03 skips every
// link-local one.
func ttlExpiredSkipsOnlyPortLLA(rel schema.Release) bool { return rel >= schema.OVN2603 }

// dhcpv6ReplyNeedsPrefixDelegation: 26.03 hands DHCPv6 replies to the
// prefix delegation client only on ports that run it.
func dhcpv6ReplyNeedsPrefixDelegation(rel schema.Release) bool { return rel >= schema.OVN2603 }

// RouterPortUnreachableFlows: lr_in_ip_input, on routers that are neither
// gateway routers nor have a distributed gateway port (northd.c
// build_lrouter_ipv4_ip_input and build_ipv6_input_flows_for_lrouter_port):
// TCP to a router address gets a reset, SCTP an abort, UDP an ICMP port
// unreachable and other protocols an ICMP protocol unreachable.
func RouterPortUnreachableFlows(nb *relations.NB) engine.Rel[Flow] {
	ports := engine.AntiJoin(
		engine.IndexBy(engine.Filter(nb.LRPs, func(p relations.LRP) bool { return !p.OnGateway }), lrpRouter),
		dgpRouters(nb))
	return engine.FlatMap(ports, func(p relations.LRP) []Flow {
		dp := onLRP(p)
		var flows []Flow
		unreachable := func(ip, addr, icmp, udpCode, otherCode string) {
			base := fmt.Sprintf("%s && %s.dst == %s && !ip.later_frag", ip, ip, addr)
			swap := "eth.dst <-> eth.src; " + ip + ".dst <-> " + ip + ".src; "
			icmpError := func(code string) string {
				return fmt.Sprintf("%s {%sip.ttl = 255; %s.type = %s; %s.code = %s; next; };",
					icmp, swap, icmp, map[string]string{"icmp4": "3", "icmp6": "1"}[icmp], icmp, code)
			}
			flows = append(flows,
				dp.flow(LRInIPInput, 80, base+" && tcp", "tcp_reset {"+swap+"next; };"),
				dp.flow(LRInIPInput, 80, base+" && sctp", "sctp_abort {"+swap+"next; };"),
				dp.flow(LRInIPInput, 80, base+" && udp", icmpError(udpCode)),
				dp.flow(LRInIPInput, 70, base, icmpError(otherCode)))
		}
		for _, a := range p.Net.IPv4 {
			unreachable("ip4", a.AddrS, "icmp4", "3", "2")
		}
		for _, a := range p.Net.IPv6 {
			unreachable("ip6", a.AddrS, "icmp6", "4", "3")
		}
		return flows
	})
}

// RouterPortOwnIPDropFlows: lr_in_ip_input priority 60 (northd.c
// build_lrouter_drop_own_dest): IP traffic to the router's own addresses
// that no earlier flow answered is dropped here. Only on routers without
// NAT or load balancers: there, addresses that are also SNAT or load
// balancer addresses are left to later stages, which the NAT rules handle.
func RouterPortOwnIPDropFlows(nb *relations.NB) engine.Rel[Flow] {
	plain := engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return !r.NATOrLB })
	ports := engine.SemiJoin(engine.IndexBy(nb.LRPs, lrpRouter), engine.IndexBy(plain, routerUUID))
	return engine.FlatMap(ports, func(p relations.LRP) []Flow {
		dp := onLRP(p)
		var flows []Flow
		if len(p.Net.IPv4) > 0 {
			ips := make([]string, len(p.Net.IPv4))
			for i, a := range p.Net.IPv4 {
				ips[i] = a.AddrS
			}
			flows = append(flows, dp.flow(LRInIPInput, 60, "ip4.dst == {"+strings.Join(ips, ", ")+"}", drop))
		}
		ips := make([]string, len(p.Net.IPv6))
		for i, a := range p.Net.IPv6 {
			ips[i] = a.AddrS
		}
		return append(flows, dp.flow(LRInIPInput, 60, "ip6.dst == {"+strings.Join(ips, ", ")+"}", drop))
	})
}

func routerUUID(r relations.RouterConfig) string { return r.UUID }

// dgpRouters are the routers that have a distributed gateway port.
func dgpRouters(nb *relations.NB) engine.Index[string, string] {
	routers := engine.Distinct(engine.Map(engine.Filter(nb.LRPs, relations.LRP.DGP), lrpRouter))
	return engine.IndexBy(routers, func(r string) string { return r })
}

func lrpRouter(p relations.LRP) string { return p.Router }

// arpReply is northd.c build_lrouter_arp_flow for a port's own address:
// answer ARP requests for ip arriving on the port, from the port's MAC, on
// dp.
func arpReply(dp flowTarget, p relations.LRP, ip, extra string) Flow {
	match := fmt.Sprintf("inport == %s && arp.op == 1 && arp.tpa == %s", jsonKey(p.Name()), ip)
	if extra != "" {
		match += " && " + extra
	}
	return dp.flow(LRInIPInput, 90, match,
		"eth.dst = eth.src; eth.src = xreg0[0..47]; arp.op = 2; /* ARP reply */ "+
			"arp.tha = arp.sha; arp.sha = xreg0[0..47]; arp.tpa <-> arp.spa; "+
			"outport = inport; flags.loopback = 1; output;")
}

// ndReply is northd.c build_lrouter_nd_flow for a port's own address:
// answer neighbour solicitations for ip (sent to it or to its
// solicited-node address sn) arriving on the port with action (nd_na or
// nd_na_router), from the port's MAC.
func ndReply(p relations.LRP, action, ip, sn, extra string) Flow {
	match := fmt.Sprintf("inport == %s && ip6.dst == {%s, %s} && nd_ns && nd.target == %s", jsonKey(p.Name()), ip, sn, ip)
	if extra != "" {
		match += " && " + extra
	}
	return onLRP(p).flow(LRInIPInput, 90, match,
		action+" { eth.src = xreg0[0..47]; ip6.src = nd.target; nd.tll = xreg0[0..47]; "+
			"outport = inport; flags.loopback = 1; output; };")
}

// v4Networks is northd.c op_put_v4_networks: the port's IPv4 addresses,
// with each one's broadcast address after it when bcast, as a set "{...}"
// unless there is a single address and no broadcast.
func v4Networks(n *relations.LPortAddresses, bcast bool) string {
	if !bcast && len(n.IPv4) == 1 {
		return n.IPv4[0].AddrS
	}
	var ips []string
	for _, a := range n.IPv4 {
		ips = append(ips, a.AddrS)
		if bcast {
			ips = append(ips, a.BcastS)
		}
	}
	return "{" + strings.Join(ips, ", ") + "}"
}

// v6Networks is northd.c op_put_v6_networks: the port's IPv6 addresses
// (link-local included), as a set "{...}" unless there is only one.
func v6Networks(n *relations.LPortAddresses) string {
	if len(n.IPv6) == 1 {
		return n.IPv6[0].AddrS
	}
	ips := make([]string, len(n.IPv6))
	for i, a := range n.IPv6 {
		ips[i] = a.AddrS
	}
	return "{" + strings.Join(ips, ", ") + "}"
}

// isLinkLocal is northd's in6_is_lla: fe80::/10.
func isLinkLocal(a netip.Addr) bool {
	b := a.As16()
	return b[0] == 0xfe && b[1]&0xc0 == 0x80
}
