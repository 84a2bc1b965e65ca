package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// SwitchARPResponderDefaultFlows: the priority-0 flow of ls_in_arp_rsp that
// every switch has (northd.c build_lswitch_arp_nd_responder_default).
func SwitchARPResponderDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.Map(nb.SwitchDatapaths, func(sw relations.Switch) Flow {
		return on(sw.UUID).flow(LSInARPRsp, 0, "1", "next;")
	})
}

// SwitchARPSkipLocalnetFlows: ls_in_arp_rsp, priority 100 (northd.c
// build_lswitch_arp_nd_responder_skip_local). ARP and ND requests that come
// in from the physical network through a localnet port are not answered
// locally: every chassis would answer, and the owner of the address is on
// that network or reachable through it anyway. 26.03 answers them on the
// target's chassis instead (localReplies).
func SwitchARPSkipLocalnetFlows(nb *relations.NB) engine.Rel[Flow] {
	skip := !localReplies(nb)
	localnet := engine.Filter(nb.LSPsOfType(relations.LSPTypeLocalnet), func(relations.LSP) bool { return skip })
	return engine.Map(localnet, func(p relations.LSP) Flow {
		return onPort{p.Switch, p.Name()}.from(p.Port.UUID).flow(LSInARPRsp, 100, "inport == "+jsonKey(p.Name()), "next;")
	})
}

// lspEntry is one "MAC [IP...]" entry of a switch port's addresses, or its
// dynamic addresses.
type lspEntry struct {
	Port  relations.LSP
	Addrs *relations.LPortAddresses
}

// lspEntries are the address entries (op->lsp_addrs) of the switch ports
// keep says yes to: those of their addresses column, of the ports of
// ports, and their dynamic addresses.
func lspEntries(nb *relations.NB, ports engine.Rel[relations.LSP], keep func(relations.LSP) bool) engine.Rel[lspEntry] {
	return engine.Union(staticLSPEntries(ports, keep),
		engine.FlatMap(nb.LSPDynamicAddrs, func(d relations.LSPDynamic) []lspEntry {
			if !keep(d.LSP) {
				return nil
			}
			return []lspEntry{{d.LSP, d.Addrs}}
		}))
}

// staticLSPEntries are the entries of the addresses column of the switch
// ports of ports that keep says yes to.
func staticLSPEntries(ports engine.Rel[relations.LSP], keep func(relations.LSP) bool) engine.Rel[lspEntry] {
	return engine.FlatMap(ports, func(p relations.LSP) []lspEntry {
		if !keep(p) {
			return nil
		}
		out := make([]lspEntry, len(p.Addrs.Static))
		for i := range p.Addrs.Static {
			out[i] = lspEntry{p, &p.Addrs.Static[i]}
		}
		return out
	})
}

// firstLSPEntries are the first address entry of each switch port that has
// one (op->lsp_addrs[0]): its addresses column's first, else its dynamic
// addresses.
func firstLSPEntries(nb *relations.NB) engine.Rel[lspEntry] {
	return engine.Union(
		engine.FlatMap(nb.LSPs, func(p relations.LSP) []lspEntry {
			if len(p.Addrs.Static) == 0 {
				return nil
			}
			return []lspEntry{{p, &p.Addrs.Static[0]}}
		}),
		engine.FlatMap(nb.LSPDynamicAddrs, func(d relations.LSPDynamic) []lspEntry {
			if len(d.LSP.Addrs.Static) > 0 {
				return nil
			}
			return []lspEntry{{d.LSP, d.Addrs}}
		}))
}

