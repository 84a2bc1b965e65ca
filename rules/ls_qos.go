package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// SwitchQoSFlows: ls_in_qos_mark, ls_in_qos_meter, ls_out_qos_mark and
// ls_out_qos_meter (26.03: ls_in_qos and ls_out_qos), priority 0 (northd.c
// build_qos): traffic no QoS rule matches goes on unmarked and unmetered.
func SwitchQoSFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		return []Flow{
			dp.flow(LSInQoSMark, 0, "1", "next;"),
			dp.flow(LSOutQoSMark, 0, "1", "next;"),
			dp.flow(LSInQoSMeter, 0, "1", "next;"),
			dp.flow(LSOutQoSMeter, 0, "1", "next;"),
			dp.flow(LSInQoS, 0, "1", "next;"),
			dp.flow(LSOutQoS, 0, "1", "next;"),
		}
	})
}

// qosOneStage: 26.03 meters and marks in one stage per direction, a flow
// per QoS rule that meters first.
func qosOneStage(nb *relations.NB) bool { return nb.Release >= schema.OVN2603 }

// SwitchQoSRuleFlows: the QoS mark and meter stages at each QoS rule's
// priority (northd.c build_qos): a rule of a switch's qos_rules sets the
// DSCP of matching IP traffic, or meters it to its bandwidth rate (and
// burst), in the ingress stages for from-lport rules, else egress.
func SwitchQoSRuleFlows(n *relations.NB) engine.Rel[Flow] {
	type qosRef struct{ Switch, QoS string }
	refs := engine.FlatMap(n.Switches.Rows, func(ls *nb.LogicalSwitch) []qosRef {
		out := make([]qosRef, len(ls.QOSRules))
		for i, q := range ls.QOSRules {
			out[i] = qosRef{ls.UUID, q}
		}
		return out
	})
	type switchQoS struct {
		Switch string
		QoS    *nb.QoS
	}
	rules := engine.Join(
		engine.IndexBy(refs, func(r qosRef) string { return r.QoS }),
		n.QoS.ByUUID(),
		func(_ string, r qosRef, q *nb.QoS) switchQoS { return switchQoS{r.Switch, q} })
	oneStage := qosOneStage(n)
	if oneStage {
		// 26.03's schema takes a DSCP above 63, which northd leaves out
		// with a warning.
		engine.Report(rules, "QoS", func(x switchQoS) error {
			if dscp, ok := x.QoS.Action[nb.QoSActionDSCP]; ok && dscp > maxDSCP {
				return fmt.Errorf("Bad 'dscp' value %d in qos %s", dscp, x.QoS.UUID)
			}
			return nil
		})
	}
	return engine.FlatMap(rules, func(x switchQoS) []Flow {
		q, dp := x.QoS, on(x.Switch).from(x.QoS.UUID)
		if oneStage {
			return []Flow{qosFlow(dp, q)}
		}
		mark, meter := LSOutQoSMark, LSOutQoSMeter
		if q.Direction == nb.QoSDirectionFromLport {
			mark, meter = LSInQoSMark, LSInQoSMeter
		}
		var flows []Flow
		if dscp, ok := q.Action[nb.QoSActionDSCP]; ok {
			flows = append(flows, dp.flow(mark, q.Priority, q.Match, fmt.Sprintf("ip.dscp = %d; next;", dscp)))
		}
		rate, burst := q.Bandwidth[nb.QoSBandwidthRate], q.Bandwidth[nb.QoSBandwidthBurst]
		switch {
		case rate != 0 && burst != 0:
			flows = append(flows, dp.flow(meter, q.Priority, q.Match, fmt.Sprintf("set_meter(%d, %d); next;", rate, burst)))
		case rate != 0:
			flows = append(flows, dp.flow(meter, q.Priority, q.Match, fmt.Sprintf("set_meter(%d); next;", rate)))
		}
		return flows
	})
}

// maxDSCP is the largest DSCP (QOS_MAX_DSCP).
const maxDSCP = 63

// qosActionMark is the QoS action that sets the packet mark (26.03).
const qosActionMark = "mark"

// qosFlow is QoS rule q's flow with qosOneStage: its meter, then its DSCP
// (one above maxDSCP left out, as northd warns), then its packet mark.
func qosFlow(dp onRow, q *nb.QoS) Flow {
	stage := LSOutQoS
	if q.Direction == nb.QoSDirectionFromLport {
		stage = LSInQoS
	}
	var actions string
	rate, burst := q.Bandwidth[nb.QoSBandwidthRate], q.Bandwidth[nb.QoSBandwidthBurst]
	switch {
	case rate != 0 && burst != 0:
		actions = fmt.Sprintf("set_meter(%d, %d); ", rate, burst)
	case rate != 0:
		actions = fmt.Sprintf("set_meter(%d); ", rate)
	}
	if dscp, ok := q.Action[nb.QoSActionDSCP]; ok && dscp <= maxDSCP {
		actions += fmt.Sprintf("ip.dscp = %d; ", dscp)
	}
	if mark, ok := q.Action[qosActionMark]; ok {
		actions += fmt.Sprintf("pkt.mark = %d; ", mark)
	}
	return dp.flow(stage, q.Priority, q.Match, actions+"next;")
}
