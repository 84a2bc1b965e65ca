package engine

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// tup is the tuple of the property tests; small domains make keys collide,
// groups grow past linearMax, and weights add up.
type tup struct{ K, V int }

const nK, nV = 4, 24

var genTup = rapid.Custom(func(t *rapid.T) tup {
	return tup{rapid.IntRange(0, nK-1).Draw(t, "k"), rapid.IntRange(0, nV-1).Draw(t, "v")}
})

func byKV(a, b tup) int { return cmp.Or(cmp.Compare(a.K, b.K), cmp.Compare(a.V, b.V)) }

func byKey[K cmp.Ordered, V comparable](a, b KV[K, V]) int { return cmp.Compare(a.Key, b.Key) }

func key(t tup) int { return t.K }
func val(t tup) int { return t.V % nK }

// scenario is a circuit over n tup inputs with one output.
type scenario[O comparable] struct {
	inputs int
	build  func(in []Rel[tup]) Rel[O]
	cmp    func(O, O) int
	// naive, when set, computes the output directly from the input sets, as
	// a second oracle besides the full recompute.
	naive func(in [][]tup) []O
	opts  []gocmp.Option
}

func (s scenario[O]) circuit() (*Circuit, []*Input[tup], *Output[O]) {
	c := NewCircuit()
	var ins []*Input[tup]
	var rels []Rel[tup]
	for i := range s.inputs {
		in, r := NewInput[tup](c, fmt.Sprint("in", i))
		ins, rels = append(ins, in), append(rels, r)
	}
	return c, ins, NewOutput(s.build(rels), s.cmp)
}

// prop checks s with random steps of inserts, deletes and updates: after every
// step the incremental output must equal a full recompute (and the naive
// oracle), and its delta must be the minimal change from the previous
// contents. Each step, the incremental one and the recompute, runs its
// operators in order or in parallel at random.
func prop[O comparable](t *testing.T, name string, s scenario[O]) {
	t.Run(name, func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			c, ins, out := s.circuit()
			model := make([]map[tup]bool, s.inputs)
			for i := range model {
				model[i] = map[tup]bool{}
			}
			for step := range rapid.IntRange(1, 25).Draw(t, "steps") {
				for range rapid.IntRange(0, 10).Draw(t, "changes") {
					i := rapid.IntRange(0, s.inputs-1).Draw(t, "input")
					x := genTup.Draw(t, "tuple")
					rows := slices.SortedFunc(maps.Keys(model[i]), byKV)
					op := rapid.IntRange(0, 3).Draw(t, "op")
					if op >= 2 && len(rows) > 0 {
						// Delete or update a present tuple (a random one is mostly absent).
						x = rapid.SampledFrom(rows).Draw(t, "present")
					}
					switch op {
					case 0:
						ins[i].Insert(x)
						model[i][x] = true
					case 1, 2:
						ins[i].Delete(x)
						delete(model[i], x)
					case 3:
						y := genTup.Draw(t, "new")
						ins[i].Update(x, y)
						if x != y { // Update(x, x) is a no-op, even for an absent x.
							delete(model[i], x)
							model[i][y] = true
						}
					}
				}
				prev := out.Contents()
				drawParallel(t, c, "parallel")
				c.Step()
				got := out.Contents()
				unordered := slices.Clone(out.Changes()) // before Delta sorts it
				checkDelta(t, step, prev, out.Delta(), got, s.cmp)
				byTuple := cmpopts.SortSlices(func(a, b Change[O]) bool { return cmp2(s.cmp(a.Tuple, b.Tuple), a.Weight-b.Weight) < 0 })
				if d := gocmp.Diff(out.Delta(), unordered, append(s.opts, cmpopts.EquateEmpty(), byTuple)...); d != "" {
					t.Fatalf("step %d: Changes differs from Delta (-Delta +Changes):\n%s", step, d)
				}

				fc, fins, fout := s.circuit()
				var sets [][]tup
				for i, m := range model {
					rows := slices.SortedFunc(maps.Keys(m), byKV)
					sets = append(sets, rows)
					for _, x := range rows {
						fins[i].Insert(x)
					}
				}
				drawParallel(t, fc, "recompute parallel")
				fc.Step()
				if d := gocmp.Diff(fout.Contents(), got, append(s.opts, cmpopts.EquateEmpty())...); d != "" {
					t.Fatalf("step %d: incremental differs from recompute (-recompute +incremental):\n%s", step, d)
				}
				if s.naive != nil {
					want := slices.Collect(maps.Keys(set(s.naive(sets))))
					slices.SortFunc(want, s.cmp)
					if d := gocmp.Diff(want, got, append(s.opts, cmpopts.EquateEmpty())...); d != "" {
						t.Fatalf("step %d: incremental differs from naive (-naive +incremental):\n%s", step, d)
					}
				}
			}
		})
	})
}

