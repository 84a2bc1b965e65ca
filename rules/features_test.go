package rules

import (
	"testing"

	"github.com/northlog/northlog/relations"
	"pgregory.net/rapid"
)

// setFeatures joins TestIncrementalEqualsRecompute's random changes: the
// SB chassis features flip, which rewrites the conntrack flows of every
// stateful switch and NAT router.
func init() {
	nbChanges["setFeatures"] = func(t *rapid.T, s *nbState, p *Program) {
		s.features = relations.Features{
			CTNoMaskedLabel: rapid.Bool().Draw(t, "ct_no_masked_label"),
			CTLBRelated:     rapid.Bool().Draw(t, "ct_lb_related"),
		}
		p.Features.Set(s.features)
	}
}

// TestFeaturesIncrementalEqualsRecompute is TestIncrementalEqualsRecompute
// restricted to feature flips mixed with the changes that build what reads
// the features (stateful ACLs, load balancers, ECMP symmetric routes, NAT),
// so that a flip often meets switches and routers that just gained or lost
// them.
func TestFeaturesIncrementalEqualsRecompute(t *testing.T) {
	names := []string{"setFeatures", "addSwitch", "delSwitch", "addPort", "addACL", "delACL", "editACL",
		"addPortGroup", "setGroupPorts", "addLB", "setVIPs", "addRouter", "addRouterPort", "delRouter"}
	for name := range routerChanges {
		names = append(names, "router/"+name)
	}
	for name := range natChanges {
		names = append(names, "nat/"+name)
	}
	checkIncremental(t, names, 20, 3)
}
