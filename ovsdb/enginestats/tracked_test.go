package enginestats

import (
	"fmt"
	"maps"
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