// checkDelta fails unless delta is sorted, names each tuple once, deletes
// only present tuples, inserts only absent ones, and turns prev into cur.
func checkDelta[O comparable](t *rapid.T, step int, prev []O, delta []Change[O], cur []O, cmp func(O, O) int) {
	if !slices.IsSortedFunc(delta, func(a, b Change[O]) int { return cmp(a.Tuple, b.Tuple) }) {
		t.Fatalf("step %d: delta not sorted: %v", step, delta)
	}
	s := set(prev)
	seen := map[O]bool{}
	for _, ch := range delta {
		if seen[ch.Tuple] {
			t.Fatalf("step %d: %v twice in delta %v", step, ch.Tuple, delta)
		}
		seen[ch.Tuple] = true
		switch {
		case ch.Weight == 1 && !s[ch.Tuple]:
			s[ch.Tuple] = true
		case ch.Weight == -1 && s[ch.Tuple]:
			delete(s, ch.Tuple)
		default:
			t.Fatalf("step %d: change %v against previous contents %v", step, ch, prev)
		}
	}
	if !maps.Equal(s, set(cur)) {
		t.Fatalf("step %d: previous %v + delta %v != contents %v", step, prev, delta, cur)
	}
}

// drawParallel draws a ParallelFrom that makes c's next step run in order
// or in parallel, and its Workers.
func drawParallel(t *rapid.T, c *Circuit, label string) {
	c.ParallelFrom(rapid.SampledFrom([]int{0, math.MaxInt}).Draw(t, label))
	c.Workers(rapid.IntRange(1, 3).Draw(t, label+" workers"))
}

func set[T comparable](ts []T) map[T]bool {
	m := map[T]bool{}
	for _, t := range ts {
		m[t] = true
	}
	return m
}

func groups(rows []tup, key func(tup) int) map[int][]tup {
	g := map[int][]tup{}
	for _, x := range rows {
		g[key(x)] = append(g[key(x)], x)
	}
	return g
}

func joined(a, b []tup, ka, kb func(tup) int) []tup {
	var out []tup
	for _, x := range a {
		for _, y := range b {
			if ka(x) == kb(y) {
				out = append(out, tup{x.K, y.V})
			}
		}
	}
	return out
}

func pair(_ int, x, y tup) tup { return tup{x.K, y.V} }

var showSorted = gocmp.Transformer("Sorted", func(s Sorted[tup]) []tup { return slices.Collect(s.All()) })

