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

// coldGCDivisor divides the GC percent from the start of a streamed
// cold-start write until its echo is applied (lowerGCForColdStart). The
// write makes an operation per row, garbage once encoded, on top of the
// program's whole live heap: at GOGC=100, at `compare -preset xlarge`,
// its heap reached 850 to 926 MB over a live 500 MB, the cold start's
// peak; by 4 it stays under 600 MB, and the echo's (740 to 770 MB) is the
// peak, for three or four more collections of the live heap in the write
// (bench/README.md, h-rss-sb).
const coldGCDivisor = 4

// lowerGCForColdStart divides the GC percent by coldGCDivisor until the
// returned function (idempotent) is called, or, with several northds in
// one process, until the last of them calls its own. It serves the end of
// a cold start, from the streamed write on: its operations are garbage
// once encoded, and the rows of the filled tables come back whole when
// their monitor resumes (a message of tens of MB, decoded and indexed),
// both on top of the program's live heap, which with the default GOGC=100
// would peak at twice that. The cold start's computation, before the
// write, runs with the GC percent as set: its heap grows with what it
// computes, and lowering the percent there costs more time than the peak
// it saves. A GC off (GOGC=off) stays off.
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
