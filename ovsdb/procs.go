package ovsdb

import (
	"runtime"
	"sync"
)

// A change's work is serial: a read loop decodes a message and hands it
// to the northd's goroutine, which writes a transaction and waits for the
// read loop to hand it the reply, a few times a change. With another
// processor idle, each handover also wakes a second thread to look for
// work (the scheduler's wakep), which finds none and sleeps again: a
// futex wake and sleep, context switches and a poll of the network, on
// each of a change's ~3 handovers (one processor: 4 futex calls and 10
// context switches fewer a change at 5k ports, bench/README.md,
// h-handover). With one processor the read loop and the northd's
// goroutine take turns on one thread. Config.SerialChanges asks for that
// between the large steps.

// procMode is what a northd asks of the process's processors.
type procMode int

const (
	// procsAsSet leaves GOMAXPROCS as the process set it.
	procsAsSet procMode = iota
	// procsAll: a cold start or a recompute, whose step and collections
	// use every processor.
	procsAll
	// procsOne: following changes, one processor is enough.
	procsOne
)

// serialProcs is the process's GOMAXPROCS before the northds following
// changes lowered it to one, and how many northds ask for each mode: one
// processor while some ask for it and none for all of them.
var serialProcs procCounts

type procCounts struct {
	sync.Mutex
	all, one int
	// was is GOMAXPROCS before it was lowered, 0 while it is not.
	was int
}

// add counts n more northds asking for mode.
func (c *procCounts) add(mode procMode, n int) {
	switch mode {
	case procsAll:
		c.all += n
	case procsOne:
		c.one += n
	}
}

// setProcs records that the northd now asks for mode and sets GOMAXPROCS
// to what the process's northds ask for together.
func (d *Northd) setProcs(mode procMode) {
	if d.procs == mode {
		return
	}
	sp := &serialProcs
	sp.Lock()
	defer sp.Unlock()
	sp.add(d.procs, -1)
	sp.add(mode, 1)
	d.procs = mode
	switch lower := sp.one > 0 && sp.all == 0; {
	case lower && sp.was == 0:
		sp.was = runtime.GOMAXPROCS(1)
	case !lower && sp.was != 0:
		runtime.GOMAXPROCS(sp.was)
		sp.was = 0
	}
}

// procsFor is the mode of an iteration: procsAll for a full one (a cold
// start, a reconnection, the lock taken: every row compared and
// recomputed) and until the cold start's write is done, procsOne after,
// when Config.SerialChanges asks for it and the large steps run in order
// (Threads 1).
func (d *Northd) procsFor(full bool) procMode {
	switch {
	case !d.cfg.SerialChanges || d.threads.Load() > 1:
		return procsAsSet
	case full || !d.coldStartLogged || d.endColdStartGC != nil:
		return procsAll
	}
	return procsOne
}
