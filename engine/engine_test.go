package engine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"

	gocmp "github.com/google/go-cmp/cmp"
)

type port struct {
	Name   string
	Switch string
}

type sw struct {
	Name string
	Zone string
}

func ins[T comparable](ts ...T) []Change[T] {
	var cs []Change[T]
	for _, t := range ts {
		cs = append(cs, Change[T]{t, 1})
	}
	return cs
}

func del[T comparable](ts ...T) []Change[T] {
	var cs []Change[T]
	for _, t := range ts {
		cs = append(cs, Change[T]{t, -1})
	}
	return cs
}

// check steps c, expects no rejection, and compares o's delta and contents.
func check[T comparable](t *testing.T, c *Circuit, o *Output[T], delta []Change[T], contents []T) {
	t.Helper()
	if rej := c.Step(); len(rej) > 0 {
		t.Fatalf("unexpected rejections: %v", rej)
	}
	if d := gocmp.Diff(delta, o.Delta(), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("delta (-want +got):\n%s", d)
	}
	if d := gocmp.Diff(contents, o.Contents(), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("contents (-want +got):\n%s", d)
	}
	if o.Len() != len(contents) {
		t.Errorf("Len() = %d, want %d", o.Len(), len(contents))
	}
}

func TestInputIsASet(t *testing.T) {
	c := NewCircuit()
	in, r := NewInput[string](c, "names")
	// Count the weight that reaches the relation: a set input never exceeds 1.
	o := NewOutput(Count(IndexBy(r, func(string) int { return 0 })), func(a, b KV[int, int]) int { return cmp.Compare(a.Value, b.Value) })

	in.Insert("a")
	in.Insert("a") // duplicate in one step
	check(t, c, o, ins(KV[int, int]{0, 1}), []KV[int, int]{{0, 1}})

	in.Insert("a") // duplicate of a committed row
	check(t, c, o, nil, []KV[int, int]{{0, 1}})

	in.Delete("b") // absent: no-op
	check(t, c, o, nil, []KV[int, int]{{0, 1}})

	in.Delete("a")
	in.Delete("a")
	check(t, c, o, del(KV[int, int]{0, 1}), nil)

	in.Insert("x")
	in.Delete("x") // cancelled within the step
	check(t, c, o, nil, nil)
	if in.Has("x") {
		t.Error("Has(x) after insert+delete")
	}
	in.Update("y", "y") // no-op
	check(t, c, o, nil, nil)

	in.Set("z", true)
	in.Set("z", true)
	check(t, c, o, ins(KV[int, int]{0, 1}), []KV[int, int]{{0, 1}})
	in.Set("z", false)
	check(t, c, o, del(KV[int, int]{0, 1}), nil)
}

func TestDistinctCrossesZero(t *testing.T) {
	c := NewCircuit()
	a, ra := NewInput[int](c, "a")
	b, rb := NewInput[int](c, "b")
	// Union(a, a, −b): weight of x is 2·[x∈a] − [x∈b], which can go to 2, 1, −1.
	o := NewOutput(Distinct(Union(ra, ra, Negate(rb))), cmp.Compare[int])

	a.Insert(1)
	check(t, c, o, ins(1), []int{1})
	b.Insert(1) // weight 2 → 1: still present
	check(t, c, o, nil, []int{1})
	a.Delete(1) // weight 1 → −1: gone
	check(t, c, o, del(1), nil)
	b.Delete(1) // −1 → 0: still absent
	check(t, c, o, nil, nil)
	b.Insert(2) // −1: never present
	check(t, c, o, nil, nil)
	a.Insert(2) // −1 → 1
	check(t, c, o, ins(2), []int{2})
}

func TestDropChangesKeepsContents(t *testing.T) {
	c := NewCircuit()
	in, r := NewInput[int](c, "in")
	o := NewOutput(r, cmp.Compare[int])
	in.Insert(1)
	in.Insert(2)
	check(t, c, o, ins(1, 2), []int{1, 2})
	o.DropChanges()
	if len(o.Delta()) != 0 || len(o.Changes()) != 0 {
		t.Errorf("after DropChanges: Delta %v, Changes %v, want none", o.Delta(), o.Changes())
	}
	if got := o.Contents(); !slices.Equal(got, []int{1, 2}) || o.Len() != 2 {
		t.Errorf("after DropChanges: Contents %v, Len %d, want [1 2], 2", got, o.Len())
	}
	in.Delete(1)
	in.Insert(3)
	check(t, c, o, append(del(1), ins(3)...), []int{2, 3})
}

