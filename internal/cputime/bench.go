package cputime

import (
	"context"
	"runtime"
	"runtime/pprof"
	"testing"
)

// BenchChanges measures change, called in b's loop after the setup's
// garbage is collected, as the process CPU time and the flows moved per
// unit, what change counts n of ("change", "step"). The measured calls
// carry the profiler label phase=change, so that `go tool pprof -tagfocus
// phase=change` leaves the setup out of a -cpuprofile. Changes that move
// no flow fail: the NB would not exercise the rules.
func BenchChanges(b *testing.B, unit string, change func() (flows, n int)) {
	runtime.GC()
	flows, n := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu := Process()
	pprof.Do(context.Background(), pprof.Labels("phase", "change"), func(context.Context) {
		for b.Loop() {
			f, k := change()
			flows, n = flows+f, n+k
		}
	})
	b.ReportMetric(float64((Process()-cpu).Nanoseconds())/float64(n), "cpu-ns/"+unit)
	b.ReportMetric(float64(flows)/float64(n), "flows/"+unit)
	if flows == 0 {
		b.Fatal("the changes moved no flow")
	}
}
