package engine

import (
	"hash/maphash"
	"math/bits"
	"slices"
)

// Index is an arrangement: the integrated contents of a relation grouped by a
// key. Build it once per relation and key with IndexBy and pass it to every
// operator that reads the relation by that key; they share its state.
type Index[K, T comparable] struct {
	c *Circuit
	a *arrangement[K, T]
}

// arrangement holds a relation's contents by key as of the start of the
// step (one, many, big) and the step's change by key (delta); the change
// is folded into the contents after every operator has read both.
type arrangement[K, T comparable] struct {
	// one holds the groups that are a single tuple of weight 1, most of
	// them, inline: no slice, no heap object of their own. many holds the
	// other groups' items, and big the index of those of more than
	// linearMax items, few enough that a map of their own costs less than
	// a pointer in every group. A key is in one or many, not both.
	one   map[K]T
	many  map[K][]Change[T]
	big   map[K]*tupleIndex[T]
	delta map[K][]Change[T]
	readers
	// pairReaders are the operators that read it only beside another
	// arrangement by the same key: due on its change of a key only when
	// the other holds tuples under that key.
	pairReaders []pairReader[K]
	writer      int // the IndexBy operator's position
}

// pairReader is an operator whose output, on a change of one arrangement,
// is made only of that change's tuples paired with tuples of other under
// the same key: with nothing in other under the keys changed, it has
// nothing to do.
type pairReader[K comparable] struct {
	op    int
	other holder[K]
}

// holder is an arrangement as a pairReader's other side sees it.
type holder[K comparable] interface {
	// empty reports whether it holds no tuple, neither as of the step's
	// start nor in the step's change so far; holds, whether it holds one
	// under key k.
	empty() bool
	holds(k K) bool
}

func (a *arrangement[K, T]) empty() bool {
	return len(a.one) == 0 && len(a.many) == 0 && len(a.delta) == 0
}

func (a *arrangement[K, T]) holds(k K) bool {
	if _, ok := a.one[k]; ok {
		return true
	}
	return len(a.many[k]) > 0 || len(a.delta[k]) > 0
}

// readBeside makes operator i, a reader of a, due on a's change of a key
// only when other holds tuples under that key or has changed them earlier
// in the step. When other changes them later in the step, a's change is
// there for other to make i due, so the pairs of the two changes are not
// missed. An arrangement read beside itself stays a plain reader.
func (a *arrangement[K, T]) readBeside(i int, other holder[K]) {
	if holder[K](a) == other {
		return
	}
	a.readers = slices.DeleteFunc(a.readers, func(r int) bool { return r == i })
	a.pairReaders = append(a.pairReaders, pairReader[K]{i, other})
}

// scheduleReaders marks a's plain readers due, on its first change in a
// step. A parallel step looks at every operator instead, and other
// arrangements may be changing beside this one then.
func (a *arrangement[K, T]) scheduleReaders(c *Circuit) {
	if !c.parallel {
		c.schedule(a.readers)
	}
}

// scheduleBeside marks due, on the first change of key k in a step, the
// pair readers whose other side holds tuples under k: a change of keys
// the other side lacks runs no reader, though the other side holds other
// keys. Each costs a look at the other side's maps, which the reader
// would have made.
func (a *arrangement[K, T]) scheduleBeside(c *Circuit, k K) {
	if c.parallel {
		return
	}
	for _, r := range a.pairReaders {
		if !c.due.has(r.op) && !r.other.empty() && r.other.holds(k) {
			c.schedule(readers{r.op})
		}
	}
}

// group is the tuples of one key with their non-zero weights.
type group[T comparable] struct {
	// single: the group is one tuple of weight 1, held in one; items is
	// empty then.
	single bool
	one    T
	items  []Change[T]
	// big indexes items by tuple once the group holds more than linearMax
	// of them; nil before.
	big *tupleIndex[T]
}

// group returns key k's group as of the start of the step.
func (a *arrangement[K, T]) group(k K) group[T] {
	if t, ok := a.one[k]; ok {
		return group[T]{single: true, one: t}
	}
	g := group[T]{items: a.many[k]}
	if len(g.items) > linearMax {
		g.big = a.big[k]
	}
	return g
}