// TestDropContentsPassesWeights: an Output that keeps nothing hands on
// its input's weights as they change, and has no contents to give.
func TestDropContentsPassesWeights(t *testing.T) {
	c := NewCircuit()
	a, ra := NewInput[int](c, "a")
	b, rb := NewInput[int](c, "b")
	// Union(a, a, b): 1 in a and b has weight 3; an Output would say it
	// once, the unkept one gives the weights as they change.
	o := NewOutput(Union(ra, ra, rb), cmp.Compare[int])
	o.DropContents()
	a.Insert(1)
	b.Insert(1)
	b.Insert(2)
	c.Step()
	if d := gocmp.Diff([]Change[int]{{1, 3}, {2, 1}}, o.Delta()); d != "" {
		t.Errorf("delta (-want +got):\n%s", d)
	}
	b.Delete(1)
	c.Step()
	if d := gocmp.Diff([]Change[int]{{1, -1}}, o.Delta()); d != "" {
		t.Errorf("delta after 3 → 2 (-want +got):\n%s", d)
	}
	defer func() {
		if recover() == nil {
			t.Error("Contents after DropContents did not panic")
		}
	}()
	o.Contents()
}

// TestEachChangeOfUnkeptOutput: an unkept Output that is its input's last
// reader keeps the input's change itself (stream.hand); EachChange yields
// it, the next steps' changes are their own, and DropChanges forgets it.
func TestEachChangeOfUnkeptOutput(t *testing.T) {
	c := NewCircuit()
	a, ra := NewInput[int](c, "a")
	b, rb := NewInput[int](c, "b")
	o := NewOutput(Union(Map(ra, func(x int) int { return x }), rb), cmp.Compare[int])
	o.DropContents()
	each := func() map[int]Weight {
		got := map[int]Weight{}
		for x, w := range o.EachChange() {
			got[x] = w
		}
		return got
	}
	a.Insert(1)
	a.Insert(2)
	b.Insert(2)
	c.Step()
	if d := gocmp.Diff(map[int]Weight{1: 1, 2: 2}, each()); d != "" {
		t.Errorf("first step (-want +got):\n%s", d)
	}
	a.Delete(1)
	c.Step()
	if d := gocmp.Diff(map[int]Weight{1: -1}, each()); d != "" {
		t.Errorf("second step (-want +got):\n%s", d)
	}
	if d := gocmp.Diff([]Change[int]{{1, -1}}, o.Changes()); d != "" {
		t.Errorf("Changes after EachChange (-want +got):\n%s", d)
	}
	b.Insert(3)
	c.Step()
	o.DropChanges()
	if got := each(); len(got) != 0 {
		t.Errorf("after DropChanges: %v", got)
	}
	c.Step()
	if got := each(); len(got) != 0 {
		t.Errorf("a step that changes nothing: %v", got)
	}
}

func TestUpdateChangesJoinKey(t *testing.T) {
	c := NewCircuit()
	ports, rp := NewInput[port](c, "ports")
	sws, rs := NewInput[sw](c, "switches")
	type pz struct{ Port, Zone string }
	j := Join(IndexBy(rp, func(p port) string { return p.Switch }), IndexBy(rs, func(s sw) string { return s.Name }),
		func(_ string, p port, s sw) pz { return pz{p.Name, s.Zone} })
	o := NewOutput(j, func(a, b pz) int { return cmp.Or(cmp.Compare(a.Port, b.Port), cmp.Compare(a.Zone, b.Zone)) })

	sws.Insert(sw{"s1", "z1"})
	sws.Insert(sw{"s2", "z2"})
	ports.Insert(port{"p1", "s1"})
	check(t, c, o, ins(pz{"p1", "z1"}), []pz{{"p1", "z1"}})

	ports.Update(port{"p1", "s1"}, port{"p1", "s2"})
	check(t, c, o, []Change[pz]{{pz{"p1", "z1"}, -1}, {pz{"p1", "z2"}, 1}}, []pz{{"p1", "z2"}})

	// Both sides change in one step: ΔA⋈ΔB must count once.
	ports.Update(port{"p1", "s2"}, port{"p1", "s3"})
	sws.Insert(sw{"s3", "z3"})
	check(t, c, o, []Change[pz]{{pz{"p1", "z2"}, -1}, {pz{"p1", "z3"}, 1}}, []pz{{"p1", "z3"}})

	sws.Update(sw{"s3", "z3"}, sw{"s3", "z9"})
	check(t, c, o, []Change[pz]{{pz{"p1", "z3"}, -1}, {pz{"p1", "z9"}, 1}}, []pz{{"p1", "z9"}})
}

