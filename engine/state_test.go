package engine_test

import (
	"strings"
	"testing"

	"github.com/northlog/northlog/engine"
)

// pair is a tuple with an id and a key.
type pair struct{ ID, K int }

// TestStateSizes checks what StateSizes reports of two arrangements of one
// relation by the same key, one by another key, and a Distinct.
func TestStateSizes(t *testing.T) {
	c := engine.NewCircuit()
	in, r := engine.NewInput[pair](c, "pairs")
	byK := func(x pair) int { return x.K }
	engine.IndexBy(r, byK)
	engine.IndexBy(r, byK)
	engine.IndexBy(r, func(x pair) int { return x.ID })
	engine.Distinct(r)
	for i := range 10 {
		in.Insert(pair{i, i % 3})
	}
	c.Step()
	sizes := c.StateSizes()
	if len(sizes) != 5 {
		t.Fatalf("%d operators with state, want 5: %+v", len(sizes), sizes)
	}
	ops := []string{"NewInput", "IndexBy", "IndexBy", "IndexBy", "Distinct"}
	keys := []int{0, 3, 3, 10, 0}
	for i, s := range sizes {
		if s.Op != ops[i] || s.Keys != keys[i] || s.Tuples != 10 || s.Bytes <= 0 || s.Tuple != "engine_test.pair" {
			t.Errorf("operator %d: %+v, want %s with %d keys and 10 tuples of engine_test.pair", i, s, ops[i], keys[i])
		}
		if !strings.HasPrefix(s.Site, "state_test.go:") {
			t.Errorf("operator %d added at %q, want this file", i, s.Site)
		}
	}
	if a, b, other := sizes[1], sizes[2], sizes[3]; a.Reads != b.Reads || a.Reads != other.Reads || a.Digest != b.Digest || a.Digest == other.Digest {
		t.Errorf("arrangements by K %+v and %+v, by ID %+v: want one relation read, the same digest by K only", a, b, other)
	}
}
