package ruletest

import (
	"fmt"
	"slices"

	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

var (
	// genRouterNet draws a router port network, a few of them overlapping
	// or malformed.
	genRouterNet = rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(0, 3).Draw(t, "net")
		switch rapid.IntRange(0, 5).Draw(t, "shape") {
		case 0:
			return fmt.Sprintf("fd00:%d::1/64", n)
		case 1:
			return fmt.Sprintf("10.%d.0.1/16", n)
		case 2:
			return "10.0.0.300/24"
		default:
			return fmt.Sprintf("10.%d.0.1/24", n)
		}
	})
	// genNexthop draws a next hop: in a port network, outside every one,
	// IPv6, malformed or discard.
	genNexthop = rapid.Custom(func(t *rapid.T) string {
		switch rapid.IntRange(0, 5).Draw(t, "shape") {
		case 0:
			return "discard"
		case 1:
			return fmt.Sprintf("fd00:%d::fe", rapid.IntRange(0, 3).Draw(t, "n"))
		case 2:
			return "192.0.2.1"
		case 3:
			return "10.0.0.1/24"
		default:
			return fmt.Sprintf("10.%d.0.%d", rapid.IntRange(0, 3).Draw(t, "n"), rapid.IntRange(2, 4).Draw(t, "h"))
		}
	})
	genPrefix = rapid.SampledFrom([]string{"0.0.0.0/0", "192.168.0.0/16", "192.168.1.0/24", "192.168.1.1", "::/0", "fd99::/64", "bad"})
)

// updateRouterPort replaces router port id's row by what change makes of a
// copy.
func updateRouterPort(t *rapid.T, s *State, id string, change func(*nb.LogicalRouterPort)) {
	lrp := *s.rows[nb.LogicalRouterPortTable][id].(*nb.LogicalRouterPort)
	lrp.Options = ownOptions(lrp.Options)
	change(&lrp)
	s.Set(t, nb.LogicalRouterPortTable, id, &lrp)
}

// setRouterPortOption is the change that sets option key of a random
// router port to one of values, or takes it away.
func setRouterPortOption(key string, values ...string) Change {
	return func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterPortTable, "lrp")
		if id == "" {
			return
		}
		updateRouterPort(t, s, id, func(lrp *nb.LogicalRouterPort) {
			delete(lrp.Options, key)
			if rapid.Bool().Draw(t, "set "+key) {
				lrp.Options[key] = rapid.SampledFrom(values).Draw(t, key)
			}
		})
	}
}