// store records g as key k's group.
func (a *arrangement[K, T]) store(k K, g group[T]) {
	switch {
	case len(g.items) > linearMax:
		if a.big == nil {
			a.big = map[K]*tupleIndex[T]{}
		}
		a.big[k] = g.big
	case g.big != nil:
		// Shrunk to a size that scans: its next growth builds a new one.
		delete(a.big, k)
	}
	if len(g.items) == 1 && g.items[0].Weight == 1 {
		g = group[T]{single: true, one: g.items[0].Tuple}
	}
	switch {
	case g.single:
		a.one[k] = g.one
		delete(a.many, k)
	case len(g.items) == 0:
		delete(a.one, k)
		delete(a.many, k)
	default:
		delete(a.one, k)
		a.many[k] = g.items
	}
}

// linearMax is the group size up to which lookups scan items rather than
// keep an index: most groups are small, and an index per group would
// dominate the memory of the arrangement.
const linearMax = 16

// newGroup is the group of a key's first change, which holds each tuple
// once with a non-zero weight. It keeps the change's slice unless appending
// left it spare capacity, which the group would hold as long as it lives.
func newGroup[T comparable](changes []Change[T]) group[T] {
	if len(changes) == 1 && changes[0].Weight == 1 {
		return group[T]{single: true, one: changes[0].Tuple}
	}
	g := group[T]{items: changes}
	if cap(changes) > len(changes) {
		g.items = slices.Clone(changes)
	}
	if len(g.items) > linearMax {
		g.big = newTupleIndex(g.items)
	}
	return g
}

// len returns how many tuples the group holds.
func (g *group[T]) len() int {
	if g.single {
		return 1
	}
	return len(g.items)
}

// at returns the i'th tuple with its weight, in no particular order.
func (g *group[T]) at(i int) Change[T] {
	if g.single {
		return Change[T]{g.one, 1}
	}
	return g.items[i]
}

func (g *group[T]) find(t T) int {
	switch {
	case g.single:
		if g.one == t {
			return 0
		}
		return -1
	case g.big != nil:
		_, i := g.big.slot(g.items, t)
		return i
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
		return g.at(i).Weight
	}
	return 0
}

// positive returns how many tuples have positive weight.
func (g *group[T]) positive() int {
	switch {
	case g.single:
		return 1
	case g.big != nil:
		return g.big.npos
	}
	n := 0
	for _, it := range g.items {
		n += int(b2i(it.Weight > 0))
	}
	return n
}

// add adds d to t's weight and reports whether t had positive weight before
// and after.
func (g *group[T]) add(t T, d Weight) (was, is bool) {
	switch {
	case g.single && g.one == t && d == -1:
		*g = group[T]{}
		return true, false
	case g.single:
		g.items = append(make([]Change[T], 0, 2), Change[T]{g.one, 1})
		g.single, g.one = false, *new(T)
	case g.items == nil && d == 1:
		// Empty and not reserved.
		g.single, g.one = true, t
		return false, true
	}
	s, i := -1, -1
	if g.big != nil {
		s, i = g.big.slot(g.items, t)
	} else {
		i = g.find(t)
	}
	if i < 0 {
		g.items = append(g.items, Change[T]{t, d})
		switch {
		case g.big != nil:
			g.big.npos += int(b2i(d > 0))
			g.big.put(g.items, s, len(g.items)-1)
		case len(g.items) > linearMax:
			g.big = newTupleIndex(g.items)
		}
		return false, d > 0
	}
	old := g.items[i].Weight
	w := old + d
	if g.big != nil {
		g.big.npos += int(b2i(w > 0) - b2i(old > 0))
	}
	if w != 0 {
		g.items[i].Weight = w
		return old > 0, w > 0
	}
	last := len(g.items) - 1
	if g.big != nil {
		g.big.remove(g.items, s)
		if i != last {
			ls, _ := g.big.slot(g.items, g.items[last].Tuple)
			g.big.slots[ls] = int32(i + 1)
		}
	}
	g.items[i] = g.items[last]
	g.items[last] = Change[T]{} // the tuple's strings and pointers are garbage now
	g.items = g.items[:last]
	return old > 0, false
}

// reserve makes room for n tuples in an empty group: a cold start's change
// then fills one slice instead of growing it through every doubling. An
// eighth more leaves room for the next changes' inserts, which would
// otherwise copy the whole slice at the first step that inserts before it
// deletes.
func (g *group[T]) reserve(n int) {
	if g.len() == 0 && n > reuseMax {
		g.items = make([]Change[T], 0, n+n/8)
		// Indexed from the start, for n tuples: an index grown through
		// every doubling hashes every tuple again at each.
		g.big = &tupleIndex[T]{slots: make([]int32, tableSize(n))}
	}
}