func TestPropertyLinear(t *testing.T) {
	squash := func(x tup) tup { return tup{x.K, x.V % 3} }
	prop(t, "map", scenario[tup]{inputs: 1, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return Map(in[0], squash) },
		naive: func(in [][]tup) []tup {
			var out []tup
			for _, x := range in[0] {
				out = append(out, squash(x))
			}
			return out
		}})
	odd := func(x tup) bool { return x.V%2 == 1 }
	prop(t, "trymap", scenario[tup]{inputs: 1, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			return TryMap(in[0], "even", func(x tup) (tup, error) {
				if odd(x) {
					return tup{}, fmt.Errorf("odd")
				}
				return squash(x), nil
			})
		},
		naive: func(in [][]tup) []tup {
			var out []tup
			for _, x := range in[0] {
				if !odd(x) {
					out = append(out, squash(x))
				}
			}
			return out
		}})
	// Parts read by several operators, one of them a Filter that may take
	// the part's change; a key no tuple has; a part asked for twice.
	prop(t, "split", scenario[tup]{inputs: 1, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			s := SplitBy(in[0], key)
			none := SplitBy(in[0], func(tup) int { return -1 }).Of(0)
			return Union(s.Of(0), Map(s.Of(2), squash), Filter(s.Of(0), odd), none)
		},
		naive: func(in [][]tup) []tup {
			var out []tup
			for _, x := range in[0] {
				switch {
				case x.K == 0 && odd(x):
					out = append(out, x, x)
				case x.K == 0:
					out = append(out, x)
				case x.K == 2:
					out = append(out, squash(x))
				}
			}
			return out
		}})
	prop(t, "filter", scenario[tup]{inputs: 1, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return Filter(in[0], odd) },
		naive: func(in [][]tup) []tup {
			var out []tup
			for _, x := range in[0] {
				if odd(x) {
					out = append(out, x)
				}
			}
			return out
		}})
	// Partitions of an input (whose change stays to the step's end: not
	// taken) and of a Union's change (taken and edited); a side read by
	// two operators, a side read by a Filter alone (which takes it), and
	// sides no one reads.
	prop(t, "partition", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			kept, rest := Partition(in[0], odd)
			shared, _ := Partition(Union(in[1], in[1]), odd)
			_, other := Partition(in[1], odd)
			return Union(Map(kept, squash), kept, Filter(rest, func(x tup) bool { return x.K != 1 }),
				Filter(shared, func(x tup) bool { return x.K != 2 }), Map(other, squash))
		},
		naive: func(in [][]tup) []tup {
			var out []tup
			for _, x := range in[0] {
				switch {
				case odd(x):
					out = append(out, squash(x), x)
				case x.K != 1:
					out = append(out, x)
				}
			}
			for _, x := range in[1] {
				switch {
				case odd(x) && x.K != 2:
					out = append(out, x, x)
				case !odd(x):
					out = append(out, squash(x))
				}
			}
			return out
		}})
	spread := func(x tup) []tup { return []tup{{x.K, 0}, {0, x.V}, {x.K, 0}} }
	prop(t, "flatmap", scenario[tup]{inputs: 1, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return FlatMap(in[0], spread) },
		naive: func(in [][]tup) []tup {
			var out []tup
			for _, x := range in[0] {
				out = append(out, spread(x)...)
			}
			return out
		}})
	prop(t, "distinct over union", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return Distinct(Union(in[0], Map(in[1], squash), in[0])) },
		naive: func(in [][]tup) []tup {
			out := slices.Clone(in[0])
			for _, x := range in[1] {
				out = append(out, squash(x))
			}
			return out
		}})
	prop(t, "difference", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return Distinct(Union(in[0], Negate(in[1]))) },
		naive: func(in [][]tup) []tup {
			b := set(in[1])
			var out []tup
			for _, x := range in[0] {
				if !b[x] {
					out = append(out, x)
				}
			}
			return out
		}})
}

