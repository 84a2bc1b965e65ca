package rules

import (
	"cmp"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// SBNamedSet says that an SB table of named string sets (Address_Set,
// Port_Group) holds a row of this name. Its name may hold a KeyRef, which
// the SB writer resolves as in flow text. The row's members are the
// SBSetMembers of the same name: one tuple each, so that a change to a set
// of thousands costs the members that changed.
type SBNamedSet struct{ Name string }

// SBSetMember says that the set named Set holds Member.
type SBSetMember struct{ Set, Member string }

// CompareSBNamedSets orders sets by name.
func CompareSBNamedSets(a, b SBNamedSet) int { return cmp.Compare(a.Name, b.Name) }

// CompareSBSetMembers orders members by set, then member.
func CompareSBSetMembers(a, b SBSetMember) int {
	return cmp.Or(cmp.Compare(a.Set, b.Set), cmp.Compare(a.Member, b.Member))
}

// SvcMonitorMACSet is the address set of the service monitor's source MAC,
// which health check flows match ("eth.src == $svc_monitor_mac").
const SvcMonitorMACSet = "svc_monitor_mac"

// nameOf is an NB row's _uuid and name, without the rest of the row: a
// change to another column (a port group's ACLs, an address set's
// addresses) leaves it unchanged, so it does not ripple into the members.
type nameOf struct{ UUID, Name string }

func byUUID(n nameOf) string { return n.UUID }

// portGroupNames are the NB port groups' names by _uuid.
func portGroupNames(n *relations.NB) engine.Index[string, nameOf] {
	return engine.IndexBy(engine.Map(n.PortGroups.Rows, func(pg *nb.PortGroup) nameOf {
		return nameOf{pg.UUID, pg.Name}
	}), byUUID)
}

// pgPort is a member of a port group: the group's name and the port's
// _uuid.
type pgPort struct{ Group, Port string }

// portGroupPorts are the port groups' members.
func portGroupPorts(n *relations.NB, names engine.Index[string, nameOf]) engine.Rel[pgPort] {
	return engine.Join(engine.IndexBy(n.Refs.PortGroupPorts, func(r relations.Ref) string { return r.Owner }), names,
		func(_ string, r relations.Ref, pg nameOf) pgPort { return pgPort{pg.Name, r.Target} })
}

// pgPortIP is one IP address of a switch port, as the port group address
// sets list it.
type pgPortIP struct {
	Port string // NB _uuid
	IP   string
	IPv6 bool
}

// portGroupIPs are the addresses of a switch port that its port groups'
// address sets hold (en-sync-sb.c build_port_group_address_set): those of
// each addresses entry that is not a dynamic request, and those of
// dynamic_addresses. Entries northd cannot read give what it reads of them,
// which may be nothing ("router", "unknown").
func portGroupIPs(lsp *nb.LogicalSwitchPort) []pgPortIP {
	var out []pgPortIP
	add := func(s string) {
		a, _ := relations.ParseLSPAddresses(s)
		for _, ip := range a.IPv4 {
			out = append(out, pgPortIP{lsp.UUID, ip.AddrS, false})
		}
		for _, ip := range a.IPv6 {
			out = append(out, pgPortIP{lsp.UUID, ip.AddrS, true})
		}
	}
	for _, s := range lsp.Addresses {
		if !relations.IsDynamicAddress(s) {
			add(s)
		}
	}
	if lsp.DynamicAddresses != nil {
		add(*lsp.DynamicAddresses)
	}
	return out
}

// portGroupSetName is the name of a port group's address set of a family.
func portGroupSetName(group string, v6 bool) string {
	if v6 {
		return group + "_ip6"
	}
	return group + "_ip4"
}

// SBAddressSets computes the SB Address_Set rows as ovn-northd 23.03 writes
// them (en-sync-sb.c sync_addr_sets): svc_monitor_mac with the service
// monitor's MAC; NAME_ip4 and NAME_ip6 for every port group, with its
// ports' addresses; _rtr_lb_KEY_ip4/_ip6 with the VIPs each router answers
// ARP or ND for (RouterLBVIPNeighborFlows refers to them); and every NB
// address set, copied, which replaces a generated set of the same name.
func SBAddressSets(n *relations.NB) (engine.Rel[SBNamedSet], engine.Rel[SBSetMember]) {
	names := portGroupNames(n)
	pgSets := engine.FlatMap(engine.Map(n.PortGroups.Rows, func(pg *nb.PortGroup) string { return pg.Name }),
		func(name string) []SBNamedSet {
			return []SBNamedSet{{portGroupSetName(name, false)}, {portGroupSetName(name, true)}}
		})
	ips := engine.FlatMap(n.SwitchPorts.Rows, portGroupIPs)
	pgMembers := engine.Join(
		engine.IndexBy(portGroupPorts(n, names), func(m pgPort) string { return m.Port }),
		engine.IndexBy(ips, func(ip pgPortIP) string { return ip.Port }),
		func(_ string, m pgPort, ip pgPortIP) SBSetMember {
			return SBSetMember{portGroupSetName(m.Group, ip.IPv6), ip.IP}
		})

	// 26.03's set holds the replies' destination MAC too (en-sync-sb.c).
	svcMembers := engine.FlatMap(n.LBGlobal, func(o relations.LBGlobalOptions) []SBSetMember {
		var out []SBSetMember
		for _, mac := range []string{o.SvcMonitorMAC, o.SvcMonitorMACDst} {
			if mac != "" && (mac == o.SvcMonitorMAC || n.Release >= schema.OVN2603) {
				out = append(out, SBSetMember{SvcMonitorMACSet, mac})
			}
		}
		return out
	})
	svcSet := engine.Map(n.LBGlobal, func(relations.LBGlobalOptions) SBNamedSet { return SBNamedSet{SvcMonitorMACSet} })

	rtrMembers := engine.Map(n.RouterLBReachableIPs,
		func(ip relations.RouterLBIP) SBSetMember {
			// The set's name is the flows' reference without the "$".
			return SBSetMember{routerLBAddressSet(ip.Router, ip.IPv6)[1:], ip.IP}
		})
	rtrSets := engine.Map(rtrMembers, func(m SBSetMember) SBNamedSet { return SBNamedSet{m.Set} })

	nbNames := engine.Map(n.AddressSets.Rows, func(as *nb.AddressSet) nameOf { return nameOf{as.UUID, as.Name} })
	nbSets := engine.Map(nbNames, func(as nameOf) SBNamedSet { return SBNamedSet{as.Name} })
	nbMembers := engine.Join(
		engine.IndexBy(n.Refs.AddressSetAddresses, func(r relations.Ref) string { return r.Owner }),
		engine.IndexBy(nbNames, byUUID),
		func(_ string, r relations.Ref, as nameOf) SBSetMember { return SBSetMember{as.Name, r.Target} })

	bySet := func(s SBNamedSet) string { return s.Name }
	nbByName := engine.IndexBy(nbSets, bySet)
	generatedSets := engine.AntiJoin(engine.IndexBy(engine.Union(svcSet, pgSets, rtrSets), bySet), nbByName)
	generatedMembers := engine.AntiJoin(
		engine.IndexBy(engine.Union(svcMembers, pgMembers, rtrMembers), func(m SBSetMember) string { return m.Set }),
		nbByName)
	return engine.Distinct(engine.Union(generatedSets, nbSets)), engine.Distinct(engine.Union(generatedMembers, nbMembers))
}

// SBPortGroups computes the SB Port_Group rows as ovn-northd 23.03 writes
// them (northd.c sync_port_groups): one per port group and switch that has
// some of its ports, named KEY_NAME after the switch's tunnel key, listing
// the names of the group's ports on that switch. A listed port that is on
// no switch is left out.
func SBPortGroups(n *relations.NB) (engine.Rel[SBNamedSet], engine.Rel[SBSetMember]) {
	type portOn struct{ Switch, UUID, Name string }
	named := engine.Join(
		engine.IndexBy(portGroupPorts(n, portGroupNames(n)), func(m pgPort) string { return m.Port }),
		engine.IndexBy(engine.Map(n.PortsOnSwitches, func(sp relations.SwitchPort) portOn {
			return portOn{sp.Switch, sp.Port.UUID, sp.Port.Name}
		}), func(p portOn) string { return p.UUID }),
		func(_ string, m pgPort, p portOn) SBSetMember {
			return SBSetMember{KeyRef(p.Switch) + "_" + m.Group, p.Name}
		})
	sets := engine.Distinct(engine.Map(named, func(m SBSetMember) SBNamedSet { return SBNamedSet{m.Set} }))
	return sets, engine.Distinct(named)
}
