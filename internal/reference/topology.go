package reference

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// TopologyOptions bounds what RandomTopology draws. Each count is a maximum;
// the generator draws the actual number per seed. Counts are capped at 250
// so every generated address stays unique and valid.
type TopologyOptions struct {
	// Switches is the most logical switches (at least one is drawn).
	Switches int
	// PortsPerSwitch is the most VIF ports on each switch (zero or more).
	PortsPerSwitch int
	// Routers is the most logical routers (zero or more).
	Routers int
	// RouterPorts is the most ports on each router (at least one is
	// drawn); each attaches to a switch not yet on that router or, with no
	// switch left or by chance, to no switch.
	RouterPorts int
	// Routes and Policies are the most static routes and
	// Logical_Router_Policy rows on each router (zero or more; zero draws
	// nothing, so topologies without them do not change).
	Routes, Policies int
	// NATs is the most NAT rules on each router (zero or more; zero draws
	// nothing, so topologies without them do not change). With NATs, a
	// router may become an L3 gateway router or get distributed gateway
	// ports.
	NATs int
	// AddressSets, PortGroups and ACLs draw security groups (see
	// addSecurity): the most Address_Set rows, the most port groups, and
	// the most ACLs on each switch and on each port group (zero draws
	// nothing, so topologies without them do not change).
	AddressSets, PortGroups, ACLs int
	// ACLTiers draws ACL tiers and the pass action, which 23.03's NB
	// schema lacks (false draws nothing, so topologies without it do not
	// change): half the ACLs get a tier in 0..3, and pass is a sixth action.
	ACLTiers bool
	// ACLSampling draws ACL sampling (see addSamples), which 23.03's NB
	// schema lacks, from a random stream of its own: the topology is the
	// one drawn without it, plus samples (false draws nothing).
	ACLSampling bool
	// NetworkFunctions draws network function groups on ACLs (see
	// addNetworkFunctionGroup), which 23.03's NB schema lacks, from a
	// random stream of its own: the topology is the one drawn without
	// them, plus network functions and their ports (false draws nothing).
	NetworkFunctions bool
	// LoadBalancers is the most load balancers (see addLoadBalancers;
	// zero draws nothing). With load balancers, a router may become an L3
	// gateway router or get a distributed gateway port.
	LoadBalancers int
	// LB2603 draws 26.03's load balancer features, which 23.03's northd
	// does not read, from a random stream of its own: the topology is the
	// one drawn without them, plus stateless NAT, distributed load
	// balancers, remote backends and second distributed gateway ports
	// (see addLB2603Options; false draws nothing).
	LB2603 bool
	// DynamicRouting draws dynamic routing on routers and their ports and
	// EVPN on switches (see addRouterDynamicRouting, addSwitchEVPN),
	// which 23.03 lacks, from a random stream of its own: the topology is
	// the one drawn without them, plus their options (false draws
	// nothing).
	DynamicRouting bool
}

// DefaultTopology is a small topology: a handful of switches, ports and
// routers, a few hundred flows.
func DefaultTopology() TopologyOptions {
	return TopologyOptions{Switches: 3, PortsPerSwitch: 4, Routers: 2, RouterPorts: 3}
}

