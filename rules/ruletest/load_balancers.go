package ruletest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
	"pgregory.net/rapid"
)

// lbChanges are the load balancer changes.
var lbChanges = map[string]Change{
	"lbAdd":           lbAdd,
	"lbEdit":          lbEdit,
	"lbAttach":        lbAttach,
	"lbDetach":        lbDetach,
	"lbGroupEdit":     lbGroupEdit,
	"lbGroupDel":      lbGroupDel,
	"lbGlobal":        lbGlobal,
	"lbHealthCheck":   lbHealthCheck,
	"lbRouterOptions": lbRouterOptions,
	"lbGatewayPort":   lbGatewayPort,
	"lbBackends":      lbBackends,
	"lbMonitorDown":   lbMonitorDown,
}

// genLBVIPs draws a vips column: IPv4 and IPv6 VIPs with and without ports,
// with zero to two backends, now and then a malformed key or backend, or
// the address of a router port or NAT rule.
func genLBVIPs(t *rapid.T) map[string]string {
	vips := map[string]string{}
	for range rapid.IntRange(0, 3).Draw(t, "nvips") {
		host := rapid.IntRange(1, 3).Draw(t, "vip")
		v6 := rapid.Bool().Draw(t, "v6")
		port := rapid.SampledFrom([]string{"", "80"}).Draw(t, "port")
		key, backend := fmt.Sprintf("10.0.0.%d", 100+host), "10.0.0.%d"
		if v6 {
			key, backend = fmt.Sprintf("fd00::%d", 100+host), "fd00::%d"
		}
		if port != "" {
			if v6 {
				key, backend = "["+key+"]", "["+backend+"]"
			}
			key, backend = key+":"+port, backend+":8080"
		}
		var backends []string
		for range rapid.IntRange(0, 2).Draw(t, "nbackends") {
			backends = append(backends, fmt.Sprintf(backend, rapid.IntRange(5, 7).Draw(t, "backend")))
		}
		switch rapid.IntRange(0, 9).Draw(t, "odd") {
		case 0:
			key = "not-an-ip:80"
		case 1:
			backends = append(backends, "fd00::9")
		case 2:
			// A template VIP (or for a plain load balancer, a bad one).
			key, backends = "^vip:^vport", []string{"^backends", "^b2:80"}
		case 3:
			// An address that router ports and NAT rules have too.
			key = fmt.Sprintf("10.0.0.%d", host)
		}
		vips[key] = strings.Join(backends, ",")
	}
	return vips
}

// genLB draws a load balancer's protocol, options, selection fields and
// port mappings around vips.
func genLB(t *rapid.T, id string, vips map[string]string) *nb.LoadBalancer {
	lb := &nb.LoadBalancer{UUID: id, Name: "lb" + id[len(id)-3:], Vips: vips, Options: map[string]string{}}
	if proto := rapid.SampledFrom([]string{"", "tcp", "udp", "sctp"}).Draw(t, "proto"); proto != "" {
		p := nb.LoadBalancerProtocol(proto)
		lb.Protocol = &p
	}
	for _, o := range []struct{ key, value string }{
		{"skip_snat", "true"}, {"reject", "true"}, {"event", "true"}, {"affinity_timeout", "60"}, {"add_route", "true"},
		{"distributed", "true"},
		{"use_stateless_nat", "true"},
		{"neighbor_responder", rapid.SampledFrom([]string{"all", "none", "bogus"}).Draw(t, "neigh")},
	} {
		if rapid.IntRange(0, 3).Draw(t, o.key) == 0 {
			lb.Options[o.key] = o.value
		}
	}
	if rapid.IntRange(0, 3).Draw(t, "template") == 0 {
		lb.Options["template"] = "true"
		lb.Options["address-family"] = rapid.SampledFrom([]string{"ipv4", "ipv6"}).Draw(t, "family")
	}
	if rapid.Bool().Draw(t, "selection") {
		lb.SelectionFields = []nb.LoadBalancerSelectionFields{"ip_src", "tp_dst"}
	}
	// Port names of the property test (p001...), and one that never exists.
	ports := []string{fmt.Sprintf("p%03d", rapid.IntRange(1, 30).Draw(t, "portname")), "nope"}
	lb.IPPortMappings = map[string]string{}
	for _, b := range []string{"10.0.0.5", "10.0.0.6", "[fd00::5]"} {
		if rapid.Bool().Draw(t, "mapped") {
			// Without a source address, as a distributed load balancer
			// may name a port, or with the zone of a remote backend.
			src := rapid.SampledFrom([]string{":10.0.0.2", "", ":10.0.0.2:az1"}).Draw(t, "mapsrc")
			if b[0] == '[' {
				src = strings.ReplaceAll(src, "10.0.0.2", "[fd00::2]")
			}
			lb.IPPortMappings[b] = rapid.SampledFrom(ports).Draw(t, "mapport") + src
		}
	}
	return lb
}

