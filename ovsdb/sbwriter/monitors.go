package sbwriter

import (
	"maps"

	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
)

// monitorStatus feeds the program the service monitors that are down:
// their status, as northd leaves it, is set and not online. That is
// ovn-controller's status, or offline when it says online while the
// port is not up, as northd writes it in the same transaction
// (ovn_lb_svc_create); the flows then leave the backend out. It also
// feeds those that are online, which a network function's health check
// needs (network_function_update_active): unset is not online.
type monitorStatus struct {
	// keysByPort are the SB rows' keys by logical port (and input port),
	// whose up they follow; check are the keys to evaluate again; down
	// and online those fed so.
	keysByPort          map[string]map[relations.ServiceMonitorKey]bool
	check, down, online map[relations.ServiceMonitorKey]bool
	// portDownRecomputes is portDownRecomputesMonitors of the release.
	portDownRecomputes bool
}

func newMonitorStatus(release schema.Release) *monitorStatus {
	return &monitorStatus{keysByPort: map[string]map[relations.ServiceMonitorKey]bool{},
		check: map[relations.ServiceMonitorKey]bool{}, down: map[relations.ServiceMonitorKey]bool{},
		online: map[relations.ServiceMonitorKey]bool{}, portDownRecomputes: portDownRecomputesMonitors(release)}
}

// portDownRecomputesMonitors: 23.03 computes everything again on any SB
// change, a port's up among them, and sets the online monitors of a port
// that is not up offline then. 26.03 handles an up change incrementally
// and leaves the monitors be; it computes them again (and sets those
// offline) when a Service_Monitor row changes, any of them
// (inc-proc-northd.c: en_sb_service_monitor feeds en_northd with no
// handler).
func portDownRecomputesMonitors(r schema.Release) bool { return r < schema.OVN2603 }

// apply records an SB change of Service_Monitor or Port_Binding.
func (m *monitorStatus) apply(c wire.Change) {
	for _, row := range []any{c.Old, c.New} {
		switch r := row.(type) {
		case *sb.ServiceMonitor:
			k := relations.ServiceMonitorKey{IP: r.IP, Port: r.Port, LogicalPort: r.LogicalPort, Protocol: ptrOr(r.Protocol, "")}
			m.check[k] = true
			setindex.Add(m.keysByPort, k.LogicalPort, k)
			if r.LogicalInputPort != "" {
				setindex.Add(m.keysByPort, r.LogicalInputPort, k)
			}
			if !m.portDownRecomputes {
				m.checkAll()
			}
		case *sb.PortBinding:
			if !m.portDownRecomputes {
				continue
			}
			for k := range m.keysByPort[r.LogicalPort] {
				m.check[k] = true
			}
		}
	}
}

// checkAll marks every monitor known to be evaluated again.
func (m *monitorStatus) checkAll() {
	for _, keys := range m.keysByPort {
		maps.Copy(m.check, keys)
	}
}

// reset forgets the SB rows (a new SB connection, whose initial contents
// follow); the monitors fed down are evaluated again.
func (m *monitorStatus) reset() {
	m.keysByPort = map[string]map[relations.ServiceMonitorKey]bool{}
	for k := range m.down {
		m.check[k] = true
	}
	for k := range m.online {
		m.check[k] = true
	}
}

// FeedMonitors feeds n the changes of which monitors are down or online
// since the last call, and returns how many there were.
func (w *Writer) FeedMonitors(n *relations.NB) int {
	m := w.house.monitors
	changed := 0
	for k := range m.check {
		down, online := false, false
		if rows := w.lbs.monByKey[monKey(k)]; len(rows) > 0 {
			r := w.lbs.mons[rows[0]]
			// A remote backend's port is in its own zone.
			status, up := ptrOr(r.Status, ""), r.Remote || w.monitoredPortsUp(k.LogicalPort, r.LogicalInputPort)
			down = status != "" && (status != sb.ServiceMonitorStatusOnline || !up)
			online = status == sb.ServiceMonitorStatusOnline && up
		} else {
			// The key has no row left.
			setindex.Remove(m.keysByPort, k.LogicalPort, k)
		}
		if down != m.down[k] {
			n.SetMonitorDown(k, down)
			changed++
			setindex.Member(m.down, k, down)
		}
		if online != m.online[k] {
			n.SetMonitorOnline(k, online)
			changed++
			setindex.Member(m.online, k, online)
		}
	}
	m.check = cleared(m.check)
	return changed
}
