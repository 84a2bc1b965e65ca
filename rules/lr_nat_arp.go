package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterNATResponderFlows: lr_in_ip_input, priority 90, on every router
// (northd.c build_lrouter_arp_nd_for_datapath): ARP requests and neighbour
// solicitations for the external address of each NAT rule northd keeps
// are answered from the MAC of the port they came in on.
func RouterNATResponderFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.Map(nb.ValidNATs, func(r relations.RouterNAT) Flow {
		dp := on(r.Router).from(r.NAT.UUID)
		if r.ExtV6 {
			return natNDReply(dp, "", r.ExtIP, r.ExtSN, regInportEthAddr, "", 90)
		}
		return natARPReply(dp, "", r.ExtIP, regInportEthAddr, "", 90)
	})
}

// natARPReply is northd.c build_lrouter_arp_flow for an external address:
// an ARP reply from mac to requests for ip, on port key when set, or a drop
// when mac is "", from a NAT rule (dp).
func natARPReply(dp onRow, key, ip, mac, extra string, prio int) Flow {
	match := responderMatch(key, fmt.Sprintf("arp.op == 1 && arp.tpa == %s", ip), extra)
	action := drop
	if mac != "" {
		action = fmt.Sprintf("eth.dst = eth.src; eth.src = %s; arp.op = 2; /* ARP reply */ arp.tha = arp.sha; arp.sha = %s; "+
			"arp.tpa <-> arp.spa; outport = inport; flags.loopback = 1; output;", mac, mac)
	}
	return dp.flow(LRInIPInput, prio, match, action)
}

// natNDReply is northd.c build_lrouter_nd_flow for an external address: a
// neighbour advertisement from mac to solicitations for ip (sent to ip or
// its solicited-node address sn), on port key when set, or a drop when mac
// is "", from a NAT rule (dp).
func natNDReply(dp onRow, key, ip, sn, mac, extra string, prio int) Flow {
	match := responderMatch(key, fmt.Sprintf("ip6.dst == {%s, %s} && nd_ns && nd.target == %s", ip, sn, ip), extra)
	action := drop
	if mac != "" {
		action = fmt.Sprintf("nd_na { eth.src = %s; ip6.src = nd.target; nd.tll = %s; outport = inport; flags.loopback = 1; output; };", mac, mac)
	}
	return dp.flow(LRInIPInput, prio, match, action)
}

// responderMatch is an ARP or ND responder's match: on port key when set,
// and with extra conditions when set.
func responderMatch(key, match, extra string) string {
	if key != "" {
		match = "inport == " + key + " && " + match
	}
	if extra != "" {
		match += " && " + extra
	}
	return match
}

// natOnDGP is a NAT rule that gets ARP/ND responders on a distributed
// gateway port of its router.
type natOnDGP struct {
	NAT  relations.RouterNAT
	DGP  relations.DGP
	DGPs int // how many distributed gateway ports the router has
}

// DGPNATResponderFlows: lr_in_ip_input, priorities 92 and 91, on the
// distributed gateway ports (northd.c build_lrouter_port_nat_arp_nd_flow):
// requests for a NAT rule's external address that arrive on the gateway
// port it applies on are answered only on the chassis that applies it —
// the logical port's for a distributed rule (from its external MAC), the
// gateway chassis otherwise — and dropped on other chassis. Each snat
// address is answered for the first snat rule (in _uuid order) that has it.
func DGPNATResponderFlows(nb *relations.NB) engine.Rel[Flow] {
	valid := nb.ValidNATs
	snatFirst := engine.Map(engine.Min(
		engine.IndexBy(engine.Filter(valid, func(r relations.RouterNAT) bool { return r.IsSNAT() }),
			func(r relations.RouterNAT) natIP { return natIP{r.Router, r.ExtIP} }),
		func(a, b relations.RouterNAT) int { return cmp.Compare(a.NAT.UUID, b.NAT.UUID) }),
		func(kv engine.KV[natIP, relations.RouterNAT]) relations.RouterNAT { return kv.Value })
	entries := engine.Union(engine.Filter(valid, func(r relations.RouterNAT) bool { return !r.IsSNAT() }), snatFirst)
	type withCount struct {
		NAT  relations.RouterNAT
		DGPs int
	}
	counted := engine.Join(
		engine.IndexBy(entries, func(r relations.RouterNAT) string { return r.Router }),
		engine.IndexBy(engine.Filter(nb.RouterGateways, func(g relations.RouterGateway) bool { return g.DGPs > 0 }),
			func(g relations.RouterGateway) string { return g.Router }),
		func(_ string, r relations.RouterNAT, g relations.RouterGateway) withCount {
			return withCount{r, g.DGPs}
		})
	pairs := engine.Join(
		engine.IndexBy(counted, func(w withCount) string { return w.NAT.Router }),
		engine.IndexBy(dgpsRoutingLocally(nb), func(d relations.DGP) string { return d.LRP.Router }),
		func(_ string, w withCount, d relations.DGP) natOnDGP { return natOnDGP{w.NAT, d, w.DGPs} })
	return engine.FlatMap(engine.Filter(pairs, natOnGatewayPort), func(x natOnDGP) []Flow {
		nat, key := x.NAT.NAT, jsonKey(x.DGP.Name())
		mac, resident := regInportEthAddr, residentCR(x.DGP)
		if nat.ExternalMAC != nil && nat.LogicalPort != nil {
			if _, err := relations.ParseMAC(*nat.ExternalMAC); err == nil {
				mac, resident = *nat.ExternalMAC, residentPort(*nat.LogicalPort)
			}
		}
		r, ip := on(x.NAT.Router).from(nat.UUID), x.NAT.ExtIP
		if x.NAT.ExtV6 {
			return []Flow{
				natNDReply(r, key, ip, x.NAT.ExtSN, mac, resident, 92),
				natNDReply(r, key, ip, x.NAT.ExtSN, "", "", 91),
			}
		}
		return []Flow{natARPReply(r, key, ip, mac, resident, 92), natARPReply(r, key, ip, "", "", 91)}
	})
}

