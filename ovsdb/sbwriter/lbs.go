package sbwriter

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// lbTable keeps the SB Load_Balancer rows equal to the program's
// rules.SBLoadBalancer output, one row per NB load balancer (found by
// lbKeyFor), and Service_Monitor equal to rules.SBServiceMonitor
// (found by ip, port, logical_port and protocol; status is
// ovn-controller's, set to offline only when the port is not up).
type lbTable struct {
	release schema.Release
	want    map[string]rules.SBLoadBalancer // NB _uuid -> row
	rows    map[string]*sb.LoadBalancer
	byID    map[string][]string        // NB _uuid -> rows, sorted
	byDPG   map[string]map[string]bool // datapath group -> load balancer rows
	dirty   map[string]bool            // NB _uuids
	orphan  map[string]bool            // rows that name no load balancer: deleted
	// stale are the NB _uuids whose rows changed or went since the last
	// resync, which 26.03 leaves as they are until then
	// (sbLBEditsWaitForResync); resync says the next reconcile makes
	// them right.
	stale  map[string]bool
	resync bool
	// switchColumn is the column that holds a 26.03 row's switches
	// (lbSwitchColumn).
	switchColumn string

	wantMon map[monKey]rules.SBServiceMonitor
	// monByPort are the wanted monitors by logical port (and input
	// port), whose up column their status follows.
	monByPort map[string]map[monKey]bool
	mons      map[string]*sb.ServiceMonitor
	monByKey  map[monKey][]string
	dirtyMon  map[monKey]bool
	// monRowChanged: an SB Service_Monitor row changed since the last
	// transaction, which in 26.03 evaluates every monitor again
	// (portDownRecomputesMonitors).
	monRowChanged bool
}

// monKey identifies a Service_Monitor (create_or_get_service_mon).
type monKey struct {
	IP          string
	Port        int
	LogicalPort string
	Protocol    string
}

func keyOfMonitor(m rules.SBServiceMonitor) monKey {
	return monKey{m.IP, m.Port, m.LogicalPort, m.Protocol}
}

func newLBTable(release schema.Release) *lbTable {
	l := &lbTable{release: release, want: map[string]rules.SBLoadBalancer{}, wantMon: map[monKey]rules.SBServiceMonitor{},
		monByPort:    map[string]map[monKey]bool{},
		switchColumn: lbSwitchColumn(release, true)}
	l.resetSB()
	l.clearDirt()
	l.stale = map[string]bool{}
	return l
}

func (l *lbTable) resetSB() {
	l.rows, l.byID, l.byDPG = map[string]*sb.LoadBalancer{}, map[string][]string{}, map[string]map[string]bool{}
	l.mons, l.monByKey = map[string]*sb.ServiceMonitor{}, map[monKey][]string{}
}

func (l *lbTable) clearDirt() {
	l.dirty, l.orphan, l.dirtyMon = cleared(l.dirty), cleared(l.orphan), cleared(l.dirtyMon)
	l.monRowChanged = false
}

// applyProgram takes the last step's changes.
func (l *lbTable) applyProgram(lbs []engine.Change[rules.SBLoadBalancer], mons []engine.Change[rules.SBServiceMonitor]) {
	for _, pass := range []engine.Weight{-1, 1} {
		for _, c := range lbs {
			if c.Weight != pass {
				continue
			}
			if pass < 0 {
				if l.want[c.Tuple.LB] == c.Tuple {
					delete(l.want, c.Tuple.LB)
				}
			} else {
				l.want[c.Tuple.LB] = c.Tuple
			}
			l.dirty[c.Tuple.LB] = true
		}
		for _, c := range mons {
			if c.Weight != pass {
				continue
			}
			k := keyOfMonitor(c.Tuple)
			if pass < 0 {
				if l.wantMon[k] == c.Tuple {
					delete(l.wantMon, k)
				}
			} else {
				l.wantMon[k] = c.Tuple
			}
			l.dirtyMon[k] = true
			_, wanted := l.wantMon[k]
			for _, port := range []string{k.LogicalPort, c.Tuple.LogicalInputPort} {
				switch {
				case port == "":
				case wanted:
					setindex.Add(l.monByPort, port, k)
				default:
					setindex.Remove(l.monByPort, port, k)
				}
			}
		}
	}
}

