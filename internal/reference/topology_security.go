package reference

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// addSecurity adds, once the switches and routers exist, up to maxSets
// address sets, up to maxGroups port groups and up to maxACLs ACLs on each
// switch and on each port group; nothing when all three are zero.
//
// Address set asK holds zero to four IPv4 hosts or networks of the switches'
// ranges, IPv6 ones one time in three, both families one time in ten. Port
// group pgK has each VIF as a member with probability 1/3, each router-type
// switch port with 1/6 and, one time in six, a port created on no switch (the database drops it: a port group
// holds its ports by weak reference). ACLs have either direction, any of
// the five actions and a priority among 0, 32767 and 900..1100 in steps of
// 50 (so that priorities tie); matches refer to IP versions, L4 ports,
// address sets ($asK), port groups (@pgK, $pgK_ip4, $pgK_ip6) and ports. One
// ACL in four has options:apply-after-lb, one in three is logged (a name,
// a severity, a plain, fair or absent meter, options:log-related), one in
// four has a label; one in ten is shared with another switch or port
// group; with ACL tiers, see TopologyOptions.ACLTiers, and with sampling,
// addSamples. One time in five NB_Global sets default_acl_drop, one
// in six use_ct_inv_match=false.
func (g *topologyGen) addSecurity(nSwitches, maxSets, maxGroups, maxACLs int) {
	if maxSets == 0 && maxGroups == 0 && maxACLs == 0 {
		return
	}
	var sets []string
	for k := range g.rng.IntN(maxSets + 1) {
		name := fmt.Sprintf("as%d", k)
		sets = append(sets, name)
		fams := [][]bool{{false}, {false}, {true}}[g.rng.IntN(3)]
		if g.chance(10) {
			fams = []bool{false, true}
		}
		var addrs []string
		for range g.rng.IntN(5) {
			addrs = append(addrs, g.securityAddress(nSwitches, fams[g.rng.IntN(len(fams))]))
		}
		cols := []string{"name=" + name}
		if len(addrs) > 0 {
			cols = append(cols, "addresses="+quoteAll(slices.Compact(slices.Sorted(slices.Values(addrs)))))
		}
		g.add(append([]string{"create", "Address_Set"}, cols...)...)
	}
	if len(sets) > 0 {
		g.flush()
	}
	var groups []string
	for k := range g.rng.IntN(maxGroups + 1) {
		name := fmt.Sprintf("pg%d", k)
		groups = append(groups, name)
		cmd := []string{"pg-add", name}
		for _, p := range g.vifs {
			if g.chance(3) {
				cmd = append(cmd, p)
			}
		}
		for r, ports := range g.routers {
			for _, p := range ports {
				if sw, ok := strings.CutPrefix(p.name, fmt.Sprintf("lr%d-", r)); ok && strings.HasPrefix(sw, "sw") && g.chance(6) {
					cmd = append(cmd, fmt.Sprintf("%s-lr%d", sw, r))
				}
			}
		}
		g.add(cmd...)
		if g.chance(6) {
			g.add("--id=@none"+name, "create", "Logical_Switch_Port", "name="+name+"-none")
			g.add("add", "Port_Group", name, "ports", "@none"+name)
		}
		g.flush()
	}
	if maxACLs == 0 {
		return
	}
	if g.chance(5) {
		g.add("set", "NB_Global", ".", "options:default_acl_drop=true")
	}
	if g.chance(6) {
		g.add("set", "NB_Global", ".", "options:use_ct_inv_match=false")
	}
	g.add("meter-add", "acl-meter", "drop", "10", "pktps")
	g.add("meter-add", "acl-fair", "drop", "10", "pktps")
	g.add("set", "Meter", "acl-fair", "fair=true")
	g.addSamplingApps()
	g.addNFMonitorAddresses()
	g.flush()
	var owners [][2]string // the switches and port groups, as table and name
	var switches []string
	for s := range nSwitches {
		switches = append(switches, fmt.Sprintf("sw%d", s))
		owners = append(owners, [2]string{"Logical_Switch", switches[s]})
	}
	for _, pg := range groups {
		owners = append(owners, [2]string{"Port_Group", pg})
	}
	for _, o := range owners {
		pg := ""
		if o[0] == "Port_Group" {
			pg = o[1]
		}
		g.addACLs(o[0], o[1], pg, maxACLs, sets, groups, owners, switches)
	}
}

