// Package cputime reads the CPU time the process has used, for benchmarks:
// on a shared, noisy machine it measures the work better than wall time
// does. It includes the garbage collector's background work.
package cputime

import (
	"syscall"
	"time"
	"unsafe"
)

// Process returns the user plus system CPU time of the process so far.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

// Thread returns the CPU time the calling OS thread has used so far: a
// goroutine locked to its thread (runtime.LockOSThread) reads with it what
// one stretch of its own work cost, without the other threads' (the
// collector's background work, other goroutines). 0 if it cannot be read.
func Thread() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