// SwitchARPResponderFlows: ls_in_arp_rsp, priorities 50 and 100, for the
// addresses in a port's addresses column and the dynamic addresses northd
// allocated it (northd.c build_lswitch_arp_nd_responder_known_ips): the
// switch answers ARP requests and IPv6 neighbour solicitations for them
// itself, except those from the port that owns the address (a DHCP client's
// duplicate-address ARP, IPv6 DAD), which go on to be forwarded. No answers
// for ports with "unknown" addresses (someone else may own the address), on
// switches that pass VLANs through, or, with NB_Global
// options:ignore_lsp_down=false, for VIFs that are down. Virtual ports have
// their own rules. In 26.03 a VIF with options:disable_arp_nd_rsp=true
// gets none either (lsp_disable_arp_nd_rsp).
func SwitchARPResponderFlows(nb *relations.NB) engine.Rel[Flow] {
	entries := lspEntries(nb, nb.LSPs, func(p relations.LSP) bool {
		t := p.Port.Type
		disabled := t == relations.LSPTypeVIF && readsDisableARPNDRsp(nb.Release) &&
			relations.SmapBool(p.Port.Options, "disable_arp_nd_rsp", false)
		return !p.Addrs.HasUnknown && t != relations.LSPTypeVirtual && t != relations.LSPTypeExternal && !disabled
	})
	entries = answeredPorts(nb, entries, func(e lspEntry) string { return e.Port.Switch })
	entries = upOrNotChecked(nb, entries)
	return withResponderFacts(nb, entries, func(e lspEntry) string { return e.Port.Switch },
		func(e lspEntry, r responder) []Flow { return r.replies(e.Port.Port, *e.Addrs) })
}

// readsDisableARPNDRsp: 26.03 reads a VIF's options:disable_arp_nd_rsp.
func readsDisableARPNDRsp(rel schema.Release) bool { return rel >= schema.OVN2603 }

// localReplies: 26.03 answers only broadcast ARP requests and
// solicited-node neighbour solicitations (unicast ones reach the target, so
// that the sender can monitor its liveness) and, on a switch with a
// localnet port, answers those from the physical network only on the
// target port's chassis; 23.03 answers every request for the address and
// none from a localnet port.
func localReplies(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// responder is what the ARP/ND replies of a switch's ports depend on
// besides the address: the release, and the switch's localnet and ARP
// proxy ports.
type responder struct {
	dp    on
	local bool // localReplies
	// localnet: the switch has a localnet port; arpProxy: a router port
	// of it answers for other addresses (options:arp_proxy), so unicast
	// requests for the ports' own addresses are passed on explicitly.
	localnet, arpProxy bool
}

// Facts of a switch that responder reads, as bits.
const (
	switchHasLocalnet uint8 = 1 << iota
	switchHasARPProxy
)

// withResponderFacts maps each tuple of rel, whose switch is switchOf's,
// to flows with the responder of its switch.
func withResponderFacts[T comparable](nb *relations.NB, rel engine.Rel[T], switchOf func(T) string, f func(T, responder) []Flow) engine.Rel[Flow] {
	local := localReplies(nb)
	type fact = engine.KV[string, uint8]
	facts := engine.Union(
		engine.Map(nb.SwitchDatapaths, func(sw relations.Switch) fact { return fact{Key: sw.UUID} }),
		engine.Map(nb.SwitchesWithLocalnet, func(sw string) fact { return fact{Key: sw, Value: switchHasLocalnet} }),
		engine.FlatMap(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) []fact {
			if _, _, ok := arpProxyAddresses(p, local); !ok {
				return nil
			}
			return []fact{{Key: p.Switch, Value: switchHasARPProxy}}
		}))
	bits := engine.Fold(engine.IndexBy(facts, func(f fact) string { return f.Key }), uint8(0),
		func(b uint8, f fact) uint8 { return b | f.Value })
	return engine.JoinFlatMap(engine.IndexBy(rel, switchOf), engine.IndexBy(bits, func(b engine.KV[string, uint8]) string { return b.Key }),
		func(sw string, t T, b engine.KV[string, uint8]) []Flow {
			return f(t, responder{on(sw), local, b.Value&switchHasLocalnet != 0, b.Value&switchHasARPProxy != 0})
		})
}

// virtualParent is a parent that a virtual port's options:virtual-parents
// names, with the port's virtual IP.
type virtualParent struct {
	Switch string // NB _uuid of the switch of the virtual port
	Parent string // as virtual-parents spells it
	Port   string // the virtual port's name
	VIP    string // options:virtual-ip, as written
	// SN is the solicited-node address of an IPv6 VIP, empty for IPv4.
	SN string
}