// lbAdd adds a load balancer, alone or in a new group, and applies it (or
// the group) to a switch and a router, when there are some.
func lbAdd(t *rapid.T, s *State) {
	id := s.UUID()
	s.Set(t, nb.LoadBalancerTable, id, genLB(t, id, genLBVIPs(t)))
	ref, group := id, rapid.Bool().Draw(t, "grouped")
	if group {
		ref = s.UUID()
		s.Set(t, nb.LoadBalancerGroupTable, ref, &nb.LoadBalancerGroup{UUID: ref, Name: "g" + ref[len(ref)-3:], LoadBalancer: []string{id}})
	}
	for _, table := range []string{nb.LogicalSwitchTable, nb.LogicalRouterTable} {
		if dpID := s.Pick(t, table, "dp"); dpID != "" && rapid.Bool().Draw(t, "attach") {
			row := cloneDatapath(s.rows[table][dpID])
			refs := lbRefs(row, group)
			*refs = append(slices.Clone(*refs), ref)
			s.Set(t, table, dpID, row)
		}
	}
}

func lbEdit(t *rapid.T, s *State) {
	id := s.Pick(t, nb.LoadBalancerTable, "lb")
	if id == "" {
		return
	}
	old := s.rows[nb.LoadBalancerTable][id].(*nb.LoadBalancer)
	vips := old.Vips
	if rapid.Bool().Draw(t, "newVIPs") {
		vips = genLBVIPs(t)
	}
	lb := genLB(t, id, vips)
	lb.HealthCheck = old.HealthCheck
	s.Set(t, nb.LoadBalancerTable, id, lb)
}

// lbBackends redraws the backends of one VIP of a load balancer, keeping
// its VIPs.
func lbBackends(t *rapid.T, s *State) {
	id := s.Pick(t, nb.LoadBalancerTable, "lb")
	if id == "" {
		return
	}
	lb := *s.rows[nb.LoadBalancerTable][id].(*nb.LoadBalancer)
	if len(lb.Vips) == 0 {
		return
	}
	vip := rapid.SampledFrom(slices.Sorted(maps.Keys(lb.Vips))).Draw(t, "vip")
	lb.Vips = maps.Clone(lb.Vips)
	lb.Vips[vip] = rapid.SampledFrom([]string{"", "10.0.0.5:8080", "10.0.0.6:8080,10.0.0.5:8080", "[fd00::5]:8080", "10.0.0.6", "fd00::6,fd00::5"}).Draw(t, "backends")
	s.Set(t, nb.LoadBalancerTable, id, &lb)
}

// lbRefs returns a load balancer reference column of a switch or router
// row: load_balancer_group when group, else load_balancer.
func lbRefs(row model.Model, group bool) *[]string {
	switch r := row.(type) {
	case *nb.LogicalSwitch:
		if group {
			return &r.LoadBalancerGroup
		}
		return &r.LoadBalancer
	case *nb.LogicalRouter:
		if group {
			return &r.LoadBalancerGroup
		}
		return &r.LoadBalancer
	}
	return nil
}

