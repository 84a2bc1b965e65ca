package ruletest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
			// may name a port.
			src := rapid.SampledFrom([]string{":10.0.0.2", ""}).Draw(t, "mapsrc")
			if b[0] == '[' && src != "" {
				src = ":[fd00::2]"
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

// lbRouterOptions sets a router's gateway chassis and lb_force_snat_ip.
func lbRouterOptions(t *rapid.T, s *State) {
	id := s.Pick(t, nb.LogicalRouterTable, "lr")
	if id == "" {
		return
	}
	lr := *s.rows[nb.LogicalRouterTable][id].(*nb.LogicalRouter)
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
// port unless its router is a gateway router) or takes them away.
func lbGatewayPort(t *rapid.T, s *State) {
	id := s.Pick(t, nb.LogicalRouterPortTable, "lrp")
	if id == "" {
		return
	}
	lrp := *s.rows[nb.LogicalRouterPortTable][id].(*nb.LogicalRouterPort)
	lrp.GatewayChassis = nil
	if rapid.Bool().Draw(t, "dgp") {
		gc := s.UUID()
		s.Set(t, nb.GatewayChassisTable, gc, &nb.GatewayChassis{UUID: gc, Name: lrp.Name + "-hv1", ChassisName: "hv1", Priority: 10})
		lrp.GatewayChassis = []string{gc}
	}
	s.Set(t, nb.LogicalRouterPortTable, id, &lrp)
}
