package rules

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/northlog/northlog/internal/cputime"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
)

// The benchmarks below measure what one NB change costs on a big database:
// each builds an NB shape (base), then repeats one change and its undo, each
// followed by one Step. They report cpu-ns/step (process CPU time per step,
// garbage collection included: wall time on a shared machine is noisy) and
// flows/step (logical flows inserted plus deleted per step); B/op and
// allocs/op cover two steps. The figures are in BENCHMARKS.md.

// row is one NB row change: old == nil inserts new, new == nil deletes old.
type row struct {
	table    string
	old, new model.Model
}

// undo returns the changes that revert rows: in reverse order, old and new
// swapped.
func undo(rows []row) []row {
	out := make([]row, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = row{r.table, r.new, r.old}
	}
	return out
}

// shape is an NB database to load (base) and one change to measure on it.
type shape struct{ base, change []row }

// benchChange loads s.base into a new program, steps, then measures s.change
// and its undo (cputime.BenchChanges: per step, with the profiler label
// phase=change; a change that moves no flow fails).
func benchChange(b *testing.B, s shape) {
	p := New()
	apply := func(rows []row) int {
		for _, r := range rows {
			if err := p.NB.Apply(r.table, r.old, r.new); err != nil {
				b.Fatal(err)
			}
		}
		p.Step()
		return len(p.Flows.Delta())
	}
	apply(s.base)
	back := undo(s.change)
	cputime.BenchChanges(b, "step", func() (int, int) { return apply(s.change) + apply(back), 2 })
}

func benchPort(i int) *nb.LogicalSwitchPort {
	addr := fmt.Sprintf("0a:00:00:%02x:%02x:%02x 10.%d.%d.%d", i>>16&0xff, i>>8&0xff, i&0xff, i>>16&0xff, i>>8&0xff, i&0xff)
	return &nb.LogicalSwitchPort{
		UUID:         fmt.Sprintf("lsp-%06d", i),
		Name:         fmt.Sprintf("p%d", i),
		Addresses:    []string{addr},
		PortSecurity: []string{addr},
	}
}

// switchAddPort is one switch with n VIF ports (MAC+IPv4 addresses, port
// security); the change adds a port as ovn-nbctl lsp-add does: a new
// Logical_Switch_Port row and the switch's ports column rewritten. ovn-northd
// writes 3 flows for it (ARP responder and its inport guard, L2 unicast).
func switchAddPort(n int) (s shape) {
	ls := &nb.LogicalSwitch{UUID: "ls-uuid", Name: "ls"}
	for i := range n {
		lsp := benchPort(i)
		ls.Ports = append(ls.Ports, lsp.UUID)
		s.base = append(s.base, row{nb.LogicalSwitchPortTable, nil, lsp})
	}
	s.base = append(s.base, row{nb.LogicalSwitchTable, nil, ls})
	lsp := benchPort(n)
	with := *ls
	with.Ports = append(slices.Clone(ls.Ports), lsp.UUID)
	s.change = []row{{nb.LogicalSwitchPortTable, nil, lsp}, {nb.LogicalSwitchTable, ls, &with}}
	return s
}

// BenchmarkSwitchAddPort: issue 4, adding a port to a switch of 1k and 10k
// ports.
func BenchmarkSwitchAddPort(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint("ports=", n), func(b *testing.B) { benchChange(b, switchAddPort(n)) })
	}
}

// routeKind is how a router's static routes are set in routerAddRoute.
type routeKind int

const (
	plainRoutes routeKind = iota // one next hop each, in the main table
	tableRoutes                  // in route table "t1"
	ecmpRoutes                   // two routes per prefix: an ECMP group
)

func (k routeKind) String() string { return [...]string{"plain", "table", "ecmp"}[k] }

// benchRoutes are the route rows of prefix i: next hops on the router's
// ports i and i+1 (modulo nPorts).
func benchRoutes(i, nPorts int, kind routeKind) []*nb.LogicalRouterStaticRoute {
	route := func(uuid string, port int) *nb.LogicalRouterStaticRoute {
		return &nb.LogicalRouterStaticRoute{
			UUID:     uuid,
			IPPrefix: fmt.Sprintf("172.%d.%d.%d/32", 16+i>>16&0xf, i>>8&0xff, i&0xff),
			Nexthop:  fmt.Sprintf("10.%d.%d.2", port>>8&0xff, port&0xff),
		}
	}
	r := route(fmt.Sprintf("route-%06d", i), i%nPorts)
	switch kind {
	case tableRoutes:
		r.RouteTable = "t1"
	case ecmpRoutes:
		return []*nb.LogicalRouterStaticRoute{r, route(r.UUID+"-2", (i+1)%nPorts)}
	}
	return []*nb.LogicalRouterStaticRoute{r}
}

