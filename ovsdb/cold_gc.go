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

// coldGCDivisor divides the GC percent from a cold start's ApplyProgram
// until its echo is applied (lowerGCForColdStart). The write makes an
// operation per row, garbage once encoded, on top of the program's whole
// live heap: at GOGC=100, at `compare -preset xlarge`, its heap reached
// 850 to 926 MB over a live 500 MB; by 4 it stays under 600 MB, for three
// or four more collections of the live heap (bench/README.md, h-rss-sb).
const coldGCDivisor = 4

// lowerGCForColdStart divides the GC percent by coldGCDivisor until the
// returned function (idempotent) is called, or, with several northds in
// one process, until the last of them calls its own. It serves the end of
// a cold start, from the writer's taking the step's flows on: the step's
// last collection set a goal of twice its live heap, and the writer's
// desired rows (165 MB at xlarge, half of it its maps' growth) would take
// the heap there without another; the write's operations are garbage once
// encoded, and the rows of the filled tables come back whole when their
// monitor resumes (a message of tens of MB, decoded and indexed). The cold
// start's computation, the step, runs with the GC percent as set: its heap
// grows with what it computes, and lowering the percent there costs more
// time than the peak it saves. A GC off (GOGC=off) stays off.
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

// returnColdStartPages collects the garbage and returns the heap's free
// pages to the system once a cold start's write is committed, before its
// echo arrives. The Go runtime keeps freed pages until the heap's
// retained memory exceeds its goal by a tenth, and allocates the echo's
// rows in the lowest free pages, released or not: at xlarge the echo's
// heap grew into pages the scavenger had released while ~100 MB freed by
// the write stayed resident, and the northd's peak RSS came in the echo.
// It costs one collection of the live heap (~380 MB there); none with the
// GC off.
func returnColdStartPages() {
	coldGC.Lock()
	off := coldGC.percent < 0
	coldGC.Unlock()
	if !off {
		debug.FreeOSMemory()
	}
}
