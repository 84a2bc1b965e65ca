package engine

import (
	"slices"
	"sync"
	"sync/atomic"
)

// graph is what a parallel step needs of the circuit's shape: which
// operators wait for which, and which streams each reads and writes.
type graph struct {
	// next lists, for each operator, the operators that read what it
	// writes; waits counts, for each, the operators it reads from.
	next  [][]int32
	waits []int32
	// reads lists the streams each operator reads, by position in
	// Circuit.streams, and readers counts each stream's readers: a
	// stream is cleared once they have all stepped.
	reads   [][]int32
	readers []int32
	// writes lists the streams each operator writes.
	writes [][]*streamBase
}

func newGraph(c *Circuit) *graph {
	n := len(c.ops)
	g := &graph{next: make([][]int32, n), waits: make([]int32, n), reads: make([][]int32, n),
		readers: make([]int32, len(c.streams)), writes: make([][]*streamBase, n)}
	for id, s := range c.streams {
		g.writes[s.writer] = append(g.writes[s.writer], s)
		g.readers[id] = int32(len(s.readers))
		for _, r := range s.readers {
			g.reads[r] = append(g.reads[r], int32(id))
			// An operator may read a stream it does not list among its
			// inputs (readBy).
			g.next[s.writer] = append(g.next[s.writer], int32(r))
		}
	}
	for i, o := range c.ops {
		for _, in := range o.ins {
			if w := in.writtenBy(); w >= 0 {
				g.next[w] = append(g.next[w], int32(i))
			}
		}
	}
	// A stream's last reader that may take its change and edit it in
	// place (stream.take) waits for the stream's other readers; one that
	// only reads runs beside them.
	for _, s := range c.streams {
		if s.pinned || s.lastReader < 0 || !c.ops[s.lastReader].takes {
			continue
		}
		for _, r := range s.readers {
			if r != s.lastReader {
				g.next[r] = append(g.next[r], int32(s.lastReader))
			}
		}
	}
	for i, next := range g.next {
		slices.Sort(next)
		g.next[i] = slices.Compact(next)
		for _, j := range g.next[i] {
			g.waits[j]++
		}
	}
	return g
}

// parallelStep is the state of one parallel step. An operator is ready
// once every operator it reads from has stepped or been found to have
// nothing to do; ready operators with something to do wait in a queue
// that workers take from, least position first, and those with nothing
// to do are passed over at once. Each operator's step still runs alone,
// after everything it reads is complete, so it computes what a step in
// order would.
type parallelStep struct {
	c  *Circuit
	g  *graph
	mu sync.Mutex
	// wake is signalled when an operator joins queue or the step ends.
	wake sync.Cond
	// waits and unread count down the graph's waits and readers.
	waits, unread []int32
	queue         positions
	// left counts the operators neither stepped nor passed over; failed
	// is what a user function panicked with, which ends the step.
	left   int
	failed any
}

// stepParallel steps the due operators on workers goroutines, the calling
// one included, then commits them as many at a time.
func (c *Circuit) stepParallel(workers int) {
	if c.graph == nil {
		c.graph = newGraph(c)
	}
	p := &parallelStep{c: c, g: c.graph, waits: slices.Clone(c.graph.waits),
		unread: slices.Clone(c.graph.readers), left: len(c.ops)}
	p.wake.L = &p.mu
	c.parallel = true
	p.mu.Lock()
	// Those that wait for no operator, by the graph's counts: become
	// counts p.waits down as it goes.
	for i, w := range c.graph.waits {
		if w == 0 {
			p.become(int32(i))
		}
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(p.work)
	}
	p.work()
	wg.Wait()
	c.parallel = false
	if p.failed != nil {
		panic(p.failed)
	}
	var taken atomic.Int64
	commit := func() {
		for k := int(taken.Add(1)) - 1; k < len(c.ran); k = int(taken.Add(1)) - 1 {
			if o := c.ran[k]; o.commit != nil {
				o.commit()
			}
		}
	}
	for range workers - 1 {
		wg.Go(commit)
	}
	commit()
	wg.Wait()
	for _, s := range c.streams {
		s.clear()
	}
	c.ran = c.ran[:0]
}

// work steps queued operators until none is left.
func (p *parallelStep) work() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for len(p.queue) == 0 && p.left > 0 {
			p.wake.Wait()
		}
		if p.left == 0 {
			return
		}
		i := p.queue.pop()
		p.mu.Unlock()
		o := &p.c.ops[i]
		ok := p.run(i, o)
		p.mu.Lock()
		if !ok || p.failed != nil {
			// This or another worker's operator panicked: the step ends.
			return
		}
		p.c.ran = append(p.c.ran, o)
		p.done(i)
	}
}

// run steps operator i and settles the streams it wrote. A panic ends the
// step (every worker stops) and is raised again by stepParallel.
func (p *parallelStep) run(i int32, o *op) (ok bool) {
	defer func() {
		if !ok {
			p.mu.Lock()
			p.failed = recover()
			p.left = 0
			p.wake.Broadcast()
			p.mu.Unlock()
		}
	}()
	o.step()
	for _, s := range p.g.writes[i] {
		s.settle()
	}
	return true
}

// become handles operator i once everything it reads is complete: queued
// if it has something to do, else passed over, which may make its readers
// ready in turn. Called with mu held.
func (p *parallelStep) become(i int32) {
	if p.c.ops[i].due() {
		p.queue.push(i)
		p.wake.Signal()
		return
	}
	p.done(i)
}

// done records that operator i is complete: the streams it was the last
// to read are cleared, and the operators that waited only for it become
// ready. Called with mu held.
func (p *parallelStep) done(i int32) {
	for _, id := range p.g.reads[i] {
		if p.unread[id]--; p.unread[id] == 0 && !p.c.streams[id].pinned {
			p.c.streams[id].clear()
		}
	}
	if p.left--; p.left == 0 {
		p.wake.Broadcast()
	}
	for _, j := range p.g.next[i] {
		if p.waits[j]--; p.waits[j] == 0 {
			p.become(j)
		}
	}
}

// positions is a binary min-heap of operator positions.
type positions []int32

func (h *positions) push(i int32) {
	*h = append(*h, i)
	q := *h
	for k := len(q) - 1; k > 0; {
		up := (k - 1) / 2
		if q[up] <= q[k] {
			break
		}
		q[up], q[k] = q[k], q[up]
		k = up
	}
}

func (h *positions) pop() int32 {
	q := *h
	least, last := q[0], len(q)-1
	q[0] = q[last]
	q = q[:last]
	for k := 0; ; {
		m := k
		for _, c := range []int{2*k + 1, 2*k + 2} {
			if c < len(q) && q[c] < q[m] {
				m = c
			}
		}
		if m == k {
			break
		}
		q[k], q[m] = q[m], q[k]
		k = m
	}
	*h = q
	return least
}
