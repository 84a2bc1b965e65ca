package reference

import (
	"slices"
	"testing"

	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// TestCanonicalECMP checks that dumps numbering the same ECMP groups and
// members differently compare equal in a release that numbers them in no
// fixed order, and still differ in 23.03 and when the groups differ.
func TestCanonicalECMP(t *testing.T) {
	a := []string{
		"lr0|ingress|16|4|ip4.dst == 0.0.0.0/0|reg8[0..15] = 1; reg8[16..31] = select(1, 2);",
		"lr0|ingress|16|132|ip4.dst == 10.0.0.0/8|reg8[0..15] = 2; reg8[16..31] = select(1, 2, 3);",
		"lr0|ingress|17|100|reg8[0..15] == 1 && reg8[16..31] == 1|reg0 = 1.1.1.1; next;",
		"lr0|ingress|17|100|reg8[0..15] == 1 && reg8[16..31] == 2|reg0 = 1.1.1.2; next;",
		"lr0|ingress|17|100|reg8[0..15] == 2 && reg8[16..31] == 1|reg0 = 2.2.2.1; next;",
		"lr0|ingress|17|100|reg8[0..15] == 2 && reg8[16..31] == 2|reg0 = 2.2.2.2; next;",
		"lr0|ingress|17|100|reg8[0..15] == 2 && reg8[16..31] == 3|reg0 = 2.2.2.3; next;",
		"lr0|ingress|17|150|reg8[0..15] == 0|next;",
		"lr0|ingress|18|1000|ip4.src == 10.0.0.1|reg8[0..15] = 1; reg8[16..31] = select(1, 2);",
		"lr0|ingress|19|100|reg8[0..15] == 1 && reg8[16..31] == 1|reg0 = 3.3.3.1; next;",
		"lr0|ingress|19|100|reg8[0..15] == 1 && reg8[16..31] == 2|reg0 = 3.3.3.2; next;",
	}
	// The route groups swapped, members renumbered, the policy group 7.
	b := []string{
		"lr0|ingress|16|4|ip4.dst == 0.0.0.0/0|reg8[0..15] = 2; reg8[16..31] = select(1, 2);",
		"lr0|ingress|16|132|ip4.dst == 10.0.0.0/8|reg8[0..15] = 1; reg8[16..31] = select(1, 2, 3);",
		"lr0|ingress|17|100|reg8[0..15] == 2 && reg8[16..31] == 2|reg0 = 1.1.1.1; next;",
		"lr0|ingress|17|100|reg8[0..15] == 2 && reg8[16..31] == 1|reg0 = 1.1.1.2; next;",
		"lr0|ingress|17|100|reg8[0..15] == 1 && reg8[16..31] == 3|reg0 = 2.2.2.1; next;",
		"lr0|ingress|17|100|reg8[0..15] == 1 && reg8[16..31] == 1|reg0 = 2.2.2.2; next;",
		"lr0|ingress|17|100|reg8[0..15] == 1 && reg8[16..31] == 2|reg0 = 2.2.2.3; next;",
		"lr0|ingress|17|150|reg8[0..15] == 0|next;",
		"lr0|ingress|18|1000|ip4.src == 10.0.0.1|reg8[0..15] = 7; reg8[16..31] = select(1, 2);",
		"lr0|ingress|19|100|reg8[0..15] == 7 && reg8[16..31] == 1|reg0 = 3.3.3.1; next;",
		"lr0|ingress|19|100|reg8[0..15] == 7 && reg8[16..31] == 2|reg0 = 3.3.3.2; next;",
	}
	newer, older := rules.StagesOf(schema.OVN2603), rules.StagesOf(schema.OVN2303)
	if r := CompareIn(newer, a, b); !r.Equal() {
		t.Errorf("26.03: renumbered ECMP groups differ:\n%s", r)
	}
	if r := CompareIn(older, a, b); r.Equal() {
		t.Error("23.03: renumbered ECMP groups compare equal")
	}
	// A member number out of the group's set, a member's next hop changed.
	for i, line := range map[int]string{
		4: "lr0|ingress|17|100|reg8[0..15] == 2 && reg8[16..31] == 4|reg0 = 2.2.2.1; next;",
		2: "lr0|ingress|17|100|reg8[0..15] == 1 && reg8[16..31] == 1|reg0 = 1.1.1.9; next;",
	} {
		c := slices.Clone(a)
		c[i] = line
		if r := CompareIn(newer, a, c); r.Equal() {
			t.Errorf("26.03: %s: compares equal", line)
		}
	}
}
