package sbwriter

import (
	"maps"
	"slices"

	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// houseTables are the SB tables ovn-controller writes whose stale rows
// northd deletes, and Encap, whose types set the tunnel key limits
// (vxlan.go); monitored besides Tables' others.
var houseTables = []string{sb.FDBTable, sb.IGMPGroupTable, sb.EncapTable}

// housekeeping keeps the SB rows 23.03 writes or prunes besides the
// datapaths, ports, groups and flows: Static_MAC_Binding from the NB; the
// MAC_Binding, FDB and IGMP_Group rows that ovn-controller wrote and that
// no longer belong to a port or datapath, and MAC bindings (and from
// 26.03 FDB rows) past their age (aging.go); the Learned_Route rows of
// ports that learn no routes (learned.go). It also follows VXLAN mode (vxlan.go) and the service
// monitors that are down (monitors.go).
type housekeeping struct {
	w          *Writer
	staticMACs *keyedTable[rules.StaticMACBinding]
	// staticMACsByNB: a Static_MAC_Binding row is its NB row's by UUID,
	// not by port and IP (staticMACsPersistUUID).
	staticMACsByNB bool
	// staticByPort are the keys of the wanted static MAC bindings by
	// port name: a port that becomes or stops being a router port, or
	// moves, changes whether its bindings are written.
	staticByPort map[string]map[string]bool

	// macByPort are the MAC_Binding rows (macAging.rows) by logical_port;
	// macCheck the ports to check again and macStale the ports with rows
	// and no port (cleanup_mac_bindings's victims).
	macByPort          map[string]map[string]bool
	macCheck, macStale map[string]bool

	// fdbCheck are the dp_keys of FDB rows (fdbAging.byGroup) to check
	// again (cleanup_stale_fdb_entries).
	fdbCheck map[int]bool

	// igmp are the IGMP_Group rows, igmpByDP them by datapath row and
	// igmpCheck the rows to check again (build_mcast_groups' purge).
	igmp      map[string]*sb.IGMPGroup
	igmpByDP  map[string]map[string]bool
	igmpCheck map[string]bool
	igmpFeed  *igmpFeed
	// learned feeds the Learned_Route rows (learned.go).
	learned *learnedRouteFeed
	// remoteChassis are the remote chassis names fed (remote_chassis.go).
	remoteChassis map[string]bool

	vxlan          vxlanMode
	monitors       *monitorStatus
	virtualParents *portFeed[string]
	queueIDs       *portFeed[int]
	macAging       *aging[*sb.MACBinding, string]
	fdbAging       *aging[*sb.FDB, int]
}

func newHousekeeping(w *Writer) *housekeeping {
	h := &housekeeping{w: w, staticByPort: map[string]map[string]bool{}, monitors: newMonitorStatus(w.stages.Release()), igmpFeed: newIGMPFeed(),
		virtualParents: newPortFeed[string](), queueIDs: newPortFeed[int](), learned: newLearnedRouteFeed(), remoteChassis: map[string]bool{},
		macAging: newMACBindingAging(), fdbAging: newFDBAging(), vxlan: vxlanMode{dpMax: rules.MaxDatapathKey}}
	h.staticMACsByNB = staticMACsPersistUUID(w.stages.Release())
	h.staticMACs = newKeyedTable(sb.StaticMACBindingTable, func(m model.Model) (string, bool) {
		r := m.(*sb.StaticMACBinding)
		if h.staticMACsByNB {
			return r.UUID, true
		}
		return staticMACKey(r.LogicalPort, r.IP), true
	}, h.writeStaticMAC)
	h.reset()
	return h
}

// staticMACKey identifies a static MAC binding, NB or SB: its port and IP
// (the tables' index).
func staticMACKey(port, ip string) string { return port + "\x00" + ip }

// applyProgram takes the program's last changes as desired rows.
func (h *housekeeping) applyProgram(p *rules.Program) {
	key := func(m rules.StaticMACBinding) string {
		if h.staticMACsByNB {
			return m.NB
		}
		return staticMACKey(m.LogicalPort, m.IP)
	}
	applyDelta(h.staticMACs, p.StaticMACBindings.Delta(), key)
	h.macAging.applyProgram(p)
	h.fdbAging.applyProgram(p)
	h.learned.applyProgram(p)
	for _, c := range p.StaticMACBindings.Delta() {
		if _, ok := h.staticMACs.want[key(c.Tuple)]; ok {
			setindex.Add(h.staticByPort, c.Tuple.LogicalPort, key(c.Tuple))
		} else {
			setindex.Remove(h.staticByPort, c.Tuple.LogicalPort, key(c.Tuple))
		}
	}
	for _, c := range p.PortBindings.Delta() {
		for k := range h.staticByPort[c.Tuple.Name] {
			h.staticMACs.dirty[k] = true
		}
	}
}

// apply records an SB row change of the tables it keeps; it reports
// whether the table is one of houseTables (those of dpUserTables go to
// the mirror too).
func (h *housekeeping) apply(c wire.Change) bool {
	h.monitors.apply(c)
	h.virtualParents.apply(c)
	h.queueIDs.apply(c)
	h.macAging.apply(c)
	h.fdbAging.apply(c)
	h.learned.apply(c)
	if h.vxlan.apply(c) {
		return true
	}
	switch c.Table {
	case sb.StaticMACBindingTable:
		h.staticMACs.apply(c)
		return false
	case sb.MACBindingTable:
		if r, ok := c.Old.(*sb.MACBinding); ok {
			h.macCheck[r.LogicalPort] = true
			setindex.Remove(h.macByPort, r.LogicalPort, c.UUID)
		}
		if r, ok := c.New.(*sb.MACBinding); ok {
			h.macCheck[r.LogicalPort] = true
			setindex.Add(h.macByPort, r.LogicalPort, c.UUID)
		}
		return false
	case sb.FDBTable:
		if r, ok := c.New.(*sb.FDB); ok {
			h.fdbCheck[r.DpKey] = true
		}
		return true
	case sb.IGMPGroupTable:
		if r, ok := c.Old.(*sb.IGMPGroup); ok {
			delete(h.igmp, c.UUID)
			setindex.Remove(h.igmpByDP, ptrOr(r.Datapath, ""), c.UUID)
		}
		if r, ok := c.New.(*sb.IGMPGroup); ok {
			h.igmp[c.UUID] = r
			setindex.Add(h.igmpByDP, ptrOr(r.Datapath, ""), c.UUID)
			h.igmpCheck[c.UUID] = true
		}
		h.igmpFeed.check[c.UUID] = true
		return true
	}
	return false
}

// reset forgets the SB rows (a new SB connection, whose initial contents
// follow).
func (h *housekeeping) reset() {
	h.staticMACs.reset()
	h.vxlan.reset()
	h.monitors.reset()
	h.igmpFeed.reset()
	h.virtualParents.reset()
	h.queueIDs.reset()
	h.learned.reset()
	h.macAging.reset()
	h.fdbAging.reset()
	h.macByPort, h.macCheck, h.macStale = map[string]map[string]bool{}, map[string]bool{}, map[string]bool{}
	h.fdbCheck = map[int]bool{}
	h.igmp, h.igmpByDP, h.igmpCheck = map[string]*sb.IGMPGroup{}, map[string]map[string]bool{}, map[string]bool{}
}

// markAll marks every row to check.
func (h *housekeeping) markAll() {
	h.staticMACs.markAll()
	h.learned.markAll()
	for port := range h.macByPort {
		h.macCheck[port] = true
	}
	for key := range h.fdbAging.byGroup {
		h.fdbCheck[key] = true
	}
	for u := range h.igmp {
		h.igmpCheck[u] = true
	}
}

// reconcile writes the static MAC bindings and deletes the stale rows of
// the controller's tables, and the MAC bindings past their age. It runs
// after the writer has reconciled datapaths and ports in t, before it
// forgets what it marked.
func (h *housekeeping) reconcile(t *Txn) {
	h.staticMACs.reconcile(t)
	h.macAging.run(h.w, t, h.cleanMACBindings(t))
	h.fdbAging.run(h.w, t, h.cleanFDB(t))
	h.cleanIGMP(t)
	h.learned.pruneRoutes(h.w, t)
}

// cleanMACBindings deletes, when t deletes a port binding whose port is
// gone or has moved to another datapath, the MAC_Binding rows of every
// port that does not exist: 23.03 checks them only then
// (cleanup_mac_bindings). The rows of the datapaths t deletes go with
// them (deleteDatapath). It returns the rows it deleted.
func (h *housekeeping) cleanMACBindings(t *Txn) map[string]bool {
	w := h.w
	for port := range w.dirtyPB {
		h.macCheck[port] = true
	}
	for port := range h.macCheck {
		if len(h.macByPort[port]) > 0 && w.pbRef(t, port) == "" {
			h.macStale[port] = true
		} else {
			delete(h.macStale, port)
		}
	}
	h.macCheck = cleared(h.macCheck)
	gone := map[string]bool{}
	if len(h.macStale) == 0 || !w.portsRemoved(t) {
		return gone
	}
	for _, port := range slices.Sorted(maps.Keys(h.macStale)) {
		for _, u := range slices.Sorted(maps.Keys(h.macByPort[port])) {
			if !t.deletedDP[h.macAging.rows[u].Datapath] {
				t.delete(sb.MACBindingTable, u)
				gone[u] = true
			}
		}
	}
	h.macStale = map[string]bool{}
	return gone
}

// macOf is the MAC address of the first MAC_Binding row of port and ip,
// if any (mac_binding_lookup).
func (h *housekeeping) macOf(port, ip string) (string, bool) {
	for _, u := range slices.Sorted(maps.Keys(h.macByPort[port])) {
		if r := h.macAging.rows[u]; r != nil && r.IP == ip {
			return r.MAC, true
		}
	}
	return "", false
}

// portsRemoved reports whether t deletes a port binding whose port is no
// longer wanted or is wanted on another datapath (build_ports'
// remove_mac_bindings); not one replaced on its datapath.
func (w *Writer) portsRemoved(t *Txn) bool {
	for u := range t.deletedPB {
		pb := w.m.pbs[u]
		if pb == nil {
			continue
		}
		want := w.wantPB[pb.LogicalPort]
		if len(want) == 0 || w.dpRef(t, want[0].Datapath) != pb.Datapath {
			return true
		}
	}
	return false
}

// cleanFDB deletes the FDB rows whose dp_key is no datapath's, or whose
// port_key is no port's of that datapath, once t commits
// (cleanup_stale_fdb_entries). The keys checked are those of the FDB rows
// that changed and those t takes from a datapath or its ports: deleted
// rows' and replaced keys'. It returns the rows it deleted.
func (h *housekeeping) cleanFDB(t *Txn) map[string]bool {
	w := h.w
	check := func(dp string) {
		if d := w.m.dps[dp]; d != nil {
			h.fdbCheck[d.TunnelKey] = true
		}
	}
	for u := range t.deletedDP {
		check(u)
	}
	for u, table := range w.garbage {
		if table == sb.DatapathBindingTable {
			check(u)
		}
	}
	for u := range t.deletedPB {
		if pb := w.m.pbs[u]; pb != nil {
			check(pb.Datapath)
		}
	}
	for nb := range t.dpKey {
		for _, u := range w.m.dpByNB[nb] {
			check(u)
		}
	}
	for name := range t.pbKey {
		if pb := w.m.pbs[w.m.pbByName[name]]; pb != nil {
			check(pb.Datapath)
		}
	}
	gone := map[string]bool{}
	for _, key := range sortedKeys(h.fdbCheck) {
		dp, live := w.m.dpKeys.owner[key]
		live = live && !t.deletedDP[dp] && w.garbage[dp] == ""
		for _, u := range slices.Sorted(maps.Keys(h.fdbAging.byGroup[key])) {
			if ports := w.m.pbKeys[dp]; !live || ports == nil || ports.free(h.fdbAging.rows[u].PortKey) {
				t.delete(sb.FDBTable, u)
				gone[u] = true
			}
		}
	}
	h.fdbCheck = cleared(h.fdbCheck)
	return gone
}

// cleanIGMP deletes the IGMP_Group rows with no chassis or no datapath (a
// weak reference the server clears), or whose datapath is no switch's or
// router's once t commits (build_mcast_groups), or from 26.03 a router's
// (routerIGMPGroup).
func (h *housekeeping) cleanIGMP(t *Txn) {
	w := h.w
	for u := range t.deletedDP {
		maps.Copy(h.igmpCheck, h.igmpByDP[u])
	}
	for u, table := range w.garbage {
		if table == sb.DatapathBindingTable {
			maps.Copy(h.igmpCheck, h.igmpByDP[u])
		}
	}
	for _, u := range sortedKeys(h.igmpCheck) {
		g := h.igmp[u]
		if g != nil && (g.Chassis == nil || g.Datapath == nil || !w.liveDatapath(t, *g.Datapath) || h.routerIGMPGroup(*g.Datapath)) {
			t.delete(sb.IGMPGroupTable, u)
		}
	}
	h.igmpCheck = cleared(h.igmpCheck)
}

// liveDatapath reports whether SB datapath row u stands for a wanted
// switch or router once t commits.
func (w *Writer) liveDatapath(t *Txn, u string) bool {
	dp := w.m.dps[u]
	if dp == nil || t.deletedDP[u] || w.garbage[u] != "" {
		return false
	}
	nb, _, ok := dpNB(dp)
	_, wanted := w.wantDP[nb]
	return ok && wanted
}

// routerOfPort is the SB datapath row, in the transaction, of the router
// whose port is named port; "" when port is no router port or its router
// has no row.
func (w *Writer) routerOfPort(t *Txn, port string) string {
	pbs := w.wantPB[port]
	if len(pbs) == 0 {
		return ""
	}
	if dp, ok := w.wantDP[pbs[0].Datapath]; !ok || dp.Kind != rules.Router {
		return ""
	}
	return w.dpRef(t, pbs[0].Datapath)
}

// staticMACsPersistUUID: from 26.03 a Static_MAC_Binding row takes its NB
// row's UUID (build_static_mac_binding_table inserts with persist_uuid),
// is updated in place, datapath included, and is deleted when its port is
// no router port.
func staticMACsPersistUUID(r schema.Release) bool { return r >= schema.OVN2603 }

// writeStaticMAC writes the SB row of an NB static MAC binding whose port
// is a router port: a new row on the router's datapath, or the row brought
// to the NB's (its datapath is left as it is in 23.03). The rows of other
// ports are left alone in 23.03.
func (h *housekeeping) writeStaticMAC(t *Txn, want rules.StaticMACBinding, uuid string, row model.Model) {
	dp := h.w.routerOfPort(t, want.LogicalPort)
	if dp == "" {
		if h.staticMACsByNB && uuid != "" {
			t.delete(sb.StaticMACBindingTable, uuid)
		}
		return
	}
	r, _ := row.(*sb.StaticMACBinding)
	if r != nil && t.deletedDP[r.Datapath] {
		// Deleted with its datapath; written again once the deletion
		// shows.
		return
	}
	c := newChangedRow(uuid)
	if h.staticMACsByNB {
		c.persist = want.NB
	}
	c.set("logical_port", r != nil && r.LogicalPort == want.LogicalPort, want.LogicalPort)
	c.set("ip", r != nil && r.IP == want.IP, want.IP)
	c.set("datapath", r != nil && (r.Datapath == dp || !h.staticMACsByNB), lovsdb.UUID{GoUUID: dp})
	c.set("mac", r != nil && r.MAC == want.MAC, want.MAC)
	c.set("override_dynamic_mac", r != nil && r.OverrideDynamicMAC == want.OverrideDynamicMAC, want.OverrideDynamicMAC)
	c.commit(t, sb.StaticMACBindingTable)
}

// routerIGMPGroupsPurged: 26.03 looks an IGMP group's datapath up among
// the switches' alone (en-multicast.c build_mcast_groups), so a group on
// a router's datapath is deleted.
func routerIGMPGroupsPurged(r schema.Release) bool { return r >= schema.OVN2603 }

// routerIGMPGroup reports whether an IGMP_Group row on datapath dp is
// purged as a router's (routerIGMPGroupsPurged).
func (h *housekeeping) routerIGMPGroup(dp string) bool {
	d := h.w.m.dps[dp]
	if d == nil || !routerIGMPGroupsPurged(h.w.stages.Release()) {
		return false
	}
	_, kind, ok := dpNB(d)
	return ok && kind == rules.Router
}
