package engine

// Index is an arrangement: the integrated contents of a relation grouped by a
// key. Build it once per relation and key with IndexBy and pass it to every
// operator that reads the relation by that key; they share its state.
type Index[K, T comparable] struct {
	c *Circuit
	a *arrangement[K, T]
}

// arrangement holds a relation's contents by key as of the start of the
// step (state) and the step's change by key (delta); the change is folded
// into state after every operator has read both.
type arrangement[K, T comparable] struct {
	state map[K]group[T]
	delta map[K][]Change[T]
	readers
}

// group is the tuples of one key with their non-zero weights.
type group[T comparable] struct {
	items []Change[T]
	pos   map[T]int // index of each tuple in items, once the group is large
	npos  int       // how many items have positive weight
}

// linearMax is the group size up to which lookups scan items rather than
// keep a map: most groups are small, and a map per group would dominate the
// memory of the arrangement.
const linearMax = 16

func (g *group[T]) find(t T) int {
	if g.pos != nil {
		if i, ok := g.pos[t]; ok {
			return i
		}
		return -1
	}
	for i, it := range g.items {
		if it.Tuple == t {
			return i
		}
	}
	return -1
}

func (g *group[T]) weight(t T) Weight {
	if i := g.find(t); i >= 0 {
		return g.items[i].Weight
	}
	return 0
}

func (g *group[T]) add(t T, d Weight) {
	i := g.find(t)
	if i < 0 {
		g.items = append(g.items, Change[T]{t, d})
		if g.pos != nil {
			g.pos[t] = len(g.items) - 1
		} else if len(g.items) > linearMax {
			g.pos = make(map[T]int, len(g.items))
			for j, it := range g.items {
				g.pos[it.Tuple] = j
			}
		}
		if d > 0 {
			g.npos++
		}
		return
	}
	old := g.items[i].Weight
	w := old + d
	g.npos += int(b2i(w > 0) - b2i(old > 0))
	if w != 0 {
		g.items[i].Weight = w
		return
	}
	last := len(g.items) - 1
	g.items[i] = g.items[last]
	g.items = g.items[:last]
	if g.pos != nil {
		delete(g.pos, t)
		if i != last {
			g.pos[g.items[i].Tuple] = i
		}
	}
}

func b2i(b bool) Weight {
	if b {
		return 1
	}
	return 0
}

// IndexBy arranges r by key.
func IndexBy[K, T comparable](r Rel[T], key func(T) K) Index[K, T] {
	a := &arrangement[K, T]{state: map[K]group[T]{}}
	r.c.add([]changer{r.s}, func() {
		for t, w := range r.s.delta {
			if a.delta == nil {
				a.delta = map[K][]Change[T]{}
			}
			if len(a.delta) == 0 {
				r.c.schedule(a.readers)
			}
			k := key(t)
			a.delta[k] = append(a.delta[k], Change[T]{t, w})
		}
	}, func() {
		if len(a.state) == 0 {
			a.state = make(map[K]group[T], len(a.delta))
		}
		for k, changes := range a.delta {
			g := a.state[k]
			for _, ch := range changes {
				g.add(ch.Tuple, ch.Weight)
			}
			if len(g.items) == 0 {
				delete(a.state, k)
			} else {
				a.state[k] = g
			}
		}
		a.delta = reuse(a.delta)
	})
	return Index[K, T]{r.c, a}
}

func (a *arrangement[K, T]) changed() bool { return len(a.delta) > 0 }

func (a *arrangement[K, T]) readBy(i int) { a.readers = append(a.readers, i) }

// present reports whether key k has a tuple of positive weight before and
// after the step's change.
func (a *arrangement[K, T]) present(k K) (before, after bool) {
	g := a.state[k]
	n := Weight(g.npos)
	for _, ch := range a.delta[k] {
		w := g.weight(ch.Tuple)
		n += b2i(w+ch.Weight > 0) - b2i(w > 0)
	}
	return g.npos > 0, n > 0
}

// after returns the distinct tuples of positive weight of key k after the
// step's change, and whether that set differs from the one before; when it
// does not, the tuples are not computed.
func (a *arrangement[K, T]) after(k K) ([]T, bool) {
	g := a.state[k]
	changes := a.delta[k]
	touched := make(map[T]Weight, len(changes))
	changed := false
	for _, ch := range changes {
		w := g.weight(ch.Tuple)
		touched[ch.Tuple] = w + ch.Weight
		changed = changed || (w > 0) != (w+ch.Weight > 0)
	}
	if !changed {
		return nil, false
	}
	ts := make([]T, 0, g.npos+len(changes))
	for _, it := range g.items {
		if _, ok := touched[it.Tuple]; !ok && it.Weight > 0 {
			ts = append(ts, it.Tuple)
		}
	}
	for t, w := range touched {
		if w > 0 {
			ts = append(ts, t)
		}
	}
	return ts, true
}

// Join computes f(k, x, y) for every x of a and y of b under the same key k,
// with weight the product of theirs.
func Join[K, A, B, O comparable](a Index[K, A], b Index[K, B], f func(K, A, B) O) Rel[O] {
	out := newRel[O](sameCircuit(a.c, b.c))
	out.c.add([]changer{a.a, b.a}, func() {
		// ΔA⋈B + ΔA⋈ΔB, with B as of the step's start.
		for k, da := range a.a.delta {
			bs, db := b.a.state[k].items, b.a.delta[k]
			for _, x := range da {
				for _, y := range bs {
					out.s.add(f(k, x.Tuple, y.Tuple), x.Weight*y.Weight)
				}
				for _, y := range db {
					out.s.add(f(k, x.Tuple, y.Tuple), x.Weight*y.Weight)
				}
			}
		}
		// A⋈ΔB, with A as of the step's start.
		for k, db := range b.a.delta {
			as := a.a.state[k].items
			for _, y := range db {
				for _, x := range as {
					out.s.add(f(k, x.Tuple, y.Tuple), x.Weight*y.Weight)
				}
			}
		}
	}, nil)
	return out
}

// SemiJoin computes a's tuples whose key has a tuple of positive weight in b.
func SemiJoin[K, A, B comparable](a Index[K, A], b Index[K, B]) Rel[A] {
	return keyFilter(a, b, true)
}

// AntiJoin computes a's tuples whose key has no tuple of positive weight in b.
func AntiJoin[K, A, B comparable](a Index[K, A], b Index[K, B]) Rel[A] {
	return keyFilter(a, b, false)
}

// keyFilter keeps a's tuples whose key's presence in b equals want. With
// keep(k) = (present in b) == want, its change is
// keep_new·ΔA + (keep_new − keep_old)·A_old.
func keyFilter[K, A, B comparable](a Index[K, A], b Index[K, B], want bool) Rel[A] {
	out := newRel[A](sameCircuit(a.c, b.c))
	out.c.add([]changer{a.a, b.a}, func() {
		for k, da := range a.a.delta {
			if _, now := b.a.present(k); now == want {
				for _, x := range da {
					out.s.add(x.Tuple, x.Weight)
				}
			}
		}
		for k := range b.a.delta {
			was, now := b.a.present(k)
			if was == now {
				continue
			}
			s := sign(now == want)
			for _, x := range a.a.state[k].items {
				out.s.add(x.Tuple, s*x.Weight)
			}
		}
	}, nil)
	return out
}
