package ovsdb

import (
	"math"
	"os"
	"runtime"
	"testing"

	"github.com/northlog/northlog/internal/cputime"
	"github.com/northlog/northlog/rules"
)

// coldNBEnv names the NB database file BenchmarkColdStep loads.
const coldNBEnv = "NORTHLOG_COLD_NB"

// BenchmarkColdStep measures a cold start's first engine step: every row of
// an NB database file fed to a fresh program of the file's release, then
// one Step, on every core as the northd steps it (parallel) and with the
// operators one after the other (in-order). Only the Step is timed; the
// program's build and the feeding are not, and the garbage of the previous
// iteration is collected before it. It reports cpu-ns/op (process CPU time
// of the Step, the garbage collector's work included) and flows (the flows
// the step inserts). The file is the bench topology's, for one
// (bench/README.md: `go run ./bench/cmd/gentopo`, loaded into an
// ovsdb-server's NB); the benchmark is skipped without one.
func BenchmarkColdStep(b *testing.B) {
	path := os.Getenv(coldNBEnv)
	if path == "" {
		b.Skipf("no NB file: set %s to one", coldNBEnv)
	}
	contents, err := LoadNB(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		from int // ParallelFrom
	}{{"parallel", 0}, {"in-order", math.MaxInt}} {
		b.Run(mode.name, func(b *testing.B) { benchmarkColdStep(b, contents, mode.from) })
	}
}

func benchmarkColdStep(b *testing.B, contents *NBContents, parallelFrom int) {
	var cpu int64
	flows := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		p := rules.NewFor(contents.Release)
		p.Circuit.ParallelFrom(parallelFrom)
		for table, row := range contents.All() {
			if err := p.NB.Apply(table, nil, row); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		b.StartTimer()
		start := cputime.Process()
		p.Step()
		cpu += int64(cputime.Process() - start)
		flows = len(p.Flows.Changes())
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(flows), "flows")
}
