package rules_test

import (
	"flag"
	"testing"

	"github.com/northlog/northlog/internal/reference"
)

var natSeeds = flag.Int("nat-seeds", 50, "random NAT topologies compared with the reference in TestDifferentialRandomNAT")

// natTopology is DefaultTopology with more routers, gateway routers and
// distributed gateway ports, NAT rules on each router, and dynamic routing
// and EVPN (26.03 only).
func natTopology() reference.TopologyOptions {
	o := reference.DefaultTopology()
	o.Routers, o.NATs = 3, 6
	o.DynamicRouting = true
	return o
}

// TestDifferentialRandomNAT compares random topologies whose routers have
// NAT rules of every type (distributed, stateless, with add_route, port
// ranges, gateway ports and external IP sets) on gateway routers, routers
// with one or two distributed gateway ports and plain routers, a fixed list
// of seeds (-nat-seeds sets how many).
func TestDifferentialRandomNAT(t *testing.T) {
	compareRandom(t, "random-nat", *natSeeds, natTopology())
}