// routerChanges change routers and their ports (options, networks,
// peers, gateway chassis), static routes and policies.
var routerChanges = map[string]Change{
	// setDHCPRelay gives a router port a new DHCP relay, whose servers may
	// be missing, carry a port or be unreadable, or takes its relay away.
	"setDHCPRelay": func(t *rapid.T, s *State) {
		lrpID := s.Pick(t, nb.LogicalRouterPortTable, "LogicalRouterPortTable")
		if lrpID == "" {
			return
		}
		var relay *string
		if rapid.IntRange(0, 3).Draw(t, "relay") != 0 {
			id := s.UUID()
			r := &nb.DHCPRelay{UUID: id, Name: "relay" + id[len(id)-3:]}
			if servers := rapid.SampledFrom([]string{"", "172.16.0.10", "172.16.0.20:67", "bad"}).Draw(t, "servers"); servers != "" {
				r.Servers = &servers
			}
			s.Set(t, nb.DHCPRelayTable, id, r)
			relay = &id
		}
		updateRouterPort(t, s, lrpID, func(lrp *nb.LogicalRouterPort) { lrp.DhcpRelay = relay })
	},
	// setSwitchRelayPort names a switch's DHCP relay port (a port of any
	// switch, or none that exists) or clears it.
	"setSwitchRelayPort": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalSwitchTable, "LogicalSwitchTable")
		if id == "" {
			return
		}
		port := "nope"
		if lspID := s.Pick(t, nb.LogicalSwitchPortTable, "LogicalSwitchPortTable"); lspID != "" {
			port = s.rows[nb.LogicalSwitchPortTable][lspID].(*nb.LogicalSwitchPort).Name
		}
		clear := rapid.IntRange(0, 3).Draw(t, "clear") == 0
		Edit(t, s, nb.LogicalSwitchTable, id, func(ls *nb.LogicalSwitch) {
			ls.OtherConfig = ownOptions(ls.OtherConfig)
			delete(ls.OtherConfig, "dhcp_relay_port")
			if !clear {
				ls.OtherConfig["dhcp_relay_port"] = port
			}
		})
	},
	"setRouterOptions": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterTable, "LogicalRouterTable")
		if id == "" {
			return
		}
		Edit(t, s, nb.LogicalRouterTable, id, func(lr *nb.LogicalRouter) {
			lr.Options = map[string]string{}
			for _, k := range []string{"always_learn_from_arp_request", "dynamic_neigh_routers", "mcast_relay"} {
				if rapid.Bool().Draw(t, k) {
					lr.Options[k] = fmt.Sprint(k == "always_learn_from_arp_request" != rapid.Bool().Draw(t, "v"))
				}
			}
			if rapid.IntRange(0, 4).Draw(t, "chassis") == 0 {
				lr.Options["chassis"] = "hv1"
			}
			if rapid.IntRange(0, 4).Draw(t, "nat") == 0 {
				lr.Options["lb_force_snat_ip"] = "router_ip"
			}
			if rapid.IntRange(0, 5).Draw(t, "disabled") == 0 {
				off := false
				lr.Enabled = &off
			} else {
				lr.Enabled = nil
			}
		})
	},
	"setPortNetworks": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterPortTable, "LogicalRouterPortTable")
		if id == "" {
			return
		}
		updateRouterPort(t, s, id, func(lrp *nb.LogicalRouterPort) {
			lrp.Networks = rapid.SliceOfNDistinct(genRouterNet, 0, 3, func(s string) string { return s }).Draw(t, "nets")
			if rapid.IntRange(0, 6).Draw(t, "badmac") == 0 {
				lrp.MAC = "zz"
			}
		})
	},
	"setPortOptions": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterPortTable, "LogicalRouterPortTable")
		if id == "" {
			return
		}
		updateRouterPort(t, s, id, func(lrp *nb.LogicalRouterPort) {
			lrp.Options = map[string]string{}
			if rapid.Bool().Draw(t, "rtb") {
				lrp.Options["route_table"] = rapid.SampledFrom([]string{"t1", "t2"}).Draw(t, "table")
			}
			if rapid.Bool().Draw(t, "mtu") {
				lrp.Options["gateway_mtu"] = rapid.SampledFrom([]string{"1400", "0", "x"}).Draw(t, "gateway_mtu")
			}
			if rapid.IntRange(0, 3).Draw(t, "flood") == 0 {
				lrp.Options["mcast_flood"] = "true"
			}
			lrp.Ipv6RaConfigs = nil
			if rapid.Bool().Draw(t, "ra") {
				lrp.Ipv6RaConfigs = map[string]string{"address_mode": rapid.SampledFrom([]string{"slaac", "bogus"}).Draw(t, "mode")}
			}
			lrp.GatewayChassis = nil
			if rapid.IntRange(0, 4).Draw(t, "dgp") == 0 {
				lrp.GatewayChassis = []string{"gc"}
			}
			if rapid.IntRange(0, 4).Draw(t, "off") == 0 {
				off := false
				lrp.Enabled = &off
			} else {
				lrp.Enabled = nil
			}
		})
	},
	"delRouterPort": DeleteListed(nb.LogicalRouterPortTable, nb.LogicalRouterTable, func(x *nb.LogicalRouter) *[]string { return &x.Ports }),

	"peerRouterPorts": func(t *rapid.T, s *State) {
		a, b := s.Pick(t, nb.LogicalRouterPortTable, "LogicalRouterPortTable"), s.Pick(t, nb.LogicalRouterPortTable, "LogicalRouterPortTable")
		if a == "" {
			return
		}
		peer := s.rows[nb.LogicalRouterPortTable][b].(*nb.LogicalRouterPort).Name
		updateRouterPort(t, s, a, func(lrp *nb.LogicalRouterPort) { lrp.Peer = &peer })
	},
	"connectSwitch": func(t *rapid.T, s *State) {
		lsID, lrpID := s.Pick(t, nb.LogicalSwitchTable, "LogicalSwitchTable"), s.Pick(t, nb.LogicalRouterPortTable, "LogicalRouterPortTable")
		if lsID == "" || lrpID == "" {
			return
		}
		id := s.UUID()
		lsp := &nb.LogicalSwitchPort{UUID: id, Name: "rsp" + id[len(id)-3:], Type: "router", Addresses: []string{"router"},
			Options: map[string]string{"router-port": s.rows[nb.LogicalRouterPortTable][lrpID].(*nb.LogicalRouterPort).Name}}
		if rapid.Bool().Draw(t, "routerPortACL") {
			lsp.Options["enable_router_port_acl"] = "true"
		}
		s.Set(t, nb.LogicalSwitchPortTable, id, lsp)
		ls := *s.rows[nb.LogicalSwitchTable][lsID].(*nb.LogicalSwitch)
		ls.Ports = append(slices.Clone(ls.Ports), id)
		s.Set(t, nb.LogicalSwitchTable, lsID, &ls)
	},
	"addRoute": func(t *rapid.T, s *State) {
		lrID := s.Pick(t, nb.LogicalRouterTable, "LogicalRouterTable")
		if lrID == "" {
			return
		}
		id := s.UUID()
		r := &nb.LogicalRouterStaticRoute{UUID: id, IPPrefix: genPrefix.Draw(t, "prefix"), Nexthop: genNexthop.Draw(t, "nexthop")}
		if rapid.IntRange(0, 3).Draw(t, "src") == 0 {
			src := nb.LogicalRouterStaticRoutePolicySrcIP
			r.Policy = &src
		}
		if rapid.IntRange(0, 3).Draw(t, "rtb") == 0 {
			r.RouteTable = rapid.SampledFrom([]string{"t1", "t2", "t3"}).Draw(t, "table")
		}
		if rapid.IntRange(0, 3).Draw(t, "symmetric") == 0 {
			r.Options = map[string]string{"ecmp_symmetric_reply": "true"}
		}
		if rapid.IntRange(0, 2).Draw(t, "selection") == 0 {
			r.SelectionFields = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"ip_src", "ip_dst", "tp_src", "tp_dst", "eth_src"}),
				1, 3, func(f string) string { return f }).Draw(t, "fields")
		}
		if lrpID := s.Pick(t, nb.LogicalRouterPortTable, "LogicalRouterPortTable"); lrpID != "" && rapid.IntRange(0, 3).Draw(t, "out") == 0 {
			out := s.rows[nb.LogicalRouterPortTable][lrpID].(*nb.LogicalRouterPort).Name
			r.OutputPort = &out
		}
		s.Set(t, nb.LogicalRouterStaticRouteTable, id, r)
		Edit(t, s, nb.LogicalRouterTable, lrID, func(lr *nb.LogicalRouter) { lr.StaticRoutes = append(slices.Clone(lr.StaticRoutes), id) })
	},
	// monitorECMPNexthops turns NB_Global options:ecmp_nexthop_monitor_enable
	// on or off.
	"monitorECMPNexthops": func(t *rapid.T, s *State) {
		on := rapid.SampledFrom([]string{"true", "false", ""}).Draw(t, "monitor")
		editGlobalOptions(t, s, func(options map[string]string) {
			delete(options, "ecmp_nexthop_monitor_enable")
			if on != "" {
				options["ecmp_nexthop_monitor_enable"] = on
			}
		})
	},
	"delRoute": DeleteListed(nb.LogicalRouterStaticRouteTable, nb.LogicalRouterTable, func(x *nb.LogicalRouter) *[]string { return &x.StaticRoutes }),

	"addPolicy": func(t *rapid.T, s *State) {
		lrID := s.Pick(t, nb.LogicalRouterTable, "LogicalRouterTable")
		if lrID == "" {
			return
		}
		id := s.UUID()
		pol := &nb.LogicalRouterPolicy{UUID: id, Priority: rapid.IntRange(1, 3).Draw(t, "prio"), Match: "ip4",
			Action: rapid.SampledFrom([]string{"allow", "drop", "reroute"}).Draw(t, "action")}
		if pol.Action == "reroute" {
			pol.Nexthops = rapid.SliceOfNDistinct(genNexthop, 1, 3, func(s string) string { return s }).Draw(t, "nexthops")
		}
		if rapid.Bool().Draw(t, "mark") {
			pol.Options = map[string]string{"pkt_mark": "7"}
		}
		s.Set(t, nb.LogicalRouterPolicyTable, id, pol)
		Edit(t, s, nb.LogicalRouterTable, lrID, func(lr *nb.LogicalRouter) { lr.Policies = append(slices.Clone(lr.Policies), id) })
	},
	"setPolicyPriority": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterPolicyTable, "LogicalRouterPolicyTable")
		if id == "" {
			return
		}
		pol := *s.rows[nb.LogicalRouterPolicyTable][id].(*nb.LogicalRouterPolicy)
		pol.Priority = rapid.IntRange(1, 3).Draw(t, "prio")
		s.Set(t, nb.LogicalRouterPolicyTable, id, &pol)
	},
}