// cloneDatapath copies a switch or router row.
func cloneDatapath(row model.Model) model.Model {
	switch r := row.(type) {
	case *nb.LogicalSwitch:
		c := *r
		return &c
	case *nb.LogicalRouter:
		c := *r
		return &c
	}
	return nil
}

// drawDatapathColumn picks a switch or router and one of its load balancer
// columns, and tells the table of rows that column refers to.
func drawDatapathColumn(t *rapid.T, s *State) (table, id string, group bool, target string) {
	table = rapid.SampledFrom([]string{nb.LogicalSwitchTable, nb.LogicalRouterTable}).Draw(t, "dpTable")
	group = rapid.Bool().Draw(t, "group")
	target = nb.LoadBalancerTable
	if group {
		target = nb.LoadBalancerGroupTable
	}
	return table, s.Pick(t, table, "dp"), group, target
}

func lbAttach(t *rapid.T, s *State) {
	table, dpID, group, target := drawDatapathColumn(t, s)
	ref := s.Pick(t, target, "ref")
	if dpID == "" || ref == "" {
		return
	}
	row := cloneDatapath(s.rows[table][dpID])
	refs := lbRefs(row, group)
	if slices.Contains(*refs, ref) {
		return
	}
	*refs = append(slices.Clone(*refs), ref)
	s.Set(t, table, dpID, row)
}

func lbDetach(t *rapid.T, s *State) {
	table, dpID, group, _ := drawDatapathColumn(t, s)
	if dpID == "" {
		return
	}
	row := cloneDatapath(s.rows[table][dpID])
	refs := lbRefs(row, group)
	if len(*refs) == 0 {
		return
	}
	i := rapid.IntRange(0, len(*refs)-1).Draw(t, "i")
	*refs = slices.Delete(slices.Clone(*refs), i, i+1)
	s.Set(t, table, dpID, row)
}

// lbGroupEdit replaces the load balancers of a group.
func lbGroupEdit(t *rapid.T, s *State) {
	gid := s.Pick(t, nb.LoadBalancerGroupTable, "lbg")
	lbs := s.IDs(nb.LoadBalancerTable)
	if gid == "" || len(lbs) == 0 {
		return
	}
	g := *s.rows[nb.LoadBalancerGroupTable][gid].(*nb.LoadBalancerGroup)
	g.LoadBalancer = rapid.SliceOfNDistinct(rapid.SampledFrom(lbs), 0, 3, func(id string) string { return id }).Draw(t, "lbs")
	s.Set(t, nb.LoadBalancerGroupTable, gid, &g)
}

// lbGroupDel deletes a group, after taking it out of the switches and
// routers that list it.
func lbGroupDel(t *rapid.T, s *State) {
	gid := s.Pick(t, nb.LoadBalancerGroupTable, "lbg")
	if gid == "" {
		return
	}
	Unlink(t, s, nb.LogicalSwitchTable, gid, func(ls *nb.LogicalSwitch) *[]string { return &ls.LoadBalancerGroup })
	Unlink(t, s, nb.LogicalRouterTable, gid, func(lr *nb.LogicalRouter) *[]string { return &lr.LoadBalancerGroup })
	s.Set(t, nb.LoadBalancerGroupTable, gid, nil)
}

// lbGlobal sets NB_Global's load balancer options: switches taking their
// routers' load balancers, events for every load balancer, the service
// monitor MAC.
func lbGlobal(t *rapid.T, s *State) {
	const id = "00000000-0000-0000-0000-00000000ffff"
	options := map[string]string{}
	for _, k := range []string{"install_ls_lb_from_router", "controller_event"} {
		if rapid.Bool().Draw(t, k) {
			options[k] = "true"
		}
	}
	if rapid.Bool().Draw(t, "svcMAC") {
		options["svc_monitor_mac"] = "00:00:00:00:ff:01"
	}
	s.Set(t, nb.NBGlobalTable, id, &nb.NBGlobal{UUID: id, Options: options})
}