// sbLBEditsWaitForResync: 26.03 follows SB Load_Balancer only for rows
// it did not make (sync_to_sb_lb_sb_load_balancer), so a row another
// client changes or deletes stays so until sync_to_sb_lb next recomputes;
// 23.03 recomputes at any SB change.
func sbLBEditsWaitForResync(r schema.Release) bool { return r >= schema.OVN2603 }

// applySB records an SB row change and marks what it touches.
func (l *lbTable) applySB(c wire.Change) {
	switch c.Table {
	case sb.LoadBalancerTable:
		if c.Old == nil {
			if r, ok := c.New.(*sb.LoadBalancer); ok {
				// A new row of no load balancer it wants is not its
				// own: 26.03 recomputes.
				if id, ok := l.key(r); !ok || !l.wanted(id) {
					l.resync = true
				}
			}
		}
		mark := l.mark
		if c.Old != nil && sbLBEditsWaitForResync(l.release) {
			mark = l.markStale
		}
		if old := l.rows[c.UUID]; old != nil {
			if id, ok := l.key(old); ok {
				l.byID[id] = deleteSorted(l.byID[id], c.UUID)
				if len(l.byID[id]) == 0 {
					delete(l.byID, id)
				}
			}
			for _, g := range lbGroups(old) {
				setindex.Remove(l.byDPG, g, c.UUID)
			}
			delete(l.rows, c.UUID)
			mark(c.UUID, old)
		}
		if r, ok := c.New.(*sb.LoadBalancer); ok {
			if id, ok := l.key(r); ok {
				l.byID[id] = insertSorted(l.byID[id], c.UUID)
			}
			l.rows[c.UUID] = r
			for _, g := range lbGroups(r) {
				setindex.Add(l.byDPG, g, c.UUID)
			}
			mark(c.UUID, r)
		}
	case sb.ServiceMonitorTable:
		if old := l.mons[c.UUID]; old != nil {
			k := monKey{old.IP, old.Port, old.LogicalPort, ptrOr(old.Protocol, "")}
			l.monByKey[k] = deleteSorted(l.monByKey[k], c.UUID)
			if len(l.monByKey[k]) == 0 {
				delete(l.monByKey, k)
			}
			delete(l.mons, c.UUID)
			l.dirtyMon[k] = true
			l.monRowChanged = true
		}
		if r, ok := c.New.(*sb.ServiceMonitor); ok {
			k := monKey{r.IP, r.Port, r.LogicalPort, ptrOr(r.Protocol, "")}
			l.mons[c.UUID] = r
			l.monByKey[k] = insertSorted(l.monByKey[k], c.UUID)
			l.dirtyMon[k] = true
			l.monRowChanged = true
		}
	}
}

// key is the NB load balancer that a row is of: 23.03's external_ids:lb_id;
// from 26.03, the row's own UUID, as sync_sb_lb_record inserts it under
// the NB row's (insert_persist_uuid) and finds it by it.
func (l *lbTable) key(r *sb.LoadBalancer) (string, bool) {
	if l.release >= schema.OVN2603 {
		return r.UUID, true
	}
	id := r.ExternalIDs["lb_id"]
	return id, id != ""
}

// lbGroups are the datapath groups a load balancer row refers to.
func lbGroups(r *sb.LoadBalancer) []string {
	var gs []string
	for _, g := range []*string{r.DatapathGroup, r.LsDatapathGroup, r.LrDatapathGroup} {
		if g != nil {
			gs = append(gs, *g)
		}
	}
	return gs
}

// mark marks a load balancer row's NB load balancer, or the row as an
// orphan when it names none.
func (l *lbTable) mark(u string, r *sb.LoadBalancer) {
	if id, ok := l.key(r); ok {
		l.dirty[id] = true
		return
	}
	l.orphan[u] = true
}

func (l *lbTable) wanted(id string) bool {
	_, ok := l.want[id]
	return ok
}

// markStale records a load balancer row that changed or went, for the
// next resync; a 26.03 row always names its load balancer.
func (l *lbTable) markStale(_ string, r *sb.LoadBalancer) {
	if id, ok := l.key(r); ok {
		l.stale[id] = true
	}
}

// markGroup marks the load balancers on datapath group g, whose contents
// changed.
func (l *lbTable) markGroup(g string) {
	for u := range l.byDPG[g] {
		l.mark(u, l.rows[u])
	}
}