// securityAddress returns an address for an address set: a host or a
// network in the switches' IPv4 (10.S.0.0/16) or IPv6 (fd00:S::/64) ranges.
func (g *topologyGen) securityAddress(nSwitches int, v6 bool) string {
	s, h := g.rng.IntN(nSwitches), 1+g.rng.IntN(20)
	switch {
	case v6 && g.chance(4):
		return fmt.Sprintf("fd00:%x::/64", s)
	case v6:
		return fmt.Sprintf("fd00:%x::1:%x", s, h)
	case g.chance(4):
		return fmt.Sprintf("10.%d.0.0/16", s)
	default:
		return fmt.Sprintf("10.%d.1.%d", s, h)
	}
}

// addACLs adds up to maxACLs ACLs to row (a Logical_Switch or a Port_Group
// named row); pg, when set, is the port group they belong to, which most
// of their matches name. One ACL in ten is also listed by another of the
// owners (or by row again).
func (g *topologyGen) addACLs(table, row, pg string, maxACLs int, sets, groups []string, owners [][2]string, switches []string) {
	n := g.rng.IntN(maxACLs + 1)
	for k := range n {
		dir := []string{"from-lport", "to-lport"}[g.rng.IntN(2)]
		prio := []int{0, 32767, 900, 950, 1000, 1000, 1050, 1100}[g.rng.IntN(8)]
		actions := []string{"allow", "allow-related", "allow-stateless", "drop", "reject"}
		if g.aclTiers {
			actions = append(actions, "pass")
		}
		action := actions[g.rng.IntN(len(actions))]
		match := g.aclMatch(sets, groups)
		if pg != "" && !g.chance(4) {
			port := map[string]string{"from-lport": "inport", "to-lport": "outport"}[dir]
			match = port + " == @" + pg + " && " + match
		}
		id := fmt.Sprintf("@acl%d", k)
		cols := []string{"direction=" + dir, fmt.Sprintf("priority=%d", prio), "match=" + strconv.Quote(match), "action=" + action}
		if g.chance(4) {
			cols = append(cols, "options:apply-after-lb=true")
		}
		if g.chance(3) {
			cols = append(cols, "log=true")
			if g.chance(2) {
				cols = append(cols, fmt.Sprintf("name=%s", strconv.Quote(fmt.Sprintf("%s-acl%d", row, k))))
			}
			if g.chance(2) {
				cols = append(cols, "severity="+[]string{"alert", "warning", "notice", "info", "debug"}[g.rng.IntN(5)])
			}
			if g.chance(2) {
				cols = append(cols, "meter="+[]string{"acl-meter", "acl-fair", "acl-none"}[g.rng.IntN(3)])
			}
			if g.chance(4) {
				cols = append(cols, "options:log-related=true")
			}
		}
		if g.chance(4) {
			cols = append(cols, fmt.Sprintf("label=%d", g.rng.IntN(1<<20)))
		}
		if g.aclTiers && g.chance(2) {
			cols = append(cols, fmt.Sprintf("tier=%d", g.rng.IntN(4)))
		}
		cols = append(cols, g.addSamples()...)
		cols = append(cols, g.addNetworkFunctionGroup(switches)...)
		g.add(append([]string{"--id=" + id, "create", "ACL"}, cols...)...)
		g.add("add", table, row, "acls", id)
		if g.chance(10) {
			other := owners[g.rng.IntN(len(owners))]
			g.add("add", other[0], other[1], "acls", id)
		}
	}
	if n > 0 {
		g.flush()
	}
	if g.sampling != nil {
		g.sampling.collectors = nil
	}
	if g.nf != nil {
		g.nf.groups = nil
	}
}