// positives iterates over the tuples of positive weight.
func (g *group[T]) positives(yield func(T) bool) {
	for i := range g.len() {
		if it := g.at(i); it.Weight > 0 && !yield(it.Tuple) {
			return
		}
	}
}

// tupleIndex is a large group's index of its items by tuple: a hash table
// of positions with linear probing, kept at most half full. It costs 8 to 16
// bytes per tuple where a Go map of tuple to position would cost the tuple's
// size again and more.
type tupleIndex[T comparable] struct {
	npos int // how many items have positive weight
	// slots holds 1 + the position in items of the tuple whose probe
	// sequence reaches it, 0 where empty; its length is a power of two.
	slots []int32
}

// hashSeed seeds every tupleIndex's hash.
var hashSeed = maphash.MakeSeed()

func newTupleIndex[T comparable](items []Change[T]) *tupleIndex[T] {
	x := &tupleIndex[T]{}
	x.rebuild(items, tableSize(len(items)))
	for _, it := range items {
		x.npos += int(b2i(it.Weight > 0))
	}
	return x
}

// tableSize is the number of slots of an index for n tuples: the least
// power of two that keeps it at most half full.
func tableSize(n int) int { return 1 << bits.Len(uint(2*n-1)) }

// rebuild makes a table of size slots (a power of two) holding items.
func (x *tupleIndex[T]) rebuild(items []Change[T], size int) {
	x.slots = make([]int32, size)
	for i, it := range items {
		s, _ := x.slot(items, it.Tuple)
		x.slots[s] = int32(i + 1)
	}
}

func (x *tupleIndex[T]) home(t T) int {
	return int(maphash.Comparable(hashSeed, t)) & (len(x.slots) - 1)
}

// slot returns the slot holding t and t's position in items, or the empty
// slot where t would go and −1.
func (x *tupleIndex[T]) slot(items []Change[T], t T) (s, i int) {
	mask := len(x.slots) - 1
	for s = x.home(t); x.slots[s] != 0; s = (s + 1) & mask {
		if p := int(x.slots[s]) - 1; items[p].Tuple == t {
			return s, p
		}
	}
	return s, -1
}

// put records at the empty slot s the item just appended at position i,
// growing the table when it gets more than half full.
func (x *tupleIndex[T]) put(items []Change[T], s, i int) {
	if 2*len(items) > len(x.slots) {
		x.rebuild(items, 2*len(x.slots))
		return
	}
	x.slots[s] = int32(i + 1)
}

// remove empties slot s and moves back the entries after it that probing
// would no longer reach across the gap (deletion without tombstones).
func (x *tupleIndex[T]) remove(items []Change[T], s int) {
	mask := len(x.slots) - 1
	for j := (s + 1) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		// The entry at j may fill the gap unless its home lies after the
		// gap, up to j.
		if h := x.home(items[x.slots[j]-1].Tuple); (j-h)&mask >= (j-s)&mask {
			x.slots[s] = x.slots[j]
			s = j
		}
	}
	x.slots[s] = 0
}

func b2i(b bool) Weight {
	if b {
		return 1
	}
	return 0
}

// IndexBy arranges r by key.
func IndexBy[K, T comparable](r Rel[T], key func(T) K) Index[K, T] {
	a := &arrangement[K, T]{one: map[K]T{}, many: map[K][]Change[T]{}, writer: len(r.c.ops)}
	i := r.c.add([]changer{r.s}, func() {
		n, i, grown := len(r.s.delta), 0, false
		for t, w := range r.s.delta {
			if a.delta == nil {
				a.delta = map[K][]Change[T]{}
			}
			if len(a.delta) == 0 {
				a.scheduleReaders(r.c)
			}
			k := key(t)
			if len(a.pairReaders) > 0 && len(a.delta[k]) == 0 {
				a.scheduleBeside(r.c, k)
			}
			a.delta[k] = append(a.delta[k], Change[T]{t, w})
			if i++; !grown {
				// At most a key per tuple.
				a.delta, grown = resized(a.delta, i, n, n)
			}
		}
	}, func() {
		if len(a.one) == 0 && len(a.many) == 0 {
			a.one, a.many = sized(a.delta)
		}
		for k, changes := range a.delta {
			g := a.group(k)
			if g.len() == 0 {
				a.store(k, newGroup(changes))
				continue
			}
			// Deletes first: a single tuple replaced by another stays
			// single, without a slice for the two.
			for _, ch := range changes {
				if ch.Weight < 0 {
					g.add(ch.Tuple, ch.Weight)
				}
			}
			for _, ch := range changes {
				if ch.Weight > 0 {
					g.add(ch.Tuple, ch.Weight)
				}
			}
			a.store(k, g)
		}
		a.delta = reuse(a.delta)
	})
	r.c.ops[i].state = a.size
	return Index[K, T]{r.c, a}
}