// groupChanged marks the load balancers on datapath group g, which changed
// in the SB, or leaves them for the next resync (sbLBEditsWaitForResync).
func (l *lbTable) groupChanged(g string) {
	if !sbLBEditsWaitForResync(l.release) {
		l.markGroup(g)
		return
	}
	for u := range l.byDPG[g] {
		l.markStale(u, l.rows[u])
	}
}

// markDatapath marks the load balancers whose group holds SB datapath dp,
// which goes.
func (l *lbTable) markDatapath(m *sbMirror, dp string) {
	for g := range l.byDPG {
		if grp := m.groups[g]; grp != nil && slices.Contains(grp.Datapaths, dp) {
			l.markGroup(g)
		}
	}
}

func (l *lbTable) markAll() {
	for id := range l.want {
		l.dirty[id] = true
	}
	for u, r := range l.rows {
		l.mark(u, r)
	}
	for k := range l.wantMon {
		l.dirtyMon[k] = true
	}
	for k := range l.monByKey {
		l.dirtyMon[k] = true
	}
	l.resync = true
}

// ResyncLoadBalancers makes the next reconcile bring every SB
// Load_Balancer row back to what it should be, as sync_to_sb_lb's
// recompute does.
func (w *Writer) ResyncLoadBalancers() { w.lbs.resync = true }

// lbSwitchColumn is the column of a 26.03 Load_Balancer row that holds
// its switches' group: ls_datapath_group when every chassis reads it
// (other_config:ls-dpg-column), else the deprecated datapath_group
// (en-global-config.c build_chassis_features); 23.03 has only the latter.
func lbSwitchColumn(release schema.Release, everyChassisHasIt bool) string {
	if release >= schema.OVN2603 && everyChassisHasIt {
		return "ls_datapath_group"
	}
	return "datapath_group"
}

// updateLBSwitchColumn takes the switch column the chassis' features
// ask for, every load balancer's row to be rewritten when it changes.
func (w *Writer) updateLBSwitchColumn() {
	l := w.lbs
	if c := lbSwitchColumn(l.release, w.everyChassisHas(featureLSDPGColumn)); c != l.switchColumn {
		l.switchColumn = c
		for id := range l.want {
			l.dirty[id] = true
		}
	}
}

// featureLSDPGColumn is the chassis feature of reading a Load_Balancer's
// switches from ls_datapath_group (ovn/features.h).
const featureLSDPGColumn = "ls-dpg-column"

// reconcileLoadBalancers: one Load_Balancer per desired load balancer, its
// datapath groups holding exactly its switches' and (26.03) its routers'
// rows, and its datapaths column empty, as sync_lbs (23.03) and
// sync_sb_lb_record (26.03) leave them. Groups of load balancers are not
// shared with logical flows; a group that only this load balancer uses is
// changed in place when its datapaths change, else another load balancer
// group of the same contents is taken or a new one made.
func (w *Writer) reconcileLoadBalancers(t *Txn) {
	l := w.lbs
	if w.chassisChanged {
		w.updateLBSwitchColumn()
	}
	if l.resync {
		maps.Copy(l.dirty, l.stale)
		l.stale, l.resync = cleared(l.stale), false
	}
	for u := range l.orphan {
		if l.rows[u] != nil {
			t.delete(sb.LoadBalancerTable, u)
		}
	}
	dps := lbDatapaths{w: w, t: t, sets: map[rules.Strings]dpSet{}, groups: map[string][]string{}}
	for _, id := range sortedKeys(l.dirty) {
		want, ok := l.want[id]
		keep := t.keepFirst(sb.LoadBalancerTable, l.byID[id], ok)
		if !ok {
			continue
		}
		switches, routers := dps.set(want.Switches), dps.set(want.Routers)
		if len(switches.rows) == 0 && len(routers.rows) == 0 {
			continue
		}
		r := l.rows[keep]
		have := r != nil
		if !have {
			r = &sb.LoadBalancer{}
		}
		c := newChangedRow(keep)
		vips, options := want.VIPs.Map(), want.Options.Map()
		c.set("name", have && r.Name == want.Name, want.Name)
		c.set("vips", have && sameMap(r.Vips, vips), wire.StrMap(vips))
		c.set("protocol", have && ptrOr(r.Protocol, "") == want.Protocol, wire.OptString(want.Protocol, want.Protocol != ""))
		c.set("options", have && sameMap(r.Options, options), wire.StrMap(options))
		c.set("datapaths", len(r.Datapaths) == 0, uuidSet(nil))
		type groupColumn struct {
			name    string
			current *string
		}
		columns := []groupColumn{{"datapath_group", r.DatapathGroup}}
		if l.release >= schema.OVN2603 {
			c.persist = id
			columns = append(columns, groupColumn{"ls_datapath_group", r.LsDatapathGroup},
				groupColumn{"lr_datapath_group", r.LrDatapathGroup})
		} else {
			c.set("external_ids", have, wire.StrMap(map[string]string{"lb_id": id}))
		}
		for _, col := range columns {
			var target dpSet
			switch col.name {
			case l.switchColumn:
				target = switches
			case "lr_datapath_group":
				target = routers
			}
			current := ptrOr(col.current, "")
			g := dps.lbGroup(current, target)
			c.set(col.name, g == current, optUUID(g))
		}
		c.commit(t, sb.LoadBalancerTable)
	}
}

