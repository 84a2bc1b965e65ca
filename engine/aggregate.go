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
	// What f returned by key: one tuple (most keys: Count, Fold) inline,
	// several in a slice.
	one, many := map[K]O{}, map[K][]O{}
	i := a.c.add([]changer{a.a}, func() {
		for k := range a.a.delta {
			ts, changed := a.a.after(k)
			if !changed {
				continue
			}
			if o, ok := one[k]; ok {
				out.s.add(o, -1)
				delete(one, k)
			}
			for _, o := range many[k] {
				out.s.add(o, -1)
			}
			delete(many, k)
			if len(ts) == 0 {
				continue
			}
			os := f(k, ts)
			for _, o := range os {
				out.s.add(o, 1)
			}
			switch len(os) {
			case 0:
			case 1:
				one[k] = os[0]
			default:
				many[k] = slices.Clone(os)
			}
		}
	}, nil)
	a.c.ops[i].state = func() StateSize {
		s := StateSize{Key: typeName[K](), Tuple: typeName[O](), Keys: len(one) + len(many), Tuples: len(one),
			Bytes: mapBytes[K, O](len(one)) + mapBytes[K, []O](len(many))}
		for _, os := range many {
			s.Tuples += len(os)
			s.Bytes += sliceBytes(os)
		}
		return s
	}
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
// of those cmp ties). It keeps each group sorted as Collect does, so a
// change costs what it costs Collect, not a scan of the group; a change that
// leaves the least tuple in place changes nothing downstream.
func Min[K, T comparable](a Index[K, T], cmp func(T, T) int) Rel[KV[K, T]] {
	return Map(Collect(a, cmp), func(kv KV[K, Sorted[T]]) KV[K, T] { return KV[K, T]{kv.Key, kv.Value.At(0)} })
}

// Max computes, for each key of a, its greatest tuple by cmp (an arbitrary one
// of those cmp ties), as Min does.
func Max[K, T comparable](a Index[K, T], cmp func(T, T) int) Rel[KV[K, T]] {
	return Min(a, func(x, y T) int { return cmp(y, x) })
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
	i := a.c.add([]changer{a.a}, func() {
		for k, changes := range a.a.delta {
			ins, del := crossings(a.a.group(k), changes)
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
	a.c.ops[i].state = func() StateSize { return sortedState(emitted) }
	return out
}

// crossings returns the tuples of a key's change whose weight crosses zero:
// those that join the group's tuples of positive weight and those that leave
// them. A step's change holds each tuple once per key.
func crossings[T comparable](g group[T], changes []Change[T]) (ins, del []T) {
	for _, ch := range changes {
		w := g.weight(ch.Tuple)
		if was, is := w > 0, w+ch.Weight > 0; is && !was {
			ins = append(ins, ch.Tuple)
		} else if was && !is {
			del = append(del, ch.Tuple)
		}
	}
	return ins, del
}

// Ranked is a tuple with its position in its group.
type Ranked[T comparable] struct {
	Tuple T
	Rank  int // from 1, the least by the group's order
}

// Rank computes, for each key of a, its distinct tuples of positive weight
// with their positions in the group sorted by cmp, which must order a
// group's tuples totally for the ranks to be deterministic. It keeps each
// group sorted as Collect does and emits only the tuples that enter or leave
// the group or change position: a tuple added last to a group of n costs
// O(log n) comparisons and a walk over the n/64 chunks, one added first
// renumbers all n, as it must.
func Rank[K, T comparable](a Index[K, T], cmp func(T, T) int) Rel[Ranked[T]] {
	out := newRel[Ranked[T]](a.c)
	groups := map[K]Sorted[T]{}
	i := a.c.add([]changer{a.a}, func() {
		for k, changes := range a.a.delta {
			ins, del := crossings(a.a.group(k), changes)
			if len(ins) == 0 && len(del) == 0 {
				continue
			}
			old := groups[k]
			next := editSorted(old, ins, del, cmp, chunkSize)
			if next.Len() == 0 {
				delete(groups, k)
			} else {
				groups[k] = next
			}
			diffPositions(old, next, func(i int, o T, inOld bool, n T, inNew bool) {
				if inOld {
					out.s.add(Ranked[T]{o, i + 1}, -1)
				}
				if inNew {
					out.s.add(Ranked[T]{n, i + 1}, 1)
				}
			})
		}
	}, nil)
	a.c.ops[i].state = func() StateSize { return sortedState(groups) }
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
