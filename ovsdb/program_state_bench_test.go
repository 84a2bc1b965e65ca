package ovsdb

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/bench/topology"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/schema"
)

// BenchmarkProgramState measures what northlog's program holds after a
// cold start's step on the bench topology (generated, loaded as
// BenchmarkPerChange does, the flow Output keeping nothing as in the live
// northd): live-B is the heap it adds (the NB rows it holds included),
// state-B the engine's estimate of its operators' state
// (engine.Circuit.StateSizes: maps, slices and the tuples in them, not
// what the tuples point to). It prints the operators holding most, and the
// state summed by operator kind and by tuple type.
//
//	go test ./ovsdb -run XXX -bench 'ProgramState/release=26.03/ports=5k' -benchtime 1x
func BenchmarkProgramState(b *testing.B) {
	eachPerChangeSize(b, benchProgramState)
}

func benchProgramState(b *testing.B, topo *topology.Topology, release schema.Release) {
	for b.Loop() {
		before := liveHeap()
		p, _ := loadTopology(b, topo, release)
		p.Flows.DropContents()
		p.Step()
		p.Flows.DropChanges()
		live := liveHeap() - before
		sizes := p.Circuit.StateSizes()
		var total int64
		for _, s := range sizes {
			total += s.Bytes
		}
		b.ReportMetric(float64(live), "live-B")
		b.ReportMetric(float64(total), "state-B")
		fmt.Printf("%s: %d operators keep state, %d MB estimated, %d MB live\n", b.Name(), len(sizes), total>>20, live>>20)
		logStateBy("by operator", sizes, func(s engine.StateSize) string { return s.Op })
		logStateBy("by tuple type", sizes, func(s engine.StateSize) string { return s.Tuple })
		logDuplicates(sizes)
		slices.SortFunc(sizes, func(x, y engine.StateSize) int { return cmp.Compare(y.Bytes, x.Bytes) })
		var top strings.Builder
		for _, s := range sizes[:min(len(sizes), 60)] {
			fmt.Fprintf(&top, "\n%8.1f MB %8d keys %8d tuples  %-10s %-28s %s -> %s",
				float64(s.Bytes)/(1<<20), s.Keys, s.Tuples, s.Op, s.Site, s.Key, s.Tuple)
		}
		fmt.Printf("largest:%s\n", top.String())
		runtime.KeepAlive(p)
	}
}

// logStateBy prints the state of sizes summed by what by says, largest first.
func logStateBy(title string, sizes []engine.StateSize, by func(engine.StateSize) string) {
	type sum struct {
		name        string
		ops, tuples int
		bytes       int64
	}
	sums := map[string]*sum{}
	for _, s := range sizes {
		name := by(s)
		if sums[name] == nil {
			sums[name] = &sum{name: name}
		}
		sums[name].ops++
		sums[name].tuples += s.Tuples
		sums[name].bytes += s.Bytes
	}
	list := slices.SortedFunc(func(yield func(*sum) bool) {
		for _, s := range sums {
			if !yield(s) {
				return
			}
		}
	}, func(x, y *sum) int { return cmp.Compare(y.bytes, x.bytes) })
	var out strings.Builder
	for _, s := range list[:min(len(list), 25)] {
		fmt.Fprintf(&out, "\n%8.1f MB %5d ops %9d tuples  %s", float64(s.bytes)/(1<<20), s.ops, s.tuples, s.name)
	}
	fmt.Printf("%s:%s\n", title, out.String())
}

// logDuplicates prints the arrangements that hold the same groups of the
// same relation as another, and what they hold in all: one arrangement
// could serve the readers of each such set.
func logDuplicates(sizes []engine.StateSize) {
	type relGroups struct {
		reads  int
		digest uint64
	}
	same := map[relGroups][]engine.StateSize{}
	for _, s := range sizes {
		if s.Op == "IndexBy" && s.Tuples > 0 {
			k := relGroups{s.Reads, s.Digest}
			same[k] = append(same[k], s)
		}
	}
	var sets [][]engine.StateSize
	var spare int64
	for _, set := range same {
		if len(set) > 1 {
			sets = append(sets, set)
			spare += int64(len(set)-1) * set[0].Bytes
		}
	}
	slices.SortFunc(sets, func(x, y []engine.StateSize) int {
		return cmp.Compare(int64(len(y)-1)*y[0].Bytes, int64(len(x)-1)*x[0].Bytes)
	})
	var out strings.Builder
	for _, set := range sets[:min(len(sets), 30)] {
		sites := make([]string, len(set))
		for i, s := range set {
			sites[i] = s.Site
		}
		fmt.Fprintf(&out, "\n%8.1f MB %2d× %8d tuples  %s -> %s  %s", float64(set[0].Bytes)/(1<<20), len(set), set[0].Tuples,
			set[0].Key, set[0].Tuple, strings.Join(sites, " "))
	}
	fmt.Printf("arrangements holding the same groups of one relation: %d sets, %.1f MB beyond one of each:%s\n",
		len(sets), float64(spare)/(1<<20), out.String())
}

// liveHeap is the heap in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