// dpRefs are the datapath rows of the switches and routers with NB _uuids
// nbs that have one, sorted.
func (w *Writer) dpRefs(t *Txn, nbs rules.Strings) []string {
	var refs []string
	for _, nb := range nbs.Slice() {
		if ref := w.dpRef(t, nb); ref != "" {
			refs = append(refs, ref)
		}
	}
	slices.Sort(refs)
	return refs
}

// lbDatapaths are, for one reconcileLoadBalancers, the datapath rows of
// each set of NB datapaths and of each current group, each worked out
// once: the load balancers of one NB group all have the same set, and
// each is a pass over all of its datapaths (5,000 load balancers on 2,000
// datapaths at bench/README.md's 100,000 ports). The transaction's
// datapaths do not change while the load balancers are reconciled.
type lbDatapaths struct {
	w      *Writer
	t      *Txn
	sets   map[rules.Strings]dpSet
	groups map[string][]string
}

// dpSet is a set of datapath rows, sorted, and its content: the rows
// joined, as groups are found by (groupsByContent, newLBGroups).
type dpSet struct {
	rows    []string
	content string
}

// set is the datapath rows of the switches and routers with NB _uuids
// nbs that have one.
func (d *lbDatapaths) set(nbs rules.Strings) dpSet {
	s, ok := d.sets[nbs]
	if !ok {
		rows := d.w.dpRefs(d.t, nbs)
		s = dpSet{rows, strings.Join(rows, ",")}
		d.sets[nbs] = s
	}
	return s
}

// effectiveGroup is the datapath rows of group g that stay in the
// transaction, sorted.
func (d *lbDatapaths) effectiveGroup(g string) []string {
	e, ok := d.groups[g]
	if !ok {
		for _, u := range d.w.m.groups[g].Datapaths {
			if d.w.keptDP(d.t, u) {
				e = append(e, u)
			}
		}
		slices.Sort(e)
		d.groups[g] = e
	}
	return e
}

// lbGroup is the datapath group a load balancer whose group is now
// current ("" for none) gets for the datapath rows target: none for no
// rows; current when it holds them; current changed to hold them when
// nothing else uses it; another load balancer group holding them; or a
// new group.
func (d *lbDatapaths) lbGroup(current string, target dpSet) string {
	w, t := d.w, d.t
	if len(target.rows) == 0 {
		return ""
	}
	content := target.content
	if current != "" && w.m.groups[current] != nil {
		if _, changed := t.mutated[current]; !changed {
			have := d.effectiveGroup(current)
			if slices.Equal(have, target.rows) {
				t.lbGroups[current] = true
				return current
			}
			if len(w.lbs.byDPG[current]) == 1 && w.m.groupFlowCount(current) == 0 && !t.lbGroups[current] {
				// target holds no datapath deleted in t, so the current
				// row's datapaths serve as what it has.
				t.mutate(sb.LogicalDPGroupTable, current, groupMutations(w.m.groups[current].Datapaths, target.rows)...)
				t.mutated[current] = content
				t.lbGroups[current] = true
				return current
			}
		}
	}
	if g, ok := t.newLBGroups[content]; ok {
		return g
	}
	for _, g := range w.m.groupsByContent[content] {
		if _, changed := t.mutated[g]; !changed && len(w.lbs.byDPG[g]) > 0 && w.m.groupFlowCount(g) == 0 {
			t.lbGroups[g] = true
			t.newLBGroups[content] = g
			return g
		}
	}
	g := t.Insert(sb.LogicalDPGroupTable, lovsdb.Row{"datapaths": uuidSet(target.rows)})
	t.newLBGroups[content] = g
	return g
}

