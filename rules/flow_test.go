package rules_test

import (
	"testing"
	"unsafe"

	"github.com/northlog/northlog/rules"
)

// TestFlowIsAnInlineMapKey: a Flow is at most 128 bytes, the largest key a
// Go map holds inline (internal/abi.MapMaxKeyBytes). The engine holds every
// change as a map keyed by its tuples; a larger Flow would cost a heap
// object for every flow of every change.
func TestFlowIsAnInlineMapKey(t *testing.T) {
	if n := unsafe.Sizeof(rules.Flow{}); n > 128 {
		t.Fatalf("a Flow is %d bytes, more than a map key held inline", n)
	}
}
