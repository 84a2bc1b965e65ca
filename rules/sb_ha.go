package rules

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// HAChassisGroup is one SB HA_Chassis_Group row as ovn-northd 23.03 writes
// it (northd.c sync_ha_chassis_group_for_sbpb,
// copy_gw_chassis_from_nbrp_to_sbpb), with its HA_Chassis rows: one per
// group that a port binding refers to, by name. A distributed gateway
// port's chassisredirect port refers to a copy of its NB HA_Chassis_Group
// or, without one, to a group named after the port that holds its
// Gateway_Chassis rows, and so does its peer's (26.03,
// relations.NB.PeerRedirects); an external switch port to a copy of its NB
// HA_Chassis_Group. Which Chassis row each HA_Chassis names, and the
// group's ref_chassis, depend on the SB and are the SB writer's.
type HAChassisGroup struct {
	Name    string
	Chassis HAChassisList
}

// HAChassis is one HA_Chassis row's columns: the chassis by name
// (external_ids:chassis-name) and its priority.
type HAChassis struct {
	Name     string
	Priority int
}

// HAChassisList is a list of HA chassis as a comparable value: each one
// as its Go-quoted name and its priority, sorted, duplicates kept, one per
// line.
type HAChassisList string

func haChassisListOf(cs []HAChassis) HAChassisList {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = strconv.Quote(c.Name) + " " + strconv.Itoa(c.Priority)
	}
	slices.Sort(lines)
	return HAChassisList(strings.Join(lines, "\n"))
}

// Slice decodes l, in its sorted order.
func (l HAChassisList) Slice() []HAChassis {
	if l == "" {
		return nil
	}
	var out []HAChassis
	for line := range strings.SplitSeq(string(l), "\n") {
		q, err := strconv.QuotedPrefix(line)
		if err != nil {
			continue
		}
		name, _ := strconv.Unquote(q)
		prio, err := strconv.Atoi(strings.TrimPrefix(line[len(q):], " "))
		if err != nil {
			continue
		}
		out = append(out, HAChassis{Name: name, Priority: prio})
	}
	return out
}

// Len is the number of HA chassis.
func (l HAChassisList) Len() int {
	if l == "" {
		return 0
	}
	return strings.Count(string(l), "\n") + 1
}

// CompareHAChassisGroups orders groups by name, then contents.
func CompareHAChassisGroups(a, b HAChassisGroup) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Chassis, b.Chassis))
}

// HAGroupPort is a Port_Binding's ha_chassis_group column: the port binding
// (a chassisredirect port or an external switch port) and the name of the
// group it refers to.
type HAGroupPort struct {
	Port  string
	Group string
}

// CompareHAGroupPorts orders by port, then group.
func CompareHAGroupPorts(a, b HAGroupPort) int {
	return cmp.Or(cmp.Compare(a.Port, b.Port), cmp.Compare(a.Group, b.Group))
}

// HARefSwitch says that the chassis on which the ports of a switch are
// bound are ref_chassis of an HA chassis group (northd.c
// build_ha_chassis_group_ref_chassis): the switch is connected to a router
// of a router group (routers linked directly or through switches,
// build_lrouter_groups) in which a distributed gateway port's group has
// more than one HA chassis.
type HARefSwitch struct {
	Switch string // NB _uuid
	Group  string
}

// CompareHARefSwitches orders by switch, then group.
func CompareHARefSwitches(a, b HARefSwitch) int {
	return cmp.Or(cmp.Compare(a.Switch, b.Switch), cmp.Compare(a.Group, b.Group))
}

// haMember is one HA chassis of a group or of a router port's gateway
// chassis, by its owner's NB _uuid; a bare owner (Row "") stands for the
// owner itself, so that an owner with no chassis still has a list.
type haMember struct {
	Owner   string
	Row     string
	Chassis HAChassis
}

// haLists computes each owner's list of HA chassis: owners are the rows
// of owners, and member rows refs lists them by UUID; the chassis are
// read from the rows of members.
func haLists[O, M comparable](owners engine.Rel[O], ownerID func(O) string, refs func(O) []string,
	members engine.Rel[M], memberID func(M) string, chassis func(M) HAChassis) engine.Rel[engine.KV[string, HAChassisList]] {
	bare := engine.Map(owners, func(o O) haMember { return haMember{Owner: ownerID(o)} })
	memberRefs := engine.FlatMap(owners, func(o O) []haMember {
		out := make([]haMember, len(refs(o)))
		for i, u := range refs(o) {
			out[i] = haMember{Owner: ownerID(o), Row: u}
		}
		return out
	})
	joined := engine.Join(
		engine.IndexBy(memberRefs, func(m haMember) string { return m.Row }),
		engine.IndexBy(members, memberID),
		func(_ string, m haMember, row M) haMember {
			m.Chassis = chassis(row)
			return m
		})
	return engine.GroupBy(engine.IndexBy(engine.Union(bare, joined), func(m haMember) string { return m.Owner }),
		func(owner string, ms []haMember) []engine.KV[string, HAChassisList] {
			var cs []HAChassis
			for _, m := range ms {
				if m.Row != "" {
					cs = append(cs, m.Chassis)
				}
			}
			return []engine.KV[string, HAChassisList]{{Key: owner, Value: haChassisListOf(cs)}}
		})
}

