package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// SwitchPortSecurityFlows: ls_in_check_port_sec, ls_in_apply_port_sec,
// ls_out_check_port_sec and ls_out_apply_port_sec, the flows every switch has
// (northd.c build_lswitch_lflows_admission_control and
// build_lswitch_output_port_sec_od). Port security itself is checked by
// ovn-controller's check_in/out_port_sec() actions; the flows only store and
// apply the verdict in reg0[15].
func SwitchPortSecurityFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		flows := []Flow{
			// Broadcast/multicast source MACs are never valid.
			dp.flow(LSInCheckPortSec, 100, "eth.src[40]", drop),
			dp.flow(LSInCheckPortSec, 50, "1", "reg0[15] = check_in_port_sec(); next;"),
			dp.flow(LSInApplyPortSec, 50, "reg0[15] == 1", drop),
			dp.flow(LSInApplyPortSec, 0, "1", "next;"),

			dp.flow(LSOutCheckPortSec, 100, "eth.mcast", "reg0[15] = 0; next;"),
			dp.flow(LSOutCheckPortSec, 0, "1", "reg0[15] = check_out_port_sec(); next;"),
			dp.flow(LSOutApplyPortSec, 50, "reg0[15] == 1", drop),
			dp.flow(LSOutApplyPortSec, 0, "1", "output;"),
		}
		if !sw.VLANPassthru {
			// Logical VLANs are not supported unless the switch passes them through.
			flows = append(flows, dp.flow(LSInCheckPortSec, 100, "vlan.present", drop))
		}
		return flows
	})
}

// SwitchPortSecurityPortFlows: the per-port flows of ls_in_check_port_sec
// and the ls_in_l2_unknown drop of traffic to a disabled port (northd.c
// build_lswitch_port_sec_op). Packets from a disabled port are marked for
// the port-security drop; packets from a vtep port skip the ingress pipeline
// up to the hairpin stage, as the VTEP gateway already did L2 lookup.
// External ports are handled by their own rules. A port with a
// qdisc_queue_id (relations.LSP.QdiscQueueID: set in the NB options, or a
// localnet port's with QoS options) sets that queue on the way in and, for a
// localnet port, on the way out.
func SwitchPortSecurityPortFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.LSPs, func(p relations.LSP) []Flow {
		dp, key := onPort{p.Switch, p.Name()}, jsonKey(p.Name())
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
		if q := p.QdiscQueueID(); q != "" {
			queue = "set_queue(" + q + "); "
		}
		switch {
		case p.Port.Type == relations.LSPTypeVTEP:
			return []Flow{dp.flow(LSInCheckPortSec, 70, "inport == "+key,
				fmt.Sprintf("%sreg0[14] = 1; next(pipeline=ingress, table=%d);", queue, tableIn(nb, LSInHairpin)))}
		case queue == "":
			return nil
		}
		flows := []Flow{dp.flow(LSInCheckPortSec, 70, "inport == "+key, queue+"reg0[15] = check_in_port_sec(); next;")}
		if p.Port.Type == relations.LSPTypeLocalnet {
			flows = append(flows, dp.flow(LSOutApplyPortSec, 100, "outport == "+key, queue+"output;"))
		}
		return flows
	})
}

// switchPortRules are the switch flow families that follow a port: port
// security, FDB, ARP/ND responder, L2 lookup.
var switchPortRules = []Rule{
	SwitchPortSecurityFlows,
	SwitchPortSecurityPortFlows,
	SwitchFDBDefaultFlows,
	SwitchFDBPortFlows,
	SwitchARPResponderDefaultFlows,
	SwitchARPSkipLocalnetFlows,
	SwitchARPResponderFlows,
	SwitchVirtualPortBindFlows,
	SwitchRouterPortARPResponderFlows,
	SwitchForwardingGroupFlows,
	SwitchL2LookupDefaultFlows,
	SwitchL2LookupMcastFlows,
	SwitchIGMPGroupFlows,
	SwitchL2UnknownFlows,
	SwitchL2UnicastFlows,
	SwitchRouterPortL2Flows,
}
