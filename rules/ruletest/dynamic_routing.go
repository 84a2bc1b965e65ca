package ruletest

import (
	"slices"

	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// redistributeOptions are values of options:dynamic-routing-redistribute,
// an unknown word among them.
var redistributeOptions = []string{"connected", "connected-as-host", "static", "connected,static", "static,bogus", "",
	"nat", "lb", "nat,lb", "connected-as-host,nat,lb"}

// evpnVNIs are values of a switch's other_config:dynamic-routing-vni: one
// EVPN domain, the largest VNI, one too large and junk.
var evpnVNIs = []string{"100", "16777215", "16777216", "x"}

// dynamicRoutingChanges turn dynamic routing on and off on routers, change
// what routers and their ports redistribute, put switches in an EVPN
// domain or take them out, and learn or withdraw SB Learned_Route rows:
// on a router port (mostly) or a name no port has, with next hops on the
// ports' networks or not, with a mask, or unreadable.
var dynamicRoutingChanges = map[string]Change{
	"setSwitchEVPN": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalSwitchTable, "EVPN switch")
		if id == "" {
			return
		}
		Edit(t, s, nb.LogicalSwitchTable, id, func(ls *nb.LogicalSwitch) {
			ls.OtherConfig = ownOptions(ls.OtherConfig)
			for _, key := range []string{"dynamic-routing-vni", "dynamic-routing-redistribute", "dynamic-routing-fdb-prefer-local",
				"dynamic-routing-arp-prefer-local", "dynamic-routing-vxlan-ifname", "dynamic-routing-bridge-ifname", "dynamic-routing-advertise-ifname"} {
				delete(ls.OtherConfig, key)
			}
			if rapid.IntRange(0, 3).Draw(t, "in EVPN domain") == 0 {
				return
			}
			ls.OtherConfig["dynamic-routing-vni"] = rapid.SampledFrom(evpnVNIs).Draw(t, "vni")
			ls.OtherConfig["dynamic-routing-redistribute"] = rapid.SampledFrom([]string{"fdb", "ip", "fdb,ip", ""}).Draw(t, "EVPN redistribute")
			ls.OtherConfig["dynamic-routing-vxlan-ifname"] = rapid.SampledFrom([]string{"vxlan-100", "vxlan-100,vxlan-name-too-long"}).Draw(t, "vxlan devices")
			if rapid.Bool().Draw(t, "FDB prefer local") {
				ls.OtherConfig["dynamic-routing-fdb-prefer-local"] = "true"
			}
			if rapid.Bool().Draw(t, "ARP prefer local") {
				ls.OtherConfig["dynamic-routing-arp-prefer-local"] = "true"
			}
			for _, key := range []string{"dynamic-routing-bridge-ifname", "dynamic-routing-advertise-ifname"} {
				if name := rapid.SampledFrom([]string{"", "br-100", "a-name-too-long-for-linux"}).Draw(t, key); name != "" {
					ls.OtherConfig[key] = name
				}
			}
		})
	},
	"setDynamicRouting": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterTable, "dynamic router")
		if id == "" {
			return
		}
		Edit(t, s, nb.LogicalRouterTable, id, func(lr *nb.LogicalRouter) {
			lr.Options = ownOptions(lr.Options)
			delete(lr.Options, "dynamic-routing")
			delete(lr.Options, "dynamic-routing-redistribute")
			if rapid.IntRange(0, 3).Draw(t, "dynamic") > 0 {
				lr.Options["dynamic-routing"] = "true"
			}
			if rapid.Bool().Draw(t, "router redistribute") {
				lr.Options["dynamic-routing-redistribute"] = rapid.SampledFrom(redistributeOptions).Draw(t, "redistribute")
			}
		})
	},
	"setPortRedistribute": setRouterPortOption("dynamic-routing-redistribute", redistributeOptions...),
	"toggleLearnedRoute": func(t *rapid.T, s *State) {
		r := relations.LearnedRoute{
			Row:     rapid.SampledFrom([]string{"l1", "l2", "l3"}).Draw(t, "learned row"),
			Port:    "gone",
			Prefix:  rapid.SampledFrom([]string{"10.100.0.0/24", "10.100.0.7/24", "fd00:100::/48", "junk"}).Draw(t, "learned prefix"),
			Nexthop: rapid.SampledFrom([]string{"10.0.0.9", "10.1.0.9/32", "10.2.0.9/24", "fd00:1::9", "junk"}).Draw(t, "learned next hop"),
		}
		port := s.Pick(t, nb.LogicalRouterPortTable, "learning port")
		if port != "" && rapid.IntRange(0, 3).Draw(t, "learning port exists") > 0 {
			r.Port = s.rows[nb.LogicalRouterPortTable][port].(*nb.LogicalRouterPort).Name
		}
		// Mostly the router that lists the port, as ovn-controller writes.
		r.Datapath = s.Pick(t, nb.LogicalRouterTable, "learning router")
		for _, id := range s.IDs(nb.LogicalRouterTable) {
			if slices.Contains(s.rows[nb.LogicalRouterTable][id].(*nb.LogicalRouter).Ports, port) && rapid.IntRange(0, 3).Draw(t, "port's router") > 0 {
				r.Datapath = id
			}
		}
		s.SetLearnedRoute(r, !s.HasLearnedRoute(r))
	},
}
