// Package setindex keeps sets and indexes of sets: maps from a key to the
// set of values under it, which hold no empty set.
package setindex

// Add adds v to the set of k in idx.
func Add[K, V comparable](idx map[K]map[V]bool, k K, v V) {
	if idx[k] == nil {
		idx[k] = map[V]bool{}
	}
	idx[k][v] = true
}

// Remove removes v from the set of k in idx, dropping the set when it
// empties.
func Remove[K, V comparable, X any](idx map[K]map[V]X, k K, v V) {
	delete(idx[k], v)
	if len(idx[k]) == 0 {
		delete(idx, k)
	}
}

// Put adds v to the set of k in idx (in) or removes it.
func Put[K, V comparable](idx map[K]map[V]bool, k K, v V, in bool) {
	if in {
		Add(idx, k, v)
	} else {
		Remove(idx, k, v)
	}
}

// Member puts k in set (in) or takes it out.
func Member[K comparable](set map[K]bool, k K, in bool) {
	if in {
		set[k] = true
	} else {
		delete(set, k)
	}
}