func TestPropertyJoins(t *testing.T) {
	prop(t, "join", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return Join(IndexBy(in[0], val), IndexBy(in[1], key), pair) },
		naive: func(in [][]tup) []tup { return joined(in[0], in[1], val, key) }})
	// A flat-map that drops some pairs and repeats others.
	some := func(k int, x, y tup) []tup {
		if p := pair(k, x, y); (p.K+p.V)%3 != 0 {
			return []tup{p, {p.K, 0}, p}
		}
		return nil
	}
	prop(t, "join flat-map", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return JoinFlatMap(IndexBy(in[0], val), IndexBy(in[1], key), some) },
		naive: func(in [][]tup) []tup {
			var out []tup
			for _, p := range joined(in[0], in[1], val, key) {
				out = append(out, some(0, tup{K: p.K}, tup{V: p.V})...)
			}
			return out
		}})
	// A join is due on one side's change only when the other side holds
	// tuples or changed before it in the step: with the right side
	// arranged first, it changes first.
	prop(t, "join, right side arranged first", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			right := IndexBy(in[1], key)
			return Join(IndexBy(in[0], val), right, pair)
		},
		naive: func(in [][]tup) []tup { return joined(in[0], in[1], val, key) }})
	prop(t, "self join", scenario[tup]{inputs: 1, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { i := IndexBy(in[0], key); return Join(i, i, pair) },
		naive: func(in [][]tup) []tup { return joined(in[0], in[0], key, key) }})
	semi := func(in [][]tup, want bool) []tup {
		keys := set(slices.Collect(maps.Keys(groups(in[1], key))))
		var out []tup
		for _, x := range in[0] {
			if keys[val(x)] == want {
				out = append(out, x)
			}
		}
		return out
	}
	prop(t, "semijoin", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return SemiJoin(IndexBy(in[0], val), IndexBy(in[1], key)) },
		naive: func(in [][]tup) []tup { return semi(in, true) }})
	prop(t, "semijoin, right side arranged first", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			right := IndexBy(in[1], key)
			return SemiJoin(IndexBy(in[0], val), right)
		},
		naive: func(in [][]tup) []tup { return semi(in, true) }})
	// A left join: each tuple of the left side with its matches, or alone.
	alone := func(x tup) tup { return tup{x.K, 100 + x.V} }
	leftJoined := func(a, b []tup, matched func(x, y tup) []tup, unmatched func(x tup) []tup) []tup {
		var out []tup
		for _, x := range a {
			n := 0
			for _, y := range b {
				if val(x) == key(y) {
					out = append(out, matched(x, y)...)
					n++
				}
			}
			if n == 0 {
				out = append(out, unmatched(x)...)
			}
		}
		return out
	}
	one := func(x, y tup) []tup { return []tup{pair(0, x, y)} }
	prop(t, "left join", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return LeftJoin(IndexBy(in[0], val), IndexBy(in[1], key), pair, alone) },
		naive: func(in [][]tup) []tup {
			return leftJoined(in[0], in[1], one, func(x tup) []tup { return []tup{alone(x)} })
		}})
	prop(t, "left join, right side arranged first", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			right := IndexBy(in[1], key)
			return LeftJoin(IndexBy(in[0], val), right, pair, alone)
		},
		naive: func(in [][]tup) []tup {
			return leftJoined(in[0], in[1], one, func(x tup) []tup { return []tup{alone(x)} })
		}})
	// Some tuples alone yield nothing, others twice.
	someAlone := func(x tup) []tup {
		if x.V%3 == 0 {
			return nil
		}
		return []tup{alone(x), {x.K, 0}, alone(x)}
	}
	prop(t, "left join flat-map", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			return LeftJoinFlatMap(IndexBy(in[0], val), IndexBy(in[1], key), some, someAlone)
		},
		naive: func(in [][]tup) []tup {
			return leftJoined(in[0], in[1], func(x, y tup) []tup { return some(0, x, y) }, someAlone)
		}})
	// Weights above one on both sides, and below zero on the right: the
	// left join must equal the union it stands for.
	weightedLeft := func(in []Rel[tup]) (Index[int, tup], Index[int, tup]) {
		return IndexBy(Union(in[0], Map(in[2], func(x tup) tup { return tup{x.K, x.V % 3} })), val),
			IndexBy(Union(in[1], in[1], Negate(in[2])), key)
	}
	prop(t, "left join with weights", scenario[tup]{inputs: 3, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			a, b := weightedLeft(in)
			return Distinct(LeftJoin(a, b, pair, alone))
		},
		naive: func(in [][]tup) []tup {
			c := NewCircuit()
			var rels []Rel[tup]
			var ins []*Input[tup]
			for i := range in {
				input, r := NewInput[tup](c, fmt.Sprint("in", i))
				ins, rels = append(ins, input), append(rels, r)
			}
			a, b := weightedLeft(rels)
			out := NewOutput(Distinct(Union(Join(a, b, pair), Map(AntiJoin(a, b), alone))), byKV)
			for i, rows := range in {
				for _, x := range rows {
					ins[i].Insert(x)
				}
			}
			c.Step()
			return out.Contents()
		}})
	prop(t, "antijoin", scenario[tup]{inputs: 2, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] { return AntiJoin(IndexBy(in[0], val), IndexBy(in[1], key)) },
		naive: func(in [][]tup) []tup { return semi(in, false) }})
	// Weights above one reach the antijoin's right side and the join's inputs.
	prop(t, "antijoin over a join", scenario[tup]{inputs: 3, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			j := Join(IndexBy(in[0], val), IndexBy(in[1], key), pair)
			return AntiJoin(IndexBy(in[2], key), IndexBy(j, val))
		}})
	prop(t, "chain of three joins", scenario[tup]{inputs: 4, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			ab := Join(IndexBy(in[0], val), IndexBy(in[1], key), pair)
			abc := Join(IndexBy(ab, val), IndexBy(in[2], key), pair)
			return Join(IndexBy(abc, val), IndexBy(in[3], key), pair)
		},
		naive: func(in [][]tup) []tup {
			return joined(joined(joined(in[0], in[1], val, key), in[2], val, key), in[3], val, key)
		}})
	prop(t, "join, group-by, join", scenario[tup]{inputs: 3, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			j := Join(IndexBy(in[0], val), IndexBy(in[1], key), pair)
			n := Map(Count(IndexBy(j, key)), func(kv KV[int, int]) tup { return tup{kv.Key, kv.Value % nK} })
			return Join(IndexBy(n, val), IndexBy(in[2], key), pair)
		}})
}

