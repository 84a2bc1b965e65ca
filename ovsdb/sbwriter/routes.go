package sbwriter

import (
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// The route tables, Advertised_Route, Advertised_MAC_Binding and
// ECMP_Nexthop: rows found by what they say, their datapath and ports named
// as the rules name them (the tables' indexes). A row whose datapath or
// ports the mirror does not hold has no key and is deleted; one whose
// references this transaction deletes (a port bound again under its name)
// is replaced.

// advertisedRouteKey identifies an advertised route: its router, port,
// prefix and tracked port.
func advertisedRouteKey(r rules.AdvertisedRoute) string {
	return r.Router + "\x00" + r.Port + "\x00" + r.Prefix + "\x00" + r.Tracked
}

// advertisedMACKey identifies an advertised MAC binding: its switch, port,
// IP and MAC.
func advertisedMACKey(m rules.AdvertisedMACBinding) string {
	return m.Switch + "\x00" + m.Port + "\x00" + m.IP + "\x00" + m.MAC
}

// newAdvertisedRoutes keeps the Advertised_Route rows
// (advertised_route_table_sync).
func newAdvertisedRoutes(w *Writer) *keyedTable[rules.AdvertisedRoute] {
	return newKeyedTable(sb.AdvertisedRouteTable, func(m model.Model) (string, bool) {
		r := m.(*sb.AdvertisedRoute)
		router, port, ok := w.portOn(r.Datapath, r.LogicalPort, rules.Router)
		tracked := ""
		if r.TrackedPort != nil {
			pb := w.m.pbs[*r.TrackedPort]
			if pb == nil {
				return "", false
			}
			tracked = pb.LogicalPort
		}
		return advertisedRouteKey(rules.AdvertisedRoute{Router: router, Port: port, Prefix: r.IPPrefix, Tracked: tracked}), ok
	}, func(t *Txn, want rules.AdvertisedRoute, uuid string, row model.Model) {
		refs := w.refRow(t, want.Router, want.Port)
		tracked := ""
		if want.Tracked != "" {
			if tracked = w.pbRef(t, want.Tracked); tracked == "" {
				refs = nil
			}
		}
		if r, ok := row.(*sb.AdvertisedRoute); ok && refs != nil && r.Datapath == refs.dp && r.LogicalPort == refs.port &&
			ptrOr(r.TrackedPort, "") == tracked {
			return
		}
		refs.replace(t, sb.AdvertisedRouteTable, uuid, func(r lovsdb.Row) {
			r["ip_prefix"] = want.Prefix
			if tracked != "" {
				r["tracked_port"] = lovsdb.UUID{GoUUID: tracked}
			}
		})
	})
}

// newAdvertisedMACBindings keeps the Advertised_MAC_Binding rows
// (en_advertised_mac_binding_sync_run).
func newAdvertisedMACBindings(w *Writer) *keyedTable[rules.AdvertisedMACBinding] {
	return newKeyedTable(sb.AdvertisedMACBindingTable, func(m model.Model) (string, bool) {
		r := m.(*sb.AdvertisedMACBinding)
		sw, port, ok := w.portOn(r.Datapath, r.LogicalPort, rules.Switch)
		return advertisedMACKey(rules.AdvertisedMACBinding{Switch: sw, Port: port, IP: r.IP, MAC: r.MAC}), ok
	}, func(t *Txn, want rules.AdvertisedMACBinding, uuid string, row model.Model) {
		refs := w.refRow(t, want.Switch, want.Port)
		if r, ok := row.(*sb.AdvertisedMACBinding); ok && refs != nil && r.Datapath == refs.dp && r.LogicalPort == refs.port {
			return
		}
		refs.replace(t, sb.AdvertisedMACBindingTable, uuid, func(r lovsdb.Row) {
			r["ip"], r["mac"] = want.IP, want.MAC
		})
	})
}

// portOn names an SB row's datapath (the NB _uuid of a datapath of kind)
// and port.
func (w *Writer) portOn(dpRow, pbRow string, kind rules.DatapathKind) (dp, port string, ok bool) {
	b, pb := w.m.dps[dpRow], w.m.pbs[pbRow]
	if b == nil || pb == nil {
		return "", "", false
	}
	nb, k, ok := dpNB(b)
	return nb, pb.LogicalPort, ok && k == kind
}

// rowRefs are the datapath and port rows a row refers to, as the
// transaction names them.
type rowRefs struct{ dp, port string }

// refRow finds the rows of datapath dp (NB _uuid) and port; nil when
// either is not there.
func (w *Writer) refRow(t *Txn, dp, port string) *rowRefs {
	r := &rowRefs{w.dpRef(t, dp), w.pbRef(t, port)}
	if r.dp == "" || r.port == "" {
		return nil
	}
	return r
}

// replace deletes row uuid, if any, and inserts one referring to r with
// the columns fill sets, when r is not nil.
func (r *rowRefs) replace(t *Txn, table, uuid string, fill func(lovsdb.Row)) {
	if uuid != "" {
		t.delete(table, uuid)
	}
	if r == nil {
		return
	}
	row := lovsdb.Row{"datapath": lovsdb.UUID{GoUUID: r.dp}, "logical_port": lovsdb.UUID{GoUUID: r.port}}
	fill(row)
	t.Insert(table, row)
}

// ecmpNexthopKey identifies an ECMP next hop: its address and port (the
// table's index).
func ecmpNexthopKey(nexthop, port string) string { return nexthop + "\x00" + port }

// newECMPNexthops keeps the ECMP_Nexthop rows (build_ecmp_nexthop_table).
// A row is kept as it is while its port's binding stays: northd sets a
// row's datapath and MAC address when it inserts it, and the MAC address
// again when a MAC_Binding row of the next hop and port is inserted or
// updated (ecmp_nexthop_mac_binding_handler), which marks the key.
func newECMPNexthops(w *Writer) *keyedTable[rules.ECMPNexthop] {
	return newKeyedTable(sb.ECMPNexthopTable, func(m model.Model) (string, bool) {
		r := m.(*sb.ECMPNexthop)
		pb := w.m.pbs[r.Port]
		if pb == nil {
			return "", false
		}
		return ecmpNexthopKey(r.Nexthop, pb.LogicalPort), true
	}, func(t *Txn, want rules.ECMPNexthop, uuid string, row model.Model) {
		port, dp := w.pbRef(t, want.Port), ""
		if pbs := w.wantPB[want.Port]; len(pbs) > 0 {
			dp = w.dpRef(t, pbs[0].Datapath)
		}
		mac, bound := w.house.macOf(want.Port, want.Nexthop)
		r, _ := row.(*sb.ECMPNexthop)
		if r != nil && r.Port == port {
			if bound && r.MAC != mac {
				t.Update(sb.ECMPNexthopTable, uuid, lovsdb.Row{"mac": mac})
			}
			return
		}
		if uuid != "" {
			t.delete(sb.ECMPNexthopTable, uuid)
		}
		if port == "" || dp == "" {
			return
		}
		nh := lovsdb.Row{"nexthop": want.Nexthop, "port": lovsdb.UUID{GoUUID: port}, "datapath": lovsdb.UUID{GoUUID: dp}}
		if bound {
			nh["mac"] = mac
		}
		t.Insert(sb.ECMPNexthopTable, nh)
	})
}