func TestGroupEmptiedAndRefilled(t *testing.T) {
	c := NewCircuit()
	ports, rp := NewInput[port](c, "ports")
	idx := IndexBy(rp, func(p port) string { return p.Switch })
	counts := NewOutput(Count(idx), func(a, b KV[string, int]) int { return cmp.Compare(a.Key, b.Key) })
	names := NewOutput(Map(Collect(idx, func(a, b port) int { return cmp.Compare(a.Name, b.Name) }),
		func(kv KV[string, Sorted[port]]) string {
			var ns []string
			for p := range kv.Value.All() {
				ns = append(ns, p.Name)
			}
			return kv.Key + ":" + strings.Join(ns, ",")
		}), cmp.Compare[string])
	step := func(delta []Change[KV[string, int]], contents []KV[string, int], ns []string) {
		t.Helper()
		check(t, c, counts, delta, contents)
		if d := gocmp.Diff(ns, names.Contents(), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("collect (-want +got):\n%s", d)
		}
	}

	ports.Insert(port{"b", "s1"})
	ports.Insert(port{"a", "s1"})
	step(ins(KV[string, int]{"s1", 2}), []KV[string, int]{{"s1", 2}}, []string{"s1:a,b"})
	ports.Delete(port{"a", "s1"})
	ports.Delete(port{"b", "s1"})
	step(del(KV[string, int]{"s1", 2}), nil, nil)
	ports.Insert(port{"c", "s1"})
	step(ins(KV[string, int]{"s1", 1}), []KV[string, int]{{"s1", 1}}, []string{"s1:c"})
	// Emptied and refilled within one step: same count, so no change.
	ports.Delete(port{"c", "s1"})
	ports.Insert(port{"d", "s1"})
	step(nil, []KV[string, int]{{"s1", 1}}, []string{"s1:d"})
}

func TestSemiAndAntiJoin(t *testing.T) {
	c := NewCircuit()
	ports, rp := NewInput[port](c, "ports")
	sws, rs := NewInput[sw](c, "switches")
	pi := IndexBy(rp, func(p port) string { return p.Switch })
	si := IndexBy(rs, func(s sw) string { return s.Name })
	byName := func(a, b port) int { return cmp.Compare(a.Name, b.Name) }
	semi := NewOutput(SemiJoin(pi, si), byName)
	anti := NewOutput(AntiJoin(pi, si), byName)

	ports.Insert(port{"p1", "s1"})
	ports.Insert(port{"p2", "s2"})
	sws.Insert(sw{"s1", "z"})
	c.Step()
	if d := gocmp.Diff([]port{{"p1", "s1"}}, semi.Contents()); d != "" {
		t.Error(d)
	}
	if d := gocmp.Diff([]port{{"p2", "s2"}}, anti.Contents()); d != "" {
		t.Error(d)
	}
	// A second switch row under the same key does not change presence.
	sws.Insert(sw{"s1", "z2"})
	sws.Delete(sw{"s1", "z"})
	sws.Insert(sw{"s2", "z"})
	c.Step()
	if d := gocmp.Diff(ins(port{"p2", "s2"}), semi.Delta()); d != "" {
		t.Error(d)
	}
	if d := gocmp.Diff(del(port{"p2", "s2"}), anti.Delta()); d != "" {
		t.Error(d)
	}
}

