package rules

import (
	"cmp"
	"fmt"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
)

// SwitchMirrorDefaultFlows: 26.03's ls_in_mirror and ls_out_mirror,
// priority 0 (northd.c build_mirror_default_lflow): traffic no port
// mirror rule matches goes on unmirrored.
func SwitchMirrorDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		return []Flow{
			dp.flow(LSInMirror, 0, "1", "next;"),
			dp.flow(LSOutMirror, 0, "1", "next;"),
		}
	})
}

// SwitchNetworkFunctionDefaultFlows: 26.03's network function stages, the
// flows every switch has (northd.c build_network_function). Traffic that
// an ACL sends to a network function group (reg8[21], in the direction
// that opened the connection reg8[22]) with no active function is
// dropped; broadcast and multicast are never redirected (a loop through
// the function); the rest goes on. Where the release has the stages, a
// packet the egress stage sent back through a function (reg8[23]) is
// output at once from L2 lookup.
func SwitchNetworkFunctionDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	loopback := StagesFor(nb).Has(LSInNF)
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		var flows []Flow
		if loopback {
			flows = append(flows, dp.flow(LSInL2Lkup, 100, regNFLoopback+" == 1", "output;"))
		}
		for _, st := range [][2]Stage{{LSInPreNF, LSInNF}, {LSOutPreNF, LSOutNF}} {
			pre, nf := st[0], st[1]
			flows = append(flows,
				dp.flow(pre, 0, "1", "next;"),
				dp.flow(pre, 1, regNFEnabled+" == 1 && "+regNFOrigDir+" == 1", regNFGroupID+" = 0; next;"),
				dp.flow(nf, 100, regNFEnabled+" == 1 && eth.mcast", "next;"),
				dp.flow(nf, 0, "1", "next;"),
				dp.flow(nf, 1, regNFEnabled+" == 1", drop))
		}
		return flows
	})
}

// regTunnelPort is where a packet's tunnel interface is kept while it goes
// through a network function (northd.c REG_TUN_OFPORT).
const regTunnelPort = "reg5[16..31]"

// nfRedirect is what an ACL that sends its connections through network
// function group id adds to its eval flows' actions: the packet is to be
// redirected, it goes in the direction that opened the connection, and
// the group (northd.c consider_acl); "" for id 0, no group.
func nfRedirect(id int) string {
	if id == 0 {
		return ""
	}
	return fmt.Sprintf("%s = 1; %s = 1; %s = %d; ", regNFEnabled, regNFOrigDir, regNFGroupID, id)
}

// nfOnSwitch is a network function group that ACLs of a switch send
// traffic of one direction through, and the switch's ports of its active
// function: those named in Network_Function inport and outport, or their
// children (northd.c ovn_port_find_port_or_child).
type nfOnSwitch struct {
	Switch          string
	Ingress         bool // from-lport ACLs
	Group           relations.NetworkFunctionGroup
	Inport, Outport string // "" when not found on the switch
}

// portAlias is a switch port found by another name: its own, or its
// parent's (Rank 1).
type portAlias struct {
	Switch, Name string
	Rank         int
	Port         string
}

// nfPortAliases are the switches' ports by the names
// ovn_port_find_port_or_child finds them by: their own, and a child's
// parent's.
func nfPortAliases(n *relations.NB) engine.Index[[2]string, portAlias] {
	aliases := engine.FlatMap(n.PortsOnSwitches, func(sp relations.SwitchPort) []portAlias {
		out := []portAlias{{Switch: sp.Switch, Name: sp.Port.Name, Port: sp.Port.Name}}
		if sp.Port.ParentName != nil {
			out = append(out, portAlias{Switch: sp.Switch, Name: *sp.Port.ParentName, Rank: 1, Port: sp.Port.Name})
		}
		return out
	})
	return engine.IndexBy(aliases, func(a portAlias) [2]string { return [2]string{a.Switch, a.Name} })
}

