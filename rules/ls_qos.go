package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// SwitchQoSFlows: ls_in_qos_mark, ls_in_qos_meter, ls_out_qos_mark and
// ls_out_qos_meter, priority 0 (northd.c build_qos): traffic no QoS rule
// matches goes on unmarked and unmetered.
func SwitchQoSFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		return []Flow{
			dp.flow(LSInQoSMark, 0, "1", "next;"),
			dp.flow(LSOutQoSMark, 0, "1", "next;"),
			dp.flow(LSInQoSMeter, 0, "1", "next;"),
			dp.flow(LSOutQoSMeter, 0, "1", "next;"),
		}
	})
}
