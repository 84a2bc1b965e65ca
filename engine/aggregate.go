package engine

import (
	"iter"
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
	a.c.add(func() {
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
// sorted by cmp. Each change of a group yields a new Sorted handle.
func Collect[K, T comparable](a Index[K, T], cmp func(T, T) int) Rel[KV[K, Sorted[T]]] {
	return GroupBy(a, func(k K, ts []T) []KV[K, Sorted[T]] {
		return []KV[K, Sorted[T]]{{k, SortedOf(ts, cmp)}}
	})
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

// Sorted is an immutable sorted slice behind a comparable handle: two handles
// are equal when they are the same slice, not when their contents are.
type Sorted[T any] struct{ s *[]T }

// SortedOf returns a handle to a sorted copy of ts.
func SortedOf[T any](ts []T, cmp func(T, T) int) Sorted[T] {
	s := slices.Clone(ts)
	slices.SortFunc(s, cmp)
	return Sorted[T]{&s}
}

// Len returns the number of elements.
func (s Sorted[T]) Len() int {
	if s.s == nil {
		return 0
	}
	return len(*s.s)
}

// At returns the i'th element.
func (s Sorted[T]) At(i int) T { return (*s.s)[i] }

// All iterates over the elements in order.
func (s Sorted[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for i := range s.Len() {
			if !yield((*s.s)[i]) {
				return
			}
		}
	}
}
