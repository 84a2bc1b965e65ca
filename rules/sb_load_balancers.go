package rules

import (
	"cmp"
	"maps"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// SBLoadBalancer is one SB Load_Balancer row as ovn-northd 23.03 writes it
// (northd.c sync_lbs): one per NB load balancer that applies to at least one
// switch, for ovn-controller's hairpin and conntrack flush flows.
type SBLoadBalancer struct {
	// LB is the NB _uuid, external_ids:lb_id.
	LB   string
	Name string
	// VIPs is the NB vips column as written (relations.SBVIPs).
	VIPs Smap
	// Protocol is the NB protocol column, "" when unset.
	Protocol string
	// Options are the NB options with hairpin_orig_tuple=true: northd keeps
	// the original destination in registers for the hairpin stages.
	Options Smap
	// Switches are the NB _uuids of the switches the load balancer applies
	// to: the members of its datapath_group (the datapaths column stays
	// empty).
	Switches Strings
}

// CompareSBLoadBalancers orders load balancers by NB _uuid, then contents.
func CompareSBLoadBalancers(a, b SBLoadBalancer) int {
	return cmp.Or(cmp.Compare(a.LB, b.LB), cmp.Compare(a.Name, b.Name), cmp.Compare(a.VIPs, b.VIPs),
		cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.Options, b.Options), cmp.Compare(a.Switches, b.Switches))
}

// SBLoadBalancers computes the SB Load_Balancer rows.
func SBLoadBalancers(n *relations.NB) engine.Rel[SBLoadBalancer] {
	switches := engine.Collect(
		engine.IndexBy(n.SwitchLBs, func(a relations.LBDatapath) string { return a.LB }),
		func(a, b relations.LBDatapath) int { return cmp.Compare(a.Datapath, b.Datapath) })
	return engine.Join(
		engine.IndexBy(n.LoadBalancers.Rows, func(lb *nb.LoadBalancer) string { return lb.UUID }),
		engine.IndexBy(switches, func(kv engine.KV[string, engine.Sorted[relations.LBDatapath]]) string { return kv.Key }),
		func(_ string, lb *nb.LoadBalancer, sw engine.KV[string, engine.Sorted[relations.LBDatapath]]) SBLoadBalancer {
			options := maps.Clone(lb.Options)
			if options == nil {
				options = map[string]string{}
			}
			options["hairpin_orig_tuple"] = "true"
			proto := ""
			if lb.Protocol != nil {
				proto = string(*lb.Protocol)
			}
			var ids []string
			for a := range sw.Value.All() {
				ids = append(ids, a.Datapath)
			}
			return SBLoadBalancer{LB: lb.UUID, Name: lb.Name, VIPs: SmapOf(relations.SBVIPs(lb)), Protocol: proto,
				Options: SmapOf(options), Switches: StringsOf(ids...)}
		})
}

// SBAddressSet is one SB Address_Set row northd computes. Its name may hold
// a KeyRef, which the SB writer resolves as in flow text.
type SBAddressSet struct {
	Name      string
	Addresses Strings
}

// CompareSBAddressSets orders address sets by name, then contents.
func CompareSBAddressSets(a, b SBAddressSet) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Addresses, b.Addresses))
}

// SBRouterLBAddressSets computes the address sets of the VIPs each router
// answers ARP or ND for, _rtr_lb_KEY_ip4 and _rtr_lb_KEY_ip6 (northd
// en-sync-sb.c sync_addr_sets), which RouterLBVIPNeighborFlows refers to. A
// router without such VIPs of a family has no set of it.
func SBRouterLBAddressSets(n *relations.NB) engine.Rel[SBAddressSet] {
	type family struct {
		Router string
		IPv6   bool
	}
	reachable := engine.Filter(n.RouterLBIPs, func(ip relations.RouterLBIP) bool { return ip.Reachable })
	return engine.GroupBy(
		engine.IndexBy(reachable, func(ip relations.RouterLBIP) family { return family{ip.Router, ip.IPv6} }),
		func(f family, ips []relations.RouterLBIP) []SBAddressSet {
			addrs := make([]string, len(ips))
			for i, ip := range ips {
				addrs[i] = ip.IP
			}
			// The set's name is the flows' reference without the "$".
			return []SBAddressSet{{Name: routerLBAddressSet(f.Router, f.IPv6)[1:], Addresses: StringsOf(addrs...)}}
		})
}