// lbHealthCheck adds a health check for one of a load balancer's VIPs (or
// a VIP it does not have).
func lbHealthCheck(t *rapid.T, s *State) {
	id := s.Pick(t, nb.LoadBalancerTable, "lb")
	if id == "" {
		return
	}
	lb := *s.rows[nb.LoadBalancerTable][id].(*nb.LoadBalancer)
	keys := append(slices.Sorted(maps.Keys(lb.Vips)), "10.0.0.99:80")
	hid := s.UUID()
	s.Set(t, nb.LoadBalancerHealthCheckTable, hid, &nb.LoadBalancerHealthCheck{UUID: hid, Vip: rapid.SampledFrom(keys).Draw(t, "hcvip")})
	lb.HealthCheck = append(slices.Clone(lb.HealthCheck), hid)
	s.Set(t, nb.LoadBalancerTable, id, &lb)
}

// lbMonitorDown takes the SB Service_Monitor of a backend of a load
// balancer's VIP, by its ip_port_mappings entry, down, or brings it back,
// as ovn-controller reports it.
func lbMonitorDown(t *rapid.T, s *State) {
	id := s.Pick(t, nb.LoadBalancerTable, "lb")
	if id == "" {
		return
	}
	lb := s.rows[nb.LoadBalancerTable][id].(*nb.LoadBalancer)
	var backends []string
	for _, vip := range slices.Sorted(maps.Keys(lb.Vips)) {
		backends = append(backends, strings.Split(lb.Vips[vip], ",")...)
	}
	if len(backends) == 0 {
		return
	}
	// "IP", "IP:PORT" or "[IP]:PORT"; an IPv6 mapping is keyed "[IP]".
	backend := rapid.SampledFrom(backends).Draw(t, "backend")
	ip, port := backend, 0
	if i := strings.LastIndex(backend, ":"); i > 0 && (strings.Count(backend, ":") == 1 || strings.HasPrefix(backend, "[")) {
		ip = backend[:i]
		port, _ = strconv.Atoi(backend[i+1:])
	}
	ip = strings.Trim(ip, "[]")
	key := ip
	if strings.Contains(ip, ":") {
		key = "[" + ip + "]"
	}
	mapping, ok := lb.IPPortMappings[key]
	if !ok {
		return
	}
	proto := "tcp"
	if lb.Protocol != nil && *lb.Protocol != "" {
		proto = string(*lb.Protocol)
	}
	logicalPort, _, _ := strings.Cut(mapping, ":")
	k := relations.ServiceMonitorKey{IP: ip, Port: port, LogicalPort: logicalPort, Protocol: proto}
	s.SetMonitorDown(k, !s.down[k])
}

// lbCopp is the CoPP a router may have: its reject and load balancer
// event packets metered, which its load balancers' DNAT flows carry.
const lbCopp = "00000000-0000-0000-0000-00000000c0bb"

// lbRouterOptions sets a router's gateway chassis, lb_force_snat_ip and
// CoPP.
func lbRouterOptions(t *rapid.T, s *State) {
	id := s.Pick(t, nb.LogicalRouterTable, "lr")
	if id == "" {
		return
	}
	lr := *s.rows[nb.LogicalRouterTable][id].(*nb.LogicalRouter)
	lr.Copp = nil
	if rapid.Bool().Draw(t, "copp") {
		if s.rows[nb.CoppTable][lbCopp] == nil {
			const meter = "00000000-0000-0000-0000-00000000c0bc"
			s.Set(t, nb.MeterTable, meter, &nb.Meter{UUID: meter, Name: "lb-meter", Unit: "pktps"})
			s.Set(t, nb.CoppTable, lbCopp, &nb.Copp{UUID: lbCopp, Name: "lb-copp", Meters: map[string]string{"reject": "lb-meter", "event-elb": "lb-meter"}})
		}
		copp := lbCopp
		lr.Copp = &copp
	}
	lr.Options = map[string]string{}
	if rapid.Bool().Draw(t, "gateway") {
		lr.Options["chassis"] = "hv1"
	}
	if snat := rapid.SampledFrom([]string{"", "router_ip", "172.16.0.1", "172.16.0.1 fd10::1", "bogus"}).Draw(t, "forceSNAT"); snat != "" {
		lr.Options["lb_force_snat_ip"] = snat
	}
	s.Set(t, nb.LogicalRouterTable, id, &lr)
}