// reconcileServiceMonitors: one Service_Monitor per desired monitor, with
// northd's columns (options, src_mac, src_ip) as desired.
func (w *Writer) reconcileServiceMonitors(t *Txn) {
	l := w.lbs
	switch {
	case portDownRecomputesMonitors(l.release):
		for port := range w.dirtyPB {
			maps.Copy(l.dirtyMon, l.monByPort[port])
		}
	case l.monRowChanged:
		for k := range l.wantMon {
			l.dirtyMon[k] = true
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(l.dirtyMon), func(a, b monKey) int {
		return cmp.Or(cmp.Compare(a.IP, b.IP), cmp.Compare(a.Port, b.Port),
			cmp.Compare(a.LogicalPort, b.LogicalPort), cmp.Compare(a.Protocol, b.Protocol))
	}) {
		want, ok := l.wantMon[k]
		rows := l.monByKey[k]
		keep := t.keepFirst(sb.ServiceMonitorTable, rows, ok)
		if !ok {
			continue
		}
		options := want.Options.Map()
		if keep == "" {
			row := lovsdb.Row{
				"ip": k.IP, "port": k.Port, "logical_port": k.LogicalPort, "protocol": wire.OptString(k.Protocol, true),
				"options": wire.StrMap(options), "src_mac": want.SrcMAC, "src_ip": want.SrcIP,
			}
			if want.Type != "" {
				// 26.03's columns (create_or_get_service_mon).
				row["type"] = wire.OptString(want.Type, true)
				row["logical_input_port"] = want.LogicalInputPort
				row["mac"] = want.MAC
				row["remote"] = want.Remote
				if name := w.monitorChassis(k.LogicalPort, want); name != "" {
					row["chassis_name"] = name
				}
			}
			t.Insert(sb.ServiceMonitorTable, row)
			continue
		}
		r := l.mons[keep]
		row := lovsdb.Row{}
		if !sameMap(r.Options, options) {
			row["options"] = wire.StrMap(options)
		}
		if r.SrcMAC != want.SrcMAC {
			row["src_mac"] = want.SrcMAC
		}
		if r.SrcIP != want.SrcIP {
			row["src_ip"] = want.SrcIP
		}
		if want.Type != "" && r.MAC != want.MAC {
			row["mac"] = want.MAC
		}
		if name := w.monitorChassis(k.LogicalPort, want); want.Type != "" && name != "" && r.ChassisName != name {
			row["chassis_name"] = name
		}
		// A backend whose port is not up is offline, whatever
		// ovn-controller last found (ovn_lb_svc_create); so is a network
		// function one of whose ports is not (ovn_nf_svc_create). A remote
		// backend's port is in its own zone.
		if ptrOr(r.Status, "") == sb.ServiceMonitorStatusOnline && !want.Remote &&
			!w.monitoredPortsUp(k.LogicalPort, want.LogicalInputPort) {
			row["status"] = wire.OptString(sb.ServiceMonitorStatusOffline, true)
		}
		t.Update(sb.ServiceMonitorTable, keep, row)
	}
}

// monitorChassis is the chassis_name 26.03 gives a monitor through port:
// the chassis its port, or else a network function's input port, is bound
// to (ovn_lb_svc_create, ovn_nf_svc_create); "" when neither is bound or
// the backend is remote.
func (w *Writer) monitorChassis(port string, want rules.SBServiceMonitor) string {
	if want.Remote {
		return ""
	}
	for _, p := range []string{port, want.LogicalInputPort} {
		if pb := w.m.pbs[w.m.pbByName[p]]; p != "" && pb != nil && pb.Chassis != nil {
			if ch := w.m.chassis[*pb.Chassis]; ch != nil {
				return ch.Name
			}
		}
	}
	return ""
}

// monitoredPortsUp reports whether the ports a service monitor probes
// through are up: its logical port, and its input port if it has one.
func (w *Writer) monitoredPortsUp(port, input string) bool {
	return w.portUp(port) && (input == "" || w.portUp(input))
}

// portUp reports whether the SB Port_Binding of a port says it is up.
func (w *Writer) portUp(name string) bool {
	pb := w.m.pbs[w.m.pbByName[name]]
	return pb != nil && ptrOr(pb.Up, false)
}