// routerAddRoute is one router with nPorts ports, each on its own /24, and
// static routes to n distinct /32 prefixes through next hops on those ports;
// the change adds the routes of one more prefix as ovn-nbctl lr-route-add
// does: new Logical_Router_Static_Route rows and the router's static_routes
// column rewritten. ovn-northd writes 1 flow for a plain or table route
// (lr_in_ip_routing) and 3 for an ECMP group (the route and one
// lr_in_ip_routing_ecmp flow per next hop); the new group sorts last, so no
// other group is renumbered.
func routerAddRoute(nPorts, n int, kind routeKind) (s shape) {
	lr := &nb.LogicalRouter{UUID: "lr-uuid", Name: "lr"}
	for i := range nPorts {
		lrp := &nb.LogicalRouterPort{
			UUID:     fmt.Sprintf("lrp-%05d", i),
			Name:     fmt.Sprintf("rp%d", i),
			MAC:      fmt.Sprintf("0a:00:00:00:%02x:%02x", i>>8&0xff, i&0xff),
			Networks: []string{fmt.Sprintf("10.%d.%d.1/24", i>>8&0xff, i&0xff)},
		}
		lr.Ports = append(lr.Ports, lrp.UUID)
		s.base = append(s.base, row{nb.LogicalRouterPortTable, nil, lrp})
	}
	for i := range n {
		for _, r := range benchRoutes(i, nPorts, kind) {
			lr.StaticRoutes = append(lr.StaticRoutes, r.UUID)
			s.base = append(s.base, row{nb.LogicalRouterStaticRouteTable, nil, r})
		}
	}
	s.base = append(s.base, row{nb.LogicalRouterTable, nil, lr})
	with := *lr
	with.StaticRoutes = slices.Clone(lr.StaticRoutes)
	for _, r := range benchRoutes(n, nPorts, kind) {
		with.StaticRoutes = append(with.StaticRoutes, r.UUID)
		s.change = append(s.change, row{nb.LogicalRouterStaticRouteTable, nil, r})
	}
	s.change = append(s.change, row{nb.LogicalRouterTable, lr, &with})
	return s
}

// BenchmarkRouterAddRoute: issue 5, adding a route to a router of 1k ports
// with 1k and 10k routes; also in a route table of that many routes, and an
// ECMP group to a router with that many groups.
func BenchmarkRouterAddRoute(b *testing.B) {
	for _, kind := range []routeKind{plainRoutes, tableRoutes, ecmpRoutes} {
		for _, n := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("%v/ports=1000/prefixes=%d", kind, n), func(b *testing.B) {
				benchChange(b, routerAddRoute(1000, n, kind))
			})
		}
	}
}

func benchACL(i int) *nb.ACL {
	return &nb.ACL{
		UUID:      fmt.Sprintf("acl-%05d", i),
		Direction: nb.ACLDirectionToLport,
		Priority:  1000,
		Action:    nb.ACLActionAllowRelated,
		Match:     fmt.Sprintf("outport == @pg && ip4.src == 10.250.%d.%d && tcp.dst == 22", i>>8&0xff, i&0xff),
	}
}

// portGroupAddACL is a port group of nPorts ports spread over the given
// number of switches, with nACLs allow-related to-lport ACLs; the change adds
// an ACL as ovn-nbctl acl-add does: a new ACL row and the group's acls column
// rewritten. ovn-northd writes 2 flows for it on each switch (ls_out_acl, new
// and established connections).
func portGroupAddACL(switches, nPorts, nACLs int) (s shape) {
	lss := make([]*nb.LogicalSwitch, switches)
	for s := range lss {
		lss[s] = &nb.LogicalSwitch{UUID: fmt.Sprintf("ls-%03d", s), Name: fmt.Sprintf("ls%d", s)}
	}
	pg := &nb.PortGroup{UUID: "pg-uuid", Name: "pg"}
	for i := range nPorts {
		lsp := benchPort(i)
		lss[i%switches].Ports = append(lss[i%switches].Ports, lsp.UUID)
		pg.Ports = append(pg.Ports, lsp.UUID)
		s.base = append(s.base, row{nb.LogicalSwitchPortTable, nil, lsp})
	}
	for _, ls := range lss {
		s.base = append(s.base, row{nb.LogicalSwitchTable, nil, ls})
	}
	for i := range nACLs {
		acl := benchACL(i)
		pg.ACLs = append(pg.ACLs, acl.UUID)
		s.base = append(s.base, row{nb.ACLTable, nil, acl})
	}
	s.base = append(s.base, row{nb.PortGroupTable, nil, pg})
	acl := benchACL(nACLs)
	with := *pg
	with.ACLs = append(slices.Clone(pg.ACLs), acl.UUID)
	s.change = []row{{nb.ACLTable, nil, acl}, {nb.PortGroupTable, pg, &with}}
	return s
}

