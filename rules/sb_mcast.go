package rules

import (
	"cmp"
	"slices"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// MulticastGroup is one SB Multicast_Group row that ovn-northd 23.03 writes
// for the fixed groups (northd.c build_mcast_groups,
// build_lswitch_ip_unicast_lookup): a group exists on a datapath when it
// has at least one port. Groups learnt through IGMP_Group rows are not
// here.
type MulticastGroup struct {
	Datapath string // NB _uuid of the switch or router
	Name     string
	Key      int // tunnel_key, fixed per group name
	// Ports are the logical_port names of the members.
	Ports PortNames
}

// PortNames are the port names of a multicast group's members, sorted. It
// is a handle on the members as the engine collects them (engine.Sorted), so
// it compares equal only to itself and a change of membership gives a new
// one: adding a port to a switch of n ports copies no n names.
type PortNames struct{ members engine.Sorted[mcMember] }

// Slice returns the names in order.
func (p PortNames) Slice() []string {
	names := make([]string, 0, p.members.Len())
	for m := range p.members.All() {
		names = append(names, m.Port)
	}
	return names
}

// comparePortNames orders name lists by length, then by their names.
func comparePortNames(a, b PortNames) int {
	if a == b {
		return 0
	}
	if c := cmp.Compare(a.members.Len(), b.members.Len()); c != 0 {
		return c
	}
	return slices.Compare(a.Slice(), b.Slice())
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

// CompareMulticastGroups orders groups by datapath and name, then ports.
func CompareMulticastGroups(a, b MulticastGroup) int {
	if c := cmp.Or(cmp.Compare(a.Datapath, b.Datapath), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Key, b.Key)); c != 0 {
		return c
	}
	return comparePortNames(a.Ports, b.Ports)
}

// mcMember says that port is in group on datapath.
type mcMember struct {
	Datapath, Group, Port string
}

// SBMulticastGroups computes the fixed multicast groups from their members.
// A chassisredirect port stands for its distributed gateway port.
func SBMulticastGroups(n *relations.NB) engine.Rel[MulticastGroup] {
	enabled := engine.Filter(n.LSPs, relations.LSP.Enabled)
	switchMembers := engine.FlatMap(enabled, func(p relations.LSP) []mcMember {
		in := func(group string) mcMember { return mcMember{p.Switch, group, p.Name()} }
		ms := []mcMember{in(MCFlood)}
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
	})
	// Switch ports connected to a router that relays multicast.
	relayRouters := engine.Filter(n.RouterConfigs, func(r relations.RouterConfig) bool { return r.McastRelay })
	relay := engine.Join(
		engine.IndexBy(engine.Filter(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) bool {
			return p.LSP.Enabled == nil || *p.LSP.Enabled
		}), func(p relations.LRPSwitchPeer) string { return p.LRP.Router }),
		engine.IndexBy(relayRouters, func(r relations.RouterConfig) string { return r.UUID }),
		func(_ string, p relations.LRPSwitchPeer, _ relations.RouterConfig) mcMember {
			return mcMember{p.Switch, MCMrouterFlood, p.LSP.Name}
		})
	routerStatic := engine.Map(engine.Filter(n.LRPs, func(p relations.LRP) bool {
		return p.Enabled() && relations.SmapBool(p.Port.Options, "mcast_flood", false)
	}), func(p relations.LRP) mcMember {
		name := p.Name()
		if p.DGP() {
			name = chassisRedirectName(name)
		}
		return mcMember{p.Router, MCStatic, name}
	})
	type groupKey struct{ datapath, group string }
	members := engine.Union(switchMembers, relay, routerStatic)
	// Members of one group differ by port name, so none is listed twice.
	groups := engine.Collect(
		engine.IndexBy(members, func(m mcMember) groupKey { return groupKey{m.Datapath, m.Group} }),
		func(a, b mcMember) int { return cmp.Compare(a.Port, b.Port) })
	return engine.Map(groups, func(g engine.KV[groupKey, engine.Sorted[mcMember]]) MulticastGroup {
		return MulticastGroup{Datapath: g.Key.datapath, Name: g.Key.group, Key: mcKeys[g.Key.group], Ports: PortNames{g.Value}}
	})
}
