package rules_test

import (
	"flag"
	"testing"

	"github.com/northlog/northlog/internal/reference"
)

var routingSeeds = flag.Int("routing-seeds", 50, "random routed topologies compared with the reference in TestDifferentialRandomRouting")

// routingTopology is DefaultTopology with more routers, static routes
// and policies on each, and dynamic routing and EVPN (26.03 only).
func routingTopology() reference.TopologyOptions {
	o := reference.DefaultTopology()
	o.Routers, o.Routes, o.Policies = 3, 6, 4
	o.DynamicRouting = true
	return o
}

// TestDifferentialRandomRouting compares random topologies whose routers
// have static routes (ECMP, src-ip, route tables, output ports, discard)
// and policies (allow, drop, reroute, ECMP reroute), on 26.03 with dynamic
// routing and EVPN switches, a fixed list of seeds
// (-routing-seeds sets how many).
func TestDifferentialRandomRouting(t *testing.T) {
	compareRandom(t, "random-routing", *routingSeeds, routingTopology())
}
