package rules

import (
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// Control plane protection (CoPP): a switch or router whose copp column
// names a Copp row meters the packets each kind of controller action sends
// to ovn-controller with the meter Copp.meters names for that protocol,
// when an NB Meter of that name exists (lib/copp.c copp_meter_get). northd
// passes the meter at each call site that builds such a flow; here the
// protocol is read from the flow's actions, the one controller action each
// of those flows holds (controllerProtocol), and the meter joined on the
// flow's datapath.

// coppMeter is datapath Datapath's meter for the controller packets of
// protocol Proto (lib/copp.c copp_proto_names).
type coppMeter struct {
	Datapath, Proto, Meter string
}

// controllerActions are the controller actions that northd meters, the
// text that starts each and the CoPP protocol, in the order they are
// looked for: the first found in a flow's actions names its protocol.
var controllerActions = []struct{ action, proto string }{
	{"trigger_event(", "event-elb"},
	{"reject {", "reject"},
	{"put_dhcp_opts(", "dhcpv4-opts"},
	{"put_dhcpv6_opts(", "dhcpv6-opts"},
	{"dhcp_relay_req_chk(", "dhcpv4-relay"},
	{"dhcp_relay_resp_chk(", "dhcpv4-relay"},
	{"dns_lookup(", "dns"},
	{"handle_svc_check(", "svc-monitor"},
	{"handle_bfd_msg(", "bfd"},
	{"igmp;", "igmp"},
	{"put_arp(", "arp"},
	{"put_nd(inport, nd.target", "nd-na"},
	{"put_nd(inport, ip6.src", "nd-ns"},
	{"put_nd_ra_opts(", "nd-ra-opts"},
	// The neighbour advertisements a switch or router answers with; a
	// switch's answers for service monitors (which start with eth.dst)
	// are not metered.
	{"nd_na { eth.src", "nd-na"},
	{"nd_na_router { eth.src", "nd-na"},
	{"nd_ns {", "nd-ns-resolve"},
	{"arp {", "arp-resolve"},
	{"icmp4 {", "icmp4-error"},
	{"icmp4_error {", "icmp4-error"},
	{"icmp6 {", "icmp6-error"},
	{"icmp6_error {", "icmp6-error"},
	{"tcp_reset {", "tcp-reset"},
	{"sctp_abort {", "tcp-reset"},
}

// controllerProtocol is the CoPP protocol of a flow's actions, "" for
// actions that send nothing northd meters.
func controllerProtocol(actions string) string {
	for _, c := range controllerActions {
		if strings.Contains(actions, c.action) {
			return c.proto
		}
	}
	return ""
}

// coppMeters are the meters of each datapath's CoPP: one per protocol
// its Copp row lists whose meter is an NB Meter's name.
func coppMeters(n *relations.NB) engine.Rel[coppMeter] {
	type datapathCopp struct{ Datapath, Copp string }
	switches := engine.FlatMap(n.Switches.Rows, func(s *nb.LogicalSwitch) []datapathCopp {
		if s.Copp == nil {
			return nil
		}
		return []datapathCopp{{s.UUID, *s.Copp}}
	})
	routers := engine.FlatMap(n.Routers.Rows, func(r *nb.LogicalRouter) []datapathCopp {
		if r.Copp == nil {
			return nil
		}
		return []datapathCopp{{r.UUID, *r.Copp}}
	})
	byCopp := engine.IndexBy(engine.Union(switches, routers), func(d datapathCopp) string { return d.Copp })
	copps := n.Copp.ByUUID()
	listed := engine.JoinFlatMap(byCopp, copps, func(_ string, d datapathCopp, c *nb.Copp) []coppMeter {
		out := make([]coppMeter, 0, len(c.Meters))
		for proto, meter := range c.Meters {
			out = append(out, coppMeter{d.Datapath, proto, meter})
		}
		return out
	})
	meterNames := engine.Distinct(engine.Map(n.Meters.Rows, func(m *nb.Meter) string { return m.Name }))
	return engine.SemiJoin(
		engine.IndexBy(listed, func(m coppMeter) string { return m.Meter }),
		engine.IndexBy(meterNames, func(name string) string { return name }))
}

// meteredProtocol is the CoPP protocol of flow f: "reject" if it is
// MeteredAsReject, else its actions' (controllerProtocol).
func meteredProtocol(f Flow) string {
	if f.MeteredAsReject {
		return "reject"
	}
	return controllerProtocol(f.Actions)
}

// metered reports whether flow f sends packets of a CoPP protocol to
// ovn-controller: withControllerMeters may meter it.
func metered(f Flow) bool { return meteredProtocol(f) != "" }

// withControllerMeters sets the controller meter of every flow whose
// actions send packets of a CoPP protocol to ovn-controller (or that is
// MeteredAsReject) on a datapath whose CoPP meters that protocol. Such a
// flow on a datapath set is written on each member instead, as its meter
// depends on the member (northd adds these flows datapath by datapath);
// only these flows are held for the join, so a CoPP change costs the flows
// it meters.
func withControllerMeters(n *relations.NB, flows engine.Rel[Flow], sets engine.Rel[DatapathSetMember]) engine.Rel[Flow] {
	punting := engine.Filter(flows, metered)
	// Built last, it takes the flows' change (most flows are plain) rather
	// than copy it.
	plain := engine.Filter(flows, func(f Flow) bool { return !metered(f) })
	onSets := engine.IndexBy(engine.Filter(punting, func(f Flow) bool { return IsDatapathSet(f.Datapath) }),
		func(f Flow) string { return f.Datapath })
	members := engine.IndexBy(sets, func(m DatapathSetMember) string { return m.Set })
	// A datapath in two sets with the same flow gets it once.
	perDatapath := engine.Distinct(engine.Union(
		engine.Filter(punting, func(f Flow) bool { return !IsDatapathSet(f.Datapath) }),
		engine.Join(onSets, members, func(_ string, f Flow, m DatapathSetMember) Flow {
			f.Datapath = m.Datapath
			return f
		})))
	type key struct{ Datapath, Proto string }
	byProto := engine.IndexBy(perDatapath, func(f Flow) key { return key{f.Datapath, meteredProtocol(f)} })
	meters := engine.IndexBy(coppMeters(n), func(m coppMeter) key { return key{m.Datapath, m.Proto} })
	return engine.Union(
		plain,
		engine.Map(engine.AntiJoin(byProto, meters), func(f Flow) Flow {
			f.MeteredAsReject = false
			return f
		}),
		engine.Join(byProto, meters, func(_ key, f Flow, m coppMeter) Flow {
			f.ControllerMeter, f.MeteredAsReject = m.Meter, false
			return f
		}))
}