// virtualParentsOf reads a virtual port's virtual-ip and virtual-parents as
// northd does: an IPv4 VIP is one with a dot, and either must parse whole;
// the parents are the non-empty comma-separated names, spaces included.
func virtualParentsOf(sp relations.SwitchPort) []virtualParent {
	vip, hasVIP := sp.Port.Options["virtual-ip"]
	parents, hasParents := sp.Port.Options["virtual-parents"]
	if sp.Port.Type != relations.LSPTypeVirtual || !hasVIP || !hasParents {
		return nil
	}
	var sn string
	if strings.Contains(vip, ".") {
		if _, ok := relations.ParseIPv4(vip); !ok {
			return nil
		}
	} else {
		ip, ok := relations.ParseIPv6(vip)
		if !ok {
			return nil
		}
		sn = relations.FormatIPv6(relations.SolicitedNode(ip.As16()))
	}
	var out []virtualParent
	for parent := range strings.SplitSeq(parents, ",") {
		if parent != "" {
			out = append(out, virtualParent{sp.Switch, parent, sp.Port.Name, vip, sn})
		}
	}
	return out
}

// SwitchVirtualPortBindFlows: ls_in_arp_rsp, priority 100, for virtual
// ports (northd.c build_lswitch_arp_nd_responder_known_ips, the virtual
// port case): a GARP or ARP reply for the virtual IP, or a neighbour
// solicitation or unsolicited advertisement for it, coming from one of the
// port's parents binds the virtual port to that parent's chassis
// (bind_vport). A parent counts only if it is a port on the virtual port's
// own switch; the virtual port's enabled and up columns do not matter.
func SwitchVirtualPortBindFlows(nb *relations.NB) engine.Rel[Flow] {
	type portOnSwitch struct{ Switch, Name string }
	parents := engine.FlatMap(nb.PortsOnSwitches, virtualParentsOf)
	return engine.Join(
		engine.IndexBy(parents, func(v virtualParent) portOnSwitch { return portOnSwitch{v.Switch, v.Parent} }),
		engine.IndexBy(nb.PortsOnSwitches, func(sp relations.SwitchPort) portOnSwitch { return portOnSwitch{sp.Switch, sp.Port.Name} }),
		func(_ portOnSwitch, v virtualParent, parent relations.SwitchPort) Flow {
			// northd quotes the parent's name here without escaping it.
			match := `inport == "` + v.Parent + `" && `
			if v.SN == "" {
				match += fmt.Sprintf("((arp.op == 1 && arp.spa == %s && arp.tpa == %s) || (arp.op == 2 && arp.spa == %s))", v.VIP, v.VIP, v.VIP)
			} else {
				match += fmt.Sprintf("((nd_ns && ip6.dst == {%s, %s} && nd.target == %s) ||(nd_na && nd.target == %s))", v.VIP, v.SN, v.VIP, v.VIP)
			}
			return onPort{v.Switch, v.Parent}.from(parent.Port.UUID).flow(LSInARPRsp, 100, match, "bind_vport("+jsonKey(v.Port)+", inport); next;")
		})
}

// SwitchRouterPortARPResponderFlows: ls_in_arp_rsp, priorities 50 and 100,
// for a switch port of type router connected to a router port (northd.c
// build_lswitch_arp_nd_responder_known_ips): with "router" among its
// addresses, the switch answers for the router port's networks (and its
// IPv6 link-local address) as for any port's; with options:arp_proxy, it
// answers ARP requests for the listed IPv4 addresses with the router port's
// MAC, so hosts reach them through the router. Neither when the switch port
// has "unknown" addresses or the switch passes VLANs through.
func SwitchRouterPortARPResponderFlows(nb *relations.NB) engine.Rel[Flow] {
	peers := engine.Filter(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) bool {
		return !slices.Contains(p.LSP.Addresses, "unknown")
	})
	peers = answeredPorts(nb, peers, func(p relations.LRPSwitchPeer) string { return p.Switch })
	return withResponderFacts(nb, peers, func(p relations.LRPSwitchPeer) string { return p.Switch },
		func(p relations.LRPSwitchPeer, r responder) []Flow {
			var flows []Flow
			if slices.Contains(p.LSP.Addresses, "router") {
				flows = r.replies(p.LSP, *p.LRP.Net)
			}
			return append(flows, r.proxyReplies(p)...)
		})
}