// aclMatch returns an ACL match over IP versions, L4 ports, the address
// sets, the port groups and the VIF ports.
func (g *topologyGen) aclMatch(sets, groups []string) string {
	pick := func(names []string) string { return names[g.rng.IntN(len(names))] }
	dir := []string{"src", "dst"}[g.rng.IntN(2)]
	switch n := g.rng.IntN(12); {
	case n == 0:
		return "ip4"
	case n == 1:
		return "ip6"
	case n == 2:
		return "ip4 && tcp.dst == 22"
	case n == 3:
		return "icmp4"
	case n == 4:
		return "udp && udp.dst == 53"
	case n == 5:
		return "1"
	case n == 6 && len(sets) > 0:
		return fmt.Sprintf("ip4.%s == $%s", dir, pick(sets))
	case n == 7 && len(sets) > 0:
		return fmt.Sprintf("ip6.%s == $%s && tcp", dir, pick(sets))
	case n == 8 && len(groups) > 0:
		return fmt.Sprintf("ip4.%s == $%s_ip4", dir, pick(groups))
	case n == 9 && len(groups) > 0:
		return fmt.Sprintf("ip6.%s == $%s_ip6", dir, pick(groups))
	case n == 10 && len(groups) > 0:
		return fmt.Sprintf("inport == @%s && ip4", pick(groups))
	case n == 11 && len(g.vifs) > 0:
		return fmt.Sprintf("outport == %q && ip", pick(g.vifs))
	default:
		return "ip"
	}
}

// addLoadBalancers adds up to maxLBs load balancers and attaches them to
// switches and routers, directly and through up to two load balancer
// groups; nothing when maxLBs is zero.
//
// Each router first becomes an L3 gateway router (one time in three) or
// gets a distributed gateway port (one time in three), and one in four
// sets lb_force_snat_ip (router_ip, an IPv4 address, or one of each
// family). Load balancer lbK has no protocol, tcp, udp or sctp; one to
// three VIPs, IPv4 or (one in three) IPv6, outside the switches' ranges or
// (one in three) in one, with a port two times in three; zero to three
// backends of the VIP's family, mostly VIF addresses, with a port when the
// VIP has one. Options: selection_fields, reject, skip_snat,
// affinity_timeout, hairpin_snat_ip, neighbor_responder; one VIP with a
// port in three has a health check, with ip_port_mappings for most of its
// VIF backends (IPv6 ones in brackets, with a source address in brackets or
// not; some name no port, a bad source address, or an IPv6 backend without
// brackets). With TopologyOptions.LB2603, a router's distributed gateway
// port may get a second one (addSecondGatewayPort), a health-checked
// backend may be remote (remoteZone), and a load balancer may use
// stateless NAT or be distributed (addLB2603Options). Each load balancer and group
// goes on each switch and each router with probability 1/3. One time in
// eight each, NB_Global sets install_ls_lb_from_router or controller_event.
func (g *topologyGen) addLoadBalancers(nSwitches, maxLBs int) {
	if maxLBs == 0 {
		return
	}
	for r, ports := range g.routers {
		lr := fmt.Sprintf("lr%d", r)
		switch g.rng.IntN(3) {
		case 0:
			g.add("set", "Logical_Router", lr, "options:chassis=hv1")
		case 1:
			gateway := g.rng.IntN(len(ports))
			g.add("lrp-set-gateway-chassis", ports[gateway].name, "gw1", "10")
			g.addSecondGatewayPort(ports, gateway)
		}
		if g.chance(4) {
			ip := []string{"router_ip", "172.16.99.1", "172.16.99.1 fd99::1"}[g.rng.IntN(3)]
			g.add("set", "Logical_Router", lr, "options:lb_force_snat_ip="+strconv.Quote(ip))
		}
	}
	if g.chance(8) {
		g.add("set", "NB_Global", ".", "options:install_ls_lb_from_router=true")
	}
	if g.chance(8) {
		g.add("set", "NB_Global", ".", "options:controller_event=true")
	}
	nLBs := g.rng.IntN(maxLBs + 1)
	var vips []string // the VIPs drawn so far, which a later one may repeat
	for k := range nLBs {
		vips = g.addLoadBalancer(k, nSwitches, vips)
	}
	var attach []string // the @ids of the load balancers and groups
	for k := range nLBs {
		attach = append(attach, fmt.Sprintf("@lb%d", k))
	}
	for j := range g.rng.IntN(3) {
		id := fmt.Sprintf("@lbg%d", j)
		cmd := []string{"--id=" + id, "create", "Load_Balancer_Group", "name=lbg" + id[4:]}
		var members []string
		for k := range nLBs {
			if g.chance(3) {
				members = append(members, fmt.Sprintf("@lb%d", k))
			}
		}
		if len(members) > 0 {
			cmd = append(cmd, "load_balancer="+strings.Join(members, ","))
		}
		g.add(cmd...)
		attach = append(attach, id)
	}
	for s := range nSwitches {
		g.attachLoadBalancers("Logical_Switch", fmt.Sprintf("sw%d", s), attach)
	}
	for r := range g.routers {
		g.attachLoadBalancers("Logical_Router", fmt.Sprintf("lr%d", r), attach)
	}
	g.flush()
	g.setDistributed()
}