// haUse is a port binding's HA chassis group, with the group's contents
// and where they come from: an NB HA_Chassis_Group (Legacy false) or a
// router port's gateway_chassis. Router is the router of a chassisredirect
// port, "" for an external switch port.
type haUse struct {
	Port   string
	Router string
	Group  HAChassisGroup
	Legacy bool
}

// SBHAChassisGroups computes the HA_Chassis_Group rows, the port bindings
// that refer to them and the switches whose bound chassis are their
// ref_chassis.
func SBHAChassisGroups(n *relations.NB) (engine.Rel[HAChassisGroup], engine.Rel[HAGroupPort], engine.Rel[HARefSwitch]) {
	nbLists := haLists(n.HAChassisGroups.Rows, func(g *nb.HAChassisGroup) string { return g.UUID },
		func(g *nb.HAChassisGroup) []string { return g.HaChassis },
		n.HAChassis.Rows, func(c *nb.HAChassis) string { return c.UUID },
		func(c *nb.HAChassis) HAChassis { return HAChassis{Name: c.ChassisName, Priority: c.Priority} })
	// NB groups by _uuid, as SB rows.
	nbGroups := engine.IndexBy(engine.Join(
		n.HAChassisGroups.ByUUID(),
		engine.IndexBy(nbLists, func(kv engine.KV[string, HAChassisList]) string { return kv.Key }),
		func(u string, g *nb.HAChassisGroup, kv engine.KV[string, HAChassisList]) engine.KV[string, HAChassisGroup] {
			return engine.KV[string, HAChassisGroup]{Key: u, Value: HAChassisGroup{Name: g.Name, Chassis: kv.Value}}
		}), func(kv engine.KV[string, HAChassisGroup]) string { return kv.Key })

	// A distributed gateway port with an HA_Chassis_Group ignores its
	// gateway_chassis (23.03 logs it).
	dgps := engine.Filter(n.LRPs, relations.LRP.DGP)
	withGroup := engine.Filter(dgps, func(p relations.LRP) bool { return p.Port.HaChassisGroup != nil })
	legacy := engine.Filter(dgps, func(p relations.LRP) bool { return p.Port.HaChassisGroup == nil })
	crUses := engine.Join(
		engine.IndexBy(withGroup, func(p relations.LRP) string { return *p.Port.HaChassisGroup }),
		nbGroups,
		func(_ string, p relations.LRP, g engine.KV[string, HAChassisGroup]) haUse {
			return haUse{Port: chassisRedirectName(p.Name()), Router: p.Router, Group: g.Value}
		})
	legacyLists := haLists(legacy, func(p relations.LRP) string { return p.Port.UUID },
		func(p relations.LRP) []string { return p.Port.GatewayChassis },
		n.GatewayChassis.Rows, func(c *nb.GatewayChassis) string { return c.UUID },
		func(c *nb.GatewayChassis) HAChassis { return HAChassis{Name: c.ChassisName, Priority: c.Priority} })
	legacyUses := engine.Join(
		engine.IndexBy(legacy, func(p relations.LRP) string { return p.Port.UUID }),
		engine.IndexBy(legacyLists, func(kv engine.KV[string, HAChassisList]) string { return kv.Key }),
		func(_ string, p relations.LRP, kv engine.KV[string, HAChassisList]) haUse {
			return haUse{Port: chassisRedirectName(p.Name()), Router: p.Router, Legacy: true,
				Group: HAChassisGroup{Name: p.Name(), Chassis: kv.Value}}
		})
	external := engine.Filter(n.LSPsOfType(relations.LSPTypeExternal), func(p relations.LSP) bool { return p.Port.HaChassisGroup != nil })
	externalUses := engine.Join(
		engine.IndexBy(external, func(p relations.LSP) string { return *p.Port.HaChassisGroup }),
		nbGroups,
		func(_ string, p relations.LSP, g engine.KV[string, HAChassisGroup]) haUse {
			return haUse{Port: p.Port.Name, Group: g.Value}
		})
	uses := engine.Union(crUses, legacyUses, externalUses)

	// One row per name: an NB group whose name is also that of a router
	// port with gateway chassis wins over the port's (23.03 writes both,
	// in an order of its hash tables).
	groups := engine.GroupBy(engine.IndexBy(uses, func(u haUse) string { return u.Group.Name }),
		func(_ string, us []haUse) []HAChassisGroup {
			best := us[0]
			for _, u := range us[1:] {
				if u.Legacy != best.Legacy && !u.Legacy || u.Legacy == best.Legacy && u.Group.Chassis < best.Group.Chassis {
					best = u
				}
			}
			return []HAChassisGroup{best.Group}
		})
	ports := engine.Map(uses, func(u haUse) HAGroupPort { return HAGroupPort{Port: u.Port, Group: u.Group.Name} })
	// A switch port's chassisredirect port refers to the group of its
	// peer's (ovn_port_update_sbrec).
	peerPorts := engine.Join(
		engine.IndexBy(engine.Union(crUses, legacyUses), func(u haUse) string { return u.Port }),
		engine.IndexBy(n.PeerRedirects, func(p relations.LRPSwitchPeer) string { return chassisRedirectName(p.LRP.Name()) }),
		func(_ string, u haUse, p relations.LRPSwitchPeer) HAGroupPort {
			return HAGroupPort{Port: chassisRedirectName(p.LSP.Name), Group: u.Group.Name}
		})
	return groups, engine.Distinct(engine.Union(ports, peerPorts)), haRefSwitches(n, uses, groups)
}

