package sbwriter

import (
	"iter"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
)

// Tables are the SB tables the live northd monitors: those it writes and
// those it reads (Chassis and Chassis_Private for requested-chassis, port
// up, hv_cfg and chassis features).
var Tables = append([]string{
	sb.SBGlobalTable, sb.DatapathBindingTable, sb.PortBindingTable, sb.MulticastGroupTable,
	sb.LogicalDPGroupTable, sb.LogicalFlowTable, sb.ChassisTable, sb.ChassisPrivateTable,
	sb.AddressSetTable, sb.PortGroupTable, sb.LoadBalancerTable, sb.ServiceMonitorTable, sb.ACLIDTable,
}, slices.Concat(OtherTables, HATables, dpUserTables, houseTables)...)

// NotMonitored are the columns of monitored tables that northd never
// reads, left out of its monitor: their models leave them empty. A
// Logical_Flow is found again by its datapaths, stage, priority, match,
// actions and meter alone (as 23.03's ovn_lflow_equal does), and there are
// tens of thousands of them.
var NotMonitored = map[string]map[string]bool{
	sb.LogicalFlowTable: {"external_ids": true, "tags": true, "flow_desc": true},
}

// dpUserTables are SB tables northd does not write whose rows refer to a
// datapath and must go with it, or its deletion fails (a strong reference,
// or a weak one in a column that may not become empty): 23.03 deletes them
// with the datapath. The program reads Learned_Route (learned.go).
var dpUserTables = []string{sb.MACBindingTable, sb.StaticMACBindingTable, sb.LearnedRouteTable}

// flowKey is what identifies a logical flow in 23.03's eyes
// (ovn_lflow_equal): the SB row is found again by these alone, whatever its
// datapaths.
type flowKey struct {
	Priority int
	Match    string
	Actions  string
	// Meter is controller_meter, HasMeter whether it is set.
	Meter string
	// Stage and HasMeter last, side by side: the key is 64 bytes, not 72,
	// in the map that holds every flow's key (Writer.flows).
	Stage    rules.Stage
	HasMeter bool
}

func keyOfFlow(f rules.Flow) flowKey {
	return flowKey{Stage: f.Stage, Priority: f.Priority, Match: f.Match, Actions: f.Actions,
		Meter: f.ControllerMeter, HasMeter: f.ControllerMeter != ""}
}

// mcKey identifies a multicast group: its datapath's NB _uuid and its name.
type mcKey struct{ Datapath, Name string }

// sbMirror is the SB contents northd owns or reads, indexed the ways the
// writer looks rows up. Rows are the monitor's models, never modified.
type sbMirror struct {
	// stages are the release's, which the flow rows' tables number.
	stages         *rules.StageTable
	global         *sb.SBGlobal
	chassis        map[string]*sb.Chassis
	chassisPrivate map[string]*sb.ChassisPrivate

	dps    map[string]*sb.DatapathBinding
	dpByNB map[string][]string // NB _uuid -> SB rows, sorted
	dpKeys *keySpace

	pbs      map[string]*sb.PortBinding
	pbByName map[string]string
	pbByDP   map[string]map[string]bool // SB datapath -> port rows
	pbKeys   map[string]*keySpace       // SB datapath -> its port keys
	// portMax is the largest port key to allocate (dpKeys.max the
	// largest datapath key): lower in VXLAN mode.
	portMax int

	mcs     map[string]*sb.MulticastGroup
	mcPorts map[string]map[string]bool // group row -> its Port_Binding rows
	mcByDP  map[string]map[string]bool // SB datapath -> group rows

	groups          map[string]*sb.LogicalDPGroup
	groupFlows      map[uuid.UUID]map[uuid.UUID]bool // group -> flow rows using it
	groupsByContent map[string][]string              // groupContent -> groups

	// flows are the Logical_Flow rows, which the connection does not keep
	// (Unkept).
	flows map[uuid.UUID]*flowRow
	// flowsByKey is the writer's flows: the mirror keeps their rows.
	flowsByKey map[flowKey]flowEntry
	flowsByDP  map[uuid.UUID]map[uuid.UUID]bool // SB datapath -> rows with it as logical_datapath

	// dpUsers are the rows of dpUserTables by their datapath: SB datapath
	// -> row -> table.
	dpUsers map[string]map[string]string
}

// newSBMirror is an empty mirror that keeps the rows of flowsByKey's
// entries, which must have none.
func newSBMirror(stages *rules.StageTable, flowsByKey map[flowKey]flowEntry) *sbMirror {
	return &sbMirror{
		stages:          stages,
		chassis:         map[string]*sb.Chassis{},
		chassisPrivate:  map[string]*sb.ChassisPrivate{},
		dps:             map[string]*sb.DatapathBinding{},
		dpByNB:          map[string][]string{},
		dpKeys:          newKeySpace(1, rules.MaxDatapathKey),
		pbs:             map[string]*sb.PortBinding{},
		pbByName:        map[string]string{},
		pbByDP:          map[string]map[string]bool{},
		pbKeys:          map[string]*keySpace{},
		portMax:         rules.MaxPortKey,
		mcs:             map[string]*sb.MulticastGroup{},
		mcPorts:         map[string]map[string]bool{},
		mcByDP:          map[string]map[string]bool{},
		groups:          map[string]*sb.LogicalDPGroup{},
		groupFlows:      map[uuid.UUID]map[uuid.UUID]bool{},
		groupsByContent: map[string][]string{},
		flows:           map[uuid.UUID]*flowRow{},
		flowsByKey:      flowsByKey,
		flowsByDP:       map[uuid.UUID]map[uuid.UUID]bool{},
		dpUsers:         map[string]map[string]string{},
	}
}

