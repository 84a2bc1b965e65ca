package sbwriter

import (
	"cmp"
	"slices"
)

// sortedKeys is m's keys in order, nil when m is empty. Unlike
// slices.Sorted(maps.Keys(m)) it allocates nothing then: every iteration
// reconciles a few dozen dirty sets, most of them empty.
func sortedKeys[M ~map[K]V, K cmp.Ordered, V any](m M) []K {
	return sortedKeysFunc(m, cmp.Compare[K])
}

// sortedKeysFunc is m's keys sorted by compare, nil when m is empty; the
// slice is sized once (a cold start's dirty flows are tens of thousands).
func sortedKeysFunc[M ~map[K]V, K comparable, V any](m M, compare func(K, K) int) []K {
	if len(m) == 0 {
		return nil
	}
	ks := make([]K, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, compare)
	return ks
}

// cleared is an empty map to take m's place once its contents are
// consumed: m itself when it is empty already, so that an iteration with
// nothing dirty allocates nothing, else a new map (clearing m would keep a
// large one's capacity, and every later iteration over it would pay for
// it), as for a nil m. m must not be shared.
func cleared[M ~map[K]V, K comparable, V any](m M) M {
	if m != nil && len(m) == 0 {
		return m
	}
	return M{}
}
