package reference

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// nfGen draws network functions (TopologyOptions.NetworkFunctions) from a
// random stream of its own, so that the rest of a topology is the one
// drawn without them.
type nfGen struct {
	rng *rand.Rand
	// lastNF and lastGroup are the Network_Function and
	// Network_Function_Group ids handed out so far (both unique in the NB).
	lastNF, lastGroup int
	// groups are the named groups (@nfgN) of the ovn-nbctl invocation
	// being built.
	groups []string
}

func (s *nfGen) chance(n int) bool { return s.rng.IntN(n) == 0 }

// addNFMonitorAddresses sets, two times in three, the service monitor
// addresses a network function's health check needs.
func (g *topologyGen) addNFMonitorAddresses() {
	if s := g.nf; s != nil && !s.chance(3) {
		g.add("set", "NB_Global", ".", "options:svc_monitor_ip=169.254.100.1", "options:svc_monitor_ip_dst=169.254.100.2")
	}
}

// addNetworkFunctionGroup draws the network function group of an ACL and
// returns its column naming it: one ACL in three has one. The groups of
// an invocation (one or two) are made when its first ACL needs them, so
// that the ACLs of a switch or port group share them. A group has one or
// two network functions, a fallback (none, fail-open or fail-close) and
// one in six none; a function's two ports are new ports of one of the
// switches, and one in three has a health check, which no monitor answers
// here (the function is not healthy).
func (g *topologyGen) addNetworkFunctionGroup(switches []string) []string {
	s := g.nf
	if s == nil || !s.chance(3) || s.lastGroup+2 > 255 || s.lastNF+4 > 255 {
		return nil
	}
	if s.groups == nil {
		hc := ""
		for range 1 + s.rng.IntN(2) {
			s.lastGroup++
			id := fmt.Sprintf("@nfg%d", s.lastGroup)
			s.groups = append(s.groups, id)
			create := []string{"--id=" + id, "create", "Network_Function_Group", fmt.Sprintf("name=nfg%d", s.lastGroup),
				fmt.Sprintf("id=%d", s.lastGroup), "mode=inline"}
			if fallback := []string{"", "fail-open", "fail-close"}[s.rng.IntN(3)]; fallback != "" {
				create = append(create, "fallback="+fallback)
			}
			if !s.chance(6) {
				var nfs []string
				for range 1 + s.rng.IntN(2) {
					nfs = append(nfs, g.addNetworkFunction(switches, &hc))
				}
				create = append(create, "network_function="+strings.Join(nfs, ","))
			}
			g.add(create...)
		}
	}
	return []string{"network_function_group=" + s.groups[s.rng.IntN(len(s.groups))]}
}

// addNetworkFunction makes a network function and its two ports on one of
// switches, and returns its name in the invocation. hc names the
// invocation's health check once made.
func (g *topologyGen) addNetworkFunction(switches []string, hc *string) string {
	s := g.nf
	s.lastNF++
	sw := switches[s.rng.IntN(len(switches))]
	name := fmt.Sprintf("nf%d", s.lastNF)
	ports := [2]string{name + "-in", name + "-out"}
	for i, p := range ports {
		g.add("--id=@"+p, "create", "Logical_Switch_Port", "name="+p,
			"options:is-nf=true", "options:nf-linked-port="+ports[1-i], "options:receive_multicast=false")
		g.add("add", "Logical_Switch", sw, "ports", "@"+p)
	}
	create := []string{"--id=@" + name, "create", "Network_Function", "name=" + name, fmt.Sprintf("id=%d", s.lastNF),
		"inport=@" + ports[0], "outport=@" + ports[1]}
	if s.chance(3) {
		if *hc == "" {
			*hc = "@hc" + name
			g.add("--id="+*hc, "create", "Network_Function_Health_Check", "name="+name+"-hc",
				"options:interval=5", "options:timeout=1", "options:success_count=3", "options:failure_count=3")
		}
		create = append(create, "health_check="+*hc)
	}
	g.add(create...)
	return "@" + name
}