func TestPropertyAggregates(t *testing.T) {
	byV := func(a, b tup) int { return cmp.Compare(a.V, b.V) }
	each := func(in [][]tup, f func(k int, g []tup) []KV[int, tup]) []KV[int, tup] {
		var out []KV[int, tup]
		for k, g := range groups(in[0], key) {
			out = append(out, f(k, g)...)
		}
		return out
	}
	prop(t, "count", scenario[KV[int, int]]{inputs: 1, cmp: byKey[int, int],
		build: func(in []Rel[tup]) Rel[KV[int, int]] { return Count(IndexBy(in[0], key)) },
		naive: func(in [][]tup) []KV[int, int] {
			var out []KV[int, int]
			for k, g := range groups(in[0], key) {
				out = append(out, KV[int, int]{k, len(g)})
			}
			return out
		}})
	prop(t, "min", scenario[KV[int, tup]]{inputs: 1, cmp: byKey[int, tup],
		build: func(in []Rel[tup]) Rel[KV[int, tup]] { return Min(IndexBy(in[0], key), byV) },
		naive: func(in [][]tup) []KV[int, tup] {
			return each(in, func(k int, g []tup) []KV[int, tup] { return []KV[int, tup]{{k, slices.MinFunc(g, byV)}} })
		}})
	prop(t, "max", scenario[KV[int, tup]]{inputs: 1, cmp: byKey[int, tup],
		build: func(in []Rel[tup]) Rel[KV[int, tup]] { return Max(IndexBy(in[0], key), byV) },
		naive: func(in [][]tup) []KV[int, tup] {
			return each(in, func(k int, g []tup) []KV[int, tup] { return []KV[int, tup]{{k, slices.MaxFunc(g, byV)}} })
		}})
	prop(t, "fold", scenario[KV[int, int]]{inputs: 1, cmp: byKey[int, int],
		build: func(in []Rel[tup]) Rel[KV[int, int]] {
			return Fold(IndexBy(in[0], key), 0, func(s int, x tup) int { return s + x.V })
		},
		naive: func(in [][]tup) []KV[int, int] {
			var out []KV[int, int]
			for k, g := range groups(in[0], key) {
				s := 0
				for _, x := range g {
					s += x.V
				}
				out = append(out, KV[int, int]{k, s})
			}
			return out
		}})
	prop(t, "collect", scenario[KV[int, Sorted[tup]]]{inputs: 1, cmp: byKey[int, Sorted[tup]], opts: []gocmp.Option{showSorted},
		build: func(in []Rel[tup]) Rel[KV[int, Sorted[tup]]] { return Collect(IndexBy(in[0], key), byKV) }})
	// Collect with a cmp that ties distinct tuples, over a relation whose
	// weights go above one and below zero: each group must hold its tuples
	// of positive weight, in cmp order (any order among ties).
	byVDiv4 := func(a, b tup) int { return cmp.Compare(a.V/4, b.V/4) }
	prop(t, "collect with ties", scenario[string]{inputs: 3, cmp: cmp.Compare[string],
		build: func(in []Rel[tup]) Rel[string] {
			u := Union(in[0], Map(in[1], func(x tup) tup { return tup{x.K, x.V % 5} }), Negate(in[2]))
			return Map(Collect(IndexBy(u, key), byVDiv4), func(kv KV[int, Sorted[tup]]) string {
				g := slices.Collect(kv.Value.All())
				if !slices.IsSortedFunc(g, byVDiv4) {
					return fmt.Sprint(kv.Key, " unsorted ", g)
				}
				slices.SortFunc(g, byKV)
				return fmt.Sprint(kv.Key, g)
			})
		}})
	// Rank over a relation whose weights go above one and below zero.
	weighted := func(in []Rel[tup]) Rel[tup] {
		return Union(in[0], Map(in[1], func(x tup) tup { return tup{x.K, x.V % 5} }), Negate(in[2]))
	}
	prop(t, "rank", scenario[Ranked[tup]]{inputs: 3,
		cmp:   func(a, b Ranked[tup]) int { return cmp.Or(byKV(a.Tuple, b.Tuple), cmp.Compare(a.Rank, b.Rank)) },
		build: func(in []Rel[tup]) Rel[Ranked[tup]] { return Rank(IndexBy(weighted(in), key), byKV) },
		naive: func(in [][]tup) []Ranked[tup] {
			w := map[tup]int{}
			for _, x := range in[0] {
				w[x]++
			}
			for _, x := range in[1] {
				w[tup{x.K, x.V % 5}]++
			}
			for _, x := range in[2] {
				w[x]--
			}
			var pos []tup
			for x, n := range w {
				if n > 0 {
					pos = append(pos, x)
				}
			}
			var out []Ranked[tup]
			for _, g := range groups(pos, key) {
				slices.SortFunc(g, byKV)
				for i, x := range g {
					out = append(out, Ranked[tup]{x, i + 1})
				}
			}
			return out
		}})
	// A group-by with several outputs per group, over a relation whose
	// weights go above one and below zero.
	prop(t, "group-by", scenario[tup]{inputs: 3, cmp: byKV,
		build: func(in []Rel[tup]) Rel[tup] {
			u := Union(in[0], Map(in[1], func(x tup) tup { return tup{x.K, x.V % 5} }), Negate(in[2]))
			return GroupBy(IndexBy(u, key), func(k int, g []tup) []tup {
				return []tup{{k, -1}, {k, slices.MinFunc(g, byV).V}, {k, 100 + len(g)}}
			})
		}})
}

