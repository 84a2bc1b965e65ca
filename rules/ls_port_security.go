package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// SwitchPortSecurityFlows: ls_in_check_port_sec, ls_in_apply_port_sec,
// ls_out_check_port_sec and ls_out_apply_port_sec, the flows every switch has
// (northd.c build_lswitch_lflows_admission_control and
// build_lswitch_output_port_sec_od). Port security itself is checked by
// ovn-controller's check_in/out_port_sec() actions; the flows only store and
// apply the verdict in reg0[15].
func SwitchPortSecurityFlows(nb *relations.NB) engine.Rel[Flow] {
	pmtu := tunnelPMTUAdmission(nb)
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		flows := []Flow{
			// Broadcast/multicast source MACs are never valid.
			dp.flow(LSInCheckPortSec, 100, "eth.src[40]", drop).because("Incoming Broadcast/multicast sourceaddress is invalid"),
			dp.flow(LSInCheckPortSec, 50, "1", "reg0[15] = check_in_port_sec(); next;"),
			dp.flow(LSInApplyPortSec, 50, "reg0[15] == 1", drop).because("Broadcast/multicast port security invalid"),
			dp.flow(LSInApplyPortSec, 0, "1", "next;"),

			dp.flow(LSOutCheckPortSec, 100, "eth.mcast", "reg0[15] = 0; next;"),
			dp.flow(LSOutCheckPortSec, 0, "1", "reg0[15] = check_out_port_sec(); next;"),
			dp.flow(LSOutApplyPortSec, 50, "reg0[15] == 1", drop).because("Packet does not follow port security rules"),
			dp.flow(LSOutApplyPortSec, 0, "1", "output;"),
		}
		if !sw.VLANPassthru {
			// Logical VLANs are not supported unless the switch passes them through.
			flows = append(flows, dp.flow(LSInCheckPortSec, 100, "vlan.present", drop).because("VLANs blocked due to vlan-passthru option"))
		}
		if pmtu {
			// The "packet too big" errors of SwitchPMTUAdmissionFlows'
			// ports; others are dropped, and skip the LB stages.
			flows = append(flows,
				dp.flow(LSInCheckPortSec, 105, packetTooBig+" && flags.tunnel_rx == 1", drop).because("ICMP: packet too big"),
				dp.flow(LSInPreLB, 110, "((ip4 && icmp4.type == 3 && icmp4.code == 4) ||(ip6 && icmp6.type == 2 && icmp6.code == 0)) && flags.tunnel_rx == 1", "next;"))
		}
		return flows
	})
}

// packetTooBig matches ICMP "fragmentation needed" and ICMPv6 "packet too
// big" errors.
const packetTooBig = "((ip4 && icmp4.type == 3 && icmp4.code == 4) || (ip6 && icmp6.type == 2 && icmp6.code == 0))"

