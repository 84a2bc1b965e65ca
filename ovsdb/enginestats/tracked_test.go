package enginestats

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
)

// TestReferrers: a row's referrers are a list up to fewReferrers and a map
// beyond; either way a referrer added again replaces its table, and they
// yield what was added and not removed.
func TestReferrers(t *testing.T) {
	var r referrers
	want := map[string]string{}
	check := func(when string) {
		t.Helper()
		if got := maps.Collect(r.all()); !maps.Equal(got, want) || r.len() != len(want) {
			t.Fatalf("%s: referrers %v (len %d), want %v", when, got, r.len(), want)
		}
	}
	for i := range fewReferrers + 3 {
		u := fmt.Sprint("row", i)
		r = r.add(u, "switch")
		r = r.add(u, "router")
		want[u] = "router"
		check(fmt.Sprintf("%d added", i+1))
	}
	for _, u := range slices.Sorted(maps.Keys(maps.Clone(want))) {
		r = r.remove(u)
		delete(want, u)
		check(u + " removed")
	}
}

// TestSameValue: sameValue's typed comparisons agree with
// reflect.DeepEqual, an empty set or map equal to a missing one.
func TestSameValue(t *testing.T) {
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	values := [][]any{
		{"", "a", "b"},
		{0, 1, 2},
		{false, true},
		{(*string)(nil), str(""), str("a"), str("b")},
		{(*int)(nil), num(0), num(1)},
		{[]string(nil), []string{}, []string{"a"}, []string{"a", "b"}, []string{"b", "a"}},
		{map[string]string(nil), map[string]string{}, map[string]string{"a": "1"}, map[string]string{"a": "2"}},
		{1.5, 2.5},
	}
	for _, vs := range values {
		for _, a := range vs {
			for _, b := range vs {
				va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
				want := reflect.DeepEqual(a, b) || (va.Kind() == reflect.Slice || va.Kind() == reflect.Map) && va.Len() == 0 && vb.Len() == 0
				if got := sameValue(va, vb); got != want {
					t.Errorf("sameValue(%#v, %#v) = %v, want %v", a, b, got, want)
				}
			}
		}
	}
}

// TestReindexUpdate: indexing an update's references by the columns'
// differences leaves the index as listing all of them does, whether a
// set gains or loses a few elements or many, an optional reference
// changes, or a reference moves from one column to another; the same
// when the change names the columns that changed (wire.Change.Columns,
// the row decoder's), some of them without references.
func TestReindexUpdate(t *testing.T) {
	s := nb.Schema()
	byDiff, byColumns, whole := newRefIndex(&s, nil, nil), newRefIndex(&s, nil, nil), newRefIndex(&s, nil, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	uuid := func() string { return fmt.Sprintf("%08x-0000-0000-0000-000000000000", rng.IntN(40)) }
	toggle := func(set []string, u string) []string {
		if i := slices.Index(set, u); i >= 0 {
			return slices.Delete(slices.Clone(set), i, i+1)
		}
		return append(slices.Clone(set), u)
	}
	var old model.Model
	ls := &nb.LogicalSwitch{UUID: "ls"}
	for step := range 400 {
		next := *ls
		var cols []string
		switch rng.IntN(6) {
		case 0, 1:
			next.Ports = toggle(next.Ports, uuid())
			cols = []string{"ports"}
		case 2:
			for range 1 + rng.IntN(2*smallDiff) {
				next.Ports = toggle(next.Ports, uuid())
			}
			cols = []string{"ports"}
		case 3:
			next.ACLs = toggle(next.ACLs, uuid())
			cols = []string{"acls"}
		case 4:
			next.Name = fmt.Sprint(step)
			cols = []string{"name"}
		default:
			u := uuid()
			next.Copp = &u
			if rng.IntN(3) == 0 {
				next.Copp = nil
			}
			cols = []string{"copp"}
		}
		c := wire.Change{Table: nb.LogicalSwitchTable, UUID: ls.UUID, Old: old, New: &next}
		named := c
		if old != nil {
			named.Columns = cols
		}
		for _, x := range []struct {
			index *refIndex
			c     wire.Change
		}{{byDiff, c}, {byColumns, named}} {
			if !x.index.reindexUpdate(x.c) {
				x.index.reindex(x.c)
			}
		}
		whole.reindex(c)
		for _, x := range []*refIndex{byDiff, byColumns} {
			if !maps.EqualFunc(x.refs, whole.refs, slices.Equal) {
				t.Fatalf("step %d: refs %v, want %v", step, x.refs, whole.refs)
			}
			if got, want := referrersOf(x), referrersOf(whole); !maps.EqualFunc(got, want, maps.Equal) {
				t.Fatalf("step %d: referrers %v, want %v", step, got, want)
			}
		}
		ls, old = &next, &next
	}
}

// referrersOf is x's referrers as plain maps.
func referrersOf(x *refIndex) map[string]map[string]string {
	out := map[string]map[string]string{}
	for u, r := range x.referrers {
		out[u] = maps.Collect(r.all())
	}
	return out
}

// TestTrackedRowColumns: the columns a tracked row changed are the same
// whether the change names them (wire.Change.Columns) or its two versions
// are compared, quiet columns left out either way, and a change of quiet
// columns alone tracks no row.
func TestTrackedRowColumns(t *testing.T) {
	s := nb.Schema()
	x := newRefIndex(&s, map[string]map[string]bool{nb.LogicalSwitchPortTable: {"external_ids": true}}, nil)
	up := true
	old := &nb.LogicalSwitchPort{UUID: "lsp", Name: "p", Addresses: []string{"00:00:00:00:00:01"}}
	for _, tc := range []struct {
		change func(*nb.LogicalSwitchPort)
		cols   []string
	}{
		{func(p *nb.LogicalSwitchPort) { p.Up = &up }, []string{"up"}},
		{func(p *nb.LogicalSwitchPort) { p.Addresses = nil; p.Type = "router" }, []string{"addresses", "type"}},
		{func(p *nb.LogicalSwitchPort) { p.ExternalIDs = map[string]string{"a": "b"} }, []string{"external_ids"}},
		{func(p *nb.LogicalSwitchPort) { p.ExternalIDs = map[string]string{"a": "b"}; p.Enabled = &up }, []string{"external_ids", "enabled"}},
	} {
		next := *old
		tc.change(&next)
		c := wire.Change{Table: nb.LogicalSwitchPortTable, UUID: old.UUID, Old: old, New: &next}
		compared := x.trackedRow(c)
		c.Columns = tc.cols
		named := x.trackedRow(c)
		if (compared == nil) != (named == nil) || compared != nil && !maps.Equal(compared.changed, named.changed) {
			t.Errorf("%v: tracked %+v by comparison, %+v by the columns named", tc.cols, compared, named)
		}
	}
}
