package sbwriter

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
)

// macBindingTimestamp is the chassis feature (other_config key) of
// ovn-controller writing MAC_Binding timestamps
// (OVN_FEATURE_MAC_BINDING_TIMESTAMP): aging needs every chassis to have
// it.
const macBindingTimestamp = "mac-binding-timestamp"

// macBindingRemovalDelay is how long 23.03 waits to remove more MAC
// bindings after removing mac_binding_removal_limit of them
// (MAC_BINDING_BULK_REMOVAL_DELAY_MSEC).
const macBindingRemovalDelay = 5 * time.Second

// macAging deletes the MAC_Binding rows older than their router's
// options:mac_binding_age_threshold, as 23.03's mac_binding_aging node
// does: when a row, an age or a chassis changed, or when the earliest
// remaining row is due.
type macAging struct {
	ages map[string]uint32 // router NB _uuid -> threshold in seconds
	rows map[string]*sb.MACBinding
	byDP map[string]map[string]bool // SB datapath -> rows
	// limit is NB_Global options:mac_binding_removal_limit, 0 for none.
	limit uint32
	// changed says that something changed since the last run; scheduled
	// that a run is due at next, the earliest expiry (23.03's waker).
	changed, scheduled bool
	next               time.Time
}

func (a *macAging) reset() {
	a.rows, a.byDP = map[string]*sb.MACBinding{}, map[string]map[string]bool{}
	a.changed = true
}

// apply records an SB change of MAC_Binding or Chassis.
func (a *macAging) apply(c wire.Change) {
	switch c.Table {
	case sb.MACBindingTable:
		if r, ok := c.Old.(*sb.MACBinding); ok {
			delete(a.rows, c.UUID)
			removeFrom(a.byDP, r.Datapath, c.UUID)
		}
		if r, ok := c.New.(*sb.MACBinding); ok {
			a.rows[c.UUID] = r
			addTo(a.byDP, r.Datapath, c.UUID)
		}
		a.changed = true
	case sb.ChassisTable:
		a.changed = true
	}
}

// applyProgram takes the routers' new ages.
func (a *macAging) applyProgram(p *rules.Program) {
	for _, pass := range []int{-1, 1} {
		for _, c := range p.MACBindingAges.Delta() {
			if int(c.Weight) != pass {
				continue
			}
			if pass > 0 {
				a.ages[c.Tuple.Router] = c.Tuple.Threshold
			} else if a.ages[c.Tuple.Router] == c.Tuple.Threshold {
				delete(a.ages, c.Tuple.Router)
			}
			a.changed = true
		}
	}
}

// ageMACBindings deletes in t the MAC bindings past their router's age,
// unless gone already (in gone), and schedules the next run
// (en_mac_binding_aging_run).
func (w *Writer) ageMACBindings(t *Txn, gone map[string]bool) {
	a := &w.house.aging
	now := time.Now()
	due := a.scheduled && !now.Before(a.next)
	if !a.changed && !due {
		return
	}
	a.changed = false
	if due {
		a.scheduled = false
	}
	if now.Before(a.next) || !relations.EveryChassisHas(w.m.chassisOtherConfigs(), macBindingTimestamp) {
		return
	}
	nowMs := now.UnixMilli()
	nextExpire := int64(math.MaxInt64)
	var removed uint32
	for _, nb := range slices.Sorted(maps.Keys(a.ages)) {
		dp := w.dpRef(t, nb)
		if dp == "" || w.wantDP[nb].Kind != rules.Router {
			continue
		}
		threshold := int64(a.ages[nb]) * 1000
		for _, u := range slices.Sorted(maps.Keys(a.byDP[dp])) {
			if gone[u] {
				continue
			}
			switch elapsed := nowMs - int64(a.rows[u].Timestamp); {
			case elapsed < 0:
			case elapsed >= threshold:
				t.delete(sb.MACBindingTable, u)
				gone[u] = true
				removed++
			default:
				nextExpire = min(nextExpire, threshold-elapsed)
			}
			if a.limit > 0 && removed == a.limit {
				break
			}
		}
		if a.limit > 0 && removed == a.limit {
			nextExpire = macBindingRemovalDelay.Milliseconds()
			break
		}
	}
	if nextExpire < math.MaxInt64 {
		a.scheduled, a.next = true, now.Add(time.Duration(nextExpire)*time.Millisecond)
	}
}
