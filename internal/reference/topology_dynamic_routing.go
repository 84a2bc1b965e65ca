package reference

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// dynamicRoutingGen draws dynamic routing and EVPN
// (TopologyOptions.DynamicRouting) from a random stream of its own, so
// that the rest of a topology is the one drawn without them.
type dynamicRoutingGen struct {
	rng *rand.Rand
}

func (s *dynamicRoutingGen) chance(n int) bool { return s.rng.IntN(n) == 0 }

// redistribute returns a non-empty comma-separated subset of modes, each
// in with probability 1/2, in the order given.
func (s *dynamicRoutingGen) redistribute(modes ...string) string {
	var chosen []string
	for _, m := range modes {
		if s.chance(2) {
			chosen = append(chosen, m)
		}
	}
	if len(chosen) == 0 {
		chosen = append(chosen, modes[s.rng.IntN(len(modes))])
	}
	return strings.Join(chosen, ",")
}

// routeModes are what a router or router port may redistribute.
var routeModes = []string{"connected", "static", "nat", "lb", "connected-as-host"}

// addSwitchEVPN puts, one time in three, switch sw in an EVPN domain
// (other_config:dynamic-routing-vni 100 or 101, one in eight out of range),
// redistributing fdb, ip or both, preferring its local FDB or ARP entries
// one time in three each. A switch redistributes ip only when every VIF on
// it has a static address (staticAddresses) and no network function ports
// can come: 26.03.2 reads a port's first parsed address without checking
// it has one, and crashes on a VIF without.
func (g *topologyGen) addSwitchEVPN(sw string, staticAddresses bool) {
	s := g.dynamicRouting
	if s == nil || !s.chance(3) {
		return
	}
	vni := 100 + s.rng.IntN(2)
	if s.chance(8) {
		vni = 1 << 24
	}
	modes := []string{"fdb"}
	if staticAddresses && g.nf == nil {
		modes = append(modes, "ip")
	}
	cols := []string{fmt.Sprintf("other_config:dynamic-routing-vni=%d", vni),
		"other_config:dynamic-routing-redistribute=" + s.redistribute(modes...)}
	if s.chance(3) {
		cols = append(cols, "other_config:dynamic-routing-fdb-prefer-local=true")
	}
	if s.chance(3) {
		cols = append(cols, "other_config:dynamic-routing-arp-prefer-local=true")
	}
	g.add(append([]string{"set", "Logical_Switch", sw}, cols...)...)
}

// addRouterDynamicRouting draws router lr's dynamic routing: one time in
// two options:dynamic-routing (one in five of the others only a
// redistribute option, which does nothing without), what it redistributes
// (one in two), a VRF name, no-learning and local-only one in four each;
// each port redistributes on its own one time in four, and names its
// interface or maintains its VRF one time in six each.
func (g *topologyGen) addRouterDynamicRouting(lr string, ports []routerPort) {
	s := g.dynamicRouting
	if s == nil {
		return
	}
	var opts []string
	switch {
	case s.chance(2):
		opts = append(opts, "options:dynamic-routing=true")
	case !s.chance(5):
		return
	}
	if len(opts) == 0 || s.chance(2) {
		opts = append(opts, "options:dynamic-routing-redistribute="+s.redistribute(routeModes...))
	}
	if s.chance(4) {
		opts = append(opts, "options:dynamic-routing-vrf-name=vrf-"+lr)
	}
	if s.chance(4) {
		opts = append(opts, "options:dynamic-routing-no-learning=true")
	}
	if s.chance(4) {
		opts = append(opts, "options:dynamic-routing-redistribute-local-only=true")
	}
	g.add(append([]string{"set", "Logical_Router", lr}, opts...)...)
	for i, p := range ports {
		var popts []string
		if s.chance(4) {
			popts = append(popts, "options:dynamic-routing-redistribute="+s.redistribute(routeModes...))
		}
		if s.chance(6) {
			popts = append(popts, fmt.Sprintf("options:dynamic-routing-port-name=eth%d", i))
		}
		if s.chance(6) {
			popts = append(popts, "options:dynamic-routing-maintain-vrf=true")
		}
		if len(popts) > 0 {
			g.add(append([]string{"set", "Logical_Router_Port", p.name}, popts...)...)
		}
	}
}