// lbGatewayPort gives a router port gateway chassis (a distributed gateway
// port unless its router is a gateway router) or takes them away, now and
// then on all of a router's ports (several distributed gateway ports, where
// stateless NAT applies).
func lbGatewayPort(t *rapid.T, s *State) {
	ids := []string{s.Pick(t, nb.LogicalRouterPortTable, "lrp")}
	if ids[0] == "" {
		return
	}
	if lr := s.Pick(t, nb.LogicalRouterTable, "lr"); lr != "" && rapid.IntRange(0, 3).Draw(t, "all ports") == 0 {
		ids = s.rows[nb.LogicalRouterTable][lr].(*nb.LogicalRouter).Ports
	}
	dgp := rapid.Bool().Draw(t, "dgp")
	for _, id := range ids {
		row, ok := s.rows[nb.LogicalRouterPortTable][id].(*nb.LogicalRouterPort)
		if !ok {
			continue
		}
		lrp := *row
		lrp.GatewayChassis = nil
		if dgp {
			gc := s.UUID()
			s.Set(t, nb.GatewayChassisTable, gc, &nb.GatewayChassis{UUID: gc, Name: lrp.Name + "-hv1", ChassisName: "hv1", Priority: 10})
			lrp.GatewayChassis = []string{gc}
		}
		s.Set(t, nb.LogicalRouterPortTable, id, &lrp)
	}
}

// StatelessNATSetup makes a router with two distributed gateway ports and
// a stateless-NAT load balancer on it whose health-checked VIP rejects,
// its backends' monitors being on ports that may not exist: the changes
// then bring its targets and the router's CoPP, which meters the VIP's
// DNAT flows while it has no target, and go.
func StatelessNATSetup(t *rapid.T, s *State) {
	lr := s.UUID()
	var ports []string
	for i := range 2 {
		id, gc := s.UUID(), s.UUID()
		name := fmt.Sprintf("dgp%d", i)
		s.Set(t, nb.GatewayChassisTable, gc, &nb.GatewayChassis{UUID: gc, Name: name + "-hv1", ChassisName: "hv1", Priority: 10})
		s.Set(t, nb.LogicalRouterPortTable, id, &nb.LogicalRouterPort{UUID: id, Name: name, MAC: fmt.Sprintf("00:00:00:00:0d:0%d", i),
			Networks: []string{fmt.Sprintf("172.16.%d.1/24", i)}, GatewayChassis: []string{gc}})
		ports = append(ports, id)
	}
	lb, hc := s.UUID(), s.UUID()
	s.Set(t, nb.LoadBalancerHealthCheckTable, hc, &nb.LoadBalancerHealthCheck{UUID: hc, Vip: "10.0.0.101:80"})
	s.Set(t, nb.LoadBalancerTable, lb, &nb.LoadBalancer{UUID: lb, Name: "lbstateless",
		Vips:           map[string]string{"10.0.0.101:80": "10.0.0.5:8080,10.0.0.6:8080"},
		Options:        map[string]string{"use_stateless_nat": "true", "reject": "true"},
		IPPortMappings: map[string]string{"10.0.0.5": "p001:10.0.0.2", "10.0.0.6": "p002:10.0.0.2"},
		HealthCheck:    []string{hc}})
	s.Set(t, nb.LogicalRouterTable, lr, &nb.LogicalRouter{UUID: lr, Name: "lrstateless", Ports: ports, LoadBalancer: []string{lb}})
}