// attachLoadBalancers adds each of the load balancers and groups (@lbK,
// @lbgJ) to row with probability 1/3.
func (g *topologyGen) attachLoadBalancers(table, row string, ids []string) {
	for _, id := range ids {
		if !g.chance(3) {
			continue
		}
		col := "load_balancer"
		if strings.HasPrefix(id, "@lbg") {
			col = "load_balancer_group"
		}
		g.add("add", table, row, col, id)
	}
}

// addLoadBalancer adds load balancer lbK (id @lbK) to the invocation being
// built and returns vips with its VIPs' addresses appended; one VIP in
// eight repeats an address of vips. See addLoadBalancers.
func (g *topologyGen) addLoadBalancer(k, nSwitches int, vips []string) []string {
	cols := []string{"name=lb" + strconv.Itoa(k)}
	if proto := []string{"", "tcp", "udp", "sctp"}[g.rng.IntN(4)]; proto != "" {
		cols = append(cols, "protocol="+proto)
	}
	var hc []string      // the health check's columns, once a VIP has one
	earlier := len(vips) // the other load balancers' VIPs
	// vifBackends holds the VIF that has each VIF backend's address, of
	// every VIP; mapped the ip_port_mappings keys drawn.
	vifBackends, mapped := map[string]string{}, map[string]bool{}
	for v := range 1 + g.rng.IntN(3) {
		v6 := g.chance(3)
		var vip string
		switch s := g.rng.IntN(nSwitches); {
		case v6 && g.chance(3):
			vip = fmt.Sprintf("fd00:%x::3:%x:%x", s, k, v+1)
		case v6:
			vip = fmt.Sprintf("fd30::%x:%x", k, v+1)
		case g.chance(3):
			vip = fmt.Sprintf("10.%d.%d.%d", s, 3+v, k+1)
		default:
			vip = fmt.Sprintf("172.16.%d.%d", k, 10+v)
		}
		if earlier > 0 && g.chance(8) {
			vip = vips[g.rng.IntN(earlier)]
			v6 = strings.Contains(vip, ":")
		}
		vips = append(vips, vip)
		port := 0
		if !g.chance(3) {
			port = 80 + v
		}
		// backendAt is the VIF that has each VIF backend's address.
		backendAt := map[string]string{}
		var backends []string
		for range g.rng.IntN(4) {
			var ip string
			if len(g.vifs) > 0 && !g.chance(4) {
				p := g.vifs[g.rng.IntN(len(g.vifs))]
				at := g.vifAt[p]
				ip = fmt.Sprintf("10.%d.1.%d", at[0], at[1]+1)
				if v6 {
					ip = fmt.Sprintf("fd00:%x::1:%x", at[0], at[1]+1)
				}
				backendAt[ip] = p
			} else {
				ip = fmt.Sprintf("10.%d.1.%d", g.rng.IntN(nSwitches), 200+g.rng.IntN(50))
				if v6 {
					ip = fmt.Sprintf("fd00:%x::1:%x", g.rng.IntN(nSwitches), 200+g.rng.IntN(50))
				}
			}
			if b := hostPort(ip, port, 8080); !slices.Contains(backends, b) {
				backends = append(backends, b)
			}
		}
		maps.Copy(vifBackends, backendAt)
		key := hostPort(vip, port, port)
		cols = append(cols, fmt.Sprintf("vips:%s=%s", strconv.Quote(key), strconv.Quote(strings.Join(backends, ","))))
		if port == 0 || len(backends) == 0 || hc != nil || !g.chance(3) {
			continue
		}
		hc = []string{"--id=@hc" + strconv.Itoa(k), "create", "Load_Balancer_Health_Check", "vip=" + strconv.Quote(key), "options:interval=5"}
		for _, ip := range slices.Sorted(maps.Keys(backendAt)) {
			if g.chance(4) {
				continue
			}
			p, s := backendAt[ip], g.vifAt[backendAt[ip]][0]
			mapKey, src := ip, fmt.Sprintf("10.%d.0.254", s)
			if v6 {
				mapKey, src = "["+ip+"]", fmt.Sprintf("fd00:%x::fe", s)
				if g.chance(2) {
					src = "[" + src + "]"
				}
			}
			switch g.rng.IntN(10) {
			case 0:
				p = "no-such-port"
			case 1:
				src = "bogus"
			case 2:
				mapKey = ip // an IPv6 backend without brackets: no mapping
			}
			mapped[mapKey] = true
			cols = append(cols, fmt.Sprintf("ip_port_mappings:%s=%s", strconv.Quote(mapKey), strconv.Quote(p+":"+src+g.remoteZone(src))))
		}
	}
	if hc != nil {
		g.add(hc...)
		cols = append(cols, "health_check="+hc[0][len("--id="):])
	}
	if g.chance(4) {
		var fields []string
		for _, f := range []string{"eth_dst", "eth_src", "ip_dst", "ip_src", "tp_dst", "tp_src"} {
			if g.chance(2) {
				fields = append(fields, f)
			}
		}
		if len(fields) > 0 {
			cols = append(cols, "selection_fields="+strings.Join(fields, ","))
		}
	}
	if g.chance(4) {
		cols = append(cols, "options:reject=true")
	}
	if g.chance(5) {
		cols = append(cols, "options:skip_snat=true")
	}
	if g.chance(6) {
		cols = append(cols, "options:affinity_timeout=60")
	}
	if g.chance(6) {
		ip := []string{"169.254.169.5", "169.254.169.5 fd69::5"}[g.rng.IntN(2)]
		cols = append(cols, "options:hairpin_snat_ip="+strconv.Quote(ip))
	}
	if g.chance(5) {
		cols = append(cols, "options:neighbor_responder="+[]string{"all", "none"}[g.rng.IntN(2)])
	}
	cols = append(cols, g.addLB2603Options(k, vifBackends, mapped)...)
	g.add(append([]string{fmt.Sprintf("--id=@lb%d", k), "create", "Load_Balancer"}, cols...)...)
	return vips
}

// hostPort writes ip with port (none when vipPort is zero) as a VIP or a
// backend: IPv6 in brackets when a port follows.
func hostPort(ip string, vipPort, port int) string {
	if vipPort == 0 {
		return ip
	}
	if strings.Contains(ip, ":") {
		return fmt.Sprintf("[%s]:%d", ip, port)
	}
	return fmt.Sprintf("%s:%d", ip, port)
}

// quoteAll writes values as an OVSDB set of quoted strings.
func quoteAll(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ",")
}
