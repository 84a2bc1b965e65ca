package enginestats

import (
	"slices"

	"github.com/northlog/northlog/ovsdb/wire"
)

// heldChanges are the net change of the batches of the iterations in
// which the engine did not run (Northd2603.Hold): for each row, as it was
// before the first of them and after the last, in the order of the rows'
// first changes. The run that follows sees them as one iteration's, so
// that what the model follows of the databases is current, at one map
// entry per row changed rather than a run of the engine per iteration.
type heldChanges struct {
	// initial says one of the batches was a database's whole contents:
	// the changes are since then.
	initial bool
	changes []wire.Change
	at      map[string]int // the index in changes of each row's change
}

func (h *heldChanges) add(batches []wire.Batch) {
	for _, b := range batches {
		if b.Initial {
			h.initial, h.changes = true, h.changes[:0]
			clear(h.at)
		}
		for _, c := range b.Changes {
			if i, ok := h.at[c.UUID]; ok {
				h.changes[i].New = c.New
				continue
			}
			if h.at == nil {
				h.at = map[string]int{}
			}
			h.at[c.UUID] = len(h.changes)
			h.changes = append(h.changes, c)
		}
	}
}

// empty tells whether no batch was held.
func (h *heldChanges) empty() bool { return !h.initial && len(h.changes) == 0 }

// before puts the held change before batches, and forgets it.
func (h *heldChanges) before(batches []wire.Batch) []wire.Batch {
	if h.empty() {
		return batches
	}
	// A row inserted and deleted while held changed nothing.
	changes := slices.DeleteFunc(h.changes, func(c wire.Change) bool { return c.Old == nil && c.New == nil })
	held := wire.Batch{Initial: h.initial, Changes: changes}
	*h = heldChanges{}
	return append([]wire.Batch{held}, batches...)
}
