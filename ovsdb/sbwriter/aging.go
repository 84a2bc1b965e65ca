package sbwriter

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
)

// agingBulkRemovalDelay is how long northd waits to remove more rows
// after removing its removal limit's worth (AGING_BULK_REMOVAL_DELAY_MSEC,
// 23.03's MAC_BINDING_BULK_REMOVAL_DELAY_MSEC).
const agingBulkRemovalDelay = 5 * time.Second

// aging deletes the rows of an SB table that ovn-controller timestamps
// once older than their datapath's threshold (rules.AgingThreshold), as
// aging.c's nodes do: when a row, a threshold or a chassis changed, or
// when the earliest remaining row is due. R is the table's model, K what
// its rows name their datapath by.
type aging[R model.Model, K comparable] struct {
	table string
	// feature is the chassis feature (other_config key) of
	// ovn-controller writing the timestamps: aging needs every chassis to
	// have it.
	feature string
	// group is what rows name SB datapath row dp by, if anything.
	group func(w *Writer, dp string) (K, bool)
	// stamp is a row's datapath, timestamp and IP address ("" for none).
	stamp func(R) (K, int, string)

	thresholds map[string]rules.ThresholdConfig // NB datapath -> threshold
	rows       map[string]R
	byGroup    map[K]map[string]bool
	// limit is the most rows one run removes, 0 for no limit.
	limit uint32
	// changed says that something changed since the last run; scheduled
	// that a run is due at next, the earliest expiry (the aging waker).
	changed, scheduled bool
	next               time.Time
}

// newMACBindingAging ages the MAC_Binding rows of routers' datapaths.
func newMACBindingAging() *aging[*sb.MACBinding, string] {
	return &aging[*sb.MACBinding, string]{
		table: sb.MACBindingTable, thresholds: map[string]rules.ThresholdConfig{},
		feature: "mac-binding-timestamp",
		group:   func(_ *Writer, dp string) (string, bool) { return dp, true },
		stamp:   func(r *sb.MACBinding) (string, int, string) { return r.Datapath, r.Timestamp, r.IP },
	}
}

// newFDBAging ages the FDB rows of switches, found by their datapath's
// tunnel key.
func newFDBAging() *aging[*sb.FDB, int] {
	return &aging[*sb.FDB, int]{
		table: sb.FDBTable, thresholds: map[string]rules.ThresholdConfig{},
		feature: "fdb-timestamp",
		group: func(w *Writer, dp string) (int, bool) {
			if d := w.m.dps[dp]; d != nil {
				return d.TunnelKey, true
			}
			return 0, false
		},
		stamp: func(r *sb.FDB) (int, int, string) { return r.DpKey, r.Timestamp, "" },
	}
}

func (a *aging[R, K]) reset() {
	a.rows, a.byGroup = map[string]R{}, map[K]map[string]bool{}
	a.changed = true
}

// apply records an SB change of the table or of Chassis.
func (a *aging[R, K]) apply(c wire.Change) {
	switch c.Table {
	case a.table:
		if r, ok := c.Old.(R); ok {
			key, _, _ := a.stamp(r)
			delete(a.rows, c.UUID)
			setindex.Remove(a.byGroup, key, c.UUID)
		}
		if r, ok := c.New.(R); ok {
			key, _, _ := a.stamp(r)
			a.rows[c.UUID] = r
			setindex.Add(a.byGroup, key, c.UUID)
		}
		a.changed = true
	case sb.ChassisTable:
		a.changed = true
	}
}

// set takes NB_Global's settings, a change of which sets off a run.
func (a *aging[R, K]) set(limit uint32) {
	if limit != a.limit {
		a.limit, a.changed = limit, true
	}
}

// applyProgram takes the table's new thresholds: a datapath has one at
// most, so retracting one removes the datapath's.
func (a *aging[R, K]) applyProgram(p *rules.Program) {
	for _, pass := range []int{-1, 1} {
		for _, c := range p.AgingThresholds.Delta() {
			if c.Tuple.Table != a.table || int(c.Weight) != pass {
				continue
			}
			if pass > 0 {
				a.thresholds[c.Tuple.Datapath], _, _ = rules.ParseAgingThreshold(c.Tuple.Config)
			} else {
				delete(a.thresholds, c.Tuple.Datapath)
			}
			a.changed = true
		}
	}
}

// run deletes in t the rows past their datapath's threshold, unless gone
// already (in gone), and schedules the next run (en_mac_binding_aging_run,
// en_fdb_aging_run).
func (a *aging[R, K]) run(w *Writer, t *Txn, gone map[string]bool) {
	now := time.Now()
	due := a.scheduled && !now.Before(a.next)
	if !a.changed && !due {
		return
	}
	a.changed = false
	if due {
		a.scheduled = false
	}
	if now.Before(a.next) || !w.everyChassisHas(a.feature) {
		return
	}
	nowMs := now.UnixMilli()
	nextExpire := int64(math.MaxInt64)
	var removed uint32
	atLimit := func() bool { return a.limit > 0 && removed == a.limit }
	for _, nb := range slices.Sorted(maps.Keys(a.thresholds)) {
		dp := w.dpRef(t, nb)
		if _, wanted := w.wantDP[nb]; dp == "" || !wanted {
			continue
		}
		key, ok := a.group(w, dp)
		if !ok {
			continue
		}
		for _, u := range slices.Sorted(maps.Keys(a.byGroup[key])) {
			if gone[u] {
				continue
			}
			_, timestamp, ip := a.stamp(a.rows[u])
			elapsed := nowMs - int64(timestamp)
			if elapsed < 0 {
				continue
			}
			switch threshold := int64(a.thresholds[nb].For(ip)) * 1000; {
			case threshold == 0:
			case elapsed >= threshold:
				t.delete(a.table, u)
				gone[u] = true
				removed++
			default:
				nextExpire = min(nextExpire, threshold-elapsed)
			}
			if atLimit() {
				break
			}
		}
		if atLimit() {
			nextExpire = agingBulkRemovalDelay.Milliseconds()
			break
		}
	}
	if nextExpire < math.MaxInt64 {
		a.scheduled, a.next = true, now.Add(time.Duration(nextExpire)*time.Millisecond)
	}
}

// nextRun is when a run is due, ok false when none is scheduled.
func (a *aging[R, K]) nextRun() (time.Time, bool) { return a.next, a.scheduled }