// BenchmarkPortGroupAddACL: issue 7, adding an ACL to a port group of 500
// ports with 20 ACLs and of 5k ports with 200 ACLs, on 10 switches.
func BenchmarkPortGroupAddACL(b *testing.B) {
	for _, size := range []struct{ ports, acls int }{{500, 20}, {5000, 200}} {
		b.Run(fmt.Sprintf("switches=10/ports=%d/acls=%d", size.ports, size.acls), func(b *testing.B) {
			benchChange(b, portGroupAddACL(10, size.ports, size.acls))
		})
	}
}

// lbBackendChange is an ovn-kubernetes-like load balancer group: lbs TCP load
// balancers of one VIP and two backends each, in one group that datapaths
// switches and datapaths gateway routers list; the change adds a backend to
// the first load balancer's VIP. ovn-northd rewrites 1 flow for it on each
// datapath (ls_in_lb, lr_in_dnat): 2 flow changes per datapath.
func lbBackendChange(datapaths, lbs int) (s shape) {
	group := &nb.LoadBalancerGroup{UUID: "lbg", Name: "cluster"}
	for i := range lbs {
		lb := &nb.LoadBalancer{
			UUID: fmt.Sprintf("lb-%05d", i),
			Name: fmt.Sprintf("svc%d", i),
			Vips: map[string]string{
				fmt.Sprintf("10.96.%d.%d:80", i>>8&0xff, i&0xff): fmt.Sprintf("10.244.%d.%d:8080,10.245.%d.%d:8080", i>>8&0xff, i&0xff, i>>8&0xff, i&0xff),
			},
		}
		group.LoadBalancer = append(group.LoadBalancer, lb.UUID)
		s.base = append(s.base, row{nb.LoadBalancerTable, nil, lb})
	}
	s.base = append(s.base, row{nb.LoadBalancerGroupTable, nil, group})
	for i := range datapaths {
		s.base = append(s.base,
			row{nb.LogicalSwitchTable, nil, &nb.LogicalSwitch{
				UUID: fmt.Sprintf("ls-%03d", i), Name: fmt.Sprintf("node%d", i), LoadBalancerGroup: []string{group.UUID}}},
			row{nb.LogicalRouterTable, nil, &nb.LogicalRouter{
				UUID: fmt.Sprintf("lr-%03d", i), Name: fmt.Sprintf("gw%d", i), LoadBalancerGroup: []string{group.UUID},
				Options: map[string]string{"chassis": fmt.Sprintf("node%d", i)}}})
	}
	lb := s.base[0].new.(*nb.LoadBalancer)
	changed := *lb
	changed.Vips = map[string]string{}
	for k, v := range lb.Vips {
		changed.Vips[k] = v + ",10.246.0.1:8080"
	}
	s.change = []row{{nb.LoadBalancerTable, lb, &changed}}
	return s
}

// BenchmarkLBBackendChange: issue 7, a backend change of a load balancer in a
// group on 10+10 and 100+100 datapaths, with 100 and 1000 load balancers in
// the group. The flows to rewrite follow the number of datapaths, so the
// work per step does too; it must not follow the number of other load
// balancers.
func BenchmarkLBBackendChange(b *testing.B) {
	for _, size := range []struct{ datapaths, lbs int }{{10, 100}, {100, 100}, {100, 1000}} {
		b.Run(fmt.Sprintf("datapaths=%d+%d/lbs=%d", size.datapaths, size.datapaths, size.lbs), func(b *testing.B) {
			benchChange(b, lbBackendChange(size.datapaths, size.lbs))
		})
	}
}

// BenchmarkLBGroupHeap: issue 6, the live heap of a program that loaded
// lbBackendChange's group of 1000 load balancers on 100+100 datapaths
// (live-B: heap in use after a collection, the program alive, less the
// heap before it was built).
func BenchmarkLBGroupHeap(b *testing.B) {
	s := lbBackendChange(100, 1000)
	var live uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p := New()
		for _, r := range s.base {
			if err := p.NB.Apply(r.table, r.old, r.new); err != nil {
				b.Fatal(err)
			}
		}
		p.Step()
		runtime.GC()
		runtime.ReadMemStats(&after)
		live = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(p)
	}
	b.ReportMetric(float64(live), "live-B")
}