// networkFunctionsOnSwitches are the network function groups each switch's
// ACLs use, by direction, with their active function's ports found.
func networkFunctionsOnSwitches(n *relations.NB) engine.Rel[nfOnSwitch] {
	type use struct {
		Switch, Group string
		Ingress       bool
	}
	uses := engine.Distinct(engine.FlatMap(n.SwitchACLs, func(sa relations.SwitchACL) []use {
		if sa.ACL.NetworkFunctionGroup == nil {
			return nil
		}
		return []use{{sa.Switch, *sa.ACL.NetworkFunctionGroup, sa.ACL.Direction == nb.ACLDirectionFromLport}}
	}))
	groups := engine.Join(
		engine.IndexBy(uses, func(u use) string { return u.Group }),
		engine.IndexBy(n.NetworkFunctionGroups, func(g relations.NetworkFunctionGroup) string { return g.UUID }),
		func(_ string, u use, g relations.NetworkFunctionGroup) nfOnSwitch {
			return nfOnSwitch{Switch: u.Switch, Ingress: u.Ingress, Group: g}
		})
	aliases := nfPortAliases(n)
	// found gives each group the port its name finds on its switch
	// (ovn_port_find_port_or_child): the port of that name, else a child
	// of it. northd takes the first of its hash table that matches; here
	// the port itself, else the child of least name. The groups look up
	// the ports, so that a port's change finds none in a switch without
	// network functions.
	type alias = engine.KV[nfOnSwitch, portAlias]
	found := func(rel engine.Rel[nfOnSwitch], name func(nfOnSwitch) string, set func(*nfOnSwitch, string)) engine.Rel[nfOnSwitch] {
		keyed := engine.IndexBy(rel, func(x nfOnSwitch) [2]string { return [2]string{x.Switch, name(x)} })
		matches := engine.Join(keyed, aliases, func(_ [2]string, x nfOnSwitch, p portAlias) alias { return alias{Key: x, Value: p} })
		first := engine.Min(engine.IndexBy(matches, func(m alias) nfOnSwitch { return m.Key }), func(a, b alias) int {
			return cmp.Or(cmp.Compare(a.Value.Rank, b.Value.Rank), cmp.Compare(a.Value.Port, b.Value.Port))
		})
		return engine.Union(
			engine.Map(first, func(kv engine.KV[nfOnSwitch, alias]) nfOnSwitch {
				x := kv.Key
				set(&x, kv.Value.Value.Port)
				return x
			}),
			engine.AntiJoin(keyed, aliases))
	}
	withIn := found(groups, func(x nfOnSwitch) string { return x.Group.Active.Inport }, func(x *nfOnSwitch, p string) { x.Inport = p })
	return found(withIn, func(x nfOnSwitch) string { return x.Group.Active.Outport }, func(x *nfOnSwitch, p string) { x.Outport = p })
}

// SwitchNetworkFunctionFlows: the flows of each network function group a
// switch's ACLs use (northd.c consider_network_function). Pre-NF puts the
// active function's id in place of the group's; NF sends the connection's
// packets out of the function's inport, in the direction that opened it,
// and replies out of its outport, egress packets back through ingress L2
// lookup. Packets coming back from the function, or going to it, are not
// redirected again; those that come back from it after the egress
// pipeline skip to past the egress NF stage; and the tunnel interface a
// packet came from is kept in conntrack for the way back. A fail-open
// group with no active function lets the traffic go on.
func SwitchNetworkFunctionFlows(n *relations.NB) engine.Rel[Flow] {
	t := StagesFor(n)
	return engine.Distinct(engine.FlatMap(networkFunctionsOnSwitches(n), func(x nfOnSwitch) []Flow {
		dp := on(x.Switch)
		pre, fwd, rev := LSOutPreNF, LSOutNF, LSInNF
		if x.Ingress {
			pre, fwd, rev = LSInPreNF, LSInNF, LSOutNF
		}
		redirected := fmt.Sprintf("%s == 1 && %s == 1 && %s == ", regNFEnabled, regNFOrigDir, regNFGroupID)
		var flows []Flow
		if x.Group.FailOpen {
			flows = append(flows, dp.flow(pre, 10, redirected+strconv.Itoa(x.Group.ID),
				fmt.Sprintf("%s = 0; %s = 0; next;", regNFEnabled, regNFGroupID)))
		}
		nf := x.Group.Active
		if !nf.Set() || x.Inport == "" || x.Outport == "" {
			return flows
		}
		in, out := jsonKey(x.Inport), jsonKey(x.Outport)
		output := func(port string) string { return "outport = " + port + "; output;" }
		loopback := func(port string) string {
			return fmt.Sprintf("outport = %s; %s = 1; next(pipeline=ingress, table=%d);", port, regNFLoopback, t.Table(LSInL2Lkup))
		}
		toFunction, fromFunction := output(in), loopback(out)
		if !x.Ingress {
			toFunction, fromFunction = loopback(out), output(in)
		}
		const commit = "ct_commit { ct_mark.blocked = 0; ct_mark.allow_established = reg0[20]; ct_label.acl_id = reg2[16..31]; "
		const observed = "ct_mark.obs_stage = reg8[19..20]; ct_mark.obs_collector_id = reg8[8..15]; ct_label.obs_point_id = reg9; "
		const tunnel = "ct_label.tun_if_id = " + regTunnelPort + "; }; next;"
		flows = append(flows,
			dp.flow(pre, 99, redirected+strconv.Itoa(x.Group.ID), fmt.Sprintf("%s = %d; next;", regNFGroupID, nf.ID)),
			dp.flow(fwd, 99, redirected+strconv.Itoa(nf.ID), toFunction),
			dp.flow(rev, 99, fmt.Sprintf("%s == 1 && %s == 0 && ct_label.nf_id == %d", regNFEnabled, regNFOrigDir, nf.ID), fromFunction),
			dp.flow(LSOutPreACL, 110, "inport == "+in, fmt.Sprintf("next(pipeline=egress, table=%d);", t.Table(LSOutNF)+1)))
		for _, p := range []string{in, out} {
			flows = append(flows,
				dp.flow(LSInNF, 100, "inport == "+p, regTunnelPort+" = ct_label.tun_if_id; next;"),
				dp.flow(LSOutNF, 100, "outport == "+p, "next;"),
				dp.flow(LSOutStateful, 120, "outport == "+p+" && "+regACLLabel+" == 0", commit+tunnel),
				dp.flow(LSOutStateful, 120, "outport == "+p+" && "+regACLLabel+" == 1", commit+observed+tunnel))
		}
		return flows
	}))
}

