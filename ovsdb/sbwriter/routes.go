package sbwriter

import (
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// advertisedRouteKey identifies an advertised route, desired or in the SB
// (the table's index): its router, port, prefix and tracked port, by NB
// _uuid and port names.
func advertisedRouteKey(r rules.AdvertisedRoute) string {
	return r.Router + "\x00" + r.Port + "\x00" + r.Prefix + "\x00" + r.Tracked
}

// newAdvertisedRoutes keeps the Advertised_Route rows
// (advertised_route_table_sync). A row whose datapath or ports the mirror
// does not hold has no key and is deleted.
func newAdvertisedRoutes(w *Writer) *keyedTable[rules.AdvertisedRoute] {
	return newKeyedTable(sb.AdvertisedRouteTable, func(m model.Model) (string, bool) {
		r := m.(*sb.AdvertisedRoute)
		want, ok := w.advertisedRouteOf(r)
		return advertisedRouteKey(want), ok
	}, func(t *Txn, want rules.AdvertisedRoute, uuid string, row model.Model) {
		writeAdvertisedRoute(w, t, want, uuid, row)
	})
}

// advertisedRouteOf names the datapath and ports of an SB row as the rules
// do.
func (w *Writer) advertisedRouteOf(r *sb.AdvertisedRoute) (rules.AdvertisedRoute, bool) {
	dp, port := w.m.dps[r.Datapath], w.m.pbs[r.LogicalPort]
	if dp == nil || port == nil {
		return rules.AdvertisedRoute{}, false
	}
	router, kind, ok := dpNB(dp)
	if !ok || kind != rules.Router {
		return rules.AdvertisedRoute{}, false
	}
	out := rules.AdvertisedRoute{Router: router, Port: port.LogicalPort, Prefix: r.IPPrefix}
	if r.TrackedPort != nil {
		tracked := w.m.pbs[*r.TrackedPort]
		if tracked == nil {
			return rules.AdvertisedRoute{}, false
		}
		out.Tracked = tracked.LogicalPort
	}
	return out, true
}

// writeAdvertisedRoute inserts a route's row, or replaces one that refers
// to rows this transaction deletes (a port bound again under its name).
func writeAdvertisedRoute(w *Writer, t *Txn, want rules.AdvertisedRoute, uuid string, row model.Model) {
	dp, port, tracked := w.dpRef(t, want.Router), w.pbRef(t, want.Port), ""
	if want.Tracked != "" {
		tracked = w.pbRef(t, want.Tracked)
	}
	if r, ok := row.(*sb.AdvertisedRoute); ok {
		if r.Datapath == dp && r.LogicalPort == port && ptrOr(r.TrackedPort, "") == tracked {
			return
		}
		t.delete(sb.AdvertisedRouteTable, uuid)
	}
	if dp == "" || port == "" || want.Tracked != "" && tracked == "" {
		return
	}
	r := lovsdb.Row{"datapath": lovsdb.UUID{GoUUID: dp}, "logical_port": lovsdb.UUID{GoUUID: port}, "ip_prefix": want.Prefix}
	if tracked != "" {
		r["tracked_port"] = lovsdb.UUID{GoUUID: tracked}
	}
	t.Insert(sb.AdvertisedRouteTable, r)
}