// inOrderAndParallel runs test with circuits stepped in order (by
// ParallelFrom, or by one worker) and in parallel.
func inOrderAndParallel(t *testing.T, test func(t *testing.T, newCircuit func() *Circuit)) {
	for _, mode := range []struct{ from, workers int }{{math.MaxInt, 0}, {0, 1}, {0, 0}} {
		t.Run(fmt.Sprintf("parallel-from=%d,workers=%d", mode.from, mode.workers), func(t *testing.T) {
			test(t, func() *Circuit {
				c := NewCircuit()
				c.ParallelFrom(mode.from)
				if mode.workers > 0 {
					c.Workers(mode.workers)
				}
				return c
			})
		})
	}
}

func TestTryMapRejects(t *testing.T) { inOrderAndParallel(t, testTryMapRejects) }

func testTryMapRejects(t *testing.T, newCircuit func() *Circuit) {
	c := newCircuit()
	in, r := NewInput[string](c, "addrs")
	parse := func(s string) (int, error) {
		var n int
		if _, err := fmt.Sscanf(s, "%d", &n); err != nil {
			return 0, errors.New("not a number")
		}
		return n, nil
	}
	o := NewOutput(TryMap(r, "parse", parse), cmp.Compare[int])
	in.Insert("1")
	in.Insert("x")
	in.Insert("y")
	rej := c.Step()
	want := []string{`parse: x: not a number`, `parse: y: not a number`}
	var got []string
	for _, r := range rej {
		got = append(got, r.Error())
	}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("rejections (-want +got):\n%s", d)
	}
	if d := gocmp.Diff([]int{1}, o.Contents()); d != "" {
		t.Error(d)
	}
	// Retracting a rejected tuple is silent and leaves the rest intact.
	in.Delete("x")
	in.Insert("2")
	if rej := c.Step(); len(rej) != 0 {
		t.Errorf("retraction reported: %v", rej)
	}
	if d := gocmp.Diff([]int{1, 2}, o.Contents()); d != "" {
		t.Error(d)
	}
	if !errors.Is(rej[0], rej[0].Err) {
		t.Error("Rejected does not unwrap to its Err")
	}
}

func TestReportChecksInserts(t *testing.T) { inOrderAndParallel(t, testReportChecksInserts) }

func testReportChecksInserts(t *testing.T, newCircuit func() *Circuit) {
	c := newCircuit()
	in, r := NewInput[string](c, "addrs")
	var checked []string
	Report(r, "parse", func(s string) error {
		checked = append(checked, s)
		if _, err := strconv.Atoi(s); err != nil {
			return errors.New("not a number")
		}
		return nil
	})
	o := NewOutput(r, cmp.Compare[string])
	in.Insert("1")
	in.Insert("x")
	rej := c.Step()
	if len(rej) != 1 || rej[0].Error() != `parse: x: not a number` {
		t.Errorf("rejections: %v, want x's", rej)
	}
	// The relation keeps what Report refused; its delete is not checked.
	if d := gocmp.Diff([]string{"1", "x"}, o.Contents()); d != "" {
		t.Error(d)
	}
	in.Delete("x")
	in.Delete("1")
	if rej := c.Step(); len(rej) != 0 {
		t.Errorf("retraction reported: %v", rej)
	}
	slices.Sort(checked)
	if d := gocmp.Diff([]string{"1", "x"}, checked); d != "" {
		t.Errorf("checked (-want +got):\n%s", d)
	}
}

// TestDescribeTuples: a rejection shows its tuple as the circuit's
// DescribeTuples says, and Step orders rejections by that text.
func TestDescribeTuples(t *testing.T) {
	type row struct{ name string }
	type tuple struct {
		Row  *row
		Addr string
	}
	c := NewCircuit()
	c.DescribeTuples(func(x any) string {
		tu := x.(tuple)
		return "row " + tu.Row.name + " " + tu.Addr
	})
	in, r := NewInput[tuple](c, "rows")
	TryMap(r, "check", func(tuple) (int, error) { return 0, errors.New("bad") })
	in.Insert(tuple{&row{"b"}, "x"})
	in.Insert(tuple{&row{"a"}, "y"})
	var got []string
	for _, r := range c.Step() {
		got = append(got, r.Error())
	}
	if d := gocmp.Diff([]string{"check: row a y: bad", "check: row b x: bad"}, got); d != "" {
		t.Errorf("rejections (-want +got):\n%s", d)
	}
}

