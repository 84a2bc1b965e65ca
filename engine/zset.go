package engine

// Weight is the multiplicity of a tuple in a Z-set: positive for copies
// present (or inserted), negative for copies deleted.
type Weight = int64

// ZSet is a relation or a change to one: each tuple with its non-zero weight.
// Zero weights are never stored.
type ZSet[T comparable] map[T]Weight

// Change is one tuple of a change with its weight.
type Change[T comparable] struct {
	Tuple  T
	Weight Weight
}

// bump adds d to m[t], dropping the entry when the sum is zero, and reports
// whether t had positive weight before and after.
func bump[T comparable](m map[T]Weight, t T, d Weight) (was, is bool) {
	old := m[t]
	w := old + d
	if w == 0 {
		delete(m, t)
	} else {
		m[t] = w
	}
	return old > 0, w > 0
}

// sign is +1 for true and −1 for false: the weight that inserts or deletes.
func sign(insert bool) Weight {
	if insert {
		return 1
	}
	return -1
}
