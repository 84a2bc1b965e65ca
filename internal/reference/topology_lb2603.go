package reference

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// lb2603Gen draws 26.03's load balancer features (TopologyOptions.LB2603)
// from a random stream of its own, so that the rest of a topology is the
// one drawn without them.
type lb2603Gen struct {
	rng *rand.Rand
	// distributed are the load balancers (lbK) drawn distributed.
	distributed []string
}

func (s *lb2603Gen) chance(n int) bool { return s.rng.IntN(n) == 0 }

// addSecondGatewayPort gives, one time in two, a router that has a
// distributed gateway port (gateway, an index of ports) a second one, on
// another port: stateless NAT load balancers DNAT on each.
func (g *topologyGen) addSecondGatewayPort(ports []routerPort, gateway int) {
	s := g.lb2603
	if s == nil || len(ports) < 2 || !s.chance(2) {
		return
	}
	other := (gateway + 1 + s.rng.IntN(len(ports)-1)) % len(ports)
	g.add("lrp-set-gateway-chassis", ports[other].name, "gw1", "20")
}

// remoteZone returns, one time in three, the availability zone suffix
// (":azN") that makes a health-checked backend's ip_port_mappings entry a
// remote backend's; none for a source address an AZ cannot follow (an
// IPv6 one without brackets, which would swallow it).
func (g *topologyGen) remoteZone(src string) string {
	s := g.lb2603
	if s == nil || !s.chance(3) || (src[0] != '[' && strings.Contains(src, ":")) {
		return ""
	}
	return fmt.Sprintf(":az%d", 1+s.rng.IntN(2))
}

// addLB2603Options draws load balancer lbK's 26.03 options and returns
// its columns for them: one in four uses stateless NAT, one in four is
// distributed (set once attached, see setDistributed), with
// ip_port_mappings for most of the VIF backends (backendAt, address to
// port) not mapped yet (mapped), each naming its port alone or with a
// source address.
func (g *topologyGen) addLB2603Options(k int, backendAt map[string]string, mapped map[string]bool) []string {
	s := g.lb2603
	if s == nil {
		return nil
	}
	var cols []string
	if s.chance(4) {
		cols = append(cols, "options:use_stateless_nat=true")
	}
	if !s.chance(4) {
		return cols
	}
	s.distributed = append(s.distributed, "lb"+strconv.Itoa(k))
	for _, ip := range slices.Sorted(maps.Keys(backendAt)) {
		key, src := ip, fmt.Sprintf("10.%d.0.254", g.vifAt[backendAt[ip]][0])
		if strings.Contains(ip, ":") {
			key, src = "["+ip+"]", fmt.Sprintf("[fd00:%x::fe]", g.vifAt[backendAt[ip]][0])
		}
		if mapped[key] || s.chance(5) {
			continue
		}
		value := backendAt[ip]
		if s.chance(2) {
			value += ":" + src
		}
		cols = append(cols, fmt.Sprintf("ip_port_mappings:%s=%s", strconv.Quote(key), strconv.Quote(value)))
	}
	return cols
}

// setDistributed makes the load balancers drawn distributed so, in an
// invocation of its own once they are attached: 26.03.2 recomputes then,
// where attaching a distributed load balancer to a router leaves the
// router's port flows as they were.
func (g *topologyGen) setDistributed() {
	s := g.lb2603
	if s == nil || len(s.distributed) == 0 {
		return
	}
	for _, lb := range s.distributed {
		g.add("set", "Load_Balancer", lb, "options:distributed=true")
	}
	g.flush()
}
