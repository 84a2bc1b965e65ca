package engine

import (
	"cmp"
	"fmt"
	"github.com/northlog/northlog/internal/cputime"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/google/btree"
)

// Rows of the 3-way join A(ID, K) ⋈ B(ID=A.K, K) ⋈ C(ID=B.K, K): a chain of
// keys, so every relation of n rows yields n joined rows.
type row struct{ ID, K int }

type chainOut struct{ A, B, C int }

func chainCircuit(n int) (*Circuit, *Input[row], *Output[chainOut]) {
	c := NewCircuit()
	a, ra := NewInput[row](c, "a")
	b, rb := NewInput[row](c, "b")
	cc, rc := NewInput[row](c, "c")
	id := func(r row) int { return r.ID }
	k := func(r row) int { return r.K }
	ab := Join(IndexBy(ra, k), IndexBy(rb, id), func(_ int, x, y row) row { return row{x.ID, y.K} })
	abc := Join(IndexBy(ab, k), IndexBy(rc, id), func(_ int, x, y row) chainOut { return chainOut{x.ID, y.ID, y.K} })
	out := NewOutput(abc, func(x, y chainOut) int { return cmp.Compare(x.A, y.A) })
	for i := range n {
		a.Insert(row{i, i})
		b.Insert(row{i, i})
		cc.Insert(row{i, i})
	}
	return c, a, out
}

// BenchmarkJoin3Step measures one step of a 3-way join after a one-row
// update: it should cost the same whatever the relations' size.
func BenchmarkJoin3Step(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c, a, out := chainCircuit(n)
			c.Step()
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				i := rng.IntN(n)
				a.Update(row{i, i}, row{i, (i + 1) % n})
				c.Step()
				a.Update(row{i, (i + 1) % n}, row{i, i})
				c.Step()
				if len(out.Delta()) != 2 {
					b.Fatalf("delta %v", out.Delta())
				}
			}
			// Each iteration is two steps.
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(2*b.N), "cpu-ns/step")
		})
	}
}

// BenchmarkJoin3Recompute measures a full recompute: the 3-way join built
// afresh and fed its whole input in one step.
func BenchmarkJoin3Recompute(b *testing.B) {
	const n = 100_000
	cpu := cputime.Process()
	for b.Loop() {
		c, _, out := chainCircuit(n)
		c.Step()
		if out.Len() != n {
			b.Fatalf("%d joined rows, want %d", out.Len(), n)
		}
	}
	b.ReportMetric(float64(3*n*b.N)/b.Elapsed().Seconds(), "tuples/s")
	b.ReportMetric(float64(3*n*b.N)/(cputime.Process()-cpu).Seconds(), "tuples/cpu-s")
}

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkArrangementBytes reports the heap an arrangement takes per stored
// tuple (a 16-byte row), for one tuple per key, sixteen (the most a group
// scans) and 64 (a group with an index).
func BenchmarkArrangementBytes(b *testing.B) {
	const n = 1_000_000
	for _, per := range []int{1, 16, 64} {
		b.Run(fmt.Sprint("perkey=", per), func(b *testing.B) {
			for b.Loop() {
				before := heap()
				c := NewCircuit()
				r := newRel[row](c)
				idx := IndexBy(r, func(x row) int { return x.K })
				// Fill the stream directly: an Input would keep its own copy.
				r.s.delta = ZSet[row]{}
				for i := range n {
					r.s.delta[row{i, i / per}] = 1
				}
				c.Step()
				b.ReportMetric(float64(heap()-before)/n, "B/tuple")
				runtime.KeepAlive(idx)
			}
		})
	}
}

// BenchmarkArrangementStore compares the stores an arrangement could keep
// its groups in, each holding n keys of one row: a Go map (what IndexBy
// uses) and a google/btree BTreeG ordered by key (its best case: an int key
// needs no hashing to be ordered). An op is what a join step does to the
// arrangement: probe one key, then add a row to a key and remove it.
func BenchmarkArrangementStore(b *testing.B) {
	const n = 1_000_000
	type entry struct {
		k int
		g group[row]
	}
	b.Run("map", func(b *testing.B) {
		before := heap()
		a := &arrangement[int, row]{one: map[int]row{}, many: map[int][]Change[row]{}}
		for i := range n {
			var g group[row]
			g.add(row{i, i}, 1)
			a.store(i, g)
		}
		bytes := float64(heap()-before) / n
		rng := rand.New(rand.NewPCG(1, 2))
		b.ReportAllocs()
		for b.Loop() {
			if g := a.group(rng.IntN(n)); g.len() != 1 {
				b.Fatal("probe missed")
			}
			k := rng.IntN(n)
			for _, d := range []Weight{1, -1} {
				g := a.group(k)
				g.add(row{-1, k}, d)
				a.store(k, g)
			}
		}
		b.ReportMetric(bytes, "B/tuple")
	})
	b.Run("btree", func(b *testing.B) {
		before := heap()
		t := btree.NewG(32, func(x, y entry) bool { return x.k < y.k })
		for i := range n {
			var g group[row]
			g.add(row{i, i}, 1)
			t.ReplaceOrInsert(entry{i, g})
		}
		bytes := float64(heap()-before) / n
		rng := rand.New(rand.NewPCG(1, 2))
		b.ReportAllocs()
		for b.Loop() {
			if e, _ := t.Get(entry{k: rng.IntN(n)}); e.g.len() != 1 {
				b.Fatal("probe missed")
			}
			k := rng.IntN(n)
			for _, d := range []Weight{1, -1} {
				e, _ := t.Get(entry{k: k})
				e.g.add(row{-1, k}, d)
				t.ReplaceOrInsert(e)
			}
		}
		b.ReportMetric(bytes, "B/tuple")
	})
}
