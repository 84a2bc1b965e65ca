package ovsdb

import (
	"runtime/debug"
	"sync"
)

// coldGC is the process's GC percent (GOGC) as it was before the first of
// the northds now in their cold start lowered it, and how many are.
var coldGC struct {
	sync.Mutex
	starts  int
	percent int
}

// lowerGCForColdStart halves the GC percent until the returned function
// (idempotent) is called, or, with several northds in one process, until
// the last of them calls its own. A cold start's transient structures (the
// NB dump, the engine's first step, the SB write's operations and their
// JSON) come and go on top of a live heap that keeps growing; with the
// default GOGC=100 the heap peaks at twice its largest live size, and the
// peak RSS with it. A GC off (GOGC=off) stays off.
func lowerGCForColdStart() (restore func()) {
	coldGC.Lock()
	defer coldGC.Unlock()
	if coldGC.starts == 0 {
		coldGC.percent = debug.SetGCPercent(-1)
		lowered := coldGC.percent
		if lowered > 1 {
			lowered /= 2
		}
		debug.SetGCPercent(lowered)
	}
	coldGC.starts++
	return sync.OnceFunc(func() {
		coldGC.Lock()
		defer coldGC.Unlock()
		if coldGC.starts--; coldGC.starts == 0 {
			debug.SetGCPercent(coldGC.percent)
		}
	})
}