// dgpsRoutingLocally are the distributed gateway ports whose peer has no
// chassisredirect port of its own (relations.NB.PeerRedirects, 26.03):
// where it has one, routing to the port's networks is centralized on the
// gateway chassis and 26.03 gives the port no NAT ARP/ND responders.
func dgpsRoutingLocally(nb *relations.NB) engine.Rel[relations.DGP] {
	return engine.AntiJoin(
		engine.IndexBy(nb.DGPs, func(d relations.DGP) string { return d.Name() }),
		engine.IndexBy(nb.PeerRedirects, func(p relations.LRPSwitchPeer) string { return p.LRP.Name() }))
}

// natOnGatewayPort is northd.c is_nat_gateway_port: with several
// distributed gateway ports, a rule applies on the one its gateway_port
// names, or without one on those whose networks hold its external IP.
func natOnGatewayPort(x natOnDGP) bool {
	if x.DGPs <= 1 {
		return true
	}
	nat := x.NAT.NAT
	if nat.GatewayPort != nil {
		return *nat.GatewayPort == x.DGP.LRP.Port.UUID
	}
	ip, ok := relations.ParseIPByDot(nat.ExternalIP)
	if !ok {
		return false
	}
	_, in := relations.MemberIP(x.DGP.LRP.Net, ip)
	return in
}

// portIP is the Index'th address of its family on a router port.
type portIP struct {
	Port  relations.LRP
	V6    bool
	Index int
	IP    string
}

// routerPortIPs are the addresses of every router port.
func routerPortIPs(n *relations.NB) engine.Rel[portIP] {
	return engine.FlatMap(n.LRPs, func(p relations.LRP) []portIP {
		var out []portIP
		for i, a := range p.Net.IPv4 {
			out = append(out, portIP{p, false, i, a.AddrS})
		}
		for i, a := range p.Net.IPv6 {
			out = append(out, portIP{p, true, i, a.AddrS})
		}
		return out
	})
}

// key keys a router's address for the lookup among its SNAT IPs.
func (p portIP) key() relations.RouterSNATIP {
	return relations.RouterSNATIP{Router: p.Port.Router, IP: p.IP}
}

// ownIPSet is the "ipN.dst == {...}" drop of a port's addresses of one
// family, in network order (northd.c build_lrouter_drop_own_dest).
func ownIPSet(stage Stage, prio int) func(portFamily, []portIP) []Flow {
	return func(k portFamily, ips []portIP) []Flow {
		slices.SortFunc(ips, func(a, b portIP) int { return cmp.Compare(a.Index, b.Index) })
		list := make([]string, len(ips))
		for i, ip := range ips {
			list[i] = ip.IP
		}
		return []Flow{on(k.Router).from(k.Port).flow(stage, prio,
			fmt.Sprintf("ip%s.dst == {%s}", ipVersion(!k.V6), strings.Join(list, ", ")), drop)}
	}
}

// portFamily is one address family of a router port.
type portFamily struct {
	Router, Port string
	V6           bool
}

// RouterPortOwnIPFlows: the drops of IP traffic to a router port's own
// addresses (northd.c build_lrouter_drop_own_dest) on routers with NAT
// rules, load balancers or force SNAT options, where some of them may be
// SNAT or load balancer addresses (RouterPortOwnIPDropFlows drops on the
// other routers). Other addresses are dropped in lr_in_ip_input (priority
// 60) unless the router SNATs load-balanced traffic to its port addresses
// (lb_force_snat_ip=router_ip); SNAT and load balancer addresses go on to
// unSNAT and DNAT and are dropped in lr_in_arp_resolve (priority 2) if
// neither claimed them.
func RouterPortOwnIPFlows(nb *relations.NB) engine.Rel[Flow] {
	ips := routerPortIPs(nb)
	byIP := engine.IndexBy(ips, portIP.key)
	lbIPs := relations.LBIPsOfRouters(nb, engine.Map(ips, portIP.key),
		func(ip relations.RouterSNATIP) (string, string) { return ip.Router, ip.IP })
	snatIPs := engine.IndexBy(engine.Distinct(engine.Union(nb.RouterSNATIPs, lbIPs)),
		func(s relations.RouterSNATIP) relations.RouterSNATIP { return s })
	routerIP := engine.IndexBy(engine.Filter(nb.RouterForceSNATs, func(f relations.RouterForceSNAT) bool { return f.LBRouterIP }),
		func(f relations.RouterForceSNAT) string { return f.Router })
	family := func(p portIP) portFamily { return portFamily{p.Port.Router, p.Port.Port.UUID, p.V6} }
	natOrLB := engine.IndexBy(engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return r.NATOrLB }),
		func(r relations.RouterConfig) string { return r.UUID })
	router := func(p portIP) string { return p.Port.Router }
	own := engine.AntiJoin(engine.IndexBy(engine.SemiJoin(engine.IndexBy(engine.AntiJoin(byIP, snatIPs), router), natOrLB), router), routerIP)
	return engine.Union(
		engine.GroupBy(engine.IndexBy(own, family), ownIPSet(LRInIPInput, 60)),
		engine.GroupBy(engine.IndexBy(engine.SemiJoin(byIP, snatIPs), family), ownIPSet(LRInARPResolve, 2)))
}
