package ovsdb

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/bench/topology"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/schema"
)

// BenchmarkStepOperators counts what the operators of northlog's program do
// in BenchmarkPerChange's changes (an `lsp-add` of a pod port to a node
// switch and its `lsp-del`, a Step each): ops/change is the operators run
// per change, idle-ops/change those that emitted nothing. It prints, summed
// over the changes, each kind of operator's runs, tuples in and out and
// time, and the operators that ran, by file, most expensive first. With
// -per-change-evict, as BenchmarkPerChange, the times are those of steps
// that read the program's state from memory, as the live northd's do.
//
//	go test ./ovsdb -run XXX -bench 'StepOperators/release=26.03/ports=25k' -benchtime 200x
func BenchmarkStepOperators(b *testing.B) {
	eachPerChangeSize(b, benchStepOperators)
}

func benchStepOperators(b *testing.B, topo *topology.Topology, release schema.Release) {
	p, switches := loadTopology(b, topo, release)
	p.Step()
	p.Circuit.CountOps()
	evict := make([]byte, *perChangeEvict<<20)
	step := func() {
		evictCaches(evict)
		p.Step()
	}
	changes := 0
	for b.Loop() {
		ls, lsp, with := sparePortChange(topo, switches, changes)
		apply := func(table string, old, new any) {
			if err := p.NB.Apply(table, old, new); err != nil {
				b.Fatal(err)
			}
		}
		applyPortAdd(apply, ls, lsp, with)
		step()
		applyPortDel(apply, ls, lsp, with)
		step()
		changes += 2
	}
	stats := p.Circuit.OpStats()
	runs, idle := 0, 0
	for _, s := range stats {
		runs += s.Runs
		if s.Out == 0 && s.Op != "IndexBy" && s.Op != "NewOutput" {
			idle += s.Runs
		}
	}
	b.ReportMetric(float64(runs)/float64(changes), "ops/change")
	b.ReportMetric(float64(idle)/float64(changes), "idle-ops/change")
	fmt.Printf("%s: %d changes, %.1f operators a change, %.1f of them emitting nothing\n",
		b.Name(), changes, float64(runs)/float64(changes), float64(idle)/float64(changes))
	logOpsBy("by operator kind", stats, changes, func(s engine.OpStats) string { return s.Op })
	logOpsBy("by file", stats, changes, func(s engine.OpStats) string { return s.Site[:strings.IndexByte(s.Site, ':')] })
	slices.SortFunc(stats, func(x, y engine.OpStats) int { return cmp.Compare(y.Time, x.Time) })
	var top strings.Builder
	for _, s := range stats {
		fmt.Fprintf(&top, "\n%8.2f µs %6.1f runs %8.1f in %8.1f out  %-10s %s", perChange(s.Time, changes),
			float64(s.Runs)/float64(changes), float64(s.In)/float64(changes), float64(s.Out)/float64(changes), s.Op, s.Site)
	}
	fmt.Printf("operators, per change:%s\n", top.String())
}

// perChange is d per change in µs.
func perChange(d time.Duration, changes int) float64 {
	return float64(d.Nanoseconds()) / 1e3 / float64(changes)
}

// logOpsBy prints the operators' stats summed by what by says, per
// change, the most expensive first.
func logOpsBy(title string, stats []engine.OpStats, changes int, by func(engine.OpStats) string) {
	sums := map[string]*engine.OpStats{}
	for _, s := range stats {
		name := by(s)
		if sums[name] == nil {
			sums[name] = &engine.OpStats{Op: name}
		}
		sum := sums[name]
		sum.Runs += s.Runs
		sum.In += s.In
		sum.Out += s.Out
		sum.Time += s.Time
	}
	var lines strings.Builder
	for _, s := range slices.SortedFunc(func(yield func(*engine.OpStats) bool) {
		for _, s := range sums {
			if !yield(s) {
				return
			}
		}
	}, func(x, y *engine.OpStats) int { return cmp.Compare(y.Time, x.Time) }) {
		fmt.Fprintf(&lines, "\n%8.2f µs %6.1f runs %8.1f in %8.1f out  %s", perChange(s.Time, changes),
			float64(s.Runs)/float64(changes), float64(s.In)/float64(changes), float64(s.Out)/float64(changes), s.Op)
	}
	fmt.Printf("%s, per change:%s\n", title, lines.String())
}