// RandomTopology returns a scenario script (see Instance.Apply) building a
// random topology within opts, the same script for the same seed and opts.
//
// Switch N is swN; with probability 1/2 it has other_config:subnet
// 10.N.0.0/16 and with 1/3 other_config:ipv6_prefix fd00:N::, which allow
// "dynamic" addresses. Its VIF ports swN-pI have one of several address
// shapes (none, MAC only, MAC+IPv4, MAC+IPv4+IPv6, several IPs, IPv6 only,
// "unknown", MAC+IPv4 and "unknown", two MAC+IP entries, "dynamic" or
// "MAC dynamic" when the switch allows it), one of several port_security
// shapes (none, MAC, MAC+IPv4, MAC+IPv4+IPv6, MAC+subnet), and one in ten is
// disabled. Router M is lrM; its ports have IPv4, IPv6 or both networks; a
// port attached to swN is lrM-swN at 10.N.0.(M+1)/16 and fd00:N::(M+1)/64,
// with a router-type LSP swN-lrM (addresses "router",
// options:router-port=lrM-swN) on the switch; an unattached port is lrM-extJ
// on 100.M.J.1/24 and fd01:M:J::1/64. One router port in twenty is disabled.
func RandomTopology(seed int64, opts TopologyOptions) string {
	g := topologyGen{rng: rand.New(rand.NewPCG(uint64(seed), 0x6e6f7274686c6f67)), aclTiers: opts.ACLTiers}
	if opts.ACLSampling {
		g.sampling = &samplingGen{rng: rand.New(rand.NewPCG(uint64(seed), 0x73616d706c696e67))}
	}
	if opts.NetworkFunctions {
		g.nf = &nfGen{rng: rand.New(rand.NewPCG(uint64(seed), 0x6e6574776f726b66))}
	}
	if opts.LB2603 {
		g.lb2603 = &lb2603Gen{rng: rand.New(rand.NewPCG(uint64(seed), 0x6c62323630332e32))}
	}
	if opts.DynamicRouting {
		g.dynamicRouting = &dynamicRoutingGen{rng: rand.New(rand.NewPCG(uint64(seed), 0x64796e726f757465))}
	}
	nSwitches := 1 + g.rng.IntN(max(1, min(opts.Switches, 250)))
	nRouters := g.rng.IntN(min(max(opts.Routers, 0), 250) + 1)
	fmt.Fprintf(&g.script, "# Random topology: seed %d, at most %d switches of %d ports, %d routers of %d ports.\n",
		seed, opts.Switches, opts.PortsPerSwitch, opts.Routers, opts.RouterPorts)
	fmt.Fprintf(&g.script, "# Drawn: %d switches, %d routers.\n", nSwitches, nRouters)
	for s := range nSwitches {
		g.addSwitch(s, min(max(opts.PortsPerSwitch, 0), 250))
	}
	for r := range nRouters {
		ports := g.addRouter(r, nSwitches, min(max(opts.RouterPorts, 1), 250))
		g.routers = append(g.routers, ports)
		g.addRoutes(fmt.Sprintf("lr%d", r), ports, min(max(opts.Routes, 0), 250), min(max(opts.Policies, 0), 250))
		g.addNATs(fmt.Sprintf("lr%d", r), r, ports, min(max(opts.NATs, 0), 250))
	}
	g.addSecurity(nSwitches, min(max(opts.AddressSets, 0), 250), min(max(opts.PortGroups, 0), 250), min(max(opts.ACLs, 0), 250))
	g.addLoadBalancers(nSwitches, min(max(opts.LoadBalancers, 0), 250))
	return g.script.String()
}

// ScriptSteps splits a script of RandomTopology into its ovn-nbctl
// invocations, each a transaction of its own, in order: applied one at a
// time they build the topology as the whole script does. Comment lines are
// left out.
func ScriptSteps(script string) []string {
	var steps []string
	for line := range strings.Lines(script) {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "ovn-nbctl") || len(steps) == 0:
			steps = append(steps, line)
		default:
			steps[len(steps)-1] += line
		}
	}
	return steps
}

// topologyGen draws a topology and writes it as ovn-nbctl commands, one
// invocation per switch or router.
type topologyGen struct {
	rng    *rand.Rand
	macs   int // MACs handed out so far
	script strings.Builder
	cmd    [][]string // the nbctl commands of the invocation being built
	vifs   []string   // the VIF ports added so far
	// vifAt holds, for each VIF, its switch and port numbers (swS-pI).
	vifAt   map[string][2]int
	routers [][]routerPort // each router's ports
	// aclTiers is TopologyOptions.ACLTiers.
	aclTiers bool
	// sampling draws ACL sampling (TopologyOptions.ACLSampling), nil
	// without.
	sampling *samplingGen
	// nf draws network functions (TopologyOptions.NetworkFunctions), nil
	// without.
	nf *nfGen
	// lb2603 draws 26.03's load balancer features (TopologyOptions.LB2603),
	// nil without.
	lb2603 *lb2603Gen
	// dynamicRouting draws dynamic routing and EVPN
	// (TopologyOptions.DynamicRouting), nil without.
	dynamicRouting *dynamicRoutingGen
}

