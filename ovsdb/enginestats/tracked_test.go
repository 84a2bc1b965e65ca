package enginestats

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
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