// tunnelPMTUAdmission: in 26.03 a "packet too big" error that ovn-controller
// generated for a packet tunnelled to another chassis (flags.tunnel_rx)
// comes back in through the switch and goes back to the port that sent the
// packet, or to the router whose MAC the packet went to (northd.c
// build_lswitch_icmp_packet_toobig_admin_flows).
func tunnelPMTUAdmission(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// fromRouterPortFlag: 26.03 flags what comes in from a router port
// (reg0[18]), which ARP proxy replies do not answer.
func fromRouterPortFlag(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// SwitchPMTUAdmissionFlows: ls_in_check_port_sec, priorities 110 and 120,
// with tunnelPMTUAdmission: for a port's MACs, on the chassis where the
// port is not, the error goes back out of the port; for a router port of a
// gateway router, from its MAC, it goes back to the router; for another
// router's port, to its MAC, it goes to L2 lookup.
func SwitchPMTUAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	on26 := tunnelPMTUAdmission(nb)
	const back = "outport <-> inport; next;"
	ports := engine.FlatMap(nb.LSPs, func(p relations.LSP) []Flow {
		if !on26 || p.Port.Type == relations.LSPTypeRouter {
			return nil
		}
		dp, key := on(p.Switch), jsonKey(p.Name())
		var flows []Flow
		for _, a := range p.Addrs.Static {
			flows = append(flows, dp.flow(LSInCheckPortSec, 110, packetTooBig+" && eth.src == "+a.MAC.String()+
				" && outport == "+key+" && !is_chassis_resident("+key+") && flags.tunnel_rx == 1", back))
		}
		return flows
	})
	l2 := fmt.Sprintf("outport <-> inport; next(pipeline=ingress,table=%d);", tableIn(nb, LSInL2Lkup))
	routers := engine.FlatMap(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) []Flow {
		if !on26 {
			return nil
		}
		dp := on(p.Switch)
		if p.LRP.OnGateway {
			return []Flow{dp.flow(LSInCheckPortSec, 120, packetTooBig+" && eth.src == "+p.LRP.Port.MAC+
				" && outport == "+jsonKey(p.LSP.Name)+" && flags.tunnel_rx == 1", back)}
		}
		return []Flow{dp.flow(LSInCheckPortSec, 120, packetTooBig+" && eth.dst == "+p.LRP.Port.MAC+" && flags.tunnel_rx == 1", l2)}
	})
	dynamic := engine.FlatMap(nb.LSPDynamicAddrs, func(d relations.LSPDynamic) []Flow {
		if !on26 || d.LSP.Port.Type == relations.LSPTypeRouter {
			return nil
		}
		key := jsonKey(d.LSP.Name())
		return []Flow{on(d.LSP.Switch).flow(LSInCheckPortSec, 110, packetTooBig+" && eth.src == "+d.Addrs.MAC.String()+
			" && outport == "+key+" && !is_chassis_resident("+key+") && flags.tunnel_rx == 1", back)}
	})
	return engine.Union(ports, routers, dynamic)
}

// SwitchPortSecurityPortFlows: the per-port flows of ls_in_check_port_sec
// and the ls_in_l2_unknown drop of traffic to a disabled port (northd.c
// build_lswitch_port_sec_op). Packets from a disabled port are marked for
// the port-security drop; packets from a vtep port skip the ingress pipeline
// up to the hairpin stage, as the VTEP gateway already did L2 lookup.
// External ports are handled by their own rules. A port whose binding has
// a qdisc_queue_id (relations.NB.QueueIDs) sets that queue on the way in
// and, for a localnet port, on the way out. The chassisredirect port of a
// switch port (relations.NB.PeerRedirects) gets its port's flows under its
// own name, without a queue.
func SwitchPortSecurityPortFlows(nb *relations.NB) engine.Rel[Flow] {
	fromRouterFlag := fromRouterPortFlag(nb)
	ports := nb.LSPsByName()
	queues := nb.QueueIDsByPort()
	return engine.Union(
		engine.LeftJoinFlatMap(ports, queues,
			func(_ string, p relations.LSP, q relations.QueueID) []Flow {
				return portSecurityPortFlows(nb, p, p.Name(), q.ID, fromRouterFlag)
			},
			func(p relations.LSP) []Flow { return portSecurityPortFlows(nb, p, p.Name(), "", fromRouterFlag) }),
		engine.FlatMap(nb.PeerRedirects, func(r relations.LRPSwitchPeer) []Flow {
			p := relations.LSP{Switch: r.Switch, Port: r.LSP}
			return portSecurityPortFlows(nb, p, chassisRedirectName(p.Name()), "", fromRouterFlag)
		}))
}

