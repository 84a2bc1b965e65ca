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
// the last of them calls its own. It serves the end of a cold start, after
// the write: the rows of the filled tables come back whole when their
// monitor resumes (a message of tens of MB, decoded and indexed) on top of
// the program's live heap, and with the default GOGC=100 the heap would
// peak at twice that. The cold start's computation, before the write, runs
// with the GC percent as set: halving it there costs more time than the
// peak it saves. A GC off (GOGC=off) stays off.
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
