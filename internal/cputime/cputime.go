// Package cputime reads the CPU time the process has used, for benchmarks:
// on a shared, noisy machine it measures the work better than wall time
// does. It includes the garbage collector's background work.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the user plus system CPU time of the process so far.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