// dpUser is the datapath a row of dpUserTables refers to.
func dpUser(row model.Model) (table, dp string, ok bool) {
	switch r := row.(type) {
	case *sb.MACBinding:
		return sb.MACBindingTable, r.Datapath, true
	case *sb.StaticMACBinding:
		return sb.StaticMACBindingTable, r.Datapath, true
	case *sb.LearnedRoute:
		return sb.LearnedRouteTable, r.Datapath, true
	}
	return "", "", false
}

// groupContent identifies a set of datapath rows: their UUIDs sorted.
func groupContent(dps []string) string {
	return strings.Join(slices.Sorted(slices.Values(dps)), ",")
}

// dpNB is the NB _uuid a Datapath_Binding row stands for, and its kind;
// ok is false for a row that names neither a switch nor a router.
func dpNB(dp *sb.DatapathBinding) (nb string, kind rules.DatapathKind, ok bool) {
	if u, ok := dp.ExternalIDs["logical-switch"]; ok {
		return u, rules.Switch, true
	}
	if u, ok := dp.ExternalIDs["logical-router"]; ok {
		return u, rules.Router, true
	}
	return "", 0, false
}

// portKeys is the key space of the ports of SB datapath dp.
func (m *sbMirror) portKeys(dp string) *keySpace {
	k := m.pbKeys[dp]
	if k == nil {
		k = newKeySpace(1, m.portMax)
		m.pbKeys[dp] = k
	}
	return k
}

func insertSorted(s []string, v string) []string { return insertSortedFunc(s, v, strings.Compare) }

func deleteSorted(s []string, v string) []string { return deleteSortedFunc(s, v, strings.Compare) }

// insertSortedFunc inserts v into s, sorted by compare, unless it holds
// it.
func insertSortedFunc[T any](s []T, v T, compare func(T, T) int) []T {
	i, found := slices.BinarySearchFunc(s, v, compare)
	if found {
		return s
	}
	return slices.Insert(s, i, v)
}

// deleteSortedFunc deletes v from s, sorted by compare.
func deleteSortedFunc[T any](s []T, v T, compare func(T, T) int) []T {
	if i, found := slices.BinarySearchFunc(s, v, compare); found {
		return slices.Delete(s, i, i+1)
	}
	return s
}

// sbTableOrder is the order in which the changes of one batch are applied:
// a row before the rows that refer to it, so that a flow's key can be read
// from its datapaths.
var sbTableOrder = map[string]int{
	sb.DatapathBindingTable: 1, sb.PortBindingTable: 2, sb.MulticastGroupTable: 3,
	sb.LogicalDPGroupTable: 4, sb.LogicalFlowTable: 5, sb.LoadBalancerTable: 6, sb.IPMulticastTable: 7,
	sb.AdvertisedRouteTable: 8, sb.AdvertisedMACBindingTable: 8, sb.ECMPNexthopTable: 8, sb.LearnedRouteTable: 9,
}

// apply records one row change (of a table other than Logical_Flow,
// applyFlow's). Rows of the tables it indexes replace their old version
// whole. A changed datapath or datapath group may change the key of the
// flows on it: they are keyed again, and returned.
func (m *sbMirror) apply(c wire.Change) (rekeyed []uuid.UUID) {
	if c.Old != nil {
		m.remove(c.UUID, c.Old)
	}
	if c.New != nil {
		m.add(c.UUID, c.New)
	}
	return m.rekeyFlows(c.Table, c.UUID)
}

// toggleGroupPort records that Multicast_Group row uuid, now mc, gained or
// lost Port_Binding row ref, and reports whether it gained it.
func (m *sbMirror) toggleGroupPort(uuid string, mc *sb.MulticastGroup, ref string) bool {
	m.mcs[uuid] = mc
	ports := m.mcPorts[uuid]
	if ports[ref] {
		delete(ports, ref)
		return false
	}
	ports[ref] = true
	return true
}

