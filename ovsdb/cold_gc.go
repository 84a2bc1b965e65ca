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

// coldGCDivisor divides the GC percent between a streamed cold-start write
// and its echo (lowerGCForColdStart). By 4, at `compare -preset large`, the
// echo's peak heap is 190 MB, below the write's 205 MB, where it was 215
// MB with the percent halved; the cost is three more collections of the
// ~150 MB live heap after the write.
const coldGCDivisor = 4

// lowerGCForColdStart divides the GC percent by coldGCDivisor until the
// returned function (idempotent) is called, or, with several northds in
// one process, until the last of them calls its own. It serves the end of
// a cold start, after the write: the rows of the filled tables come back
// whole when their monitor resumes (a message of tens of MB, decoded and
// indexed) on top of the program's live heap, and with the default
// GOGC=100 the heap would peak at twice that. The cold start's
// computation, before the write, runs with the GC percent as set: lowering
// it there costs more time than the peak it saves. A GC off (GOGC=off)
// stays off.
func lowerGCForColdStart() (restore func()) {
	coldGC.Lock()
	defer coldGC.Unlock()
	if coldGC.starts == 0 {
		coldGC.percent = debug.SetGCPercent(-1)
		lowered := coldGC.percent
		if lowered > 1 {
			lowered = max(lowered/coldGCDivisor, 1)
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
