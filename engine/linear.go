package engine

// Map computes f of every tuple of r, adding the weights of tuples that map to
// the same result.
func Map[A, B comparable](r Rel[A], f func(A) B) Rel[B] {
	out := newRel[B](r.c)
	r.c.add([]changer{r.s}, func() {
		out.s.reserve(len(r.s.delta))
		for t, w := range r.s.delta {
			out.s.add(f(t), w)
		}
	}, nil)
	return out
}

// TryMap is Map for an f that may reject a tuple: a rejected tuple yields
// nothing and is reported by Step as Rejected{Op: name} when it is inserted
// (not again when it is retracted). f must give the same answer for the same
// tuple every time.
func TryMap[A, B comparable](r Rel[A], name string, f func(A) (B, error)) Rel[B] {
	out := newRel[B](r.c)
	r.c.add([]changer{r.s}, func() {
		out.s.reserve(len(r.s.delta))
		for t, w := range r.s.delta {
			b, err := f(t)
			if err != nil {
				if w > 0 {
					r.c.reject(name, t, err)
				}
				continue
			}
			out.s.add(b, w)
		}
	}, nil)
	return out
}

// Report reports, as TryMap does, the tuples inserted into r that check
// refuses (Rejected{Op: name}, by the Step that inserts them), and computes
// nothing: for a rule that logs a row and keeps it, or drops it elsewhere.
// check is not called for retracted tuples. It must give the same answer
// for the same tuple every time.
func Report[T comparable](r Rel[T], name string, check func(T) error) {
	r.c.add([]changer{r.s}, func() {
		for t, w := range r.s.delta {
			if w <= 0 {
				continue
			}
			if err := check(t); err != nil {
				r.c.reject(name, t, err)
			}
		}
	}, nil)
}

// Filter computes the tuples of r for which keep is true. As the last
// reader of r's change it takes that change and deletes from it the tuples
// it drops (see stream.take).
func Filter[T comparable](r Rel[T], keep func(T) bool) Rel[T] {
	kept, _ := partition(r, keep, false)
	return kept
}

// Partition computes Filter(r, keep) and Filter(r, not keep) in one
// operator: the tuples of r for which keep is true, and the others. A step
// that changes only tuples of one side leaves the other's readers alone,
// as Filter does, for one operator instead of two. As the last reader of
// r's change it takes that change for the kept tuples and moves the others
// out of it (see stream.take): the side expected to be the larger is the
// one keep says yes to.
func Partition[T comparable](r Rel[T], keep func(T) bool) (kept, rest Rel[T]) {
	return partition(r, keep, true)
}

// partition is Partition, or Filter's kept tuples alone when withRest is
// false.
func partition[T comparable](r Rel[T], keep func(T) bool, withRest bool) (kept, rest Rel[T]) {
	kept = newRel[T](r.c)
	if withRest {
		rest = newRel[T](r.c)
	}
	var at int
	at = r.c.add([]changer{r.s}, func() {
		n := len(r.s.delta)
		i := 0
		if kept.s.take(r.s, at) {
			for t, w := range kept.s.delta {
				if !keep(t) {
					delete(kept.s.delta, t)
					if withRest {
						rest.s.add(t, w)
					}
				}
				if withRest {
					i++
					rest.s.grow(i, n)
				}
			}
			return
		}
		for t, w := range r.s.delta {
			switch {
			case keep(t):
				kept.s.add(t, w)
			case withRest:
				rest.s.add(t, w)
			}
			i++
			kept.s.grow(i, n)
			if withRest {
				rest.s.grow(i, n)
			}
		}
	}, nil)
	r.c.ops[at].takes = true
	return kept, rest
}

// Split is a relation partitioned by a key, into the parts asked for with
// Of. One operator reads each tuple's key once and adds the tuple to its
// part, so that a reader of a part runs only in steps that change that
// part: a Filter per part would run, and test every tuple, in each step
// that changes the whole relation.
type Split[K, T comparable] struct {
	c *Circuit
	// at is the operator's position, the writer of every part.
	at    int
	parts map[K]*stream[T]
}

