package rules

import (
	"fmt"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// redirectsRoutingProtocols: 26.03 reads a router port's
// routing-protocol-redirect and routing-protocols options.
func redirectsRoutingProtocols(r schema.Release) bool { return r >= schema.OVN2603 }

// routingProtocolRedirect is a router port whose routing protocol traffic
// goes to a switch port on its peer switch instead (options
// routing-protocol-redirect and routing-protocols): BGP, BFD or both,
// with BFD cloned to the router too when the port runs BFD sessions.
type routingProtocolRedirect struct {
	Peer     relations.LRPSwitchPeer
	Target   string // the switch port's name
	BGP, BFD bool
	CloneBFD bool
}

// parseRoutingProtocols reads options:routing-protocols as
// parse_redirected_routing_protocols: a comma separated list of BGP and
// BFD, other words ignored (northd logs them).
func parseRoutingProtocols(options map[string]string) (bgp, bfd bool) {
	for _, proto := range strings.Split(options["routing-protocols"], ",") {
		switch proto {
		case "BGP":
			bgp = true
		case "BFD":
			bfd = true
		}
	}
	return bgp, bfd
}

// routingProtocolRedirects are the router ports that redirect routing
// protocols to a switch port on their peer switch
// (build_lrouter_routing_protocol_redirect): northd logs and skips a
// redirect to a port that does not exist or is on another switch, and one
// without a known protocol.
func routingProtocolRedirects(n *relations.NB) engine.Rel[routingProtocolRedirect] {
	candidates := engine.FlatMap(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) []routingProtocolRedirect {
		target, ok := p.LRP.Port.Options["routing-protocol-redirect"]
		if !ok || !redirectsRoutingProtocols(n.Release) {
			return nil
		}
		bgp, bfd := parseRoutingProtocols(p.LRP.Port.Options)
		return []routingProtocolRedirect{{Peer: p, Target: target, BGP: bgp, BFD: bfd}}
	})
	redirects := engine.JoinFlatMap(
		engine.IndexBy(candidates, func(r routingProtocolRedirect) string { return r.Target }),
		n.LSPsByName(),
		func(_ string, r routingProtocolRedirect, lsp relations.LSP) []routingProtocolRedirect {
			if lsp.Switch != r.Peer.Switch || !r.BGP && !r.BFD {
				return nil
			}
			return []routingProtocolRedirect{r}
		})
	byPort := engine.IndexBy(redirects, func(r routingProtocolRedirect) string { return r.Peer.LRP.Port.UUID })
	bfd := engine.IndexBy(bfdPorts(n), func(p relations.LRP) string { return p.Port.UUID })
	return engine.Union(engine.AntiJoin(byPort, bfd),
		engine.Join(byPort, bfd, func(_ string, r routingProtocolRedirect, _ relations.LRP) routingProtocolRedirect {
			r.CloneBFD = r.BFD
			return r
		}))
}

// SwitchRoutingProtocolRedirectFlows: on the peer switch of a router port
// that redirects routing protocols (northd.c
// build_lrouter_routing_protocol_redirect), ls_in_l2_lkup priority 100
// sends BGP (TCP port 179) and BFD (UDP port 3784) traffic to and from
// each of the port's addresses to the target port (BFD cloned to the
// router too when the port runs BFD), and copies ARP replies and neighbour
// advertisements for them to it; ls_in_check_port_sec priority 80 drops
// the ARP replies and neighbour advertisements and solicitations the
// target sends, as it shares the router port's addresses.
func SwitchRoutingProtocolRedirectFlows(n *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(routingProtocolRedirects(n), func(r routingProtocolRedirect) []Flow {
		dp := on(r.Peer.Switch)
		target := jsonKey(r.Target)
		toTarget := "outport = " + target + "; output;"
		cloned := fmt.Sprintf("clone { outport = %s; output; }; outport = %s; output;", target, jsonKey(r.Peer.LSP.Name))
		var flows []Flow
		redirect := func(ip, addr string) {
			add := func(proto string, port int, actions string) {
				for _, dir := range []string{"dst", "src"} {
					flows = append(flows, dp.flow(LSInL2Lkup, 100,
						fmt.Sprintf("%s.dst == %s && %s.%s == %d", ip, addr, proto, dir, port), actions))
				}
			}
			if r.BGP {
				add("tcp", 179, toTarget)
			}
			if r.CloneBFD {
				add("udp", 3784, cloned)
			} else if r.BFD {
				add("udp", 3784, toTarget)
			}
		}
		for _, a := range r.Peer.LRP.Net.IPv4 {
			redirect("ip4", a.AddrS)
			flows = append(flows, dp.flow(LSInL2Lkup, 100, "arp.op == 2 && arp.tpa == "+a.AddrS, cloned))
		}
		for _, a := range r.Peer.LRP.Net.IPv6 {
			redirect("ip6", a.AddrS)
			flows = append(flows, dp.flow(LSInL2Lkup, 100, "ip6.dst == "+a.AddrS+" && nd_na", cloned))
		}
		for _, m := range []string{"arp.op == 2", "nd_na", "nd_ra"} {
			flows = append(flows, dp.flow(LSInCheckPortSec, 80, "inport == "+target+" && "+m, "reg0[15] = 1; next;"))
		}
		return flows
	})
}
