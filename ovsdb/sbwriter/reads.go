package sbwriter

import (
	"iter"
	"time"

	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
)

// What the live northd reads of the SB besides the rows it writes: the
// global row, chassis, port bindings, BFD sessions and service monitors,
// for the NB columns
// and options it derives from them.

// Global is the SB_Global row, nil when there is none.
func (w *Writer) Global() *sb.SBGlobal { return w.m.global }

// Chassis is the Chassis row with UUID uuid, nil when there is none.
func (w *Writer) Chassis(uuid string) *sb.Chassis { return w.m.chassis[uuid] }

// ChassisPrivate are the Chassis_Private rows, by UUID.
func (w *Writer) ChassisPrivate() map[string]*sb.ChassisPrivate { return w.m.chassisPrivate }

// ChassisOtherConfigs are the other_config columns of the Chassis rows.
func (w *Writer) ChassisOtherConfigs() iter.Seq[map[string]string] {
	return w.m.chassisOtherConfigs()
}

// PortBinding is the Port_Binding row of logical port name.
func (w *Writer) PortBinding(name string) (*sb.PortBinding, bool) {
	u, ok := w.m.pbByName[name]
	return w.m.pbs[u], ok
}

// MaxDatapathKey is the largest tunnel key a datapath may take.
func (w *Writer) MaxDatapathKey() int { return w.m.dpKeys.max }

// ServiceMonitor is the Service_Monitor row of the monitor of ip, port
// and protocol through logical port, nil when there is none.
func (w *Writer) ServiceMonitor(ip string, port int, logicalPort, protocol string) *sb.ServiceMonitor {
	rows := w.lbs.monByKey[monKey{ip, port, logicalPort, protocol}]
	if len(rows) == 0 {
		return nil
	}
	return w.lbs.mons[rows[0]]
}

// BFDStatus is the status column of the BFD row of a session, which
// ovn-controller reports.
func (w *Writer) BFDStatus(port, dstIP string) (string, bool) {
	rows := w.other.bfd.byKey[bfdKey(port, dstIP)]
	if len(rows) == 0 {
		return "", false
	}
	return w.other.bfd.rows[rows[0]].(*sb.BFD).Status, true
}

// BFDSession is what a BFD row is of, in the SB and the NB alike.
type BFDSession struct{ Port, DstIP string }

// noteStatusRow notes the session of a BFD row and the logical port of a
// Service_Monitor row that changed (old or new), for TakeStatusChanged.
func (w *Writer) noteStatusRow(row any) {
	switch r := row.(type) {
	case *sb.BFD:
		w.bfdSessions[BFDSession{r.LogicalPort, r.DstIP}] = true
	case *sb.ServiceMonitor:
		w.monitorPorts[r.LogicalPort] = true
	}
}

// TakeStatusChanged returns the BFD sessions and the logical ports whose
// BFD and Service_Monitor rows changed in the SB, and whether every one
// may have (MarkAll: a new SB connection, a failed transaction), and
// forgets them.
func (w *Writer) TakeStatusChanged() (bfds map[BFDSession]bool, monitorPorts map[string]bool, all bool) {
	bfds, monitorPorts, all = w.bfdSessions, w.monitorPorts, w.statusAll
	w.bfdSessions, w.monitorPorts, w.statusAll = map[BFDSession]bool{}, map[string]bool{}, false
	return bfds, monitorPorts, all
}

// ChassisChanged reports whether Chassis or Chassis_Private rows changed
// since the last TakePortsChanged.
func (w *Writer) ChassisChanged() bool { return w.chassisChanged }

// TakePortsChanged returns the ports whose Port_Binding changed in the SB,
// every bound port when all is set or Chassis rows changed, and forgets
// the changes.
func (w *Writer) TakePortsChanged(all bool) map[string]bool {
	names := w.portsChanged
	if all || w.chassisChanged {
		for name := range w.m.pbByName {
			names[name] = true
		}
	}
	w.portsChanged, w.chassisChanged = map[string]bool{}, false
	return names
}

// AgingSettings are NB_Global's settings of aging.
type AgingSettings struct {
	// MACBindingRemovalLimit and FDBRemovalLimit are the most rows one
	// run removes (options:mac_binding_removal_limit, fdb_removal_limit),
	// 0 for no limit.
	MACBindingRemovalLimit, FDBRemovalLimit uint32
}

// SetAgingSettings takes NB_Global's settings of aging; a change sets
// off a run, as global_config's does.
func (w *Writer) SetAgingSettings(s AgingSettings) {
	w.house.macAging.set(s.MACBindingRemovalLimit)
	w.house.fdbAging.set(s.FDBRemovalLimit)
}

// SetChassisFeaturesIgnored takes NB_Global
// options:ignore_chassis_features as the release reads it
// (relations.IgnoresChassisFeatures): every chassis is then taken to have
// the features that SB rows depend on (aging's timestamps, the load
// balancers' switch column), as global_config's features are.
func (w *Writer) SetChassisFeaturesIgnored(ignored bool) {
	if ignored == w.featuresIgnored {
		return
	}
	w.featuresIgnored = ignored
	w.house.macAging.changed, w.house.fdbAging.changed = true, true
	w.updateLBSwitchColumn()
}

// everyChassisHas reports whether every local chassis has feature, or
// features are ignored.
func (w *Writer) everyChassisHas(feature string) bool {
	return w.featuresIgnored || relations.EveryChassisHas(w.m.chassisOtherConfigs(), feature)
}

// NextAging is when MAC bindings or FDB rows are next due to age, ok
// false when none is scheduled.
func (w *Writer) NextAging() (time.Time, bool) {
	mac, macOK := w.house.macAging.nextRun()
	fdb, fdbOK := w.house.fdbAging.nextRun()
	if !macOK || (fdbOK && fdb.Before(mac)) {
		return fdb, fdbOK
	}
	return mac, true
}