func TestMinMaxFoldFlatMap(t *testing.T) {
	c := NewCircuit()
	in, r := NewInput[string](c, "words")
	letters := FlatMap(r, func(s string) []KV[string, int] {
		var out []KV[string, int]
		for i := range s {
			out = append(out, KV[string, int]{s, i})
		}
		return out
	})
	idx := IndexBy(letters, func(kv KV[string, int]) string { return kv.Key })
	byKV := func(a, b KV[string, KV[string, int]]) int { return cmp.Compare(a.Key, b.Key) }
	byPos := func(a, b KV[string, int]) int { return cmp.Compare(a.Value, b.Value) }
	mn := NewOutput(Min(idx, byPos), byKV)
	mx := NewOutput(Max(idx, byPos), byKV)
	sum := NewOutput(Fold(idx, 0, func(s int, kv KV[string, int]) int { return s + kv.Value }),
		func(a, b KV[string, int]) int { return cmp.Compare(a.Key, b.Key) })
	in.Insert("abc")
	in.Insert("de")
	c.Step()
	wantMin := []KV[string, KV[string, int]]{{"abc", KV[string, int]{"abc", 0}}, {"de", KV[string, int]{"de", 0}}}
	wantMax := []KV[string, KV[string, int]]{{"abc", KV[string, int]{"abc", 2}}, {"de", KV[string, int]{"de", 1}}}
	if d := gocmp.Diff(wantMin, mn.Contents()); d != "" {
		t.Error(d)
	}
	if d := gocmp.Diff(wantMax, mx.Contents()); d != "" {
		t.Error(d)
	}
	if d := gocmp.Diff([]KV[string, int]{{"abc", 3}, {"de", 1}}, sum.Contents()); d != "" {
		t.Error(d)
	}
	in.Delete("abc")
	c.Step()
	if d := gocmp.Diff([]KV[string, int]{{"de", 1}}, sum.Contents()); d != "" {
		t.Error(d)
	}
}

func TestOutputDeltaOrder(t *testing.T) {
	c := NewCircuit()
	in, r := NewInput[int](c, "n")
	// cmp ties every tuple: deletes must still come before inserts.
	o := NewOutput(r, func(int, int) int { return 0 })
	in.Insert(1)
	c.Step()
	in.Update(1, 2)
	c.Step()
	if d := gocmp.Diff([]Change[int]{{1, -1}, {2, 1}}, o.Delta()); d != "" {
		t.Error(d)
	}
	if got := slices.Collect(SortedOf([]int{3, 1, 2}, cmp.Compare[int]).All()); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("SortedOf = %v", got)
	}
}

func TestBuildAfterStepPanics(t *testing.T) {
	c := NewCircuit()
	_, r := NewInput[int](c, "n")
	c.Step()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	Map(r, func(i int) int { return i })
}

func TestSplitPartAfterStepPanics(t *testing.T) {
	c := NewCircuit()
	_, r := NewInput[int](c, "n")
	s := SplitBy(r, func(i int) int { return i % 2 })
	s.Of(0)
	c.Step()
	s.Of(0) // asked for before: no panic
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	s.Of(1)
}

// TestStreamsFreedEarly checks that a step drops a stream's change once its
// last reader has run, keeps an input's change for the input's commit, and
// does not keep a map sized for a large change once a small one follows.
func TestStreamsFreedEarly(t *testing.T) { inOrderAndParallel(t, testStreamsFreedEarly) }

func testStreamsFreedEarly(t *testing.T, newCircuit func() *Circuit) {
	c := newCircuit()
	in, r := NewInput[int](c, "in")
	odd := Filter(r, func(x int) bool { return x%2 == 1 })
	var seen int // odd's change as its last reader sees it
	doubled := Map(odd, func(x int) int { seen++; return 2 * x })
	kept := 0 // odd's change as an operator after its last reader sees it
	probe := Map(doubled, func(x int) int { kept = max(kept, len(odd.s.delta)); return x })
	o := NewOutput(probe, cmp.Compare[int])
	none := FlatMap(r, func(int) []int { return nil })
	for i := range 1000 {
		in.Insert(i)
	}
	c.Step()
	if seen != 500 || o.Len() != 500 {
		t.Fatalf("saw %d odd tuples, output holds %d; want 500 and 500", seen, o.Len())
	}
	if kept != 0 {
		t.Errorf("the filter's change (%d tuples) was kept after its last reader ran", kept)
	}
	if !in.Has(999) {
		t.Error("the input's commit missed its change")
	}
	in.Delete(1)
	c.Step()
	if odd.s.reserved || doubled.s.reserved || none.s.reserved {
		t.Error("a map reserved for the large step is kept for the next ones")
	}
	if d := o.Delta(); len(d) != 1 || d[0] != (Change[int]{2, -1}) {
		t.Errorf("delta %v, want [{2 -1}]", d)
	}
}