// arpProxyAddresses are the addresses a router port's options:arp_proxy
// lists and the MAC to answer with: 23.03 reads "IP..."; 26.03 also "MAC
// IP..." (a zero MAC meaning the router port's), local (localReplies).
func arpProxyAddresses(p relations.LRPSwitchPeer, local bool) (relations.LPortAddresses, string, bool) {
	proxy, ok := p.LSP.Options["arp_proxy"]
	if !ok {
		return relations.LPortAddresses{}, "", false
	}
	mac := p.LRP.Net.MAC.String()
	if a, _, err := relations.ExtractAddresses(proxy); err == nil && local {
		if a.MAC != (relations.EthAddr{}) {
			mac = a.MAC.String()
		}
		return a, mac, true
	}
	a, err := relations.ParseIPAddresses(proxy)
	return a, mac, err == nil
}

// proxyReplies answer ARP requests (and, in 26.03, neighbour
// solicitations, at a lower priority than the ports' own addresses and not
// from router ports, fromRouterPortFlag) for the addresses of a router port's options:arp_proxy,
// so that hosts reach them through the router.
func (r responder) proxyReplies(p relations.LRPSwitchPeer) []Flow {
	a, mac, ok := arpProxyAddresses(p, r.local)
	if !ok {
		return nil
	}
	dp := r.dp.from(p.LSP.UUID)
	var flows []Flow
	if len(a.IPv4) > 0 {
		ips := make([]string, len(a.IPv4))
		for i, ip := range a.IPv4 {
			ips[i] = ip.AddrS
		}
		priority, match := 50, "arp.op == 1 && arp.tpa == {"+strings.Join(ips, ",")+"}"
		if r.local {
			for i, ip := range a.IPv4 {
				ips[i] = fmt.Sprintf("%s/%d", ip.AddrS, ip.Plen)
			}
			priority, match = 30, "reg0[18] == 0 && arp.op == 1 && arp.tpa == {"+strings.Join(ips, ",")+"}"
		}
		flows = append(flows, dp.flow(LSInARPRsp, priority, match,
			"eth.dst = eth.src; eth.src = "+mac+"; arp.op = 2; /* ARP reply */ "+
				"arp.tha = arp.sha; arp.sha = "+mac+"; arp.tpa <-> arp.spa; "+
				"outport = inport; flags.loopback = 1; output;"))
	}
	if r.local && len(a.IPv6) > 0 {
		var dsts, targets []string
		for _, ip := range a.IPv6 {
			dsts = append(dsts, fmt.Sprintf("%s/%d", ip.AddrS, ip.Plen), fmt.Sprintf("%s/%d", ip.SNAddrS, ip.Plen))
			targets = append(targets, fmt.Sprintf("%s/%d", ip.AddrS, ip.Plen))
		}
		flows = append(flows, dp.flow(LSInARPRsp, 30,
			"reg0[18] == 0 && nd_ns && ip6.dst == { "+strings.Join(dsts, ", ")+" } && nd.target == { "+strings.Join(targets, ", ")+" }",
			"nd_na_router { eth.src = "+mac+"; ip6.src = nd.target; nd.target = nd.target; nd.tll = "+mac+"; "+
				"outport = inport; flags.loopback = 1; output; };"))
	}
	return flows
}

