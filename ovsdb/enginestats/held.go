package enginestats

import (
	"github.com/northlog/northlog/ovsdb/wire"
)

// heldChanges are the net change of the batches of the iterations in
// which the engine did not run (Northd2603.Hold): for each row, as it was
// before the first of them and after the last, in the order of the rows'
// first changes. The run that follows sees them as one iteration's, so
// that what the model follows of the databases is current, at one entry
// per row changed rather than a run of the engine per iteration. A
// northd on standby holds them for as long as the other one is active:
// a row inserted and deleted meanwhile leaves nothing.
type heldChanges struct {
	// initial says one of the batches was a database's whole contents:
	// the changes are since then.
	initial bool
	// changes has an entry for each row changed, the zero Change for a
	// row inserted and deleted since (gone); at is the index of each
	// row's entry but the gone ones.
	changes []wire.Change
	at      map[string]int
	gone    int
}

// add holds the changes of batches but those of the tables skip names.
func (h *heldChanges) add(batches []wire.Batch, skip map[string]bool) {
	for _, b := range batches {
		if b.Initial {
			h.initial, h.changes, h.gone = true, h.changes[:0], 0
			clear(h.at)
		}
		for _, c := range b.Changes {
			if skip[c.Table] {
				continue
			}
			i, ok := h.at[c.UUID]
			switch {
			case !ok:
				if h.at == nil {
					h.at = map[string]int{}
				}
				h.at[c.UUID] = len(h.changes)
				h.changes = append(h.changes, c)
			case h.changes[i].Old == nil && c.New == nil:
				delete(h.at, c.UUID)
				h.changes[i] = wire.Change{}
				h.gone++
			default:
				// What changed from the first change's Old to this New is
				// found by comparing the two: neither change's own diff or
				// columns say it.
				h.changes[i].New, h.changes[i].Diff, h.changes[i].Columns = c.New, nil, nil
			}
		}
	}
	if h.gone > len(h.changes)/2 {
		h.dropGone()
	}
}

// dropGone drops the entries of the rows gone.
func (h *heldChanges) dropGone() {
	kept := h.changes[:0]
	for _, c := range h.changes {
		if c.Old != nil || c.New != nil {
			h.at[c.UUID] = len(kept)
			kept = append(kept, c)
		}
	}
	clear(h.changes[len(kept):])
	h.changes, h.gone = kept, 0
}

// before puts the held change before batches, and forgets it.
func (h *heldChanges) before(batches []wire.Batch) []wire.Batch {
	if !h.initial && len(h.changes) == 0 {
		return batches
	}
	h.dropGone()
	held := wire.Batch{Initial: h.initial, Changes: h.changes}
	*h = heldChanges{}
	return append([]wire.Batch{held}, batches...)
}
