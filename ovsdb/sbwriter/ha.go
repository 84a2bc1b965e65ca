package sbwriter

import (
	"maps"
	"slices"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// HATables are the SB tables of HA chassis groups, monitored.
var HATables = []string{sb.HAChassisGroupTable, sb.HAChassisTable}

// haTables keeps the SB HA_Chassis_Group rows (with their HA_Chassis rows)
// and the Port_Binding ha_chassis_group column equal to what 23.03 writes
// (northd.c sync_ha_chassis_group_for_sbpb,
// copy_gw_chassis_from_nbrp_to_sbpb, cleanup_sb_ha_chassis_groups,
// update_sb_ha_group_ref_chassis). The program gives the groups' names and
// chassis names, the ports that refer to them and the switches whose
// bound ports make ref_chassis; the SB gives the Chassis rows the names
// stand for and where ports are bound.
//
// A group's HA_Chassis rows are left alone while they name the wanted
// chassis, with the wanted priorities, each pointing at the Chassis row of
// its name (chassis_group_list_changed); otherwise the group gets new
// ones, and the server collects the old. Its ref_chassis are counted: for
// each chassis, the ports bound to it on the switches that refer to the
// group.
type haTables struct {
	w      *Writer
	groups *keyedTable[rules.HAChassisGroup]
	// haChassis mirrors HA_Chassis; haChassisOf names the group whose row
	// lists each.
	haChassis   map[string]*sb.HAChassis
	haChassisOf map[string]string
	// chassisByName are the Chassis rows by name (a schema index).
	chassisByName map[string]string
	// portGroup is the wanted group of a port binding, by port name, and
	// groupPorts the inverse.
	portGroup  map[string]string
	groupPorts map[string]map[string]bool
	// users are the Port_Binding rows that refer to each group row.
	users map[string]map[string]bool

	// refGroups are the groups whose ref_chassis the chassis of each
	// switch's bound ports are (by switch NB _uuid).
	refGroups map[string]map[string]bool
	// bound is what each bound Port_Binding row adds to ref_chassis: its
	// port's switch and the chassis it is bound to; boundOn the rows by
	// switch.
	bound   map[string]haBinding
	boundOn map[string]map[string]bool
	// refCount counts, per group and chassis, the rows that make the
	// chassis a ref_chassis of the group.
	refCount map[string]map[string]int
	// rebind are the rows, and rebindPorts the port names, whose
	// contribution to refCount may have changed.
	rebind      map[string]bool
	rebindPorts map[string]bool

	// The transaction being built: the row each group written has in it,
	// and the group rows it deletes.
	txnRow  map[string]string
	deleted map[string]bool
}

// haBinding is a bound port's switch (NB _uuid) and chassis rows.
type haBinding struct {
	Switch  string
	Chassis []string
}

func newHATables(w *Writer) *haTables {
	h := &haTables{
		w: w, portGroup: map[string]string{}, groupPorts: map[string]map[string]bool{},
		refGroups: map[string]map[string]bool{}, rebindPorts: map[string]bool{},
		txnRow: map[string]string{}, deleted: map[string]bool{},
	}
	h.groups = newKeyedTable(sb.HAChassisGroupTable,
		func(m model.Model) (string, bool) { return m.(*sb.HAChassisGroup).Name, true }, h.writeGroup)
	h.reset()
	return h
}

// reset forgets the SB rows (a new SB connection, whose initial contents
// follow) and with them the bound ports.
func (h *haTables) reset() {
	h.groups.reset()
	h.haChassis, h.haChassisOf, h.chassisByName = map[string]*sb.HAChassis{}, map[string]string{}, map[string]string{}
	h.users = map[string]map[string]bool{}
	h.bound, h.boundOn, h.refCount = map[string]haBinding{}, map[string]map[string]bool{}, map[string]map[string]int{}
	h.rebind = map[string]bool{}
}

func (h *haTables) markAll() { h.groups.markAll() }

// applyProgram takes the program's last changes as desired rows.
func (h *haTables) applyProgram(p *rules.Program) {
	applyDelta(h.groups, p.HAChassisGroups.Delta(), func(g rules.HAChassisGroup) string { return g.Name })
	for _, pass := range []engine.Weight{-1, 1} {
		for _, c := range p.HAGroupPorts.Delta() {
			if c.Weight != pass {
				continue
			}
			port, group := c.Tuple.Port, c.Tuple.Group
			if pass < 0 {
				if h.portGroup[port] == group {
					delete(h.portGroup, port)
				}
				setindex.Remove(h.groupPorts, group, port)
			} else {
				h.portGroup[port] = group
				setindex.Add(h.groupPorts, group, port)
			}
			h.w.dirtyPB[port] = true
		}
	}
	for _, c := range p.HARefSwitches.Delta() {
		r := c.Tuple
		if c.Weight > 0 {
			setindex.Add(h.refGroups, r.Switch, r.Group)
		} else {
			setindex.Remove(h.refGroups, r.Switch, r.Group)
		}
		for row := range h.boundOn[r.Switch] {
			h.countBinding(r.Group, h.bound[row], int(c.Weight))
		}
	}
	// A port's switch may have changed.
	for _, c := range p.PortBindings.Delta() {
		h.rebindPorts[c.Tuple.Name] = true
	}
}

// count adds n to the rows that make chassis a ref_chassis of group.
func (h *haTables) count(group, chassis string, n int) {
	m := h.refCount[group]
	if m == nil {
		m = map[string]int{}
		h.refCount[group] = m
	}
	before := m[chassis]
	if m[chassis] += n; m[chassis] <= 0 {
		delete(m, chassis)
		if len(m) == 0 {
			delete(h.refCount, group)
		}
	}
	if (before > 0) != (m[chassis] > 0) {
		h.groups.dirty[group] = true
	}
}

// apply records an SB row change; it reports whether the table is one of
// these. Port_Binding and Chassis changes, which the writer records too,
// are noted on the way.
func (h *haTables) apply(c wire.Change) bool {
	switch c.Table {
	case sb.HAChassisTable:
		if c.New == nil {
			delete(h.haChassis, c.UUID)
		} else {
			h.haChassis[c.UUID] = c.New.(*sb.HAChassis)
		}
		if name, ok := h.haChassisOf[c.UUID]; ok {
			h.groups.dirty[name] = true
		}
		return true
	case sb.HAChassisGroupTable:
		if g, ok := c.Old.(*sb.HAChassisGroup); ok {
			for _, u := range g.HaChassis {
				delete(h.haChassisOf, u)
			}
		}
		if g, ok := c.New.(*sb.HAChassisGroup); ok {
			for _, u := range g.HaChassis {
				h.haChassisOf[u] = g.Name
			}
		}
		h.groups.apply(c)
		return true
	case sb.PortBindingTable:
		if pb, ok := c.Old.(*sb.PortBinding); ok && pb.HaChassisGroup != nil {
			setindex.Remove(h.users, *pb.HaChassisGroup, c.UUID)
		}
		if pb, ok := c.New.(*sb.PortBinding); ok && pb.HaChassisGroup != nil {
			setindex.Add(h.users, *pb.HaChassisGroup, c.UUID)
		}
		h.rebind[c.UUID] = true
	case sb.ChassisTable:
		if ch, ok := c.Old.(*sb.Chassis); ok && h.chassisByName[ch.Name] == c.UUID {
			delete(h.chassisByName, ch.Name)
		}
		if ch, ok := c.New.(*sb.Chassis); ok {
			h.chassisByName[ch.Name] = c.UUID
		}
		// The HA_Chassis of this chassis name may now point elsewhere.
		for name := range h.groups.want {
			h.groups.dirty[name] = true
		}
	}
	return false
}

// rebound brings refCount up to date with the bound ports.
func (h *haTables) rebound() {
	for name := range h.rebindPorts {
		if u := h.w.m.pbByName[name]; u != "" {
			h.rebind[u] = true
		}
	}
	for u := range h.rebind {
		if old, ok := h.bound[u]; ok {
			delete(h.bound, u)
			setindex.Remove(h.boundOn, old.Switch, u)
			for g := range h.refGroups[old.Switch] {
				h.countBinding(g, old, -1)
			}
		}
		// 23.03 counts the ports of NB switch ports, on the switch the
		// NB puts them (handle_port_binding_changes); router ports and
		// chassisredirect ports have a router for datapath, which no
		// switch reference names.
		pb := h.w.m.pbs[u]
		if pb == nil || len(h.w.wantPB[pb.LogicalPort]) == 0 {
			continue
		}
		b := haBinding{Switch: h.w.wantPB[pb.LogicalPort][0].Datapath, Chassis: h.refChassisOf(pb)}
		if len(b.Chassis) == 0 {
			continue
		}
		h.bound[u] = b
		setindex.Add(h.boundOn, b.Switch, u)
		for g := range h.refGroups[b.Switch] {
			h.countBinding(g, b, 1)
		}
	}
	h.rebind, h.rebindPorts = cleared(h.rebind), cleared(h.rebindPorts)
}

// refChassisOf are the chassis a bound port makes ref_chassis: the one it
// is bound to, and from 26.03 its additional chassis too
// (collect_lr_groups_for_ha_chassis_groups).
func (h *haTables) refChassisOf(pb *sb.PortBinding) []string {
	var out []string
	if pb.Chassis != nil {
		out = append(out, *pb.Chassis)
	}
	if additionalChassisAreRefChassis(h.w.stages.Release()) {
		out = append(out, pb.AdditionalChassis...)
	}
	return out
}

// additionalChassisAreRefChassis: from 26.03 a port's additional chassis
// are ref_chassis as the one it is bound to is.
func additionalChassisAreRefChassis(r schema.Release) bool { return r >= schema.OVN2603 }

// countBinding counts weight w for each chassis of bound port b in group g.
func (h *haTables) countBinding(g string, b haBinding, w int) {
	for _, ch := range b.Chassis {
		h.count(g, ch, w)
	}
}

// reconcile writes the dirty groups, and marks the ports that refer to a
// group row it deletes or inserts, whose reference must follow in the same
// transaction (reconcilePorts comes after).
func (h *haTables) reconcile(t *Txn) {
	h.rebound()
	h.txnRow, h.deleted = map[string]string{}, map[string]bool{}
	dirty := slices.Collect(maps.Keys(h.groups.dirty))
	h.groups.reconcile(t)
	for _, name := range dirty {
		for _, u := range h.groups.byKey[name] {
			if h.txnRow[name] == u {
				continue
			}
			h.deleted[u] = true
			for row := range h.users[u] {
				if pb := h.w.m.pbs[row]; pb != nil {
					h.w.dirtyPB[pb.LogicalPort] = true
				}
			}
		}
	}
}

// writeGroup brings a group row to want: new HA_Chassis rows when its own
// differ, and its ref_chassis.
func (h *haTables) writeGroup(t *Txn, want rules.HAChassisGroup, uuid string, row model.Model) {
	g, _ := row.(*sb.HAChassisGroup)
	c := newChangedRow(uuid)
	c.set("name", true, want.Name)
	if g == nil || h.chassisChanged(g, want.Chassis.Slice()) {
		var refs []string
		for _, hc := range want.Chassis.Slice() {
			refs = append(refs, t.Insert(sb.HAChassisTable, lovsdb.Row{
				"chassis": optUUID(h.chassisNamed(hc.Name)), "priority": hc.Priority,
				"external_ids": wire.StrMap(map[string]string{"chassis-name": hc.Name}),
			}))
		}
		c.row["ha_chassis"] = uuidSet(refs)
	}
	ref := slices.Sorted(maps.Keys(h.refCount[want.Name]))
	c.set("ref_chassis", g != nil && sameSet(g.RefChassis, ref), uuidSet(ref))
	h.txnRow[want.Name] = c.commit(t, sb.HAChassisGroupTable)
	if uuid == "" {
		for port := range h.groupPorts[want.Name] {
			h.w.dirtyPB[port] = true
		}
	}
}

// chassisChanged reports whether a group's HA_Chassis rows differ from
// want (chassis_group_list_changed): another number of them, one without
// external_ids:chassis-name, one whose name and priority match no wanted
// chassis left, or one that does not point at the Chassis row of its name.
func (h *haTables) chassisChanged(g *sb.HAChassisGroup, want []rules.HAChassis) bool {
	if len(g.HaChassis) != len(want) {
		return true
	}
	used := make([]bool, len(want))
	for _, u := range g.HaChassis {
		hc := h.haChassis[u]
		if hc == nil {
			return true
		}
		name, ok := hc.ExternalIDs["chassis-name"]
		if !ok {
			return true
		}
		found := false
		for i, c := range want {
			if !used[i] && c.Name == name && c.Priority == hc.Priority {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return true
		}
		cur := ""
		if hc.Chassis != nil && h.w.m.chassis[*hc.Chassis] != nil {
			cur = *hc.Chassis
		}
		if cur != h.chassisNamed(name) {
			return true
		}
	}
	return false
}

// chassisNamed is the Chassis row of a name, "" for none
// (chassis_lookup_by_name: by name alone, not hostname).
func (h *haTables) chassisNamed(name string) string { return h.chassisByName[name] }

// groupRef is the group row a port's binding refers to in the
// transaction, "" for none.
func (h *haTables) groupRef(port string) string {
	name, ok := h.portGroup[port]
	if !ok {
		return ""
	}
	if u, ok := h.txnRow[name]; ok {
		return u
	}
	if _, ok := h.groups.want[name]; ok && len(h.groups.byKey[name]) > 0 {
		return h.groups.byKey[name][0]
	}
	return ""
}

// portColumn sets row's ha_chassis_group when it differs from the wanted
// one (all of row's columns for a new binding, pb nil), and clears a
// chassisredirect port's gateway_chassis. 23.03 sets it for
// switch ports not of type "router" and for chassisredirect ports; it
// leaves router ports' alone, but a reference to a group row being deleted
// is dropped, or the transaction would fail.
func (h *haTables) portColumn(want *rules.PortBinding, pb *sb.PortBinding, row lovsdb.Row) {
	cur := ""
	if pb != nil && pb.HaChassisGroup != nil {
		cur = *pb.HaChassisGroup
	}
	if want.Type == "patch" || want.Type == "l3gateway" {
		if cur != "" && h.deleted[cur] {
			row["ha_chassis_group"] = optUUID("")
		}
		return
	}
	if ref := h.groupRef(want.Name); pb == nil && ref != "" || pb != nil && ref != cur {
		row["ha_chassis_group"] = optUUID(ref)
	}
	// The legacy gateway_chassis column of a chassisredirect port is
	// cleared (ovn_port_update_sbrec).
	if want.Type == "chassisredirect" && pb != nil && len(pb.GatewayChassis) > 0 {
		row["gateway_chassis"] = uuidSet(nil)
	}
}