// mac returns a unicast, locally administered MAC not used before.
func (g *topologyGen) mac() string {
	g.macs++
	return fmt.Sprintf("0a:00:00:00:%02x:%02x", g.macs>>8, g.macs&0xff)
}

func (g *topologyGen) chance(n int) bool { return g.rng.IntN(n) == 0 }

// add appends one nbctl command to the invocation being built.
func (g *topologyGen) add(args ...string) { g.cmd = append(g.cmd, args) }

// flush writes the invocation being built as one ovn-nbctl call.
func (g *topologyGen) flush() {
	g.script.WriteString(nbctlScript(g.cmd))
	g.cmd = nil
}

// nbctlScript writes cmds as one ovn-nbctl invocation, a script line.
func nbctlScript(cmds [][]string) string {
	var b strings.Builder
	for i, c := range cmds {
		if i == 0 {
			b.WriteString("ovn-nbctl")
		} else {
			b.WriteString(" \\\n  --")
		}
		for _, a := range c {
			b.WriteString(" " + ShellQuote(a))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// addSwitch writes switch s with up to maxPorts VIF ports.
func (g *topologyGen) addSwitch(s, maxPorts int) {
	sw := fmt.Sprintf("sw%d", s)
	g.add("ls-add", sw)
	subnet, v6prefix := g.chance(2), g.chance(3)
	if subnet {
		g.add("set", "Logical_Switch", sw, fmt.Sprintf("other_config:subnet=10.%d.0.0/16", s))
	}
	if v6prefix {
		g.add("set", "Logical_Switch", sw, fmt.Sprintf("other_config:ipv6_prefix=fd00:%x::", s))
	}
	staticAddresses := true // every VIF has a static address
	for i := range g.rng.IntN(maxPorts + 1) {
		staticAddresses = g.addVIF(sw, s, i, subnet || v6prefix) && staticAddresses
	}
	g.addSwitchEVPN(sw, staticAddresses)
	g.flush()
}

// addVIF adds VIF port i of switch sw (number s) and reports whether it
// has a static address (a MAC, with or without IPs).
func (g *topologyGen) addVIF(sw string, s, i int, dynamic bool) bool {
	port := fmt.Sprintf("%s-p%d", sw, i)
	g.add("lsp-add", sw, port)
	g.vifs = append(g.vifs, port)
	if g.vifAt == nil {
		g.vifAt = map[string][2]int{}
	}
	g.vifAt[port] = [2]int{s, i}
	mac := g.mac()
	ip4 := fmt.Sprintf("10.%d.1.%d", s, i+1)
	ip6 := fmt.Sprintf("fd00:%x::1:%x", s, i+1)
	// A second address of each family, for the shapes with several.
	ip4b := fmt.Sprintf("10.%d.2.%d", s, i+1)
	ip6b := fmt.Sprintf("fd00:%x::2:%x", s, i+1)
	var addrs []string
	switch shape := g.rng.IntN(11); {
	case shape == 0:
		// no addresses at all
	case shape == 1:
		addrs = []string{mac}
	case shape == 2:
		addrs = []string{mac + " " + ip4}
	case shape == 3:
		addrs = []string{mac + " " + ip4 + " " + ip6}
	case shape == 4:
		addrs = []string{mac + " " + ip4 + " " + ip4b + " " + ip6 + " " + ip6b}
	case shape == 5:
		addrs = []string{mac + " " + ip6}
	case shape == 6:
		addrs = []string{"unknown"}
	case shape == 7:
		addrs = []string{mac + " " + ip4, "unknown"}
	case shape == 8:
		addrs = []string{mac + " " + ip4, g.mac() + " " + ip4b}
	case shape == 9 && dynamic:
		addrs = []string{"dynamic"}
	case shape == 10 && dynamic:
		addrs = []string{mac + " dynamic"}
	default: // a dynamic shape on a switch without subnet or prefix
		addrs = []string{mac + " " + ip4}
	}
	if len(addrs) > 0 {
		g.add(append([]string{"lsp-set-addresses", port}, addrs...)...)
	}
	var ps string
	switch g.rng.IntN(6) {
	case 0, 1:
		// no port security
	case 2:
		ps = mac
	case 3:
		ps = mac + " " + ip4
	case 4:
		ps = mac + " " + ip4 + " " + ip6
	case 5:
		ps = fmt.Sprintf("%s 10.%d.0.0/16", mac, s)
	}
	if ps != "" {
		g.add("lsp-set-port-security", port, ps)
	}
	if g.chance(10) {
		g.add("lsp-set-enabled", port, "disabled")
	}
	return slices.ContainsFunc(addrs, func(a string) bool { return a != "unknown" && !strings.HasSuffix(a, "dynamic") })
}

// routerPort is a router port as drawn: its name and networks.
type routerPort struct {
	name     string
	networks []string
}

// addRouter adds router r with 1..maxPorts ports, attached to some of the
// nSwitches switches, and returns the ports.
func (g *topologyGen) addRouter(r, nSwitches, maxPorts int) []routerPort {
	var ports []routerPort
	lr := fmt.Sprintf("lr%d", r)
	g.add("lr-add", lr)
	free := g.rng.Perm(nSwitches) // switches not yet attached to lr, in draw order
	var switchSide [][]string     // the router-type LSPs, added once their LRPs exist
	for j := range 1 + g.rng.IntN(maxPorts) {
		var lrp, v4, v6 string
		if len(free) > 0 && !g.chance(4) {
			s := free[0]
			free = free[1:]
			sw := fmt.Sprintf("sw%d", s)
			lrp = fmt.Sprintf("%s-%s", lr, sw)
			v4 = fmt.Sprintf("10.%d.0.%d/16", s, r+1)
			v6 = fmt.Sprintf("fd00:%x::%x/64", s, r+1)
			lsp := fmt.Sprintf("%s-%s", sw, lr)
			switchSide = append(switchSide,
				[]string{"lsp-add", sw, lsp},
				[]string{"lsp-set-type", lsp, "router"},
				[]string{"lsp-set-addresses", lsp, "router"},
				[]string{"lsp-set-options", lsp, "router-port=" + lrp})
		} else {
			lrp = fmt.Sprintf("%s-ext%d", lr, j)
			v4 = fmt.Sprintf("100.%d.%d.1/24", r, j)
			v6 = fmt.Sprintf("fd01:%x:%x::1/64", r, j)
		}
		networks := [][]string{{v4}, {v6}, {v4, v6}}[g.rng.IntN(3)]
		ports = append(ports, routerPort{lrp, networks})
		g.add(append([]string{"lrp-add", lr, lrp, g.mac()}, networks...)...)
		if g.chance(20) {
			g.add("lrp-set-enabled", lrp, "disabled")
		}
	}
	g.cmd = append(g.cmd, switchSide...)
	g.addRouterDynamicRouting(lr, ports)
	g.flush()
	return ports
}

// addRoutes adds up to maxRoutes static routes and maxPolicies policies to
// router lr. Next hops are mostly on a port's network, sometimes on none or
// "discard"; routes are dst-ip or src-ip, some in ECMP groups, some in a
// route table that a port selects, some with an output_port, some with
// symmetric ECMP replies (the router is a gateway router one time in four);
// policies allow, drop or reroute to one or several next hops, some with
// pkt_mark.
func (g *topologyGen) addRoutes(lr string, ports []routerPort, maxRoutes, maxPolicies int) {
	if maxRoutes == 0 && maxPolicies == 0 {
		return
	}
	nexthop := func(v6 bool) string {
		var nets []string
		for _, p := range ports {
			for _, n := range p.networks {
				if strings.Contains(n, ":") == v6 {
					nets = append(nets, n)
				}
			}
		}
		if len(nets) == 0 || g.chance(8) {
			return map[bool]string{false: "192.0.2.1", true: "fd99::1"}[v6]
		}
		n := nets[g.rng.IntN(len(nets))]
		host := g.rng.IntN(200) + 10
		if v6 {
			return fmt.Sprintf("%s%x", n[:strings.LastIndex(n, ":")+1], host)
		}
		return fmt.Sprintf("%s%d", n[:strings.LastIndex(n, ".")+1], host)
	}
	if g.chance(4) {
		// An L3 gateway router: ECMP symmetric replies apply.
		g.add("set", "Logical_Router", lr, "options:chassis=hv1")
	}
	if g.chance(3) {
		g.add("set", "Logical_Router_Port", ports[0].name, "options:route_table=rtb1")
	}
	for i := range g.rng.IntN(maxRoutes + 1) {
		v6 := g.chance(3)
		prefix := fmt.Sprintf("192.168.%d.0/24", g.rng.IntN(4))
		if v6 {
			prefix = fmt.Sprintf("fd10:%x::/64", g.rng.IntN(4))
		}
		if g.chance(6) {
			prefix = map[bool]string{false: "0.0.0.0/0", true: "::/0"}[v6]
		}
		cmd := []string{"lr-route-add", lr, prefix, nexthop(v6)}
		switch g.rng.IntN(8) {
		case 0:
			cmd[3] = "discard"
		case 1:
			cmd = append(cmd, ports[g.rng.IntN(len(ports))].name)
		}
		opts := []string{"--may-exist"}
		if g.chance(2) && cmd[3] != "discard" {
			opts = append(opts, "--ecmp")
		}
		if g.chance(4) {
			opts = append(opts, "--policy=src-ip")
		}
		if g.chance(4) {
			opts = append(opts, "--route-table=rtb1")
		}
		if i%2 == 1 && cmd[3] != "discard" && g.chance(3) {
			opts = append(opts, "--ecmp-symmetric-reply")
		}
		g.add(append(opts, cmd...)...)
	}
	for range g.rng.IntN(maxPolicies + 1) {
		v6 := g.chance(3)
		match := fmt.Sprintf("ip4.src == 10.%d.0.0/16", g.rng.IntN(4))
		if v6 {
			match = fmt.Sprintf("ip6.src == fd00:%x::/64", g.rng.IntN(4))
		}
		cmd := []string{"lr-policy-add", lr, fmt.Sprint(g.rng.IntN(5) * 100), match}
		switch g.rng.IntN(4) {
		case 0:
			cmd = append(cmd, "allow")
		case 1:
			cmd = append(cmd, "drop")
		case 2:
			cmd = append(cmd, "reroute", nexthop(v6))
		case 3:
			cmd = append(cmd, "reroute", nexthop(v6)+","+nexthop(v6))
		}
		if cmd[4] != "drop" && g.chance(3) {
			cmd = append(cmd, "pkt_mark=5")
		}
		g.add(append([]string{"--may-exist"}, cmd...)...)
	}
	g.flush()
}

// addNATs adds up to maxNATs NAT rules to router lr (number r) with the
// given ports. One time in three the router is an L3 gateway router, one
// time in three one or two of its ports get gateway chassis or an HA
// chassis group (distributed gateway ports); otherwise the rules only get
// ARP/ND responders. Rules are snat (of a network or a host), dnat or
// dnat_and_snat, of either family, with external IPs on a port's network,
// equal to a port's address, or outside; some dnat_and_snat rules are
// distributed (a VIF as logical_port, an external_mac), some stateless;
// some rules have add_route, a port range, a gateway_port, or allowed or
// exempted external IPs. Rows are created directly, as ovn-nbctl
// lr-nat-add would refuse some of these combinations.
func (g *topologyGen) addNATs(lr string, r int, ports []routerPort, maxNATs int) {
	if maxNATs == 0 {
		return
	}
	g.add("lr-nat-del", lr)
	var dgps []string
	switch g.rng.IntN(3) {
	case 0:
		g.add("set", "Logical_Router", lr, "options:chassis=hv1")
	case 1:
		n := 1
		if g.chance(4) {
			n = 2
		}
		for j, i := range g.rng.Perm(len(ports))[:min(n, len(ports))] {
			p, id := ports[i].name, fmt.Sprintf("@gw%d", j)
			dgps = append(dgps, id)
			if g.chance(3) {
				g.add("--id=@hag"+id[1:], "create", "HA_Chassis_Group", "name=hag-"+p)
				g.add("set", "Logical_Router_Port", p, "ha_chassis_group=@hag"+id[1:])
			} else {
				g.add("lrp-set-gateway-chassis", p, "gw1", "10")
			}
			g.add("--id="+id, "get", "Logical_Router_Port", p)
		}
	}
	if g.chance(5) {
		g.add("set", "Logical_Router", lr, fmt.Sprintf("options:dnat_force_snat_ip=172.16.%d.250", r))
	}
	addressSet := g.chance(4)
	if addressSet {
		g.add("--id=@as", "create", "Address_Set", "name=as_"+lr, `addresses="1.1.1.1"`)
	}
	// An address of the family on a port's network, or a port's own.
	onPort := func(v6 bool, host int) string {
		var nets []string
		for _, p := range ports {
			for _, n := range p.networks {
				if strings.Contains(n, ":") == v6 {
					nets = append(nets, n)
				}
			}
		}
		if len(nets) == 0 {
			return ""
		}
		n := nets[g.rng.IntN(len(nets))]
		if g.chance(4) {
			return n[:strings.Index(n, "/")]
		}
		if v6 {
			return fmt.Sprintf("%s%x", n[:strings.LastIndex(n, ":")+1], host)
		}
		return fmt.Sprintf("%s%d", n[:strings.LastIndex(n, ".")+1], host)
	}
	for k := range g.rng.IntN(maxNATs + 1) {
		typ := []string{"snat", "dnat", "dnat_and_snat"}[g.rng.IntN(3)]
		v6 := g.chance(4)
		ext := onPort(v6, 100+k)
		if ext == "" || g.chance(3) {
			ext = fmt.Sprintf("172.16.%d.%d", r, 100+k)
			if v6 {
				ext = fmt.Sprintf("fd02:%x::%x", r, 100+k)
			}
		}
		logical := fmt.Sprintf("192.168.%d.5", k)
		if v6 {
			logical = fmt.Sprintf("fd20::%x", k+5)
		}
		if typ == "snat" && g.chance(2) {
			logical = map[bool]string{false: fmt.Sprintf("192.168.%d.0/24", k), true: "fd20::/64"}[v6]
		}
		id := fmt.Sprintf("@nat%d", k)
		cols := []string{"type=" + typ, "external_ip=" + strconv.Quote(ext), "logical_ip=" + strconv.Quote(logical)}
		if typ == "dnat_and_snat" && len(g.vifs) > 0 && g.chance(3) {
			cols = append(cols, "logical_port="+g.vifs[g.rng.IntN(len(g.vifs))], fmt.Sprintf(`external_mac="0a:00:00:01:%02x:%02x"`, r, k))
		}
		if typ == "dnat_and_snat" && g.chance(4) {
			cols = append(cols, "options:stateless=true")
		}
		if typ != "snat" && g.chance(4) {
			cols = append(cols, "options:add_route=true")
		}
		if g.chance(6) {
			cols = append(cols, `external_port_range="1000-2000"`)
		}
		if len(dgps) > 0 && g.chance(5) {
			cols = append(cols, "gateway_port="+dgps[g.rng.IntN(len(dgps))])
		}
		if addressSet && g.chance(3) {
			cols = append(cols, []string{"allowed_ext_ips=@as", "exempted_ext_ips=@as"}[g.rng.IntN(2)])
		}
		g.add(append([]string{"--id=" + id, "create", "NAT"}, cols...)...)
		g.add("add", "Logical_Router", lr, "nat", id)
	}
	g.flush()
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_.:/=,@+-]+$`)

// ShellQuote quotes s for a POSIX shell unless it needs none.
func ShellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
