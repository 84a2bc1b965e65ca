package rules

import (
	"fmt"
	"slices"
	"testing"

	"github.com/northlog/northlog/relations/nb"
)

func benchNAT(i int) *nb.NAT {
	return &nb.NAT{
		UUID:       fmt.Sprintf("nat-%06d", i),
		Type:       nb.NATTypeDNATAndSNAT,
		ExternalIP: fmt.Sprintf("172.%d.%d.%d", 16+i>>16&0xf, i>>8&0xff, i&0xff),
		LogicalIP:  fmt.Sprintf("10.%d.%d.%d", 1+i>>16&0xf, i>>8&0xff, i&0xff),
	}
}

// routerAddNAT is a Kube-OVN-like cluster router with a distributed
// gateway port and nNATs dnat_and_snat rules (EIPs); the change adds a rule
// as ovn-nbctl lr-nat-add does: a new NAT row and the router's nat column
// rewritten. ovn-northd writes 13 flows for it (ARP responders on the
// router and the gateway port, unSNAT, DNAT, unDNAT, SNAT, local DNAT
// check, egress loop, ARP resolution).
func routerAddNAT(nNATs int) (s shape) {
	gc := &nb.GatewayChassis{UUID: "gc-uuid", Name: "lr-ext-gw1", ChassisName: "gw1", Priority: 1}
	ext := &nb.LogicalRouterPort{UUID: "lrp-ext", Name: "lr-ext", MAC: "0a:00:00:00:00:01", Networks: []string{"172.16.0.1/12"},
		GatewayChassis: []string{gc.UUID}}
	in := &nb.LogicalRouterPort{UUID: "lrp-in", Name: "lr-in", MAC: "0a:00:00:00:00:02", Networks: []string{"10.0.0.1/8"}}
	lr := &nb.LogicalRouter{UUID: "lr-uuid", Name: "lr", Ports: []string{ext.UUID, in.UUID}}
	s.base = []row{{nb.GatewayChassisTable, nil, gc}, {nb.LogicalRouterPortTable, nil, ext}, {nb.LogicalRouterPortTable, nil, in}}
	for i := range nNATs {
		nat := benchNAT(i)
		lr.Nat = append(lr.Nat, nat.UUID)
		s.base = append(s.base, row{nb.NATTable, nil, nat})
	}
	s.base = append(s.base, row{nb.LogicalRouterTable, nil, lr})
	nat := benchNAT(nNATs)
	with := *lr
	with.Nat = append(slices.Clone(lr.Nat), nat.UUID)
	s.change = []row{{nb.NATTable, nil, nat}, {nb.LogicalRouterTable, lr, &with}}
	return s
}

// BenchmarkRouterAddNAT: issue 5, adding a NAT rule to a router with a
// distributed gateway port and 1k or 10k rules.
func BenchmarkRouterAddNAT(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint("nats=", n), func(b *testing.B) { benchChange(b, routerAddNAT(n)) })
	}
}
