package rules

import (
	"fmt"
	"slices"
	"testing"

	"github.com/northlog/northlog/internal/cputime"
	"github.com/northlog/northlog/relations/nb"
)

// routerWithRoutes builds a program holding one router with nPorts ports,
// each on its own /24, and nRoutes static routes to distinct /32 prefixes
// through next hops on those ports, and computes its flows.
func routerWithRoutes(b *testing.B, nPorts, nRoutes int) (*Program, *nb.LogicalRouter) {
	b.Helper()
	p := New()
	lr := &nb.LogicalRouter{UUID: "lr-uuid", Name: "lr"}
	for i := range nPorts {
		lrp := &nb.LogicalRouterPort{
			UUID:     fmt.Sprintf("lrp-%05d", i),
			Name:     fmt.Sprintf("rp%d", i),
			MAC:      fmt.Sprintf("0a:00:00:00:%02x:%02x", i>>8&0xff, i&0xff),
			Networks: []string{fmt.Sprintf("10.%d.%d.1/24", i>>8&0xff, i&0xff)},
		}
		lr.Ports = append(lr.Ports, lrp.UUID)
		must(b, p.NB.Apply(nb.LogicalRouterPortTable, nil, lrp))
	}
	for i := range nRoutes {
		r := benchRoute(i, nPorts)
		lr.StaticRoutes = append(lr.StaticRoutes, r.UUID)
		must(b, p.NB.Apply(nb.LogicalRouterStaticRouteTable, nil, r))
	}
	must(b, p.NB.Apply(nb.LogicalRouterTable, nil, lr))
	p.Step()
	return p, lr
}

func benchRoute(i, nPorts int) *nb.LogicalRouterStaticRoute {
	port := i % nPorts
	return &nb.LogicalRouterStaticRoute{
		UUID:     fmt.Sprintf("route-%06d", i),
		IPPrefix: fmt.Sprintf("172.%d.%d.%d/32", 16+i>>16&0xf, i>>8&0xff, i&0xff),
		Nexthop:  fmt.Sprintf("10.%d.%d.2", port>>8&0xff, port&0xff),
	}
}

// BenchmarkRouterAddRoute measures one NB change on a big router: a static
// route is added (a new Logical_Router_Static_Route row and the router's
// static_routes column rewritten, as ovn-nbctl lr-route-add does), a step
// computes its flows, then the route is removed again in a second step.
// ns/op covers both steps.
func BenchmarkRouterAddRoute(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint("ports=1000/routes=", n), func(b *testing.B) {
			p, lr := routerWithRoutes(b, 1000, n)
			r := benchRoute(n, 1000)
			with := *lr
			with.StaticRoutes = append(slices.Clone(lr.StaticRoutes), r.UUID)
			changed := 0
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cputime.Process()
			for b.Loop() {
				must(b, p.NB.Apply(nb.LogicalRouterStaticRouteTable, nil, r))
				must(b, p.NB.Apply(nb.LogicalRouterTable, lr, &with))
				p.Step()
				changed += len(p.Flows.Delta())
				must(b, p.NB.Apply(nb.LogicalRouterTable, &with, lr))
				must(b, p.NB.Apply(nb.LogicalRouterStaticRouteTable, r, nil))
				p.Step()
				changed += len(p.Flows.Delta())
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(2*b.N), "cpu-ns/step")
			b.ReportMetric(float64(changed)/float64(2*b.N), "flows/step")
		})
	}
}
