package sbwriter

// keySpace is a set of tunnel keys in use (datapath keys, or the port keys
// of one datapath), held by owner, an SB row or a row being inserted.
//
// 23.03 allocates keys in every run from a hint (ovn_allocate_tnlid: the
// first free key after it, wrapping around): for datapaths the hint starts
// at zero, so a new datapath gets the lowest free key (allocateLowest); for
// the ports of a datapath it starts at the highest key kept or requested,
// so a new port gets the first free key after the highest in use
// (allocateAfterHighest). The keys of the rows it deletes in the run are
// not in use. Neither depends on what earlier runs allocated.
type keySpace struct {
	min, max int
	owner    map[int]string
	// lowFree is at most the lowest free key: every key from min below it
	// is held.
	lowFree int
	// highest is the highest key held, min-1 for none, unless
	// highestStale (the highest was released).
	highest      int
	highestStale bool
	// waiting are the ports, by name, that request a key another holds,
	// by key: reconciled again when a port of the datapath is deleted
	// (Writer.deletionGrantsKeys).
	waiting map[int]map[string]bool
}

func newKeySpace(min, max int) *keySpace {
	return &keySpace{min: min, max: max, owner: map[int]string{}, lowFree: min, highest: min - 1,
		waiting: map[int]map[string]bool{}}
}

// take records that owner holds key.
func (k *keySpace) take(key int, owner string) {
	k.owner[key] = owner
	if key > k.highest {
		k.highest = key
	}
}

// release frees key if owner holds it.
func (k *keySpace) release(key int, owner string) {
	if k.owner[key] != owner {
		return
	}
	delete(k.owner, key)
	if key < k.lowFree {
		k.lowFree = key
	}
	if key == k.highest {
		k.highestStale = true
	}
}

// free reports whether no one holds key.
func (k *keySpace) free(key int) bool {
	_, held := k.owner[key]
	return !held
}

// allocateLowest gives owner the lowest free key, or returns 0 when all
// are taken.
func (k *keySpace) allocateLowest(owner string) int {
	key := k.firstFree(max(k.lowFree, k.min), k.max)
	if key == 0 {
		return 0
	}
	k.lowFree = key + 1
	k.take(key, owner)
	return key
}

// allocateAfterHighest gives owner the first free key after the highest
// in use, wrapping around to the lowest free one, or returns 0 when all
// are taken.
func (k *keySpace) allocateAfterHighest(owner string) int {
	if k.highestStale {
		k.highest, k.highestStale = k.min-1, false
		for key := range k.owner {
			k.highest = max(k.highest, key)
		}
	}
	key := k.firstFree(k.highest+1, k.max)
	if key == 0 {
		key = k.firstFree(max(k.lowFree, k.min), k.max)
	}
	if key == 0 {
		return 0
	}
	if key == k.lowFree {
		k.lowFree++
	}
	k.take(key, owner)
	return key
}

// firstFree is the first free key from lo to hi, 0 for none.
func (k *keySpace) firstFree(lo, hi int) int {
	for key := max(lo, k.min); key <= hi; key++ {
		if k.free(key) {
			return key
		}
	}
	return 0
}
