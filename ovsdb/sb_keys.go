package ovsdb

// keySpace is a set of tunnel keys in use (datapath keys, or the port keys
// of one datapath), held by owner, an SB row or a row being inserted.
type keySpace struct {
	min, max int
	owner    map[int]string
	// hint is where the next search starts: 23.03 allocates upwards from
	// the last key it gave (datapaths) or the highest key in use (ports),
	// wrapping around.
	hint int
}

func newKeySpace(min, max int) *keySpace {
	return &keySpace{min: min, max: max, owner: map[int]string{}, hint: min - 1}
}

// take records that owner holds key.
func (k *keySpace) take(key int, owner string) {
	k.owner[key] = owner
	if key > k.hint {
		k.hint = key
	}
}

// release frees key if owner holds it.
func (k *keySpace) release(key int, owner string) {
	if k.owner[key] == owner {
		delete(k.owner, key)
	}
}

// free reports whether no one holds key.
func (k *keySpace) free(key int) bool {
	_, held := k.owner[key]
	return !held
}

// allocate gives owner the first free key after the hint, wrapping around,
// from the smallest when the hint is the largest key or beyond it
// (ovn_allocate_tnlid), or 0 when all are taken.
func (k *keySpace) allocate(owner string) int {
	start := k.hint + 1
	if start > k.max || start < k.min {
		start = k.min
	}
	for i := range k.max - k.min + 1 {
		key := k.min + (start-k.min+i)%(k.max-k.min+1)
		if k.free(key) {
			k.take(key, owner)
			return key
		}
	}
	return 0
}

// allocateAfterHighest is allocate searching from the highest key in use.
func (k *keySpace) allocateAfterHighest(owner string) int {
	k.hint = k.min - 1
	for key := range k.owner {
		k.hint = max(k.hint, key)
	}
	return k.allocate(owner)
}