// portSecurityPortFlows are SwitchPortSecurityPortFlows' flows of port p
// under the name name, with the queue id q (or none).
func portSecurityPortFlows(nb *relations.NB, p relations.LSP, name, q string, fromRouterFlag bool) []Flow {
	dp, key := onPort{p.Switch, name}.from(p.Port.UUID), jsonKey(name)
	switch {
	case p.Port.Type == relations.LSPTypeExternal:
		return nil
	case !p.Enabled():
		return []Flow{
			dp.flow(LSInCheckPortSec, 100, "inport == "+key, "reg0[15] = 1; next;"),
			dp.flow(LSInL2Unknown, 50, "outport == "+key, drop),
		}
	}
	queue := ""
	if q != "" {
		queue = "set_queue(" + q + "); "
	}
	switch {
	case p.Port.Type == relations.LSPTypeVTEP:
		return []Flow{dp.flow(LSInCheckPortSec, 70, "inport == "+key,
			fmt.Sprintf("%sreg0[14] = 1; next(pipeline=ingress, table=%d);", queue, tableIn(nb, LSInHairpin)))}
	case queue == "" && p.Port.Type == relations.LSPTypeRouter && fromRouterFlag:
		return []Flow{dp.flow(LSInCheckPortSec, 70, "inport == "+key, "reg0[18] = 1; next;")}
	case queue == "":
		return nil
	}
	flows := []Flow{dp.flow(LSInCheckPortSec, 70, "inport == "+key, queue+"reg0[15] = check_in_port_sec(); next;")}
	if p.Port.Type == relations.LSPTypeLocalnet {
		flows = append(flows, dp.flow(LSOutApplyPortSec, 100, "outport == "+key, queue+"output;"))
	}
	return flows
}

// SwitchPortQueueToLocalnetFlows: ls_out_apply_port_sec, priority 110, in
// 26.03 (northd.c build_lswitch_port_sec_op): traffic from an enabled port
// with a qdisc_queue_id out to its switch's first localnet port is sent
// with the port's queue. A localnet port sets its own queue on the way
// out (portSecurityPortFlows), a vtep port none.
func SwitchPortQueueToLocalnetFlows(nb *relations.NB) engine.Rel[Flow] {
	eligible := engine.Filter(nb.LSPs, func(p relations.LSP) bool {
		switch p.Port.Type {
		case relations.LSPTypeExternal, relations.LSPTypeVTEP, relations.LSPTypeLocalnet:
			return false
		}
		return queuesToLocalnet(nb.Release) && p.Enabled()
	})
	type queuedPort struct {
		LSP   relations.LSP
		Queue string
	}
	queued := engine.Join(
		engine.IndexBy(eligible, relations.LSP.Name),
		nb.QueueIDsByPort(),
		func(_ string, p relations.LSP, q relations.QueueID) queuedPort { return queuedPort{p, q.ID} })
	return engine.Join(
		engine.IndexBy(queued, func(q queuedPort) string { return q.LSP.Switch }),
		engine.IndexBy(firstLocalnetPorts(nb), func(kv engine.KV[string, relations.LSP]) string { return kv.Key }),
		func(_ string, q queuedPort, ln engine.KV[string, relations.LSP]) Flow {
			return onPort{q.LSP.Switch, ln.Value.Name()}.from(ln.Value.Port.UUID).flow(LSOutApplyPortSec, 110,
				fmt.Sprintf("outport == %s && inport == %s", jsonKey(ln.Value.Name()), jsonKey(q.LSP.Name())),
				"set_queue("+q.Queue+"); output;")
		})
}

// queuesToLocalnet: 26.03 keeps a port's queue on its way out through the
// switch's localnet port.
func queuesToLocalnet(rel schema.Release) bool { return rel >= schema.OVN2603 }

// switchPortRules are the switch flow families that follow a port: port
// security, FDB, ARP/ND responder, L2 lookup.
var switchPortRules = []Rule{
	SwitchPortSecurityFlows,
	SwitchPortSecurityPortFlows,
	SwitchPortQueueToLocalnetFlows,
	SwitchPMTUAdmissionFlows,
	SwitchMirrorDefaultFlows,
	SwitchLportMirrorFlows, // ls_mirror.go
	SwitchMirrorRuleFlows,
	SwitchFDBDefaultFlows,
	SwitchFDBPortFlows,
	SwitchARPResponderDefaultFlows,
	SwitchARPSkipLocalnetFlows,
	SwitchARPResponderFlows,
	SwitchPortHealthCheckFlows,
	SwitchVirtualPortBindFlows,
	SwitchRouterPortARPResponderFlows,
	SwitchForwardingGroupFlows,
	SwitchL2LookupDefaultFlows,
	SwitchL2LookupMcastFlows,
	SwitchIGMPGroupFlows,
	SwitchL2UnknownFlows,
	SwitchL2UnicastFlows,
	SwitchRouterPortL2Flows,
	SwitchRoutingProtocolRedirectFlows, // ls_routing_protocol_redirect.go
}
