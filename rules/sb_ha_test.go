package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHAChassisListRoundTrip: a list of HA chassis decodes to itself,
// sorted, duplicates and odd names kept.
func TestHAChassisListRoundTrip(t *testing.T) {
	in := []HAChassis{{"gw2", 10}, {"gw 1\n|\"x\"", 5}, {"gw2", 10}, {"", 0}}
	l := haChassisListOf(in)
	want := []HAChassis{{"", 0}, {"gw 1\n|\"x\"", 5}, {"gw2", 10}, {"gw2", 10}}
	if d := cmp.Diff(want, l.Slice()); d != "" {
		t.Errorf("decoded list (-want +got):\n%s", d)
	}
	if l.Len() != 4 || HAChassisList("").Len() != 0 || HAChassisList("").Slice() != nil {
		t.Errorf("Len %d, empty list %d %v", l.Len(), HAChassisList("").Len(), HAChassisList("").Slice())
	}
}