// replies are the ARP and ND responder flows for one address entry of port
// p: a reply from the entry's MAC for each of its IPs, and a pass for
// requests from p itself (a DHCP client's duplicate address check, IPv6
// DAD).
func (r responder) replies(p *nb.LogicalSwitchPort, a relations.LPortAddresses) []Flow {
	key, mac, own := jsonKey(p.Name), a.MAC.String(), onPort{string(r.dp), p.Name}.from(p.UUID)
	dp := r.dp.from(p.UUID)
	// The reply's match on a switch with a localnet port, in 26.03.
	localnet := ""
	if r.local && r.localnet {
		localnet = " && ((flags.localnet == 1 && is_chassis_resident(" + key + ")) || flags.localnet == 0)"
	}
	var flows []Flow
	for _, ip := range a.IPv4 {
		match := "arp.tpa == " + ip.AddrS + " && arp.op == 1"
		if r.local {
			if r.arpProxy {
				flows = append(flows, dp.flow(LSInARPRsp, 50, match+" && eth.dst == "+mac, "next;"))
			}
			match += " && eth.dst == ff:ff:ff:ff:ff:ff"
		}
		flows = append(flows,
			dp.flow(LSInARPRsp, 50, match+localnet,
				"eth.dst = eth.src; eth.src = "+mac+"; arp.op = 2; /* ARP reply */ "+
					"arp.tha = arp.sha; arp.sha = "+mac+"; arp.tpa = arp.spa; arp.spa = "+ip.AddrS+"; "+
					"outport = inport; flags.loopback = 1; output;"),
			own.flow(LSInARPRsp, 100, match+" && inport == "+key, "next;"))
	}
	na := "nd_na"
	if p.Type == relations.LSPTypeRouter {
		na = "nd_na_router"
	}
	for _, ip := range a.IPv6 {
		match := "nd_ns && ip6.dst == {" + ip.AddrS + ", " + ip.SNAddrS + "} && nd.target == " + ip.AddrS
		if r.local {
			if r.arpProxy {
				flows = append(flows, dp.flow(LSInARPRsp, 50, "nd_ns && ip6.dst == "+ip.AddrS+" && nd.target == "+ip.AddrS, "next;"))
			}
			match = "nd_ns_mcast && ip6.dst == " + ip.SNAddrS + " && nd.target == " + ip.AddrS
		}
		flows = append(flows,
			dp.flow(LSInARPRsp, 50, match+localnet,
				na+" { eth.src = "+mac+"; ip6.src = "+ip.AddrS+"; nd.target = "+ip.AddrS+"; "+
					"nd.tll = "+mac+"; outport = inport; flags.loopback = 1; output; };"),
			own.flow(LSInARPRsp, 100, match+" && inport == "+key, "next;"))
	}
	return flows
}

// answeredPorts keeps the tuples of ports whose switch does not pass VLANs
// through: ARP/ND responders assume untagged traffic.
func answeredPorts[T comparable](nb *relations.NB, ports engine.Rel[T], switchOf func(T) string) engine.Rel[T] {
	passthru := engine.Map(engine.Filter(nb.SwitchDatapaths, func(sw relations.Switch) bool { return sw.VLANPassthru }),
		func(sw relations.Switch) string { return sw.UUID })
	return engine.AntiJoin(engine.IndexBy(ports, switchOf), engine.IndexBy(passthru, func(s string) string { return s }))
}

// upOrNotChecked keeps the entries of ports that count as up: router and
// localport ports, and ports whose up column is true (lsp_is_up); the
// others too unless NB_Global options:ignore_lsp_down is false.
func upOrNotChecked(nb *relations.NB, entries engine.Rel[lspEntry]) engine.Rel[lspEntry] {
	alwaysUp := func(e lspEntry) bool {
		t := e.Port.Port.Type
		return t == relations.LSPTypeRouter || t == relations.LSPTypeLocalport
	}
	one := func(lspEntry) struct{} { return struct{}{} }
	others := engine.IndexBy(engine.Filter(entries, func(e lspEntry) bool { return !alwaysUp(e) }), one)
	check := engine.IndexBy(nb.CheckLSPIsUp, func(s struct{}) struct{} { return s })
	// Only the entries that need it are arranged by port (none while
	// ignore_lsp_down is true, the default).
	checked := engine.IndexBy(engine.SemiJoin(others, check), func(e lspEntry) string { return e.Port.Port.UUID })
	up := engine.SemiJoin(checked, engine.IndexBy(nb.SwitchPortsUp, func(u string) string { return u }))
	return engine.Union(engine.Filter(entries, alwaysUp), engine.AntiJoin(others, check), up)
}

// switchFwdGroup says that a switch lists a forwarding group.
type switchFwdGroup struct {
	Switch string
	Group  *nb.ForwardingGroup
}

