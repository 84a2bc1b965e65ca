package ovsdb

import (
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// housekeeping keeps the SB rows 23.03 writes or prunes besides the
// datapaths, ports, groups and flows: Static_MAC_Binding from the NB.
type housekeeping struct {
	staticMACs *keyedTable[rules.StaticMACBinding]
	// staticByPort are the keys of the wanted static MAC bindings by
	// port name: a port that becomes or stops being a router port, or
	// moves, changes whether its bindings are written.
	staticByPort map[string]map[string]bool
}

func newHousekeeping(w *sbWriter) *housekeeping {
	h := &housekeeping{staticByPort: map[string]map[string]bool{}}
	h.staticMACs = newKeyedTable(sb.StaticMACBindingTable, func(m model.Model) (string, bool) {
		r := m.(*sb.StaticMACBinding)
		return staticMACKey(r.LogicalPort, r.IP), true
	}, func(t *sbTxn, want rules.StaticMACBinding, uuid string, row model.Model) {
		writeStaticMAC(w, t, want, uuid, row)
	})
	return h
}

// staticMACKey identifies a static MAC binding, NB or SB: its port and IP
// (the tables' index).
func staticMACKey(port, ip string) string { return port + "\x00" + ip }

// applyProgram takes the program's last changes as desired rows.
func (h *housekeeping) applyProgram(p *rules.Program) {
	key := func(m rules.StaticMACBinding) string { return staticMACKey(m.LogicalPort, m.IP) }
	applyDelta(h.staticMACs, p.StaticMACBindings.Delta(), key)
	for _, c := range p.StaticMACBindings.Delta() {
		if _, ok := h.staticMACs.want[key(c.Tuple)]; ok {
			addTo(h.staticByPort, c.Tuple.LogicalPort, key(c.Tuple))
		} else {
			removeFrom(h.staticByPort, c.Tuple.LogicalPort, key(c.Tuple))
		}
	}
	for _, c := range p.PortBindings.Delta() {
		for k := range h.staticByPort[c.Tuple.Name] {
			h.staticMACs.dirty[k] = true
		}
	}
}

// apply records an SB row change of the tables it keeps; rows of
// dpUserTables also go to the mirror.
func (h *housekeeping) apply(c change) {
	if c.table == sb.StaticMACBindingTable {
		h.staticMACs.apply(c)
	}
}

func (h *housekeeping) reset() { h.staticMACs.reset() }

func (h *housekeeping) markAll() { h.staticMACs.markAll() }

func (h *housekeeping) reconcile(t *sbTxn) { h.staticMACs.reconcile(t) }

// routerOfPort is the SB datapath row, in the transaction, of the router
// whose port is named port; "" when port is no router port or its router
// has no row.
func (w *sbWriter) routerOfPort(t *sbTxn, port string) string {
	pbs := w.wantPB[port]
	if len(pbs) == 0 {
		return ""
	}
	if dp, ok := w.wantDP[pbs[0].Datapath]; !ok || dp.Kind != rules.Router {
		return ""
	}
	return w.dpRef(t, pbs[0].Datapath)
}

// writeStaticMAC writes the SB row of an NB static MAC binding whose port
// is a router port: a new row on the router's datapath, or the row's mac
// and override_dynamic_mac brought to the NB's (its datapath is left as
// it is, as 23.03 does). The rows of other ports are left alone.
func writeStaticMAC(w *sbWriter, t *sbTxn, want rules.StaticMACBinding, uuid string, row model.Model) {
	dp := w.routerOfPort(t, want.LogicalPort)
	if dp == "" {
		return
	}
	r, _ := row.(*sb.StaticMACBinding)
	if r != nil && t.deletedDP[r.Datapath] {
		// Deleted with its datapath; written again once the deletion
		// shows.
		return
	}
	c := newChangedRow(uuid)
	c.set("logical_port", true, want.LogicalPort)
	c.set("ip", true, want.IP)
	c.set("datapath", true, lovsdb.UUID{GoUUID: dp})
	c.set("mac", r != nil && r.MAC == want.MAC, want.MAC)
	c.set("override_dynamic_mac", r != nil && r.OverrideDynamicMAC == want.OverrideDynamicMAC, want.OverrideDynamicMAC)
	c.commit(t, sb.StaticMACBindingTable)
}
