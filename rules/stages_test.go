package rules

import (
	"testing"

	"github.com/northlog/northlog/relations/schema"
)

// TestStageTables: each release's pipelines have the number of stages its
// northd.c PIPELINE_STAGES lists, numbered 0, 1, ... in each pipeline, and
// the stages both releases have come in the same order in both.
func TestStageTables(t *testing.T) {
	for r, want := range map[schema.Release][4]int{
		schema.OVN2303: {27, 10, 22, 7},
		schema.OVN2603: {34, 16, 29, 7},
	} {
		st := StagesOf(r)
		var got [4]int
		for i, kind := range []DatapathKind{Switch, Router} {
			for _, s := range st.Stages(kind) {
				slot := 2*i + int(s.Pipeline())
				if st.Table(s) != got[slot] {
					t.Errorf("%s: %s is table %d; want %d", r, s, st.Table(s), got[slot])
				}
				if back, ok := st.Lookup(kind, s.Pipeline(), st.Table(s)); !ok || back != s {
					t.Errorf("%s: Lookup(%s's table) = %s, %v", r, s, back, ok)
				}
				got[slot]++
			}
		}
		if got != want {
			t.Errorf("%s: stages per pipeline %v; want %v", r, got, want)
		}
	}
	old, cur := StagesOf(schema.OVN2303), StagesOf(schema.OVN2603)
	for a := Stage(0); a < numStages; a++ {
		for b := a + 1; b < numStages; b++ {
			if a.Kind() != b.Kind() || a.Pipeline() != b.Pipeline() || !old.Has(a) || !old.Has(b) || !cur.Has(a) || !cur.Has(b) {
				continue
			}
			if old.Table(a) >= old.Table(b) || cur.Table(a) >= cur.Table(b) {
				t.Errorf("%s and %s are in different orders in 23.03 and 26.03", a, b)
			}
		}
	}
}