// TestCancelledChangeUnseen checks that a tuple whose weights in a step's
// change sum to zero reaches no reader of that change.
func TestCancelledChangeUnseen(t *testing.T) { inOrderAndParallel(t, testCancelledChangeUnseen) }

func testCancelledChangeUnseen(t *testing.T, newCircuit func() *Circuit) {
	c := newCircuit()
	in, r := NewInput[int](c, "in")
	seen := 0
	Map(Union(r, Negate(r)), func(x int) int { seen++; return x })
	for i := range 100 {
		in.Insert(i)
	}
	c.Step()
	if seen != 0 {
		t.Errorf("the reader of a change that cancels out saw %d tuples", seen)
	}
}

// TestParallelStepPanics checks that a user function's panic in a parallel
// step reaches Step's caller, whichever worker ran it.
func TestParallelStepPanics(t *testing.T) {
	c := NewCircuit()
	c.ParallelFrom(0)
	in, r := NewInput[int](c, "in")
	for i := range 8 {
		NewOutput(Map(r, func(x int) int {
			if i == 5 && x == 3 {
				panic("five")
			}
			return x
		}), cmp.Compare[int])
	}
	for i := range 10 {
		in.Insert(i)
	}
	defer func() {
		if got := recover(); got != "five" {
			t.Errorf("recovered %v, want five", got)
		}
	}()
	c.Step()
}

// TestParallelLastReaderWaitsOnlyIfItTakes: in a parallel step, a
// stream's last reader waits for its other readers only when it may take
// the change and edit it (Filter, Union) or keep it (an unkept Output); a
// Map or an Output that keeps its own weights, which only read it, run
// beside them.
func TestParallelLastReaderWaitsOnlyIfItTakes(t *testing.T) {
	c := NewCircuit()
	same := func(x int) int { return x }
	odd := func(x int) bool { return x%2 == 1 }
	for _, tc := range []struct {
		name  string
		last  func(r Rel[int]) Rel[int]
		waits bool
	}{
		{"map", func(r Rel[int]) Rel[int] { return Map(r, same) }, false},
		{"filter", func(r Rel[int]) Rel[int] { return Filter(r, odd) }, true},
		{"union", func(r Rel[int]) Rel[int] { return Union(r, Map(r, same)) }, true},
		{"output", func(r Rel[int]) Rel[int] { NewOutput(r, cmp.Compare[int]); return r }, false},
		{"unkept output", func(r Rel[int]) Rel[int] { NewOutput(r, cmp.Compare[int]).DropContents(); return r }, true},
	} {
		_, in := NewInput[int](c, tc.name)
		r := Map(in, same) // an input's change is never taken
		Map(r, same)
		tc.last(r)
		first, last := r.s.readers[0], r.s.lastReader
		if got := slices.Contains(newGraph(c).next[first], int32(last)); got != tc.waits {
			t.Errorf("%s: last reader waits for the first: %t, want %t", tc.name, got, tc.waits)
		}
	}
}

// TestWorkersBoundAParallelStep: a parallel step runs at most Workers
// user functions at once, however many cores there are.
func TestWorkersBoundAParallelStep(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, workers := range []int{1, 2, 3} {
		c := NewCircuit()
		c.ParallelFrom(0)
		c.Workers(workers)
		in, r := NewInput[int](c, "in")
		var running, most atomic.Int32
		for range 8 {
			Map(r, func(x int) int {
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(5 * time.Millisecond)
				running.Add(-1)
				return x
			})
		}
		in.Insert(1)
		c.Step()
		if got := int(most.Load()); got > workers || workers == 1 && got != 1 {
			t.Errorf("Workers(%d): %d user functions ran at once", workers, got)
		}
	}
}