// lrGroupMark is one fact of the router groups: a router linked to
// another router or to a switch (Switch), or a router's HA chassis group
// (Group).
type lrGroupMark struct {
	Router string
	Other  string
	Switch bool
	Group  string
}

// haRefSwitches computes, for each HA chassis group with more than one
// chassis that a chassisredirect port of some router refers to, the
// switches connected to the routers of that router's router group. Router
// groups are the connected components of routers linked by router port
// peers and through switches; they are computed as a whole when links or
// such groups change, which only topology changes do.
func haRefSwitches(n *relations.NB, uses engine.Rel[haUse], groups engine.Rel[HAChassisGroup]) engine.Rel[HARefSwitch] {
	routerGroups := engine.Join(
		engine.IndexBy(engine.Filter(uses, func(u haUse) bool { return u.Router != "" }), func(u haUse) string { return u.Group.Name }),
		engine.IndexBy(engine.Filter(groups, func(g HAChassisGroup) bool { return g.Chassis.Len() > 1 }),
			func(g HAChassisGroup) string { return g.Name }),
		func(name string, u haUse, _ HAChassisGroup) lrGroupMark {
			return lrGroupMark{Router: u.Router, Group: name}
		})
	switchLinks := engine.Map(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) lrGroupMark {
		return lrGroupMark{Router: p.LRP.Router, Other: p.Switch, Switch: true}
	})
	routerLinks := engine.Map(n.LRPRouterPeers, func(p relations.LRPRouterPeer) lrGroupMark {
		return lrGroupMark{Router: p.LRP.Router, Other: p.Peer.Router}
	})
	marks := engine.Distinct(engine.Union(routerGroups, switchLinks, routerLinks))
	return engine.GroupBy(engine.IndexBy(marks, func(lrGroupMark) struct{} { return struct{}{} }),
		func(_ struct{}, ms []lrGroupMark) []HARefSwitch {
			parent := map[string]string{}
			var find func(string) string
			find = func(x string) string {
				p, ok := parent[x]
				if !ok || p == x {
					return x
				}
				root := find(p)
				parent[x] = root
				return root
			}
			for _, m := range ms {
				if m.Other != "" {
					if a, b := find(m.Router), find(m.Other); a != b {
						parent[a] = b
					}
				}
			}
			groupsOf := map[string][]string{}
			for _, m := range ms {
				if m.Group != "" {
					root := find(m.Router)
					groupsOf[root] = append(groupsOf[root], m.Group)
				}
			}
			if len(groupsOf) == 0 {
				return nil
			}
			var out []HARefSwitch
			for _, m := range ms {
				if m.Switch {
					for _, g := range groupsOf[find(m.Other)] {
						out = append(out, HARefSwitch{Switch: m.Other, Group: g})
					}
				}
			}
			slices.SortFunc(out, CompareHARefSwitches)
			return slices.Compact(out)
		})
}