func (m *sbMirror) add(uuid string, row model.Model) {
	if table, dp, ok := dpUser(row); ok {
		if m.dpUsers[dp] == nil {
			m.dpUsers[dp] = map[string]string{}
		}
		m.dpUsers[dp][uuid] = table
		return
	}
	switch r := row.(type) {
	case *sb.SBGlobal:
		m.global = r
	case *sb.Chassis:
		m.chassis[uuid] = r
	case *sb.ChassisPrivate:
		m.chassisPrivate[uuid] = r
	case *sb.DatapathBinding:
		m.dps[uuid] = r
		if nb, _, ok := dpNB(r); ok {
			m.dpByNB[nb] = insertSorted(m.dpByNB[nb], uuid)
		}
		m.dpKeys.take(r.TunnelKey, uuid)
	case *sb.PortBinding:
		m.pbs[uuid] = r
		m.pbByName[r.LogicalPort] = uuid
		setindex.Add(m.pbByDP, r.Datapath, uuid)
		m.portKeys(r.Datapath).take(r.TunnelKey, uuid)
	case *sb.MulticastGroup:
		m.mcs[uuid] = r
		ports := make(map[string]bool, len(r.Ports))
		for _, p := range r.Ports {
			ports[p] = true
		}
		m.mcPorts[uuid] = ports
		setindex.Add(m.mcByDP, r.Datapath, uuid)
	case *sb.LogicalDPGroup:
		m.groups[uuid] = r
		k := groupContent(r.Datapaths)
		m.groupsByContent[k] = insertSorted(m.groupsByContent[k], uuid)
	}
}

func (m *sbMirror) remove(uuid string, row model.Model) {
	if _, dp, ok := dpUser(row); ok {
		delete(m.dpUsers[dp], uuid)
		if len(m.dpUsers[dp]) == 0 {
			delete(m.dpUsers, dp)
		}
		return
	}
	switch r := row.(type) {
	case *sb.SBGlobal:
		if m.global != nil && m.global.UUID == uuid {
			m.global = nil
		}
	case *sb.Chassis:
		delete(m.chassis, uuid)
	case *sb.ChassisPrivate:
		delete(m.chassisPrivate, uuid)
	case *sb.DatapathBinding:
		delete(m.dps, uuid)
		if nb, _, ok := dpNB(r); ok {
			if m.dpByNB[nb] = deleteSorted(m.dpByNB[nb], uuid); len(m.dpByNB[nb]) == 0 {
				delete(m.dpByNB, nb)
			}
		}
		m.dpKeys.release(r.TunnelKey, uuid)
	case *sb.PortBinding:
		delete(m.pbs, uuid)
		if m.pbByName[r.LogicalPort] == uuid {
			delete(m.pbByName, r.LogicalPort)
		}
		setindex.Remove(m.pbByDP, r.Datapath, uuid)
		m.portKeys(r.Datapath).release(r.TunnelKey, uuid)
		if len(m.pbKeys[r.Datapath].owner) == 0 {
			delete(m.pbKeys, r.Datapath)
		}
	case *sb.MulticastGroup:
		delete(m.mcs, uuid)
		delete(m.mcPorts, uuid)
		setindex.Remove(m.mcByDP, r.Datapath, uuid)
	case *sb.LogicalDPGroup:
		delete(m.groups, uuid)
		k := groupContent(r.Datapaths)
		if m.groupsByContent[k] = deleteSorted(m.groupsByContent[k], uuid); len(m.groupsByContent[k]) == 0 {
			delete(m.groupsByContent, k)
		}
	}
}

// dpKind is the kind of Datapath_Binding row u, if it names a switch or
// router. (flowKind asks it of every flow row the echo of a cold start
// brings, so it builds no list of a flow's datapaths.)
func (m *sbMirror) dpKind(u string) (rules.DatapathKind, bool) {
	if dp := m.dps[u]; dp != nil {
		if _, kind, ok := dpNB(dp); ok {
			return kind, true
		}
	}
	return 0, false
}

// rebuildKeys recomputes the tunnel keys in use from the rows, dropping
// what a transaction that failed had taken.
func (m *sbMirror) rebuildKeys() {
	m.dpKeys = newKeySpace(1, m.dpKeys.max)
	for u, dp := range m.dps {
		m.dpKeys.take(dp.TunnelKey, u)
	}
	m.pbKeys = map[string]*keySpace{}
	for u, pb := range m.pbs {
		m.portKeys(pb.Datapath).take(pb.TunnelKey, u)
	}
}

// setKeyLimits sets the largest datapath and port keys to allocate.
func (m *sbMirror) setKeyLimits(dpMax, portMax int) {
	m.dpKeys.max, m.portMax = dpMax, portMax
	for _, k := range m.pbKeys {
		k.max = portMax
	}
}

// dropNamed forgets the port key spaces of the datapaths a transaction
// inserted, known by their names in it: the inserted rows' own key spaces
// come with their UUIDs from the monitor.
func (m *sbMirror) dropNamed(t *Txn) {
	for _, named := range t.newDP {
		delete(m.pbKeys, named)
	}
}

// chassisOtherConfigs are the other_config columns of the SB Chassis rows.
func (m *sbMirror) chassisOtherConfigs() iter.Seq[map[string]string] {
	return func(yield func(map[string]string) bool) {
		for _, ch := range m.chassis {
			if !yield(ch.OtherConfig) {
				return
			}
		}
	}
}
