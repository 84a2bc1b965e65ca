package engine

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Circuit is a dataflow graph of operators over relations. Operators are added
// in build order, each reading only relations built before it, so the graph is
// acyclic and a Step runs them in that order (a large one, on several cores,
// in an order that respects it: see stepParallel). It is not safe for
// concurrent use.
type Circuit struct {
	ops []op
	// streams are every relation's stream, for the first Step to tell each
	// operator which streams it is the last to read, and for a parallel
	// step to clear them.
	streams []*streamBase
	// ran lists the operators the current step ran, dirty the streams it
	// changed: a step touches only those, so its cost follows the change
	// rather than the size of the circuit.
	ran   []*op
	dirty []*streamBase
	// due marks, by position, the operators the current step is to look
	// at: the readers of the inputs changed since the last step and of
	// the relations it has changed so far. A step visits only those, so
	// an operator that nothing concerns costs it nothing, not even a look
	// at its inputs.
	due bitset
	// steps counts the steps begun, for an Output to tell its change
	// from an earlier step's.
	steps    uint64
	rejected []*Rejected
	stepped  bool
	// describe shows a rejected tuple in Rejected.Error; nil is fmt's %v.
	describe func(any) string
	// inputs are the circuit's inputs by name, for InputOf.
	inputs map[string]any
	// pending counts the input changes buffered since the last step (an
	// upper bound: changes may net out); from parallelFrom of them, a
	// step runs its operators on up to workers goroutines (0: GOMAXPROCS).
	pending, parallelFrom, workers int
	// parallel is set while a step runs operators concurrently: they then
	// leave the circuit's lists of dirty streams and due operators alone,
	// and report rejections under mu.
	parallel bool
	mu       sync.Mutex
	// graph is the operators' dependencies, built for the first parallel
	// step.
	graph *graph
	// counts are each operator's counts since CountOps; nil when not
	// counting.
	counts []opCounts
}

// op is one operator: step computes its output change from its inputs'
// changes; commit, run after every operator has stepped, integrates the change
// into state that other operators read during step. An operator with inputs
// runs only in steps where one of them changed.
type op struct {
	ins          []changer
	step, commit func()
	// frees are the streams this operator reads last: their change is
	// dropped as soon as it has stepped, so that a large step (a cold
	// start) does not hold every intermediate relation's change at once.
	frees []*streamBase
	// state reports what it keeps between steps (nil: nothing), sites
	// who added it: Circuit.StateSizes.
	state func() StateSize
	sites sites
	// takes: the step may take a change it is the last to read and
	// edit it in place (stream.take) or keep it (stream.hand).
	takes bool
}

// changer is what an operator reads: a relation's stream or an arrangement.
type changer interface {
	// changed reports whether the current step has a change for it so far.
	changed() bool
	// readBy records that the operator at position i reads it: i is
	// marked due when it changes.
	readBy(i int)
	// writtenBy is the position of the operator whose step changes it,
	// -1 for an input's pending changes.
	writtenBy() int
	// changeSize is the number of tuples of its current change.
	changeSize() int
}

// readers are the operators that read a changer, by position.
type readers []int

// bitset is a set of operator positions.
type bitset []uint64

