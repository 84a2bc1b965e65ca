package rules

import (
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// bfdPorts are the router ports that an NB BFD row names (northd.c
// build_bfd_table, op->has_bfd).
func bfdPorts(n *relations.NB) engine.Rel[relations.LRP] {
	names := engine.Distinct(engine.Map(n.BFD.Rows, func(b *nb.BFD) string { return b.LogicalPort }))
	return engine.SemiJoin(n.LRPsByName, engine.IndexBy(names, func(s string) string { return s }))
}

// portOnRouter is a router port: its router's NB _uuid and its name as a
// JSON string.
type portOnRouter struct{ Router, Key string }

// RouterBFDFlows: lr_in_ip_input, priority 110, on router ports with BFD
// sessions (northd.c build_lrouter_bfd_flows): BFD control packets (UDP
// port 3784) from the port's own addresses go on, those to them go to
// ovn-controller (handle_bfd_msg, metered by CoPP "bfd").
func RouterBFDFlows(n *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(bfdPorts(n), func(p relations.LRP) []Flow {
		dp := onLRP(p)
		var flows []Flow
		add := func(ip, networks string) {
			flows = append(flows,
				dp.flow(LRInIPInput, 110, ip+".src == "+networks+" && udp.dst == 3784", "next; "),
				dp.flow(LRInIPInput, 110, ip+".dst == "+networks+" && udp.dst == 3784", "handle_bfd_msg(); "))
		}
		if len(p.Net.IPv4) > 0 {
			add("ip4", v4Networks(p.Net, false))
		}
		if len(p.Net.IPv6) > 0 {
			add("ip6", v6Networks(p.Net))
		}
		return flows
	})
}

// routeActionsStart starts the actions of every lr_in_ip_routing flow of a
// single route (northd.c add_route; route.flow); the rest are its common
// actions.
const routeActionsStart = "ip.ttl--; reg8[0..15] = 0; "

// routeFlow reports whether f is the flow of a single route, which
// bfdRouteFlows reads.
func routeFlow(f Flow) bool {
	return f.Stage == LRInIPRouting && strings.HasPrefix(f.Actions, routeActionsStart)
}

// bfdRouteFlows: for each route flow that leaves through a port with BFD
// sessions, one a priority higher for the port's BFD packets (UDP port
// 3784) that does not decrement the TTL (northd.c add_route). Every family
// of route flows gets them, so they are read off the flows themselves:
// the flows of single routes start with routeActionsStart and name their
// port in outport.
func bfdRouteFlows(n *relations.NB, flows engine.Rel[Flow]) engine.Rel[Flow] {
	routes := engine.Filter(flows, routeFlow)
	byPort := engine.IndexBy(routes, func(f Flow) portOnRouter {
		_, rest, _ := strings.Cut(f.Actions, "outport = ")
		port, _, _ := strings.Cut(rest, ";")
		return portOnRouter{f.Datapath, port}
	})
	ports := engine.IndexBy(bfdPorts(n), func(p relations.LRP) portOnRouter { return portOnRouter{p.Router, jsonKey(p.Name())} })
	return engine.Map(engine.SemiJoin(byPort, ports), func(f Flow) Flow {
		f.Priority++
		f.Match += " && udp.dst == 3784"
		f.Actions = strings.TrimPrefix(f.Actions, "ip.ttl--; ")
		return f
	})
}
