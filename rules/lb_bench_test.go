package rules

import (
	"fmt"
	"testing"

	"github.com/northlog/northlog/internal/cputime"
	"github.com/northlog/northlog/relations/nb"
)

// clusterLBs builds a program with an ovn-kubernetes-like load balancer
// group: lbs TCP load balancers of one VIP and two backends each, in one
// group that datapaths switches and datapaths routers list, and computes its
// flows. It returns the first load balancer.
func clusterLBs(b *testing.B, datapaths, lbs int) (*Program, *nb.LoadBalancer) {
	b.Helper()
	p := New()
	group := &nb.LoadBalancerGroup{UUID: "lbg", Name: "cluster"}
	var first *nb.LoadBalancer
	for i := range lbs {
		lb := &nb.LoadBalancer{
			UUID: fmt.Sprintf("lb-%d", i),
			Name: fmt.Sprintf("svc%d", i),
			Vips: map[string]string{
				fmt.Sprintf("10.96.%d.%d:80", i>>8&0xff, i&0xff): fmt.Sprintf("10.244.%d.%d:8080,10.245.%d.%d:8080", i>>8&0xff, i&0xff, i>>8&0xff, i&0xff),
			},
		}
		if first == nil {
			first = lb
		}
		group.LoadBalancer = append(group.LoadBalancer, lb.UUID)
		must(b, p.NB.Apply(nb.LoadBalancerTable, nil, lb))
	}
	must(b, p.NB.Apply(nb.LoadBalancerGroupTable, nil, group))
	for i := range datapaths {
		must(b, p.NB.Apply(nb.LogicalSwitchTable, nil, &nb.LogicalSwitch{
			UUID: fmt.Sprintf("ls-%d", i), Name: fmt.Sprintf("node%d", i), LoadBalancerGroup: []string{group.UUID}}))
		must(b, p.NB.Apply(nb.LogicalRouterTable, nil, &nb.LogicalRouter{
			UUID: fmt.Sprintf("lr-%d", i), Name: fmt.Sprintf("gw%d", i), LoadBalancerGroup: []string{group.UUID},
			Options: map[string]string{"chassis": fmt.Sprintf("node%d", i)}}))
	}
	p.Step()
	return p, first
}

// BenchmarkLBBackendChange measures one NB change of a load balancer in a
// group that every switch and router lists: a backend is added to its VIP,
// a step computes the new flows, and a second step removes it again. ns/op covers both steps; flows/step counts the flows
// inserted and deleted per step. The VIP's balancing flow changes on every
// datapath of the group, so the work follows the number of datapaths, and
// not the number of other load balancers.
func BenchmarkLBBackendChange(b *testing.B) {
	for _, size := range []struct{ datapaths, lbs int }{{10, 100}, {100, 100}, {100, 1000}} {
		b.Run(fmt.Sprintf("datapaths=%d+%d/lbs=%d", size.datapaths, size.datapaths, size.lbs), func(b *testing.B) {
			p, lb := clusterLBs(b, size.datapaths, size.lbs)
			changed := *lb
			changed.Vips = map[string]string{}
			for k, v := range lb.Vips {
				changed.Vips[k] = v + ",10.246.0.1:8080"
			}
			steps := 0
			flows := 0
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cputime.Process()
			for b.Loop() {
				must(b, p.NB.Apply(nb.LoadBalancerTable, lb, &changed))
				p.Step()
				flows += len(p.Flows.Delta())
				must(b, p.NB.Apply(nb.LoadBalancerTable, &changed, lb))
				p.Step()
				flows += len(p.Flows.Delta())
				steps += 2
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(steps), "cpu-ns/step")
			b.ReportMetric(float64(flows)/float64(steps), "flows/step")
		})
	}
}
