package rules

import (
	"cmp"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// MulticastGroup is one SB Multicast_Group row that ovn-northd 23.03 writes
// for the fixed groups (northd.c build_mcast_groups,
// build_lswitch_ip_unicast_lookup): a group exists on a datapath when it
// has at least one port. Its ports are the MulticastGroupMembers of the
// same datapath and name: one tuple each, so that adding a port to a switch
// of thousands costs that port. The groups learnt through IGMP_Group rows
// are named by their address and have Key 0: the SB writer gives them a
// key from the IP multicast range, as northd does
// (ovn_igmp_group_allocate_id).
type MulticastGroup struct {
	Datapath string // NB _uuid of the switch or router
	Name     string
	Key      int // tunnel_key, fixed per group name; 0 for a learnt group
}

// MulticastGroupMember says that the port named Port (a logical_port) is
// in the group Group on Datapath (NB _uuid).
type MulticastGroupMember struct {
	Datapath, Group, Port string
}

// The fixed multicast groups and their tunnel keys (lib/mcast-group-index.h).
const (
	MCFlood        = "_MC_flood"         // every enabled switch port
	MCUnknown      = "_MC_unknown"       // enabled ports with "unknown" addresses
	MCMrouterFlood = "_MC_mrouter_flood" // ports towards multicast routers
	MCStatic       = "_MC_static"        // ports with options:mcast_flood
	MCFloodL2      = "_MC_flood_l2"      // enabled switch ports that are not router ports
)

var mcKeys = map[string]int{
	MCFlood:        32768,
	MCUnknown:      32769,
	MCMrouterFlood: 32770,
	MCStatic:       32771,
	MCFloodL2:      32772,
}

// CompareMulticastGroups orders groups by datapath, name and key.
func CompareMulticastGroups(a, b MulticastGroup) int {
	return cmp.Or(cmp.Compare(a.Datapath, b.Datapath), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Key, b.Key))
}

// CompareMulticastGroupMembers orders members by datapath, group, port.
func CompareMulticastGroupMembers(a, b MulticastGroupMember) int {
	return cmp.Or(cmp.Compare(a.Datapath, b.Datapath), cmp.Compare(a.Group, b.Group), cmp.Compare(a.Port, b.Port))
}

// switchGroupMembers are the fixed groups an enabled switch port is in.
func switchGroupMembers(p relations.LSP) []MulticastGroupMember {
	in := func(group string) MulticastGroupMember { return MulticastGroupMember{p.Switch, group, p.Name()} }
	ms := []MulticastGroupMember{in(MCFlood)}
	if p.Port.Type != relations.LSPTypeRouter {
		ms = append(ms, in(MCFloodL2))
	}
	if relations.SmapBool(p.Port.Options, "mcast_flood_reports", false) {
		ms = append(ms, in(MCMrouterFlood))
	}
	if relations.SmapBool(p.Port.Options, "mcast_flood", false) {
		ms = append(ms, in(MCStatic))
	}
	if p.Addrs.HasUnknown && p.Port.Type != relations.LSPTypeExternal {
		ms = append(ms, in(MCUnknown))
	}
	return ms
}

// multicastOptOut: 26.03's switch ports with options:receive_multicast
// false are in no multicast group (en-multicast.c
// lsp_can_receive_multicast), as network functions' ports are.
func multicastOptOut(r schema.Release) bool { return r >= schema.OVN2603 }

// SBMulticastGroups computes the fixed multicast groups and their members.
// A chassisredirect port stands for its distributed gateway port, and for
// its switch port (relations.NB.PeerRedirects).
func SBMulticastGroups(n *relations.NB) (engine.Rel[MulticastGroup], engine.Rel[MulticastGroupMember]) {
	receives := func(options map[string]string) bool {
		return !multicastOptOut(n.Release) || relations.SmapBool(options, "receive_multicast", true)
	}
	enabled := engine.Filter(n.LSPs, func(p relations.LSP) bool { return p.Enabled() && receives(p.Port.Options) })
	isRouterPort := func(p relations.LSP) bool { return p.Port.Type == relations.LSPTypeRouter }
	switchMembers := engine.FlatMap(engine.Filter(enabled, func(p relations.LSP) bool { return !isRouterPort(p) }),
		switchGroupMembers)
	// Switch ports connected to a router that relays multicast.
	relayRouters := engine.Filter(n.RouterConfigs, func(r relations.RouterConfig) bool { return r.McastRelay })
	relay := engine.Join(
		engine.IndexBy(engine.Filter(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) bool {
			return (p.LSP.Enabled == nil || *p.LSP.Enabled) && receives(p.LSP.Options)
		}), func(p relations.LRPSwitchPeer) string { return p.LRP.Router }),
		engine.IndexBy(relayRouters, func(r relations.RouterConfig) string { return r.UUID }),
		func(_ string, p relations.LRPSwitchPeer, _ relations.RouterConfig) MulticastGroupMember {
			return MulticastGroupMember{p.Switch, MCMrouterFlood, p.LSP.Name}
		})
	// The members that switch ports of type router make, under the name of
	// their chassisredirect port when they have one (ovn_multicast_add).
	routerPorts := engine.IndexBy(engine.Union(
		engine.FlatMap(engine.Filter(enabled, isRouterPort), switchGroupMembers), relay),
		func(m MulticastGroupMember) string { return m.Port })
	redirected := engine.IndexBy(engine.Map(n.PeerRedirects, func(p relations.LRPSwitchPeer) string { return p.LSP.Name }),
		func(name string) string { return name })
	routerPortMembers := engine.Union(
		engine.AntiJoin(routerPorts, redirected),
		engine.Join(routerPorts, redirected, func(_ string, m MulticastGroupMember, _ string) MulticastGroupMember {
			m.Port = chassisRedirectName(m.Port)
			return m
		}))
	routerStatic := engine.Map(engine.Filter(n.LRPs, func(p relations.LRP) bool {
		return p.Enabled() && relations.SmapBool(p.Port.Options, "mcast_flood", false)
	}), func(p relations.LRP) MulticastGroupMember {
		name := p.Name()
		if p.DGP() {
			name = chassisRedirectName(name)
		}
		return MulticastGroupMember{p.Router, MCStatic, name}
	})
	// Learnt groups, and the multicast routers ovn-controller saw.
	toMember := func(group func(relations.IGMPPort) string) func(relations.IGMPPort) MulticastGroupMember {
		return func(p relations.IGMPPort) MulticastGroupMember {
			return MulticastGroupMember{p.Datapath, group(p), p.Port}
		}
	}
	learnt := engine.Map(n.IGMPGroupPorts, toMember(func(p relations.IGMPPort) string { return p.Group }))
	mrouters := engine.Map(n.IGMPMrouterPorts, toMember(func(relations.IGMPPort) string { return MCMrouterFlood }))
	// A switch port may be a multicast router port both by its options
	// and by its router's relay, and by what ovn-controller saw.
	members := engine.Distinct(engine.Union(switchMembers, routerPortMembers, routerStatic, learnt, mrouters,
		servingPortGroupMembers(n)))
	groups := engine.Distinct(engine.Map(members, func(m MulticastGroupMember) MulticastGroup {
		return MulticastGroup{Datapath: m.Datapath, Name: m.Group, Key: mcKeys[m.Group]}
	}))
	return groups, members
}