// SBNetworkFunctionMonitors are the Service_Monitor rows of the network
// functions with a health check (northd.c ovn_nf_svc_create): ICMP probes
// from svc_monitor_ip to svc_monitor_ip_dst, sent out of the function's
// inport and expected back on its outport, with the health check's
// options and the service monitor MACs. None without both addresses, or
// while one of the function's ports is on no switch.
func SBNetworkFunctionMonitors(n *relations.NB) engine.Rel[SBServiceMonitor] {
	type checked struct {
		NF      relations.NetworkFunction
		Options Smap
	}
	withOptions := engine.Join(
		engine.IndexBy(n.NetworkFunctions, func(f relations.NetworkFunction) string { return f.HealthCheck }),
		n.NetworkFunctionChecks.ByUUID(),
		func(_ string, f relations.NetworkFunction, hc *nb.NetworkFunctionHealthCheck) checked {
			return checked{f, SmapOf(hc.Options)}
		})
	bound := n.PortsOnSwitchesByName()
	onSwitches := engine.SemiJoin(engine.IndexBy(
		engine.SemiJoin(engine.IndexBy(withOptions, func(c checked) string { return c.NF.Inport }), bound),
		func(c checked) string { return c.NF.Outport }), bound)
	type global struct {
		relations.NFMonitorAddresses
		SrcMAC, DstMAC string
	}
	globals := engine.Join(
		engine.IndexBy(relations.DeriveNFMonitorAddresses(n), func(relations.NFMonitorAddresses) struct{} { return struct{}{} }),
		engine.IndexBy(n.LBGlobal, func(relations.LBGlobalOptions) struct{} { return struct{}{} }),
		func(_ struct{}, a relations.NFMonitorAddresses, o relations.LBGlobalOptions) global {
			return global{a, o.SvcMonitorMAC, o.SvcMonitorMACDst}
		})
	return engine.Join(
		engine.IndexBy(onSwitches, func(checked) struct{} { return struct{}{} }),
		engine.IndexBy(engine.Filter(globals, func(g global) bool { return g.Src != "" && g.Dst != "" }), func(global) struct{} { return struct{}{} }),
		func(_ struct{}, c checked, g global) SBServiceMonitor {
			k := relations.NFMonitorKey(g.Dst, c.NF)
			return SBServiceMonitor{
				IP: k.IP, LogicalPort: k.LogicalPort, Protocol: k.Protocol, Options: c.Options,
				SrcMAC: g.SrcMAC, SrcIP: g.Src,
				Type: sb.ServiceMonitorTypeNetworkFunction, LogicalInputPort: c.NF.Inport, MAC: g.DstMAC,
			}
		})
}

// NetworkFunctionActive is a network function group's active function
// (NB _uuids; Active "" for none), as northd writes it to the group's
// network_function_active (network_function_update_active).
type NetworkFunctionActive struct {
	Group, Active string
}

// CompareNetworkFunctionsActive orders by group, then function.
func CompareNetworkFunctionsActive(a, b NetworkFunctionActive) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Active, b.Active))
}

// NetworkFunctionsActive are the groups' active functions.
func NetworkFunctionsActive(n *relations.NB) engine.Rel[NetworkFunctionActive] {
	return engine.Map(n.NetworkFunctionGroups, func(g relations.NetworkFunctionGroup) NetworkFunctionActive {
		return NetworkFunctionActive{Group: g.UUID, Active: g.Active.UUID}
	})
}