// TestPropertyGroup checks group (an arrangement's per-key group, and the
// weights Distinct and Output keep) against a map, from a first change of
// any size (as a new key's) or a reserved empty group, through growth past
// linearMax and of its index, and removals that move items and shift the
// index's entries back.
func TestPropertyGroup(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var first []Change[int] // appended, as IndexBy's step does
		want := map[int]Weight{}
		for _, x := range rapid.SliceOfDistinct(rapid.IntRange(0, 80), rapid.ID).Draw(t, "first") {
			d := rapid.SampledFrom([]Weight{-2, -1, 1, 2}).Draw(t, "first weight")
			first = append(first, Change[int]{x, d})
			want[x] = d
		}
		g := newGroup(first)
		// Distinct and Output reserve their empty group instead.
		g.reserve(rapid.IntRange(0, 2*reuseMax).Draw(t, "reserve"))
		for range rapid.IntRange(0, 300).Draw(t, "changes") {
			x := rapid.IntRange(0, 80).Draw(t, "tuple")
			d := rapid.SampledFrom([]Weight{-2, -1, 1, 2}).Draw(t, "weight")
			was, is := g.add(x, d)
			if old := want[x]; was != (old > 0) || is != (old+d > 0) {
				t.Fatalf("add(%d, %d) = %v, %v with weight %d", x, d, was, is, old)
			}
			bump(want, x, d)
			got := map[int]Weight{}
			npos := 0
			for i := range g.len() {
				it := g.at(i)
				got[it.Tuple] = it.Weight
				if it.Weight > 0 {
					npos++
				}
				if g.find(it.Tuple) != i {
					t.Fatalf("find(%d) = %d, want %d", it.Tuple, g.find(it.Tuple), i)
				}
			}
			if !maps.Equal(want, got) || len(got) != g.len() || npos != g.positive() {
				t.Fatalf("group %v (positive %d), want %v", got, g.positive(), want)
			}
			for y := range 81 {
				if _, ok := want[y]; !ok && g.find(y) >= 0 {
					t.Fatalf("find(%d) = %d for a tuple not in the group", y, g.find(y))
				}
			}
		}
	})
}

