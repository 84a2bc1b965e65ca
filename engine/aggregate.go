package engine

import (
	"slices"
)

// GroupBy computes f(k, group) for each key k of a whose group — the distinct
// tuples of positive weight under k — is not empty. For each key whose group
// changed in a step it retracts exactly what f returned before and inserts
// what f returns now. f sees the group in an unspecified order (f must sort
// if it cares), is never called for an empty group, and must not keep the
// slice it is given.
func GroupBy[K, T, O comparable](a Index[K, T], f func(K, []T) []O) Rel[O] {
	out := newRel[O](a.c)
	emitted := map[K][]O{}
	a.c.add([]changer{a.a}, func() {
		for k := range a.a.delta {
			ts, changed := a.a.after(k)
			if !changed {
				continue
			}
			for _, o := range emitted[k] {
				out.s.add(o, -1)
			}
			delete(emitted, k)
			if len(ts) == 0 {
				continue
			}
			os := slices.Clone(f(k, ts))
			for _, o := range os {
				out.s.add(o, 1)
			}
			if len(os) > 0 {
				emitted[k] = os
			}
		}
	}, nil)
	return out
}

// KV is an aggregate's result for one key.
type KV[K, V comparable] struct {
	Key   K
	Value V
}

// Count computes, for each key of a, the number of distinct tuples of
// positive weight under it.
func Count[K, T comparable](a Index[K, T]) Rel[KV[K, int]] {
	return GroupBy(a, func(k K, ts []T) []KV[K, int] { return []KV[K, int]{{k, len(ts)}} })
}

// Min computes, for each key of a, its least tuple by cmp (an arbitrary one
// of those cmp ties).
func Min[K, T comparable](a Index[K, T], cmp func(T, T) int) Rel[KV[K, T]] {
	return GroupBy(a, func(k K, ts []T) []KV[K, T] { return []KV[K, T]{{k, slices.MinFunc(ts, cmp)}} })
}

// Max computes, for each key of a, its greatest tuple by cmp (an arbitrary one
// of those cmp ties).
func Max[K, T comparable](a Index[K, T], cmp func(T, T) int) Rel[KV[K, T]] {
	return GroupBy(a, func(k K, ts []T) []KV[K, T] { return []KV[K, T]{{k, slices.MaxFunc(ts, cmp)}} })
}

// Collect computes, for each key of a, its distinct tuples of positive weight
// sorted by cmp. Each change of a group yields a new Sorted handle. It edits
// the group's last Sorted rather than sorting the group again: k tuples
// entering or leaving a group of n cost O(k log n) comparisons and copies of
// the chunks they fall in and of the list of chunks (see Sorted), not a copy
// of the n tuples.
func Collect[K, T comparable](a Index[K, T], cmp func(T, T) int) Rel[KV[K, Sorted[T]]] {
	out := newRel[KV[K, Sorted[T]]](a.c)
	emitted := map[K]Sorted[T]{}
	a.c.add([]changer{a.a}, func() {
		for k, changes := range a.a.delta {
			// The tuples whose weight crosses zero: a delta holds each tuple
			// once per key.
			g := a.a.state[k]
			var ins, del []T
			for _, ch := range changes {
				w := g.weight(ch.Tuple)
				if was, is := w > 0, w+ch.Weight > 0; is && !was {
					ins = append(ins, ch.Tuple)
				} else if was && !is {
					del = append(del, ch.Tuple)
				}
			}
			if len(ins) == 0 && len(del) == 0 {
				continue
			}
			old := emitted[k]
			if old.Len() > 0 {
				out.s.add(KV[K, Sorted[T]]{k, old}, -1)
			}
			next := editSorted(old, ins, del, cmp, chunkSize)
			if next.Len() == 0 {
				delete(emitted, k)
				continue
			}
			emitted[k] = next
			out.s.add(KV[K, Sorted[T]]{k, next}, 1)
		}
	}, nil)
	return out
}

// Fold computes, for each key of a, add folded over its distinct tuples of
// positive weight starting from init. The order of the tuples is unspecified,
// so add must not depend on it.
func Fold[K, T, S comparable](a Index[K, T], init S, add func(S, T) S) Rel[KV[K, S]] {
	return GroupBy(a, func(k K, ts []T) []KV[K, S] {
		s := init
		for _, t := range ts {
			s = add(s, t)
		}
		return []KV[K, S]{{k, s}}
	})
}
