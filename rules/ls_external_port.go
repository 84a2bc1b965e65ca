package rules

import (
	"slices"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// routerPortEntry is one address entry of a switch's router port
// (rp->lsp_addrs): an entry of its addresses column, or, for "router", the
// peer router port's MAC and networks with its IPv6 link-local address.
type routerPortEntry struct {
	Switch string
	Addrs  *relations.LPortAddresses
}

// routerPortEntries are the address entries of the switches' router ports.
func routerPortEntries(nb *relations.NB) engine.Rel[routerPortEntry] {
	routerLSPs := nb.LSPsOfType(relations.LSPTypeRouter)
	return engine.JoinFlatMap(
		engine.IndexBy(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.LSP.UUID }),
		engine.IndexBy(routerLSPs, func(p relations.LSP) string { return p.Port.UUID }),
		func(_ string, peer relations.LRPSwitchPeer, p relations.LSP) []routerPortEntry {
			out := make([]routerPortEntry, 0, len(p.Addrs.Static)+1)
			for i := range p.Addrs.Static {
				out = append(out, routerPortEntry{p.Switch, &p.Addrs.Static[i]})
			}
			if slices.Contains(p.Port.Addresses, "router") {
				out = append(out, routerPortEntry{p.Switch, peer.LRP.Net})
			}
			return out
		})
}

// externalInportRewrite: 26.03 makes what an external port's MACs send in
// through a localnet port come from the external port itself
// (ls_in_check_port_sec), so the stages after match on it; 23.03 matches on
// the localnet port.
func externalInportRewrite(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// SwitchExternalPortFlows: ls_in_external_port, priority 100 (northd.c
// build_lswitch_external_port). An external port (a baremetal host behind
// the physical network) is bound to one chassis of its HA chassis group;
// its traffic reaches every chassis through each localnet port of its
// switch. Only the chassis that binds it may run the router pipeline for
// it: elsewhere, its ARP requests and neighbour solicitations for the
// router ports' addresses, and its traffic to their MACs, are dropped. In
// 26.03 the flows match the external port as inport, which a priority-75
// ls_in_check_port_sec flow per MAC and localnet port sets.
func SwitchExternalPortFlows(nb *relations.NB) engine.Rel[Flow] {
	type viaLocalnet struct {
		Entry    lspEntry
		Localnet string
	}
	external := lspEntries(nb, nb.LSPsOfType(relations.LSPTypeExternal), func(p relations.LSP) bool { return p.Port.Type == relations.LSPTypeExternal })
	localnets := nb.PortsOnSwitchesOfType(relations.LSPTypeLocalnet)
	via := engine.Join(
		engine.IndexBy(external, func(e lspEntry) string { return e.Port.Switch }),
		engine.IndexBy(localnets, func(sp relations.SwitchPort) string { return sp.Switch }),
		func(_ string, e lspEntry, ln relations.SwitchPort) viaLocalnet { return viaLocalnet{e, ln.Port.Name} })
	rewrite := externalInportRewrite(nb)
	drops := engine.JoinFlatMap(
		engine.IndexBy(via, func(v viaLocalnet) string { return v.Entry.Port.Switch }),
		engine.IndexBy(routerPortEntries(nb), func(r routerPortEntry) string { return r.Switch }),
		func(_ string, v viaLocalnet, rp routerPortEntry) []Flow {
			ext := jsonKey(v.Entry.Port.Name())
			inport := jsonKey(v.Localnet)
			if rewrite {
				inport = ext
			}
			from := "inport == " + inport + " && eth.src == " + v.Entry.Addrs.MAC.String()
			notResident := " && !is_chassis_resident(" + ext + ")"
			dp := onPort{v.Entry.Port.Switch, v.Localnet}.from(v.Entry.Port.Port.UUID)
			var flows []Flow
			for _, ip := range rp.Addrs.IPv4 {
				flows = append(flows, dp.flow(LSInExternalPort, 100,
					from+notResident+" && arp.tpa == "+ip.AddrS+" && arp.op == 1", drop).because("Drop ARP for unknown router ports"))
			}
			for _, ip := range rp.Addrs.IPv6 {
				flows = append(flows, dp.flow(LSInExternalPort, 100,
					from+notResident+" && nd_ns && ip6.dst == {"+ip.AddrS+", "+ip.SNAddrS+"} && nd.target == "+ip.AddrS, drop).because("Drop ND for unbound router ports"))
			}
			return append(flows, dp.flow(LSInExternalPort, 100,
				from+" && eth.dst == "+rp.Addrs.MAC.String()+notResident, drop).because("Packet does not come from a chassis resident"))
		})
	if !rewrite {
		return drops
	}
	rewrites := engine.Map(via, func(v viaLocalnet) Flow {
		return on(v.Entry.Port.Switch).flow(LSInCheckPortSec, 75,
			"inport == "+jsonKey(v.Localnet)+" && eth.src == "+v.Entry.Addrs.MAC.String(),
			"flags.localnet = 1; inport = "+jsonKey(v.Entry.Port.Name())+"; next;")
	})
	return engine.Union(drops, rewrites)
}