// TestPropertySorted checks editSorted against a set through rounds of
// random inserts and deletes, with chunks small enough that edits grow,
// split, empty and rebuild them, and a cmp that ties distinct tuples. The
// edited handle must leave the previous one as it was.
func TestPropertySorted(t *testing.T) {
	byV3 := func(a, b tup) int { return cmp.Compare(a.V/3, b.V/3) }
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.IntRange(1, 6).Draw(t, "size")
		model := map[tup]bool{}
		var s Sorted[tup]
		for range rapid.IntRange(1, 30).Draw(t, "rounds") {
			var ins, del []tup
			touched := map[tup]bool{}
			for range rapid.IntRange(0, 12).Draw(t, "changes") {
				x := tup{rapid.IntRange(0, 3).Draw(t, "k"), rapid.IntRange(0, 150).Draw(t, "v")}
				if touched[x] {
					continue
				}
				touched[x] = true
				if model[x] {
					del = append(del, x)
					delete(model, x)
				} else {
					ins = append(ins, x)
					model[x] = true
				}
			}
			before := slices.Collect(s.All())
			prev := s
			s = editSorted(s, ins, del, byV3, size)
			if got := slices.Collect(prev.All()); !slices.Equal(got, before) {
				t.Fatalf("edit changed the previous handle: %v, was %v", got, before)
			}
			got := slices.Collect(s.All())
			// diffPositions reports exactly the positions that differ.
			var diff, want []int
			diffPositions(prev, s, func(i int, o tup, inOld bool, n tup, inNew bool) {
				if inOld != (i < len(before)) || inNew != (i < len(got)) || inOld && o != before[i] || inNew && n != got[i] {
					t.Fatalf("position %d: (%v %v) (%v %v), was %v, is %v", i, o, inOld, n, inNew, before, got)
				}
				diff = append(diff, i)
			})
			for i := range max(len(before), len(got)) {
				if i >= len(before) || i >= len(got) || before[i] != got[i] {
					want = append(want, i)
				}
			}
			if !slices.Equal(diff, want) {
				t.Fatalf("diffPositions %v, want %v (was %v, is %v)", diff, want, before, got)
			}
			if !slices.IsSortedFunc(got, byV3) {
				t.Fatalf("not sorted: %v", got)
			}
			if want := slices.SortedFunc(maps.Keys(model), byKV); !slices.Equal(slices.SortedFunc(slices.Values(got), byKV), want) {
				t.Fatalf("holds %v, want %v", got, want)
			}
			if s.Len() != len(got) {
				t.Fatalf("Len %d, want %d", s.Len(), len(got))
			}
			for i, x := range got {
				if s.At(i) != x {
					t.Fatalf("At(%d) = %v, want %v", i, s.At(i), x)
				}
			}
			if s.s != nil {
				for _, c := range s.s.chunks {
					if len(c) == 0 || len(c) > 2*size {
						t.Fatalf("chunk of %d with size %d", len(c), size)
					}
				}
				if len(s.s.chunks) > 2*(len(got)/size+1) {
					t.Fatalf("%d chunks for %d tuples of size %d", len(s.s.chunks), len(got), size)
				}
			}
		}
	})
}