// SplitBy partitions r by key.
func SplitBy[K, T comparable](r Rel[T], key func(T) K) *Split[K, T] {
	s := &Split[K, T]{c: r.c, parts: map[K]*stream[T]{}}
	s.at = r.c.add([]changer{r.s}, func() {
		i := 0
		for t, w := range r.s.delta {
			i++
			if p := s.parts[key(t)]; p != nil {
				p.add(t, w)
				p.grow(i, len(r.s.delta))
			}
		}
	}, nil)
	return s
}

// Of is the part of the tuples whose key is k. Parts are asked for before
// the circuit's first Step, as operators are added.
func (s *Split[K, T]) Of(k K) Rel[T] {
	if p := s.parts[k]; p != nil {
		return Rel[T]{s.c, p}
	}
	if s.c.stepped {
		panic("engine: part of a Split asked for after its circuit's first Step")
	}
	out := newRel[T](s.c)
	out.s.writer = s.at
	s.parts[k] = out.s
	return out
}

// FlatMap computes, for every tuple of r, each element of f's result with
// that tuple's weight (an element listed twice counts twice).
func FlatMap[A, B comparable](r Rel[A], f func(A) []B) Rel[B] {
	out := newRel[B](r.c)
	r.c.add([]changer{r.s}, func() {
		i := 0
		for t, w := range r.s.delta {
			for _, b := range f(t) {
				out.s.add(b, w)
			}
			i++
			out.s.grow(i, len(r.s.delta))
		}
	}, nil)
	return out
}

// Union computes the sum of rs: weights of a tuple in several add up (wrap in
// Distinct for a set union). As the last reader of the largest change among
// rs it takes that change and adds the others to it (see stream.take); the
// other changes it is the last to read it drops as soon as they are added
// (see stream.release).
func Union[T comparable](rs ...Rel[T]) Rel[T] {
	cs := make([]*Circuit, len(rs))
	for i, r := range rs {
		cs[i] = r.c
	}
	out := newRel[T](sameCircuit(cs...))
	ins := make([]changer, len(rs))
	// once are the streams rs lists once: one listed twice is read twice,
	// so its change is neither to be taken nor dropped after one reading.
	once := make([]bool, len(rs))
	for i, r := range rs {
		ins[i] = r.s
		listed := 0
		for _, q := range rs {
			listed += int(b2i(q.s == r.s))
		}
		once[i] = listed == 1
	}
	var at int
	at = out.c.add(ins, func() {
		n := 0
		var largest *stream[T]
		for i, r := range rs {
			if once[i] && (largest == nil || len(r.s.delta) > len(largest.delta)) {
				largest = r.s
			}
			n += len(r.s.delta)
		}
		if largest == nil || !out.s.take(largest, at) {
			out.s.reserve(n)
		}
		for i, r := range rs {
			// A taken change leaves r's empty.
			for t, w := range r.s.delta {
				out.s.add(t, w)
			}
			if once[i] {
				r.s.release(at)
			}
		}
	}, nil)
	out.c.ops[at].takes = true
	return out
}

// Negate computes r with every weight negated; Union(a, Negate(b)) is a − b.
func Negate[T comparable](r Rel[T]) Rel[T] {
	out := newRel[T](r.c)
	r.c.add([]changer{r.s}, func() {
		out.s.reserve(len(r.s.delta))
		for t, w := range r.s.delta {
			out.s.add(t, -w)
		}
	}, nil)
	return out
}

// Distinct computes the set of r's tuples of positive weight: weights above
// zero become 1, others vanish. It emits a change only for tuples whose
// weight crosses zero.
func Distinct[T comparable](r Rel[T]) Rel[T] {
	out := newRel[T](r.c)
	// Its input's weights, in a group: a slice and an index of positions
	// cost less per tuple than a Go map.
	var weights group[T]
	i := r.c.add([]changer{r.s}, func() {
		weights.reserve(len(r.s.delta))
		out.s.reserve(len(r.s.delta))
		for t, d := range r.s.delta {
			if was, is := weights.add(t, d); was != is {
				out.s.add(t, sign(is))
			}
		}
	}, nil)
	r.c.ops[i].state = weights.size
	return out
}