// sized returns the maps for the groups of a first change, made for the
// number of each kind it has: filled through every doubling, they would
// hash every key again at each.
func sized[K, T comparable](delta map[K][]Change[T]) (map[K]T, map[K][]Change[T]) {
	ones := 0
	for _, changes := range delta {
		ones += int(b2i(len(changes) == 1 && changes[0].Weight == 1))
	}
	return make(map[K]T, ones), make(map[K][]Change[T], len(delta)-ones)
}

func (a *arrangement[K, T]) changed() bool { return len(a.delta) > 0 }

func (a *arrangement[K, T]) readBy(i int) { a.readers = append(a.readers, i) }

func (a *arrangement[K, T]) writtenBy() int { return a.writer }

// present reports whether key k has a tuple of positive weight before and
// after the step's change.
func (a *arrangement[K, T]) present(k K) (before, after bool) {
	g := a.group(k)
	npos := g.positive()
	n := Weight(npos)
	for _, ch := range a.delta[k] {
		w := g.weight(ch.Tuple)
		n += b2i(w+ch.Weight > 0) - b2i(w > 0)
	}
	return npos > 0, n > 0
}

// after returns the distinct tuples of positive weight of key k after the
// step's change, and whether that set differs from the one before; when it
// does not, the tuples are not computed.
func (a *arrangement[K, T]) after(k K) ([]T, bool) {
	g := a.group(k)
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
	ts := make([]T, 0, g.positive()+len(changes))
	for i := range g.len() {
		it := g.at(i)
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
	return joinPairs(a, b, true, func(out *stream[O], k K, x A, y B, w Weight) {
		out.add(f(k, x, y), w)
	}, nil)
}

// JoinFlatMap computes FlatMap(Join(a, b, pair), f'): each element of
// f(k, x, y) for every x of a and y of b under the same key k, with weight
// the product of theirs. It does not hold the pairs as a relation, which
// costs a map insert for each when f keeps few of them.
func JoinFlatMap[K, A, B, O comparable](a Index[K, A], b Index[K, B], f func(K, A, B) []O) Rel[O] {
	return joinPairs(a, b, false, func(out *stream[O], k K, x A, y B, w Weight) {
		for _, o := range f(k, x, y) {
			out.add(o, w)
		}
	}, nil)
}

// LeftJoin computes Union(Join(a, b, matched), Map(AntiJoin(a, b),
// unmatched)) in one operator: matched(k, x, y) for every x of a and y of
// b under the same key k, with weight the product of theirs, and
// unmatched(x) for every x of a whose key has no tuple of positive weight
// in b. A change of a then runs one operator, not the three of the union
// (or two, the join having nothing to pair when b is empty).
func LeftJoin[K, A, B, O comparable](a Index[K, A], b Index[K, B], matched func(K, A, B) O, unmatched func(A) O) Rel[O] {
	return joinPairs(a, b, true, func(out *stream[O], k K, x A, y B, w Weight) {
		out.add(matched(k, x, y), w)
	}, func(out *stream[O], x A, w Weight) {
		out.add(unmatched(x), w)
	})
}

// LeftJoinFlatMap is LeftJoin for functions that yield any number of
// tuples: Union(JoinFlatMap(a, b, matched), FlatMap(AntiJoin(a, b),
// unmatched)) in one operator.
func LeftJoinFlatMap[K, A, B, O comparable](a Index[K, A], b Index[K, B], matched func(K, A, B) []O, unmatched func(A) []O) Rel[O] {
	return joinPairs(a, b, false, func(out *stream[O], k K, x A, y B, w Weight) {
		for _, o := range matched(k, x, y) {
			out.add(o, w)
		}
	}, func(out *stream[O], x A, w Weight) {
		for _, o := range unmatched(x) {
			out.add(o, w)
		}
	})
}

// joinPairs is a join whose step calls emit for every pair of tuples of a
// and b under the same key that the step's change combines, with the
// product of their weights: by the bilinear rule, ΔA⋈B + ΔA⋈ΔB + A⋈ΔB, A and
// B as of the step's start. With alone (a left join), it also calls alone
// for the change of AntiJoin(a, b). With onePerPair (emit and alone add one
// tuple), the number of pairs (and of a's changed tuples) bounds the change
// and is reserved at once; otherwise the change grows from a sample
// (stream.grow).
func joinPairs[K, A, B, O comparable](a Index[K, A], b Index[K, B], onePerPair bool,
	emit func(out *stream[O], k K, x A, y B, w Weight), alone func(out *stream[O], x A, w Weight)) Rel[O] {
	out := newRel[O](sameCircuit(a.c, b.c))
	op := out.c.add([]changer{a.a, b.a}, func() {
		n, i := countPairs(a.a, b.a), 0
		if alone != nil {
			n += a.a.changeSize()
		}
		if onePerPair {
			out.s.reserve(n)
		}
		eachPair(a.a, b.a, func(k K, x A, y B, w Weight) {
			emit(out.s, k, x, y, w)
			i++
			out.s.grow(i, n)
		})
		if alone != nil {
			eachKept(a.a, b.a, false, func(x A, w Weight) {
				alone(out.s, x, w)
				i++
				out.s.grow(i, n)
			})
		}
	}, nil)
	// A left join's change of a has tuples to emit whatever b holds.
	if alone == nil {
		a.a.readBeside(op, b.a)
	}
	b.a.readBeside(op, a.a)
	return out
}

// eachPair calls pair for every pair of tuples of a and b under the same
// key that the step's change combines, with the product of their weights.
func eachPair[K, A, B comparable](a *arrangement[K, A], b *arrangement[K, B], pair func(k K, x A, y B, w Weight)) {
	for k, da := range a.delta {
		bs, db := b.group(k), b.delta[k]
		for _, x := range da {
			for j := range bs.len() {
				y := bs.at(j)
				pair(k, x.Tuple, y.Tuple, x.Weight*y.Weight)
			}
			for _, y := range db {
				pair(k, x.Tuple, y.Tuple, x.Weight*y.Weight)
			}
		}
	}
	for k, db := range b.delta {
		as := a.group(k)
		for _, y := range db {
			for j := range as.len() {
				x := as.at(j)
				pair(k, x.Tuple, y.Tuple, x.Weight*y.Weight)
			}
		}
	}
}

// countPairs counts the pairs of tuples a join combines in a step.
func countPairs[K, A, B comparable](a *arrangement[K, A], b *arrangement[K, B]) int {
	n := 0
	for k, da := range a.delta {
		bs := b.group(k)
		n += len(da) * (bs.len() + len(b.delta[k]))
	}
	for k, db := range b.delta {
		as := a.group(k)
		n += len(db) * as.len()
	}
	return n
}

// SemiJoin computes a's tuples whose key has a tuple of positive weight in b.
func SemiJoin[K, A, B comparable](a Index[K, A], b Index[K, B]) Rel[A] {
	return keyFilter(a, b, true)
}

// AntiJoin computes a's tuples whose key has no tuple of positive weight in b.
func AntiJoin[K, A, B comparable](a Index[K, A], b Index[K, B]) Rel[A] {
	return keyFilter(a, b, false)
}

// keyFilter keeps a's tuples whose key's presence in b equals want.
func keyFilter[K, A, B comparable](a Index[K, A], b Index[K, B], want bool) Rel[A] {
	out := newRel[A](sameCircuit(a.c, b.c))
	op := out.c.add([]changer{a.a, b.a}, func() {
		eachKept(a.a, b.a, want, out.s.add)
	}, nil)
	// b's change only turns a's tuples under its keys on or off; a's
	// change passes when b is empty unless the filter keeps what b has.
	b.a.readBeside(op, a.a)
	if want {
		a.a.readBeside(op, b.a)
	}
	return out
}

// eachKept calls keep for the step's change of the tuples of a whose key's
// presence in b equals want. With keep(k) = (present in b) == want, that
// change is keep_new·ΔA + (keep_new − keep_old)·A_old.
func eachKept[K, A, B comparable](a *arrangement[K, A], b *arrangement[K, B], want bool, keep func(x A, w Weight)) {
	for k, da := range a.delta {
		if _, now := b.present(k); now == want {
			for _, x := range da {
				keep(x.Tuple, x.Weight)
			}
		}
	}
	for k := range b.delta {
		was, now := b.present(k)
		if was == now {
			continue
		}
		s := sign(now == want)
		as := a.group(k)
		for j := range as.len() {
			x := as.at(j)
			keep(x.Tuple, s*x.Weight)
		}
	}
}

func (a *arrangement[K, T]) changeSize() int {
	n := 0
	for _, changes := range a.delta {
		n += len(changes)
	}
	return n
}