func (b *bitset) set(i int) {
	for i/64 >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

// has reports whether i is in the set.
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// schedule marks rs due in the current step; a parallel step looks at
// every operator instead.
func (c *Circuit) schedule(rs readers) {
	if c.parallel {
		return
	}
	for _, i := range rs {
		c.due[i/64] |= 1 << (i % 64)
	}
}

// NewCircuit returns an empty circuit.
func NewCircuit() *Circuit { return &Circuit{parallelFrom: parallelMin} }

// parallelMin is the number of input changes from which a step runs its
// operators on every core: a cold start's step, whose independent rule
// families then share the cores, and not a change's, whose few operators
// would cost more to hand between cores than to run.
const parallelMin = 4096

// ParallelFrom sets the number of input changes (n ≥ 0) from which a step
// runs independent operators concurrently (on Workers goroutines), where
// the default is a few thousand: 0 makes every step do so (for tests of
// the user functions' safety), and math.MaxInt none. The user functions
// of a circuit stepped in parallel may run concurrently with each other,
// never with themselves.
func (c *Circuit) ParallelFrom(n int) { c.parallelFrom = n }

// Workers sets how many goroutines (n ≥ 1) a parallel step runs operators
// on, at most GOMAXPROCS, which is the default: 1 steps every step in
// order whatever ParallelFrom says.
func (c *Circuit) Workers(n int) { c.workers = n }

// add appends an operator that reads ins and returns its position. Its step
// may read the streams among ins; one that reads another stream declares it
// with readBy.
func (c *Circuit) add(ins []changer, step, commit func()) int {
	if c.stepped {
		// A late operator would have missed the changes already stepped.
		panic("engine: operator added to a circuit after its first Step")
	}
	i := len(c.ops)
	c.ops = append(c.ops, op{ins: ins, step: step, commit: commit})
	runtime.Callers(2, c.ops[i].sites[:])
	for _, in := range ins {
		in.readBy(i)
	}
	c.due.set(i) // sized for every operator
	return i
}

// assignFrees gives each operator the streams it is the last to read.
func (c *Circuit) assignFrees() {
	for _, s := range c.streams {
		if s.lastReader >= 0 && !s.pinned {
			o := &c.ops[s.lastReader]
			o.frees = append(o.frees, s)
		}
	}
}

// due reports whether o must run in the current step.
func (o *op) due() bool {
	for _, in := range o.ins {
		if in.changed() {
			return true
		}
	}
	return false
}

// Step applies every pending input change and propagates it through every
// operator once. It always completes; it returns the tuples user functions
// rejected during this step, ordered by operator name and tuple.
func (c *Circuit) Step() []*Rejected {
	if !c.stepped {
		c.assignFrees()
		c.stepped = true
	}
	c.steps++
	workers := runtime.GOMAXPROCS(0)
	if c.workers > 0 {
		workers = min(workers, c.workers)
	}
	if c.pending >= c.parallelFrom && workers > 1 {
		c.stepParallel(workers)
	} else {
		c.stepInOrder()
	}
	c.pending = 0
	rej := c.rejected
	c.rejected = nil
	slices.SortFunc(rej, func(a, b *Rejected) int { return cmp.Compare(a.Error(), b.Error()) })
	return rej
}

// stepInOrder steps the due operators one after the other, in order, then
// commits them.
func (c *Circuit) stepInOrder() {
	for w := range c.due {
		// Operators mark only later ones: a word is done when empty.
		for c.due[w] != 0 {
			b := bits.TrailingZeros64(c.due[w])
			c.due[w] &^= 1 << b
			if o := &c.ops[w*64+b]; o.due() {
				outs := len(c.dirty)
				var start time.Time
				if c.counts != nil {
					start = c.countIn(w*64 + b)
				}
				o.step()
				// The streams it changed are its outputs (see stream.add).
				for _, s := range c.dirty[outs:] {
					s.settle()
				}
				if c.counts != nil {
					c.countOut(w*64+b, start, outs)
				}
				c.ran = append(c.ran, o)
				for _, s := range o.frees {
					s.clear()
				}
			}
		}
	}
	for _, o := range c.ran {
		if o.commit != nil {
			o.commit()
		}
	}
	for _, s := range c.dirty {
		s.clear()
	}
	c.ran, c.dirty = c.ran[:0], c.dirty[:0]
}

func (c *Circuit) reject(op string, t any, err error) {
	if c.parallel {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	c.rejected = append(c.rejected, &Rejected{Op: op, Tuple: t, Err: err, describe: c.describe})
}

// touched records that s's change was made or filled in the current
// step: s is cleared at its end and its readers are due. A parallel step
// clears every stream and looks at every operator instead.
func (c *Circuit) touched(s *streamBase) {
	if c.parallel {
		return
	}
	c.dirty = append(c.dirty, s)
	c.schedule(s.readers)
}

// DescribeTuples sets how the Error of the circuit's Rejected shows the
// refused tuple. Without it the tuple is shown with fmt's %v, which prints
// the address of a pointer held in a struct, not what it points to.
func (c *Circuit) DescribeTuples(describe func(any) string) { c.describe = describe }

// Rejected is a tuple that a user function refused: it produced nothing.
type Rejected struct {
	Op    string // the name given to the operator
	Tuple any    // the tuple refused
	Err   error  // why
	// describe is the circuit's DescribeTuples when the tuple was refused.
	describe func(any) string
}

// Error names the operator, the tuple (as the circuit's DescribeTuples
// shows it) and the reason.
func (r *Rejected) Error() string {
	if r.describe != nil {
		return fmt.Sprintf("%s: %s: %v", r.Op, r.describe(r.Tuple), r.Err)
	}
	return fmt.Sprintf("%s: %v: %v", r.Op, r.Tuple, r.Err)
}

// Unwrap returns the user function's error.
func (r *Rejected) Unwrap() error { return r.Err }

// stream holds the change a relation undergoes during the current step.
type stream[T comparable] struct {
	streamBase
	c     *Circuit
	delta ZSet[T]
	// reserved: delta was made for a large change (reserve).
	reserved bool
	// added records the signs of the weights added in the current
	// operator's step: only both signs may leave a zero (see add).
	added struct{ pos, neg bool }
}

// streamBase is what the circuit knows of a stream whatever its type.
type streamBase struct {
	clear func()
	// settle drops the tuples of zero weight its producer's step left.
	settle func()
	// length is the number of tuples of the change.
	length func() int
	// lastReader is the position of the last operator whose step reads the
	// stream, -1 for none; writer that of the operator whose step changes
	// it.
	lastReader, writer int
	// pinned: a commit reads the change too, so it stays to the step's end.
	pinned bool
	readers
}

func (s *stream[T]) readBy(i int) {
	s.readers = append(s.readers, i)
	s.lastReader = max(s.lastReader, i)
}

func (s *streamBase) writtenBy() int { return s.writer }

// add adds w to t's weight in the change. It leaves a weight summed to
// zero in place, which costs one map access instead of a lookup and an
// assignment; settle drops those after the producer's step, before any
// reader sees the change.
func (s *stream[T]) add(t T, w Weight) {
	if w == 0 {
		return
	}
	if s.delta == nil {
		s.delta = ZSet[T]{}
	}
	if len(s.delta) == 0 {
		// Listed again if it empties and refills: clearing twice and
		// scheduling twice are harmless.
		s.c.touched(&s.streamBase)
	}
	s.delta[t] += w
	if w > 0 {
		s.added.pos = true
	} else {
		s.added.neg = true
	}
}

func (s *stream[T]) settleDelta() {
	if s.added.pos && s.added.neg {
		maps.DeleteFunc(s.delta, func(_ T, w Weight) bool { return w == 0 })
	}
	s.added.pos, s.added.neg = false, false
}

// reserve makes room for n more tuples when the change is still empty: a
// large change (a cold start) then fills one map instead of growing it
// through every doubling, each a rehash and a garbage copy.
func (s *stream[T]) reserve(n int) {
	if len(s.delta) == 0 && n > reuseMax {
		s.delta, s.reserved = make(ZSet[T], n), true
		// Cleared at the step's end even if nothing is added (its readers
		// find it empty).
		s.c.touched(&s.streamBase)
	}
}

// grow is reserve for an operator that cannot tell the size of its change
// before computing it from n input tuples (or a join's n pairs) read in map
// order; it is called after each, i being how many it has read. See
// resized; a few tuples may yield many, hence at most 4n.
func (s *stream[T]) grow(i, n int) {
	if !s.reserved {
		s.delta, s.reserved = resized(s.delta, i, n, 4*n)
	}
}

// resized returns m, filled from the first i of n items read in map order,
// remade for all n once both i and len(m) reach reuseMax, and whether it
// was: map order being random, the items read are a fair sample (a join's
// pairs come key by key, a coarser one), and the new map is made for n/i
// times what m holds and an eighth more, at most most. Filling the map
// then costs no rehash at every doubling, and a map that most items add
// nothing to is not made large. It is called after each item until it
// reports true.
func resized[M ~map[K]V, K comparable, V any](m M, i, n, most int) (M, bool) {
	if i < reuseMax || len(m) < reuseMax {
		return m, false
	}
	size := len(m) * n / i
	grown := make(M, min(size+size/8, most))
	maps.Copy(grown, m)
	return grown, true
}

// take makes in's change the change of s, the output of the operator at
// position at, when that operator is the last to read in: it would
// otherwise copy in's tuples into a map of its own (a hash and an insert
// each, and a second map to touch) just before in's is emptied. s's
// (empty) map takes in's place, so neither stream allocates one. It
// reports whether it did; s's producer then edits the change in place.
func (s *stream[T]) take(in *stream[T], at int) bool {
	if in.lastReader != at || in.pinned || len(in.delta) == 0 || len(s.delta) > 0 {
		return false
	}
	s.delta, in.delta = in.delta, s.delta
	// A map made large stays large however few it will hold once edited:
	// dropped at the step's end (clearDelta).
	s.reserved, in.reserved = in.reserved || len(s.delta) > reuseMax, s.reserved
	s.c.touched(&s.streamBase)
	return true
}

// release drops s's change once the operator at position at, its last
// reader, has read it, before that operator's step ends (when the circuit
// would drop it): a Union of many large changes, a cold start's flows,
// then holds each only until it is added to the sum, not all of them
// beside the sum.
func (s *stream[T]) release(at int) {
	if s.lastReader == at && !s.pinned {
		s.clearDelta()
	}
}

// hand gives s's change to the operator at position at, its last reader,
// to keep past the step's end: s starts its next change with no map. It
// returns nil when at is not the last reader or a commit reads the change
// too (pinned).
func (s *stream[T]) hand(at int) ZSet[T] {
	if s.lastReader != at || s.pinned || len(s.delta) == 0 {
		return nil
	}
	d := s.delta
	s.delta, s.reserved = nil, false
	return d
}

func (s *stream[T]) changed() bool { return len(s.delta) > 0 }

func (s *stream[T]) changeSize() int { return len(s.delta) }

// clearDelta empties the change, keeping a small map for the next step
// (fewer allocations, so fewer garbage collections of a large heap) but
// dropping a large one, whose iteration would cost its capacity however few
// it holds.
func (s *stream[T]) clearDelta() {
	if s.reserved {
		// Large however few it holds.
		s.delta, s.reserved = nil, false
		return
	}
	s.delta = reuse(s.delta)
}

// reuseMax is the largest map reuse keeps.
const reuseMax = 64

// reuse returns m emptied if it is small, nil if it is large.
func reuse[M ~map[K]V, K comparable, V any](m M) M {
	if len(m) > reuseMax {
		return nil
	}
	clear(m)
	return m
}

// Rel is a relation inside a circuit, seen by operators as its stream of
// changes.
type Rel[T comparable] struct {
	c *Circuit
	s *stream[T]
}

// newRel makes a relation for the operator added next, which writes it.
func newRel[T comparable](c *Circuit) Rel[T] {
	s := &stream[T]{c: c}
	s.streamBase = streamBase{clear: s.clearDelta, settle: s.settleDelta, length: s.changeSize, lastReader: -1, writer: len(c.ops)}
	c.streams = append(c.streams, &s.streamBase)
	return Rel[T]{c, s}
}

// sameCircuit returns the circuit all of cs belong to.
func sameCircuit(cs ...*Circuit) *Circuit {
	for _, c := range cs[1:] {
		if c != cs[0] {
			panic("engine: relations from different circuits combined")
		}
	}
	return cs[0]
}

// Input is a set of tuples fed from outside. Changes are buffered until the
// next Step. Inserting a tuple already present and deleting one absent are
// no-ops, so the relation it feeds always has weights 0 or 1.
type Input[T comparable] struct {
	c       *Circuit
	name    string
	rows    map[T]struct{}
	pending ZSet[T]
	// readers is the operator that feeds its relation: scheduled by a
	// change, it runs only in steps that have one.
	readers
}

// InputOf is the input of tuples T named name that NewInput added to c
// last, or nil: how code that did not build the circuit finds an input to
// feed.
func InputOf[T comparable](c *Circuit, name string) *Input[T] {
	in, _ := c.inputs[name].(*Input[T])
	return in
}

// NewInput adds an input to c and returns it with the relation it feeds.
func NewInput[T comparable](c *Circuit, name string) (*Input[T], Rel[T]) {
	in := &Input[T]{c: c, name: name, rows: map[T]struct{}{}}
	if c.inputs == nil {
		c.inputs = map[string]any{}
	}
	c.inputs[name] = in
	out := newRel[T](c)
	out.s.pinned = true // read by the commit below
	i := c.add([]changer{in}, func() {
		// The stream's emptied map from the last step takes pending's place.
		out.s.delta, in.pending = in.pending, out.s.delta
		if len(out.s.delta) > 0 {
			c.touched(&out.s.streamBase)
		}
	}, func() {
		if len(in.rows) == 0 {
			in.rows = make(map[T]struct{}, len(out.s.delta))
		}
		for t, w := range out.s.delta {
			if w > 0 {
				in.rows[t] = struct{}{}
			} else {
				delete(in.rows, t)
			}
		}
	})
	c.ops[i].state = func() StateSize {
		return StateSize{Tuple: typeName[T](), Tuples: len(in.rows), Bytes: mapBytes[T, struct{}](len(in.rows))}
	}
	return in, out
}

// Name returns the name the input was created with.
func (in *Input[T]) Name() string { return in.name }

// Has reports whether t is in the input, pending changes included.
func (in *Input[T]) Has(t T) bool {
	_, ok := in.rows[t]
	return in.pending[t] > 0 || ok && in.pending[t] == 0
}

// Insert adds t at the next Step; a no-op if t is already present.
func (in *Input[T]) Insert(t T) {
	if !in.Has(t) {
		in.change(t, 1)
	}
}

// Delete removes t at the next Step; a no-op if t is absent.
func (in *Input[T]) Delete(t T) {
	if in.Has(t) {
		in.change(t, -1)
	}
}

// Set inserts t (present) or deletes it at the next Step.
func (in *Input[T]) Set(t T, present bool) {
	if present {
		in.Insert(t)
	} else {
		in.Delete(t)
	}
}

func (in *Input[T]) change(t T, w Weight) {
	if in.pending == nil {
		in.pending = ZSet[T]{}
	}
	if len(in.pending) == 0 {
		in.c.schedule(in.readers)
	}
	bump(in.pending, t, w)
	in.c.pending++
}

func (in *Input[T]) changed() bool { return len(in.pending) > 0 }

func (in *Input[T]) readBy(i int) { in.readers = append(in.readers, i) }

func (in *Input[T]) changeSize() int { return len(in.pending) }

func (in *Input[T]) writtenBy() int { return -1 }

// Update replaces old by new at the next Step; a no-op when old == new.
func (in *Input[T]) Update(old, new T) {
	if old != new {
		in.Delete(old)
		in.Insert(new)
	}
}

// Output is the set of tuples of positive weight in a relation, with the net
// change of the last Step.
type Output[T comparable] struct {
	c       *Circuit
	cmp     func(T, T) int
	weights group[T] // the input's weights: see Distinct
	n       int
	delta   []Change[T]
	// step is the step whose change delta holds (Circuit.steps): an
	// Output runs only in steps that change its input, and a later step
	// that does not leaves it nothing.
	step   uint64
	sorted bool // delta is sorted by cmp
	// unkept: the output keeps no weights (DropContents).
	unkept bool
	at     int // the output's operator (Circuit.ops)
	// change is an unkept output's change as its input made it, taken
	// from the input when the output is its last reader (stream.hand),
	// not copied: Delta and Changes make a list of it on demand,
	// EachChange does not.
	change ZSet[T]
}

// NewOutput maintains the distinct contents of r, ordered by cmp, which must
// be a total order on the tuples r can hold.
func NewOutput[T comparable](r Rel[T], cmp func(T, T) int) *Output[T] {
	o := &Output[T]{c: r.c, cmp: cmp}
	o.at = r.c.add([]changer{r.s}, func() {
		o.sorted, o.step = false, r.c.steps
		if o.unkept {
			o.delta = nil
			if o.change = r.s.hand(o.at); o.change == nil {
				o.change = maps.Clone(r.s.delta)
			}
			return
		}
		// At most one change per tuple of the input's.
		o.delta = make([]Change[T], 0, len(r.s.delta))
		o.weights.reserve(len(r.s.delta))
		for t, d := range r.s.delta {
			if was, is := o.weights.add(t, d); was != is {
				o.delta = append(o.delta, Change[T]{t, sign(is)})
				o.n += int(sign(is))
			}
		}
	}, nil)
	r.c.ops[o.at].state = o.weights.size
	return o
}

func cmp2(first int, second Weight) int {
	if first != 0 {
		return first
	}
	return cmp.Compare(second, 0)
}

// Delta returns the last Step's net change sorted by cmp: weight −1 for a
// tuple deleted, +1 for a tuple inserted. No tuple appears twice. It sorts
// on the first call after a Step.
func (o *Output[T]) Delta() []Change[T] {
	o.Changes()
	if !o.sorted {
		slices.SortFunc(o.delta, func(a, b Change[T]) int {
			// Deletes first among equals, for a cmp that ties distinct tuples.
			return cmp2(o.cmp(a.Tuple, b.Tuple), a.Weight-b.Weight)
		})
		o.sorted = true
	}
	return o.delta
}

// Changes returns Delta's changes in no particular order, without sorting
// them: for a consumer that keys them itself (a cold start's change is the
// whole output, and sorting it costs more than computing it).
func (o *Output[T]) Changes() []Change[T] {
	o.forgetOld()
	if o.change != nil {
		o.delta = make([]Change[T], 0, len(o.change))
		for t, w := range o.change {
			o.delta = append(o.delta, Change[T]{t, w})
		}
		o.change = nil
	}
	return o.delta
}

// EachChange yields Changes' tuples and weights without making a list of
// them when the output keeps nothing (DropContents): a cold start's change
// is the whole output, and its input's map is then all that holds it.
func (o *Output[T]) EachChange() iter.Seq2[T, Weight] {
	o.forgetOld()
	return func(yield func(T, Weight) bool) {
		if o.change != nil {
			for t, w := range o.change {
				if !yield(t, w) {
					return
				}
			}
			return
		}
		for _, c := range o.delta {
			if !yield(c.Tuple, c.Weight) {
				return
			}
		}
	}
}

// forgetOld drops the change of an earlier step than the last.
func (o *Output[T]) forgetOld() {
	if o.step != o.c.steps {
		o.delta, o.change, o.sorted = nil, nil, false
	}
}

// DropChanges forgets the last Step's change once its reader has it: Delta
// and Changes are empty until the next Step. A cold start's change is the
// whole output, which would otherwise stay until then.
func (o *Output[T]) DropChanges() { o.delta, o.change, o.sorted = nil, nil, false }

// DropContents makes the output keep nothing of its input, for a reader
// that keeps what it needs of the relation itself: an Output holds every
// tuple of its input, which for a program's largest output is a second copy
// of it. From then on a Step's change is the input's own, a multiset's: a
// tuple comes with any weight, one of weight 2 losing 1 included, and
// Contents and Len are not to be used. It is called before the first Step.
func (o *Output[T]) DropContents() {
	o.unkept, o.weights = true, group[T]{}
	o.c.ops[o.at].takes = true // it keeps its input's change (stream.hand)
}

// Contents returns the current set sorted by cmp.
func (o *Output[T]) Contents() []T {
	o.mustKeep("Contents")
	ts := make([]T, 0, o.n)
	for t := range o.weights.positives {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, o.cmp)
	return ts
}

// Len returns the number of tuples in the current set.
func (o *Output[T]) Len() int {
	o.mustKeep("Len")
	return o.n
}

func (o *Output[T]) mustKeep(method string) {
	if o.unkept {
		panic("engine: Output." + method + " after DropContents")
	}
}