// switchFwdGroups are a switch's forwarding groups in _uuid order, the order
// northd reads them in.
type switchFwdGroups = engine.KV[string, engine.Sorted[switchFwdGroup]]

// SwitchForwardingGroupFlows: ls_in_arp_rsp and ls_in_l2_lkup, priority 50,
// for a switch's forwarding groups (northd.c build_fwd_group_lflows): the
// switch answers ARP for the group's virtual IP with its virtual MAC, and
// sends traffic to that MAC to one live child port (fwd_group()). The flows
// reproduce northd 23.03's loop exactly, quirks included: its match and
// action buffers carry over from one group to the next, and the child-port
// loop reuses the group index, so after a group with n child ports the next
// group considered is the one at index n. When that index is not past the
// group just done, northd 23.03 loops forever and never writes the SB; here
// the loop stops there, and Step reports the switch. 26.03's loop has
// neither quirk (fwdGroupLoopFixed).
func SwitchForwardingGroupFlows(n *relations.NB) engine.Rel[Flow] {
	fixed := fwdGroupLoopFixed(n)
	groups := relations.Listed(n.Refs.SwitchFwdGroups, n.ForwardingGroups, func(sw string, g *nb.ForwardingGroup) switchFwdGroup {
		return switchFwdGroup{Switch: sw, Group: g}
	})
	bySwitch := engine.Collect(engine.IndexBy(groups, func(g switchFwdGroup) string { return g.Switch }),
		func(a, b switchFwdGroup) int { return cmp.Compare(a.Group.UUID, b.Group.UUID) })
	engine.Report(bySwitch, "forwarding groups", func(gs switchFwdGroups) error {
		_, err := fwdGroupFlows(gs, fixed)
		return err
	})
	return engine.FlatMap(bySwitch, func(gs switchFwdGroups) []Flow {
		flows, _ := fwdGroupFlows(gs, fixed)
		return flows
	})
}

// fwdGroupLoopFixed: 26.03's build_fwd_group_lflows starts each group's
// flows afresh and goes through the groups in order.
func fwdGroupLoopFixed(n *relations.NB) bool { return n.Release >= schema.OVN2603 }

// fwdGroupFlows runs build_fwd_group_lflows' loop over one switch's groups,
// 23.03's or, fixed, 26.03's.
func fwdGroupFlows(gs switchFwdGroups, fixed bool) ([]Flow, error) {
	dp := on(gs.Key)
	var flows []Flow
	var match, actions string
	for i := 0; i < gs.Value.Len(); i++ {
		g := gs.Value.At(i).Group
		if len(g.ChildPort) == 0 {
			continue
		}
		if fixed {
			match, actions = "", ""
		}
		match += fmt.Sprintf("arp.tpa == %s && arp.op == 1", g.Vip)
		actions += fmt.Sprintf("eth.dst = eth.src; eth.src = %s; arp.op = 2; /* ARP reply */ "+
			"arp.tha = arp.sha; arp.sha = %s; arp.tpa = arp.spa; arp.spa = %s; "+
			"outport = inport; flags.loopback = 1; output;", g.Vmac, g.Vmac, g.Vip)
		flows = append(flows, dp.from(g.UUID).flow(LSInARPRsp, 50, match, actions))

		children := slices.Sorted(slices.Values(g.ChildPort))
		var ports strings.Builder
		if g.Liveness {
			ports.WriteString(`liveness="true",`)
		}
		ports.WriteString("childports=")
		for j, c := range children {
			if j > 0 {
				ports.WriteByte(',')
			}
			ports.WriteString(`"` + c + `"`)
		}
		match = "eth.dst == " + g.Vmac
		actions = "fwd_group(" + ports.String() + ");"
		flows = append(flows, dp.from(g.UUID).flow(LSInL2Lkup, 50, match, actions))
		if fixed {
			continue
		}
		if len(children)-1 < i {
			return flows, fmt.Errorf("forwarding group %q (%d child ports) at index %d sends ovn-northd 23.03's "+
				"build_fwd_group_lflows back to index %d: it loops forever there; later groups left out",
				g.Name, len(children), i, len(children))
		}
		i = len(children) - 1
	}
	return flows, nil
}
