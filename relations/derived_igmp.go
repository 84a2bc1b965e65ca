package relations

import (
	"net/netip"

	"github.com/northlog/northlog/engine"
)

// IGMPMrouters is the address of the IGMP_Group rows that list the ports
// behind which ovn-controller saw multicast routers.
const IGMPMrouters = "mrouters"

// IGMPGroup is a multicast group learnt through IGMP/MLD snooping on a
// switch, as ovn-northd 23.03 aggregates the SB IGMP_Group rows (northd.c
// build_mcast_groups, struct ovn_igmp_group): one per switch and address
// that has at least one port left; or such a group relayed by a router.
type IGMPGroup struct {
	Datapath string     // NB _uuid of the switch or router
	Name     string     // the address as the IGMP_Group rows write it
	Addr     netip.Addr // the address parsed; an IPv4-mapped one unmapped
}

// Relayed reports whether a router relays the group: an IPv4 group, or
// an IPv6 one of a scope wider than the link's (RFC 4291 2.7;
// ipv6_addr_is_routable_multicast).
func (g IGMPGroup) Relayed() bool {
	if g.Addr.Is4() {
		return true
	}
	b := g.Addr.As16()
	switch b[1] & 0x0f {
	case 0, 1, 2, 3, 0x0f:
		return false
	}
	return b[0] == 0xff
}

// IGMPPort is a port of a multicast group on a datapath (NB _uuid),
// named by its logical_port.
type IGMPPort struct {
	Datapath, Group, Port string
}

// ParseIGMPAddress parses an IGMP_Group address as northd does
// (ovn_igmp_group_get_address: inet_pton of IPv4, else of IPv6).
func ParseIGMPAddress(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// deriveIGMP computes the learnt groups and their ports. An entry's port
// counts when it is a switch port that does not flood multicast already:
// neither options:mcast_flood nor the peer of a router that relays
// multicast (ovn_igmp_group_get_ports). A group's ports are its entries'
// and its switch's localnet ports; the entries of "mrouters" are the
// switch's multicast router ports (IGMPMrouterPorts), not a group. A
// router that relays multicast (options:mcast_relay) has the groups of
// the switches its ports connect to, unless the port floods multicast
// already; the port is the group's (its chassisredirect port for a
// distributed gateway port).
func (n *NB) deriveIGMP() {
	onSwitch := engine.SemiJoin(
		engine.IndexBy(engine.Filter(n.IGMPEntries, func(e IGMPEntry) bool {
			_, ok := ParseIGMPAddress(e.Address)
			return ok || e.Address == IGMPMrouters
		}), func(e IGMPEntry) string { return e.Datapath }),
		engine.IndexBy(n.SwitchDatapaths, func(s Switch) string { return s.UUID }))
	notFlooding := engine.Filter(n.LSPs, func(p LSP) bool { return !SmapBool(p.Port.Options, "mcast_flood", false) })
	withPort := engine.SemiJoin(engine.IndexBy(onSwitch, func(e IGMPEntry) string { return e.Port }),
		engine.IndexBy(notFlooding, LSP.Name))
	relayRouters := engine.IndexBy(engine.Filter(n.RouterConfigs, func(r RouterConfig) bool { return r.McastRelay }),
		func(r RouterConfig) string { return r.UUID })
	relayPeers := engine.Join(
		engine.IndexBy(n.LRPSwitchPeers, func(p LRPSwitchPeer) string { return p.LRP.Router }), relayRouters,
		func(_ string, p LRPSwitchPeer, _ RouterConfig) string { return p.LSP.Name })
	entries := engine.AntiJoin(engine.IndexBy(withPort, func(e IGMPEntry) string { return e.Port }),
		engine.IndexBy(relayPeers, func(name string) string { return name }))
	ports := engine.Map(entries, func(e IGMPEntry) IGMPPort { return IGMPPort{e.Datapath, e.Address, e.Port} })

	isMrouters := func(p IGMPPort) bool { return p.Group == IGMPMrouters }
	n.IGMPMrouterPorts = engine.Distinct(engine.Filter(ports, isMrouters))
	groupPorts := engine.Filter(ports, func(p IGMPPort) bool { return !isMrouters(p) })
	learnt := engine.Distinct(engine.Map(groupPorts, func(p IGMPPort) IGMPGroup {
		a, _ := ParseIGMPAddress(p.Group)
		return IGMPGroup{Datapath: p.Datapath, Name: p.Group, Addr: a}
	}))
	localnets := engine.Join(
		engine.IndexBy(learnt, func(g IGMPGroup) string { return g.Datapath }),
		engine.IndexBy(n.LSPsOfType(LSPTypeLocalnet), lspSwitch),
		func(_ string, g IGMPGroup, p LSP) IGMPPort { return IGMPPort{g.Datapath, g.Name, p.Name()} })
	relayPorts := engine.Join(
		engine.IndexBy(engine.Filter(n.LRPSwitchPeers, func(p LRPSwitchPeer) bool {
			return !SmapBool(p.LRP.Port.Options, "mcast_flood", false)
		}), func(p LRPSwitchPeer) string { return p.LRP.Router }),
		relayRouters,
		func(_ string, p LRPSwitchPeer, _ RouterConfig) LRPSwitchPeer { return p })
	relayed := engine.Join(
		engine.IndexBy(engine.Filter(learnt, IGMPGroup.Relayed), func(g IGMPGroup) string { return g.Datapath }),
		engine.IndexBy(relayPorts, func(p LRPSwitchPeer) string { return p.Switch }),
		func(_ string, g IGMPGroup, p LRPSwitchPeer) IGMPPort {
			name := p.LRP.Name()
			if p.LRP.DGP() {
				name = "cr-" + name
			}
			return IGMPPort{p.LRP.Router, g.Name, name}
		})
	n.IGMPGroups = engine.Distinct(engine.Union(learnt, engine.Map(relayed, func(p IGMPPort) IGMPGroup {
		a, _ := ParseIGMPAddress(p.Group)
		return IGMPGroup{Datapath: p.Datapath, Name: p.Group, Addr: a}
	})))
	n.IGMPGroupPorts = engine.Distinct(engine.Union(groupPorts, localnets, relayed))
}
