package sbwriter

import (
	"cmp"
	"iter"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// Writer keeps the SB rows that northd owns equal to what the program
// computes: Datapath_Binding, Port_Binding (northd's columns only),
// Multicast_Group, Logical_DP_Group and Logical_Flow; Address_Set and
// Port_Group (setTable), Load_Balancer and Service_Monitor (lbTable).
//
// It holds the desired rows (from the program's output changes) and a
// mirror of the SB (from the SB monitor), and reconciles the two by
// content for the keys marked dirty: a datapath's NB _uuid, a port's name,
// a multicast group's datapath and name, a flow's stage, priority, match,
// actions and meter. Each program step and each SB change marks the keys
// it touches, so a step costs what it changes; a new or renewed SB
// connection marks every key, which is how an SB written by someone else
// (23.03 itself, say) is taken over without rewriting rows that are
// already right.
type Writer struct {
	log *slog.Logger
	m   *sbMirror

	wantDP map[string]rules.Datapath
	wantPB map[string][]rules.PortBinding // by name; more than one is a conflict
	// wantMirrors are the names of the SB Mirror rows each switch port's
	// binding refers to in mirror_rules.
	wantMirrors map[string]map[string]bool
	wantMC      map[mcKey]rules.MulticastGroup
	// mcMembers are the desired groups' port names.
	mcMembers map[mcKey]map[string]bool
	// flows are the desired flows and the SB's flow rows by key
	// (flowEntry), the map the mirror holds as flowsByKey; setMembers the
	// datapath sets' datapaths, and setUsers the flows on each set;
	// variants weigh the desired flows of a key on a datapath where their
	// weight is neither 0 nor 1 (wantFlowOn).
	flows    map[flowKey]flowEntry
	variants map[flowKey]map[string]engine.Weight
	// flowsOn counts the desired flows' keys and datapaths (DesiredFlows).
	flowsOn    int
	setMembers map[string]map[string]bool
	setUsers   map[string]map[flowKey]bool

	// Flows whose text holds tunnel keys (rules.KeyRef): the rows whose
	// keys they hold (NB _uuid of a datapath or port), the SB key each
	// flow was last written under, and the flows written under an SB key.
	keyUsers   map[string]map[flowKey]bool
	resolved   map[flowKey]flowKey
	byResolved map[flowKey]map[flowKey]bool
	ports      PortNames

	dirtyDP map[string]bool
	dirtyPB map[string]bool
	dirtyMC memberDirt[mcKey] // members by port name
	dirtyLF map[flowKey]bool
	// allFlowsDirty marks every flow key in place of dirtyLF (see
	// dirtyFlowKeys): MarkAll's marks, and those of a batch that brings
	// most of the flow rows (a cold start's echo), with which dirtyLF would
	// hold every key (~20 MB at 25,000 ports).
	allFlowsDirty bool
	// garbage are SB rows that belong to no key (a datapath that names no
	// switch or router...): deleted; garbageFlows the flow rows (one with
	// no datapath left...).
	garbage      map[string]string // row -> table
	garbageFlows map[uuid.UUID]bool
	// flowLostGroup: a flow row lost its datapath group and has no
	// datapath (TakeFlowLostGroup).
	flowLostGroup bool
	// portsChanged are the ports whose Port_Binding changed in the SB, for
	// the switch ports' up column.
	portsChanged map[string]bool
	// chassisChanged is set when Chassis or Chassis_Private rows changed.
	chassisChanged bool
	// featuresIgnored: every chassis is taken to have every feature
	// (SetChassisFeaturesIgnored).
	featuresIgnored bool
	// bfdSessions are the sessions whose BFD rows changed in the SB,
	// monitorPorts the logical ports whose Service_Monitor rows did, for
	// the NB status columns that follow them; statusAll says every one
	// needs a check (TakeStatusChanged).
	bfdSessions  map[BFDSession]bool
	monitorPorts map[string]bool
	statusAll    bool
	// resyncPB are the ports whose bindings northd syncs in the next
	// write as their NB rows changed, resyncAllPB says it syncs every
	// one, as it recomputes (remoteBinding).
	resyncPB    map[string]bool
	resyncAllPB bool
	// other keeps the SB tables no other row refers to (static.go).
	other *otherTables
	// aclIDs are reconciled before the flows that hold the ids.
	aclIDs *aclIDTable
	// house keeps and prunes the rows of house.go.
	house *housekeeping
	// ha keeps the HA chassis groups (ha.go).
	ha *haTables

	addrSets, portGroups *setTable
	lbs                  *lbTable

	// rows counts the SB rows of each monitored table.
	rows map[string]int
	// stageIDs are the external_ids of the flows without a stage-hint, by stage (flowExternalIDs).
	stageIDs map[rules.Stage]lovsdb.OvsMap
	// stages numbers the flows' tables: the program's release's.
	stages *rules.StageTable
}

// PortNames names the NB's switch and router ports, for the flows that
// hold a port's tunnel key: Name the port with an NB _uuid, UUIDs the NB
// _uuids of the ports of a name.
type PortNames struct {
	Name  func(uuid string) (string, bool)
	UUIDs func(name string) []string
}

// New is a writer of the SB rows of the program whose stages are given.
func New(log *slog.Logger, stages *rules.StageTable, ports PortNames) *Writer {
	flows := map[flowKey]flowEntry{}
	w := &Writer{
		log:    log,
		stages: stages,
		m:      newSBMirror(stages, flows),
		wantDP: map[string]rules.Datapath{}, wantPB: map[string][]rules.PortBinding{},
		wantMirrors: map[string]map[string]bool{},
		wantMC:      map[mcKey]rules.MulticastGroup{}, mcMembers: map[mcKey]map[string]bool{},
		flows:    flows,
		variants: map[flowKey]map[string]engine.Weight{}, setMembers: map[string]map[string]bool{}, setUsers: map[string]map[flowKey]bool{},
		keyUsers: map[string]map[flowKey]bool{}, resolved: map[flowKey]flowKey{},
		byResolved: map[flowKey]map[flowKey]bool{},
		ports:      ports,
		dirtyDP:    map[string]bool{}, dirtyPB: map[string]bool{},
		dirtyMC: memberDirt[mcKey]{}, dirtyLF: map[flowKey]bool{},
		garbage: map[string]string{}, garbageFlows: map[uuid.UUID]bool{}, portsChanged: map[string]bool{}, resyncPB: map[string]bool{},
		bfdSessions: map[BFDSession]bool{}, monitorPorts: map[string]bool{},
		addrSets:   newSetTable(sb.AddressSetTable, "addresses"),
		portGroups: newSetTable(sb.PortGroupTable, "ports"),
		lbs:        newLBTable(stages.Release()),
		rows:       map[string]int{},
		stageIDs:   map[rules.Stage]lovsdb.OvsMap{},
	}
	w.other = newOtherTables(w)
	w.aclIDs = newACLIDTable()
	w.house = newHousekeeping(w)
	w.ha = newHATables(w)
	return w
}

// fillMin is the number of dirty flows from which a write into an SB
// without flows is streamed (ovsdb.Northd.streamFill).
const fillMin = 1000

// FillsFlows reports whether the next write fills an SB without flows
// with at least fillMin of them: a cold start's.
func (w *Writer) FillsFlows() bool {
	return w.WillFillFlows(0)
}

// WillFillFlows reports whether the next write would fill an SB without
// flows (FillsFlows) once a program change adding added flows is applied:
// at most that many more flow keys are dirty then.
func (w *Writer) WillFillFlows(added int) bool {
	return w.rows[sb.LogicalFlowTable] == 0 && w.dirtyFlows()+added >= fillMin
}

// dirtyFlows is the number of dirty flow keys, or of all keys when all
// are.
func (w *Writer) dirtyFlows() int {
	if w.allFlowsDirty {
		return len(w.flows)
	}
	return len(w.dirtyLF)
}

// markFlow marks flow key k dirty.
func (w *Writer) markFlow(k flowKey) {
	if !w.allFlowsDirty {
		w.dirtyLF[k] = true
	}
}

// markAllFlows marks every flow key dirty.
func (w *Writer) markAllFlows() {
	w.allFlowsDirty = true
	w.dirtyLF = cleared(w.dirtyLF)
}

// dirtyFlowKeys yields the dirty flow keys: when all are, those of the
// desired flows and of the SB's rows (flows), and those resolved before
// (resolved) that flows lacks, which resolveDirty lets go of.
func (w *Writer) dirtyFlowKeys() iter.Seq[flowKey] {
	if !w.allFlowsDirty {
		return maps.Keys(w.dirtyLF)
	}
	return func(yield func(flowKey) bool) {
		for k := range w.flows {
			if !yield(k) {
				return
			}
		}
		for k := range w.resolved {
			if _, ok := w.flows[k]; !ok && !yield(k) {
				return
			}
		}
	}
}

// EmptyTables are the monitored SB tables without a row.
func (w *Writer) EmptyTables() []string {
	var tables []string
	for _, table := range Tables {
		if w.rows[table] == 0 {
			tables = append(tables, table)
		}
	}
	return tables
}

// ApplyProgram takes the last step's output changes as the new desired
// rows.
func (w *Writer) ApplyProgram(p *rules.Program) {
	w.other.applyProgram(p)
	applyDelta(w.aclIDs.keyedTable, p.ACLIDs.Delta(), func(acl string) string { return acl })
	w.house.applyProgram(p)
	w.ha.applyProgram(p)
	for _, pass := range []engine.Weight{-1, 1} {
		for _, c := range p.Datapaths.Delta() {
			if c.Weight != pass {
				continue
			}
			d := c.Tuple
			if pass < 0 {
				if w.wantDP[d.NB] == d {
					delete(w.wantDP, d.NB)
				}
			} else {
				w.wantDP[d.NB] = d
			}
			w.dirtyDP[d.NB] = true
		}
	}
	for _, c := range p.PortBindings.Delta() {
		pb := c.Tuple
		cands := w.wantPB[pb.Name]
		if c.Weight < 0 {
			cands = slices.DeleteFunc(cands, func(x rules.PortBinding) bool { return x == pb })
		} else {
			cands = append(cands, pb)
			slices.SortFunc(cands, rules.ComparePortBindings)
		}
		if len(cands) == 0 {
			delete(w.wantPB, pb.Name)
		} else {
			w.wantPB[pb.Name] = cands
		}
		w.dirtyPB[pb.Name] = true
		w.resyncPB[pb.Name] = true
	}
	for _, c := range p.PortMirrors.Delta() {
		if c.Weight < 0 {
			setindex.Remove(w.wantMirrors, c.Tuple.Port, c.Tuple.Mirror)
		} else {
			setindex.Add(w.wantMirrors, c.Tuple.Port, c.Tuple.Mirror)
		}
		w.dirtyPB[c.Tuple.Port] = true
		w.resyncPB[c.Tuple.Port] = true
	}
	for _, pass := range []engine.Weight{-1, 1} {
		for _, c := range p.MulticastGroups.Delta() {
			if c.Weight != pass {
				continue
			}
			g := c.Tuple
			k := mcKey{g.Datapath, g.Name}
			if pass < 0 {
				if w.wantMC[k] == g {
					delete(w.wantMC, k)
				}
			} else {
				w.wantMC[k] = g
			}
			w.dirtyMC.markWhole(k)
		}
	}
	for _, c := range p.MulticastGroupMembers.Delta() {
		m := c.Tuple
		k := mcKey{m.Datapath, m.Group}
		setindex.Put(w.mcMembers, k, m.Port, c.Weight > 0)
		w.dirtyMC.markMember(k, m.Port)
	}
	w.addrSets.applyProgram(p.AddressSets.Delta(), p.AddressSetMembers.Delta())
	w.portGroups.applyProgram(p.PortGroups.Delta(), p.PortGroupMembers.Delta())
	w.lbs.applyProgram(p.LoadBalancers.Delta(), p.ServiceMonitors.Delta())
	for _, c := range p.DatapathSets.Changes() {
		m := c.Tuple
		setindex.Put(w.setMembers, m.Set, m.Datapath, c.Weight > 0)
		for k := range w.setUsers[m.Set] {
			w.markFlow(k)
		}
	}
	for f, weight := range p.Flows.EachChange() {
		w.applyFlow(f, weight)
	}
}

// applyFlow adds weight, the program's change of it, to desired flow f.
func (w *Writer) applyFlow(f rules.Flow, weight engine.Weight) {
	k, dp := keyOfFlow(f), f.Datapath
	e := w.flows[k]
	e.dps = w.wantFlowOn(k, e.dps, dp, weight)
	e.tags = e.tags.count(tagsOf(f), weight)
	storeFlow(w.flows, k, e)
	w.markFlow(k)
	if rules.IsDatapathSet(dp) {
		_, on := slices.BinarySearch(e.dps, dp)
		setindex.Put(w.setUsers, dp, k, on)
	}
	for _, u := range keyRefs(k) {
		setindex.Put(w.keyUsers, u, k, len(e.dps) > 0)
	}
}

// wantFlowOn adds weight to the desired flows of key k on datapath dp, and
// returns k's datapaths dps: dp is among them while that weight is
// positive. The weights are the program's own (its flows' Output keeps
// nothing, rules.Program.DropFlowContents): flows that differ only in their
// rowTags, or a flow that two rules make, weigh more than 1 together, and
// variants keeps every weight other than 0 and 1.
func (w *Writer) wantFlowOn(k flowKey, dps []string, dp string, weight engine.Weight) []string {
	n, counted := w.variants[k][dp]
	_, on := slices.BinarySearch(dps, dp)
	if !counted && on {
		n = 1
	}
	n += weight
	switch {
	case n != 0 && n != 1:
		if w.variants[k] == nil {
			w.variants[k] = map[string]engine.Weight{}
		}
		w.variants[k][dp] = n
	case counted:
		setindex.Remove(w.variants, k, dp)
	}
	switch {
	case n > 0 && !on:
		w.flowsOn++
		dps = insertSorted(dps, dp)
	case n <= 0 && on:
		w.flowsOn--
		dps = deleteSorted(dps, dp)
	}
	return dps
}

// WantsFlowsOf reports whether the writer desires the flows of program
// p's last step, a fresh program's whole output whose Output keeps nothing
// either: Recompute's check of the incremental state, whose flows are kept
// here alone.
func (w *Writer) WantsFlowsOf(p *rules.Program) bool {
	v := New(w.log, w.stages, w.ports)
	for f, weight := range p.Flows.EachChange() {
		v.applyFlow(f, weight)
	}
	same := func(a, b *Writer) bool {
		for k, e := range a.flows {
			f := b.flows[k]
			if !slices.Equal(e.dps, f.dps) || len(e.tags) != len(f.tags) {
				return false
			}
			for _, c := range e.tags {
				if !slices.Contains(f.tags, c) {
					return false
				}
			}
		}
		return true
	}
	return w.flowsOn == v.flowsOn && maps.EqualFunc(w.variants, v.variants, maps.Equal) && same(w, v) && same(v, w)
}

// DesiredFlows is the number of flows the program wants, one per key and
// datapath (or datapath set).
func (w *Writer) DesiredFlows() int { return w.flowsOn }

// ApplySB records the SB changes of some batches and marks the keys they
// touch.
func (w *Writer) ApplySB(bs []wire.Batch) {
	for _, b := range bs {
		if b.Initial {
			w.m = newSBMirror(w.stages, w.wantedFlows())
			w.garbage, w.garbageFlows = map[string]string{}, map[uuid.UUID]bool{}
			w.other.reset()
			w.aclIDs.reset()
			w.house.reset()
			w.ha.reset()
			w.addrSets.resetSB()
			w.portGroups.resetSB()
			w.lbs.resetSB()
			w.rows = map[string]int{}
		}
		// The changes in sbTableOrder, by index, the flow rows (the only
		// table not kept) at their rank.
		type ranked struct{ rank, i int32 }
		order := make([]ranked, len(b.Changes))
		for i, c := range b.Changes {
			order[i] = ranked{int32(sbTableOrder[c.Table]), int32(i)}
		}
		if flows := len(b.Unkept); flows >= fillMin && 2*flows >= len(w.flows) {
			w.markAllFlows()
		}
		slices.SortFunc(order, func(x, y ranked) int { return cmp.Or(cmp.Compare(x.rank, y.rank), cmp.Compare(x.i, y.i)) })
		flowRank := int32(sbTableOrder[sb.LogicalFlowTable])
		flowsAt, _ := slices.BinarySearchFunc(order, flowRank, func(o ranked, rank int32) int { return cmp.Compare(o.rank, rank) })
		for i, o := range order {
			if i == flowsAt {
				w.applyFlowRows(b.Unkept)
			}
			c := b.Changes[o.i]
			switch {
			case c.Old == nil:
				w.rows[c.Table]++
			case c.New == nil:
				w.rows[c.Table]--
			}
			// The HA and housekeeping tables see every change (they follow
			// Port_Binding and Chassis too); a change of a table only they
			// keep goes no further.
			ha, house := w.ha.apply(c), w.house.apply(c)
			w.noteStatusRow(c.Old)
			w.noteStatusRow(c.New)
			if c.Table == sb.MirrorTable {
				// The ports that refer to mirrors by name refer to their rows.
				for name := range w.wantMirrors {
					w.dirtyPB[name] = true
				}
			}
			if ha || house || w.other.apply(c) {
				continue
			}
			switch c.Table {
			case sb.ACLIDTable:
				w.applyACLID(c)
				continue
			case sb.AddressSetTable:
				w.addrSets.applySB(c)
				continue
			case sb.PortGroupTable:
				w.portGroups.applySB(c)
				continue
			case sb.LoadBalancerTable, sb.ServiceMonitorTable:
				w.lbs.applySB(c)
				continue
			case sb.LogicalDPGroupTable:
				w.lbs.groupChanged(c.UUID)
			case sb.MulticastGroupTable:
				if w.applyGroupPorts(c) {
					continue
				}
			}
			w.markRow(c.Table, c.UUID, c.Old)
			rekeyed := w.m.apply(c)
			w.markRow(c.Table, c.UUID, c.New)
			for _, u := range rekeyed {
				w.markFlowRow(u)
			}
		}
		if flowsAt == len(order) {
			w.applyFlowRows(b.Unkept)
		}
		if b.Initial {
			w.MarkAll()
		}
	}
	w.updateVXLAN()
}

// applyFlowRows records the SB changes of Logical_Flow rows (Unkept).
func (w *Writer) applyFlowRows(cs []wire.UnkeptChange) {
	for _, c := range cs {
		if c.Table == sb.LogicalFlowTable {
			w.applyFlowRow(c)
		}
	}
}

// applyFlowRow records an SB change of a Logical_Flow row, whose key is
// dirty before and after it.
func (w *Writer) applyFlowRow(c wire.UnkeptChange) {
	u := c.UUID
	w.markFlowRow(u)
	old, f, err := w.m.applyFlow(c)
	if err != nil {
		w.log.Warn("cannot apply SB change", "err", err)
		return
	}
	w.markFlowRow(u)
	w.rows[sb.LogicalFlowTable] = len(w.m.flows)
	if old != nil && f != nil {
		_, hadGroup := old.dpGroup()
		_, onGroup := f.dpGroup()
		_, onDP := f.datapath()
		w.flowLostGroup = w.flowLostGroup || hadGroup && !onGroup && !onDP
	}
}

// TakeFlowLostGroup reports whether an SB flow row lost its datapath group
// and was left with no datapath since the last call (not northd's doing,
// which moves a flow to one datapath): 26.03 finds it when it next syncs
// the flow.
func (w *Writer) TakeFlowLostGroup() bool {
	lost := w.flowLostGroup
	w.flowLostGroup = false
	return lost
}

// markFlowRow marks the key of flow row u (as the mirror now indexes it)
// dirty, or the row as garbage when it has none.
func (w *Writer) markFlowRow(u uuid.UUID) {
	f := w.m.flows[u]
	if f == nil {
		return
	}
	if k, ok := f.key(); ok {
		w.markFlow(k)
		delete(w.garbageFlows, u)
	} else {
		w.garbageFlows[u] = true
	}
}

// markRow marks the key of an SB row (as the mirror now indexes it) dirty,
// or the row as garbage when it has none.
func (w *Writer) markRow(table, uuid string, row any) {
	switch r := row.(type) {
	case *sb.DatapathBinding:
		if nb, _, ok := dpNB(r); ok {
			w.dirtyDP[nb] = true
		} else {
			w.garbage[uuid] = table
		}
	case *sb.PortBinding:
		w.dirtyPB[r.LogicalPort] = true
		w.portsChanged[r.LogicalPort] = true
	case *sb.MulticastGroup:
		if dp := w.m.dps[r.Datapath]; dp != nil {
			if nb, _, ok := dpNB(dp); ok {
				w.dirtyMC.markWhole(mcKey{nb, r.Name})
				return
			}
		}
		w.garbage[uuid] = table
	case *sb.Chassis:
		w.chassisChanged = true
		// Ports that name a chassis in options:requested-chassis refer
		// to its row; 26.03 recomputes, binding remote ports and
		// unbinding others from remote chassis (remoteBinding).
		w.resyncAllPB = true
		for name, pbs := range w.wantPB {
			if _, ok := pbs[0].Options.Map()["requested-chassis"]; ok || pbs[0].RemoteChassis != "" || w.boundByNorthd(name) {
				w.dirtyPB[name] = true
			}
		}
	case *sb.ChassisPrivate:
		w.chassisChanged = true
	}
}

// Sent forgets the names the rows t inserted had in it, once t has been
// sent (sbMirror.dropNamed).
func (w *Writer) Sent(t *Txn) { w.m.dropNamed(t) }

// Failed takes what the SB holds from the monitor again after a
// transaction failed: the tunnel keys in use are recomputed, and every
// key is reconciled at the next step.
func (w *Writer) Failed() {
	w.m.rebuildKeys()
	w.MarkAll()
}

// MarkAll marks every key, desired or in the SB.
func (w *Writer) MarkAll() {
	for nb := range w.wantDP {
		w.dirtyDP[nb] = true
	}
	for nb := range w.m.dpByNB {
		w.dirtyDP[nb] = true
	}
	for name := range w.wantPB {
		w.dirtyPB[name] = true
	}
	for name := range w.m.pbByName {
		w.dirtyPB[name] = true
		w.portsChanged[name] = true
	}
	for k := range w.wantMC {
		w.dirtyMC.markWhole(k)
	}
	for u, mc := range w.m.mcs {
		w.markRow(sb.MulticastGroupTable, u, mc)
	}
	w.markAllFlows()
	for u, f := range w.m.flows {
		if _, ok := f.key(); !ok {
			w.garbageFlows[u] = true
		}
	}
	for u, dp := range w.m.dps {
		w.markRow(sb.DatapathBindingTable, u, dp)
	}
	w.chassisChanged = true
	w.statusAll = true
	w.resyncAllPB = true
	w.other.markAll()
	w.aclIDs.markAll()
	w.house.markAll()
	w.ha.markAll()
	w.addrSets.markAll()
	w.portGroups.markAll()
	w.lbs.markAll()
}

// Reconcile builds the transaction that brings the dirty keys' SB rows to
// their desired contents, and clears the marks. With emit, each operation
// goes to emit as it is made instead of into the transaction's ops.
func (w *Writer) Reconcile(emit func(lovsdb.Operation)) *Txn {
	t := newSBTxn()
	t.emit = emit
	w.ha.reconcile(t) // before the ports that refer to the groups
	w.reconcileDatapaths(t)
	w.reconcilePorts(t)
	w.reconcileMulticast(t)
	w.aclIDs.reconcile(t)
	w.reconcileFlows(t)
	key := func(u string) int { return w.tunnelKey(t, u) }
	w.addrSets.reconcile(t, key)
	w.portGroups.reconcile(t, key)
	w.reconcileLoadBalancers(t)
	w.reconcileServiceMonitors(t)
	w.lbs.clearDirt()
	for u, table := range w.garbage {
		if w.exists(table, u) && !t.deletedDP[u] && !t.deletedPB[u] {
			t.delete(table, u)
		}
	}
	for u := range w.garbageFlows {
		if f := w.m.flows[u]; f != nil {
			if _, keyed := f.key(); !keyed {
				t.delete(sb.LogicalFlowTable, u.String())
			}
		}
	}
	w.other.reconcile(t)
	w.house.reconcile(t)
	w.dirtyDP, w.dirtyPB, w.dirtyMC, w.dirtyLF = cleared(w.dirtyDP), cleared(w.dirtyPB), cleared(w.dirtyMC), cleared(w.dirtyLF)
	w.allFlowsDirty = false
	w.resyncPB, w.resyncAllPB = cleared(w.resyncPB), false
	w.garbage, w.garbageFlows = cleared(w.garbage), cleared(w.garbageFlows)
	return t
}

func (w *Writer) exists(table, u string) bool {
	switch table {
	case sb.DatapathBindingTable:
		return w.m.dps[u] != nil
	case sb.MulticastGroupTable:
		return w.m.mcs[u] != nil
	}
	return false
}

// dpRef is the SB row a desired datapath has in the transaction: the row
// kept or the row inserted; "" when it has none.
func (w *Writer) dpRef(t *Txn, nb string) string {
	if named, ok := t.newDP[nb]; ok {
		return named
	}
	if _, ok := w.wantDP[nb]; !ok {
		return ""
	}
	for _, u := range w.m.dpByNB[nb] {
		if !t.deletedDP[u] {
			return u
		}
	}
	return ""
}

// reconcileDatapaths: one Datapath_Binding per desired datapath, the first
// of several by UUID kept; its tunnel key kept unless another is
// requested. The rows go first, so that the datapaths created in the same
// transaction may take their keys, as in 23.03's run.
func (w *Writer) reconcileDatapaths(t *Txn) {
	dirty := sortedKeys(w.dirtyDP)
	for _, nb := range dirty {
		_, ok := w.wantDP[nb]
		for i, u := range w.m.dpByNB[nb] {
			if !ok || i > 0 {
				w.deleteDatapath(t, u)
			}
		}
	}
	for _, nb := range dirty {
		want, ok := w.wantDP[nb]
		if !ok {
			continue
		}
		keep := ""
		if rows := w.m.dpByNB[nb]; len(rows) > 0 {
			keep = rows[0]
		}
		ids := want.ExternalIDs.Map()
		if keep == "" {
			key := w.datapathKey(t, want, "")
			if key == 0 {
				w.log.Warn("all datapath tunnel ids exhausted", "datapath", ids["name"])
				continue
			}
			row := lovsdb.Row{"external_ids": wire.StrMap(ids), "tunnel_key": key}
			w.datapathColumns(want, nil, row)
			named := t.Insert(sb.DatapathBindingTable, row)
			w.m.dpKeys.take(key, named)
			t.newDP[nb] = named
			t.dpKey[nb] = key
			w.markKeyUsers(nb)
			continue
		}
		dp := w.m.dps[keep]
		row := lovsdb.Row{}
		if !sameMap(dp.ExternalIDs, ids) {
			row["external_ids"] = wire.StrMap(ids)
		}
		w.datapathColumns(want, dp, row)
		if r := w.requestedDPKey(want); r != 0 && r != dp.TunnelKey {
			if key := w.datapathKey(t, want, keep); key == r {
				w.m.dpKeys.release(dp.TunnelKey, keep)
				row["tunnel_key"] = key
				t.dpKey[nb] = key
				w.markKeyUsers(nb)
			}
		}
		t.Update(sb.DatapathBindingTable, keep, row)
	}
}

// datapathColumns adds to row the columns of Datapath_Binding that 26.03
// writes and 23.03's schema lacks, those that differ from dp's (nil for a
// new row): nb_uuid, the NB row's _uuid, and type, logical-switch or
// logical-router (en-datapath-sync.c).
func (w *Writer) datapathColumns(want rules.Datapath, dp *sb.DatapathBinding, row lovsdb.Row) {
	if w.stages.Release() < schema.OVN2603 {
		return
	}
	kind := map[rules.DatapathKind]string{rules.Switch: "logical-switch", rules.Router: "logical-router"}[want.Kind]
	if dp == nil || dp.NbUUID == nil || *dp.NbUUID != want.NB {
		row["nb_uuid"] = uuidSet([]string{want.NB})
	}
	if dp == nil || dp.Type == nil || *dp.Type != kind {
		row["type"] = wire.StrSet([]string{kind})
	}
}

// datapathKey is the tunnel key for a datapath without one, or the
// requested one for a datapath (row) that has another: the requested key
// when free or held by a datapath that does not request it (which then
// gets a new key, as 23.03 assigns requested keys first), else a free one.
func (w *Writer) datapathKey(t *Txn, want rules.Datapath, row string) int {
	keys := w.m.dpKeys
	if r := w.requestedDPKey(want); r != 0 {
		holder, held := keys.owner[r]
		if !held {
			keys.take(r, row)
			return r
		}
		if hdp := w.m.dps[holder]; hdp != nil {
			hnb, _, _ := dpNB(hdp)
			if w.requestedDPKey(w.wantDP[hnb]) != r {
				key := keys.allocateLowest(holder)
				if key != 0 {
					t.Update(sb.DatapathBindingTable, holder, lovsdb.Row{"tunnel_key": key})
					t.dpKey[hnb] = key
					w.markKeyUsers(hnb)
					keys.take(r, row)
					return r
				}
			}
		}
		w.log.Warn("datapath requests a tunnel key another one holds", "datapath", want.ExternalIDs.Map()["name"], "key", r)
	}
	if row != "" {
		return 0
	}
	return keys.allocateLowest("")
}

// deleteDatapath deletes a Datapath_Binding row and marks the rows that
// refer to it, which must go or move in the same transaction.
func (w *Writer) deleteDatapath(t *Txn, u string) {
	if t.deletedDP[u] {
		return
	}
	t.delete(sb.DatapathBindingTable, u)
	t.deletedDP[u] = true
	w.m.dpKeys.release(w.m.dps[u].TunnelKey, u)
	for _, row := range slices.Sorted(maps.Keys(w.m.dpUsers[u])) {
		t.delete(w.m.dpUsers[u][row], row)
	}
	for pb := range w.m.pbByDP[u] {
		w.dirtyPB[w.m.pbs[pb].LogicalPort] = true
	}
	for mc := range w.m.mcByDP[u] {
		w.markRow(sb.MulticastGroupTable, mc, w.m.mcs[mc])
	}
	if dp, ok := rowUUID(u); ok {
		for f := range w.m.flowsByDP[dp] {
			w.markFlowRow(f)
		}
	}
	w.lbs.markDatapath(w.m, u)
	delete(w.garbage, u)
}

// RouterPortTypes are the Port_Binding types of router ports and of switch
// ports of type "router": their options are all northd's but
// ipv6_ra_pd_list, which ovn-controller writes.
var RouterPortTypes = []string{"patch", "l3gateway", "chassisredirect"}

// reconcilePorts: one Port_Binding per desired port, on its datapath's
// row. The rows to delete go first, so that the ports created in the same
// transaction may take their keys, as in 23.03's run.
func (w *Writer) reconcilePorts(t *Txn) {
	var waiters []string
	for name := range w.dirtyPB {
		if pb := w.m.pbs[w.m.pbByName[name]]; pb != nil && len(w.wantPB[name]) == 0 && w.deletionGrantsKeys(pb) {
			for _, ports := range w.m.portKeys(pb.Datapath).waiting {
				waiters = slices.AppendSeq(waiters, maps.Keys(ports))
			}
		}
	}
	for _, name := range waiters {
		w.dirtyPB[name] = true
	}
	names := sortedKeys(w.dirtyPB)
	wants := make([]*rules.PortBinding, len(names))
	dpRefs := make([]string, len(names))
	for i, name := range names {
		wants[i], dpRefs[i] = w.wantedPort(t, name)
		rowID := w.m.pbByName[name]
		if rowID == "" || t.deletedPB[rowID] {
			continue
		}
		if pb := w.m.pbs[rowID]; wants[i] == nil || pb.Datapath != dpRefs[i] || typeChanged(pb, wants[i]) {
			t.delete(sb.PortBindingTable, rowID)
			t.deletedPB[rowID] = true
			w.m.portKeys(pb.Datapath).release(pb.TunnelKey, rowID)
			w.markGroupMemberOf(pb.Datapath, name)
		}
	}
	for i, name := range names {
		want, dpRef := wants[i], dpRefs[i]
		if want == nil {
			continue
		}
		rowID := w.m.pbByName[name]
		if rowID == "" || t.deletedPB[rowID] {
			key := w.portKey(t, dpRef, name, w.requestedPortKey(want), "", 0)
			if key == 0 {
				w.log.Warn("all port tunnel ids exhausted", "port", name)
				continue
			}
			row := w.portColumns(t, want, nil)
			w.ha.portColumn(want, nil, row)
			row["logical_port"] = name
			row["datapath"] = lovsdb.UUID{GoUUID: dpRef}
			row["tunnel_key"] = key
			row["up"] = wire.OptBool(false)
			named := t.Insert(sb.PortBindingTable, row)
			w.m.portKeys(dpRef).take(key, named)
			t.newPB[name] = named
			t.pbKey[name] = key
			w.markPortKeyUsers(name)
			w.markGroupMember(want.Datapath, name)
			continue
		}
		pb := w.m.pbs[rowID]
		row := w.portColumns(t, want, pb)
		w.ha.portColumn(want, pb, row)
		if r := w.requestedPortKey(want); r != 0 && r != pb.TunnelKey {
			if key := w.portKey(t, dpRef, name, r, rowID, pb.TunnelKey); key == r {
				row["tunnel_key"] = key
				t.pbKey[name] = key
				w.markPortKeyUsers(name)
			}
		}
		t.Update(sb.PortBindingTable, rowID, row)
	}
}

// deletionGrantsKeys reports whether deleting port binding pb gives the
// ports of its datapath waiting for a requested key their keys, if free:
// 23.03 assigns every key in every run; 26.03 does so when the port
// deleted requested a key itself (northd.c ls_handle_lsp_changes falls
// back to a recompute then), and otherwise leaves the keys given.
func (w *Writer) deletionGrantsKeys(pb *sb.PortBinding) bool {
	_, requested := pb.Options["requested-tnl-key"]
	return requested || w.stages.Release() < schema.OVN2603
}

// wantedPort is the desired Port_Binding of port name and its datapath's
// row, nil when it has none or its datapath has no row.
func (w *Writer) wantedPort(t *Txn, name string) (*rules.PortBinding, string) {
	cands := w.wantPB[name]
	if len(cands) == 0 {
		return nil, ""
	}
	if len(cands) > 1 {
		w.log.Warn("duplicate logical port", "port", name)
	}
	dpRef := w.dpRef(t, cands[0].Datapath)
	if dpRef == "" {
		return nil, ""
	}
	return &cands[0], dpRef
}

// portKey is like datapathKey for port name, within datapath dp; old is
// the key row holds now (0 for a new port). A requested key held by a
// port that does not request it is granted, and that port moved to a new
// key, as 23.03 assigns the requested keys first, then keeps the existing
// ones that do not conflict, then allocates (build_ports); between two
// ports requesting one key, the one holding it keeps it and the other is
// warned about.
func (w *Writer) portKey(t *Txn, dp, name string, requested int, row string, old int) int {
	keys := w.m.portKeys(dp)
	if requested != 0 {
		holder, held := keys.owner[requested]
		if !held || w.movable(t, holder, requested) {
			setindex.Remove(keys.waiting, requested, name)
			keys.take(requested, row)
			if old != 0 {
				keys.release(old, row)
			}
			if held {
				w.moveAside(t, keys, holder)
			}
			return requested
		}
		w.log.Warn("port requests a tunnel key another one holds", "port", name, "key", requested)
		setindex.Add(keys.waiting, requested, name)
	}
	if row != "" {
		return 0
	}
	return keys.allocateAfterHighest("")
}

// movable reports whether the port row holder, which holds key, may be
// moved to another: a row in the SB, not deleted, whose port does not
// request key.
func (w *Writer) movable(t *Txn, holder string, key int) bool {
	pb := w.m.pbs[holder]
	if pb == nil || t.deletedPB[holder] {
		return false
	}
	cands := w.wantPB[pb.LogicalPort]
	return len(cands) == 0 || w.requestedPortKey(&cands[0]) != key
}

// moveAside gives port row holder, whose key was granted to another port,
// a new key: the next after the highest in use, as 23.03 allocates after
// the keys it assigned and kept.
func (w *Writer) moveAside(t *Txn, keys *keySpace, holder string) {
	name := w.m.pbs[holder].LogicalPort
	moved := keys.allocateAfterHighest(holder)
	if moved == 0 {
		w.log.Warn("all port tunnel ids exhausted", "port", name)
		t.delete(sb.PortBindingTable, holder)
		t.deletedPB[holder] = true
		return
	}
	t.Update(sb.PortBindingTable, holder, lovsdb.Row{"tunnel_key": moved})
	t.pbKey[name] = moved
	w.markPortKeyUsers(name)
}

// typeChanged is 23.03's lsp_is_type_changed with update_sbrec: a switch
// port that became or stopped being a container port (parent_port) or a
// virtual port gets a new Port_Binding.
func typeChanged(pb *sb.PortBinding, want *rules.PortBinding) bool {
	if pb.Type == "" && want.Type == "" {
		return (pb.ParentPort == nil) != (want.ParentPort == "")
	}
	return pb.Type != want.Type && (pb.Type == "virtual" || want.Type == "virtual")
}

// portColumns are the columns of a Port_Binding northd sets: all of them
// for a new row (pb nil), else those that differ from pb.
func (w *Writer) portColumns(t *Txn, want *rules.PortBinding, pb *sb.PortBinding) lovsdb.Row {
	row := lovsdb.Row{}
	set := func(col string, differs bool, v any) {
		if pb == nil || differs {
			row[col] = v
		}
	}
	options := want.Options.Map()
	router := slices.Contains(RouterPortTypes, want.Type) || want.RemoteChassis != ""
	if pb != nil {
		// Keys of options that ovn-controller writes and northd keeps.
		if v, ok := pb.Options["ipv6_ra_pd_list"]; ok && router {
			options["ipv6_ra_pd_list"] = v
			if own, ok := options["ipv6_ra_prefixes"]; ok && announcesPDList(w.stages.Release()) {
				if own != "" {
					own += " "
				}
				options["ipv6_ra_prefixes"] = strings.TrimSuffix(own+v, " ")
			}
		}
		if v, ok := pb.Options["additional-chassis-activated"]; ok && !router && len(pb.RequestedAdditionalChassis) > 0 {
			options["additional-chassis-activated"] = v
		}
	}
	var first string
	var more []string
	if !router {
		first, more = w.requestedChassis(want.Name, options["requested-chassis"])
	}
	bound, binds := w.remoteBinding(want, pb, first, len(more) > 0, options)
	mac, ps, nat := want.MAC.Slice(), want.PortSecurity.Slice(), want.NATAddresses.Slice()
	ids := want.ExternalIDs.Map()
	mirrors := w.mirrorRows(want.Name)
	if binds {
		set("chassis", pb == nil || ptrOr(pb.Chassis, "") != bound, optUUID(bound))
	}
	if pb == nil {
		set("mirror_rules", false, uuidSet(mirrors))
		set("type", false, want.Type)
		set("options", false, wire.StrMap(options))
		set("mac", false, wire.StrSet(mac))
		set("port_security", false, wire.StrSet(ps))
		set("nat_addresses", false, wire.StrSet(nat))
		set("external_ids", false, wire.StrMap(ids))
		set("parent_port", false, wire.OptString(want.ParentPort, want.ParentPort != ""))
		set("tag", false, wire.OptInt(want.Tag, want.Tag != 0))
		if want.MirrorPort != "" { // a 26.03 column: 23.03's SB has none
			set("mirror_port", false, want.MirrorPort)
		}
	} else {
		set("type", pb.Type != want.Type, want.Type)
		set("options", !sameMap(pb.Options, options), wire.StrMap(options))
		set("mac", !sameSet(pb.MAC, mac), wire.StrSet(mac))
		set("port_security", !sameSet(pb.PortSecurity, ps), wire.StrSet(ps))
		set("nat_addresses", !sameSet(pb.NatAddresses, nat), wire.StrSet(nat))
		set("mirror_rules", !sameSet(pb.MirrorRules, mirrors), uuidSet(mirrors))
		set("external_ids", !sameMap(pb.ExternalIDs, ids), wire.StrMap(ids))
		set("parent_port", ptrOr(pb.ParentPort, "") != want.ParentPort, wire.OptString(want.ParentPort, want.ParentPort != ""))
		set("tag", ptrOr(pb.Tag, 0) != want.Tag, wire.OptInt(want.Tag, want.Tag != 0))
		set("mirror_port", ptrOr(pb.MirrorPort, "") != want.MirrorPort, wire.OptString(want.MirrorPort, want.MirrorPort != ""))
		if pb.Up == nil {
			row["up"] = wire.OptBool(false)
		}
	}
	switch {
	case want.RemoteChassis != "":
		// A transit router's remote port is bound to its chassis by
		// northd, which never unbinds it.
		ch := w.chassisNamed(want.RemoteChassis)
		set("requested_chassis", pb == nil || ptrOr(pb.RequestedChassis, "") != ch, optUUID(ch))
		if ch != "" {
			set("chassis", pb == nil || ptrOr(pb.Chassis, "") != ch, optUUID(ch))
		}
	case router && pb != nil && pb.RequestedChassis != nil && w.onRouter(pb):
		// It stopped being a transit router's remote port.
		row["requested_chassis"] = optUUID("")
	case !router:
		if pb == nil {
			set("requested_chassis", false, optUUID(first))
			set("requested_additional_chassis", false, uuidSet(more))
		} else {
			set("requested_chassis", ptrOr(pb.RequestedChassis, "") != first, optUUID(first))
			set("requested_additional_chassis", !sameSet(pb.RequestedAdditionalChassis, more), uuidSet(more))
		}
	}
	return row
}

// announcesPDList: 23.03's periodic router advertisements announce the
// delegated prefixes of ipv6_ra_pd_list after the port's own
// (copy_ra_to_sb); 26.03's take them from the NB port's ipv6_prefix
// (rules' raPrefixesFromNB).
func announcesPDList(r schema.Release) bool { return r < schema.OVN2603 }

// qdiscQueueOf is a port binding's options:qdisc_queue_id, 0 when absent
// or unreadable (smap_get_int).
func qdiscQueueOf(pb *sb.PortBinding) int {
	q, err := strconv.Atoi(pb.Options["qdisc_queue_id"])
	if err != nil || q < 0 {
		return 0
	}
	return q
}

// mirrorRows are the SB Mirror rows a port's binding refers to: the row
// kept for each of its mirrors' names. A mirror inserted by the same
// transaction is referred to once its row is in the SB, as 23.03 syncs
// mirrors after the ports and finds them on its next run.
func (w *Writer) mirrorRows(port string) []string {
	var rows []string
	for _, name := range sortedKeys(w.wantMirrors[port]) {
		if _, ok := w.other.mirrors.want[name]; ok && len(w.other.mirrors.byKey[name]) > 0 {
			rows = append(rows, w.other.mirrors.byKey[name][0])
		}
	}
	return rows
}

// requestedChassis resolves options:requested-chassis, a comma-separated
// list of chassis names or hostnames, to Chassis rows: the first, and the
// others (ovn_port_update_sbrec_chassis). Unknown chassis are left out,
// with a warning that names them and port, as 23.03 warns.
func (w *Writer) requestedChassis(port, list string) (string, []string) {
	var found []string
	for name := range strings.SplitSeq(list, ",") {
		if name == "" {
			continue
		}
		if u := w.chassisNamed(name); u != "" {
			found = append(found, u)
		} else {
			w.log.Warn("unknown chassis in options:requested-chassis", "port", port, "chassis", name)
		}
	}
	if len(found) == 0 {
		return "", nil
	}
	return found[0], found[1:]
}

// onRouter reports whether a binding is on a router's datapath.
func (w *Writer) onRouter(pb *sb.PortBinding) bool {
	dp := w.m.dps[pb.Datapath]
	if dp == nil {
		return false
	}
	_, kind, ok := dpNB(dp)
	return ok && kind == rules.Router
}

func (w *Writer) chassisNamed(name string) string {
	var byHost []string
	for u, ch := range w.m.chassis {
		if ch.Name == name {
			return u
		}
		if ch.Hostname == name {
			byHost = append(byHost, u)
		}
	}
	if len(byHost) > 0 {
		return slices.Min(byHost)
	}
	return ""
}

func ptrOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// markGroupMember marks port in the fixed multicast groups of an NB
// datapath, whose port references follow the Port_Binding rows.
func (w *Writer) markGroupMember(nb, port string) {
	for name := range mcKeyNames {
		w.dirtyMC.markMember(mcKey{nb, name}, port)
	}
}

// markGroupMemberOf is markGroupMember for an SB datapath row.
func (w *Writer) markGroupMemberOf(dp, port string) {
	if row := w.m.dps[dp]; row != nil {
		if nb, _, ok := dpNB(row); ok {
			w.markGroupMember(nb, port)
		}
	}
}

var mcKeyNames = map[string]bool{rules.MCFlood: true, rules.MCUnknown: true, rules.MCMrouterFlood: true, rules.MCStatic: true, rules.MCFloodL2: true}

// applyGroupPorts records an SB change of a Multicast_Group row's ports
// alone (a change with the update2 diff that says which ports went or
// came) and marks those ports, by name; a reference to a Port_Binding row
// the mirror does not hold marks the whole group. It reports false, having
// done nothing, for another change.
func (w *Writer) applyGroupPorts(c wire.Change) bool {
	mc, _ := c.New.(*sb.MulticastGroup)
	toggled, ok := c.Diff["ports"].([]string)
	if _, known := w.m.mcPorts[c.UUID]; mc == nil || len(c.Diff) != 1 || !ok || !known {
		return false
	}
	dp := w.m.dps[mc.Datapath]
	if dp == nil {
		return false
	}
	nb, _, ok := dpNB(dp)
	if !ok {
		return false
	}
	k := mcKey{nb, mc.Name}
	for _, ref := range toggled {
		added := w.m.toggleGroupPort(c.UUID, mc, ref)
		if pb := w.m.pbs[ref]; pb != nil {
			w.dirtyMC.markMember(k, pb.LogicalPort)
		} else if added {
			w.dirtyMC.markWhole(k)
		}
	}
	return true
}

// reconcileMulticast: one Multicast_Group per desired group, on its
// datapath's row, with the tunnel key its name fixes or, for a learnt
// group, the one it has or a free one (allocateLearntKey). A group's ports are
// compared by Port_Binding row, for its dirty members only unless the
// whole group is: the row a member's port has in the transaction (wanted)
// and the row it has in the SB (which a replaced or deleted Port_Binding
// leaves behind).
func (w *Writer) reconcileMulticast(t *Txn) {
	// The learnt groups to insert once every row to go has gone, so that
	// their keys can be taken again, and the rows gone.
	var learnt []mcKey
	gone := map[string]bool{}
	for _, k := range slices.SortedFunc(maps.Keys(w.dirtyMC), func(a, b mcKey) int {
		return cmp.Or(cmp.Compare(a.Datapath, b.Datapath), cmp.Compare(a.Name, b.Name))
	}) {
		want, ok := w.wantMC[k]
		dpRef := ""
		if ok {
			dpRef = w.dpRef(t, k.Datapath)
		}
		keep := ""
		for _, dp := range w.m.dpByNB[k.Datapath] {
			for u := range w.m.mcByDP[dp] {
				mc := w.m.mcs[u]
				switch {
				case mc.Name != k.Name:
				case keep == "" && dp == dpRef && (mc.TunnelKey == want.Key || want.Key == 0 && learntGroupKey(mc.TunnelKey)):
					keep = u
				default:
					// Also when its datapath goes: the reference is strong.
					t.delete(sb.MulticastGroupTable, u)
					gone[u] = true
				}
			}
		}
		if !ok || dpRef == "" {
			continue
		}
		members := w.mcMembers[k]
		if keep == "" {
			if want.Key == 0 {
				learnt = append(learnt, k)
			} else {
				w.insertGroup(t, k, dpRef, want.Key)
			}
			continue
		}
		have := w.m.mcPorts[keep]
		wanted := map[string]bool{}
		var checked []string
		check := func(name string) {
			if ref := w.pbRef(t, name); ref != "" && members[name] {
				wanted[ref] = true
				checked = append(checked, ref)
			}
			if ref := w.m.pbByName[name]; ref != "" {
				checked = append(checked, ref)
			}
		}
		d := w.dirtyMC[k]
		if d.whole {
			for name := range members {
				check(name)
			}
			// References to rows gone or to ports no longer members.
			for ref := range have {
				checked = append(checked, ref)
			}
		} else {
			for name := range d.members {
				check(name)
			}
		}
		if muts := memberMutations("ports", slices.Values(checked), func(ref string) bool { return wanted[ref] },
			func(ref string) bool { return have[ref] }, uuidSet); len(muts) > 0 {
			t.mutate(sb.MulticastGroupTable, keep, muts...)
		}
	}
	taken := map[string]map[int]bool{} // keys given in t, by datapath row
	for _, k := range learnt {
		dpRef := w.dpRef(t, k.Datapath)
		key := allocateLearntKey(w.m.mcByDP[dpRef], w.m.mcs, gone, taken[dpRef])
		if key == 0 {
			w.log.Warn("all multicast group tunnel ids exhausted", "datapath", k.Datapath, "group", k.Name)
			continue
		}
		setindex.Add(taken, dpRef, key)
		w.insertGroup(t, k, dpRef, key)
	}
}

// insertGroup inserts the Multicast_Group k on SB datapath dpRef with
// tunnel key key and its members' ports.
func (w *Writer) insertGroup(t *Txn, k mcKey, dpRef string, key int) {
	var ports []string
	for name := range w.mcMembers[k] {
		if ref := w.pbRef(t, name); ref != "" {
			ports = append(ports, ref)
		}
	}
	slices.Sort(ports)
	t.Insert(sb.MulticastGroupTable, lovsdb.Row{
		"datapath": lovsdb.UUID{GoUUID: dpRef}, "name": k.Name,
		"tunnel_key": key, "ports": uuidSet(ports),
	})
}

// pbRef is the Port_Binding row of a port in the transaction.
func (w *Writer) pbRef(t *Txn, name string) string {
	if named, ok := t.newPB[name]; ok {
		return named
	}
	if u, ok := w.m.pbByName[name]; ok && !t.deletedPB[u] {
		return u
	}
	return ""
}

// The tunnel keys of the groups learnt through IGMP/MLD
// (lib/mcast-group-index.h OVN_MIN_IP_MULTICAST to OVN_MAX_IP_MULTICAST).
const (
	MinLearntKey = 32773
	MaxLearntKey = 65535
)

func learntGroupKey(k int) bool { return k >= MinLearntKey && k <= MaxLearntKey }

// allocateLearntKey is the key 23.03 gives a new learnt group on a
// datapath whose group rows are rows (of all), but those gone, when the
// transaction gives the keys taken: the first free one after
// OVN_MIN_IP_MULTICAST, which ovn_allocate_tnlid's hint starts at and
// never returns (0 when none is free).
func allocateLearntKey(rows map[string]bool, all map[string]*sb.MulticastGroup, gone map[string]bool, taken map[int]bool) int {
	used := maps.Clone(taken)
	if used == nil {
		used = map[int]bool{}
	}
	for u := range rows {
		if !gone[u] {
			used[all[u].TunnelKey] = true
		}
	}
	for k := MinLearntKey + 1; k <= MaxLearntKey; k++ {
		if !used[k] {
			return k
		}
	}
	return 0
}
