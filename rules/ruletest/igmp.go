package ruletest

import (
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// igmpChanges learn or forget an SB IGMP_Group entry, on a switch (a
// datapath that is none when there is no switch), mostly for a port, else
// for a name no port has, with addresses that make a group with or without
// a flow, no group, or the multicast routers.
var igmpChanges = map[string]Change{
	"toggleIGMPEntry": func(t *rapid.T, s *State) {
		sw := s.Pick(t, nb.LogicalSwitchTable, "igmp switch")
		if sw == "" {
			sw = s.UUID()
		}
		port := "gone"
		if id := s.Pick(t, nb.LogicalSwitchPortTable, "igmp port"); id != "" && rapid.IntRange(0, 3).Draw(t, "igmp port exists") > 0 {
			port = s.rows[nb.LogicalSwitchPortTable][id].(*nb.LogicalSwitchPort).Name
		}
		e := relations.IGMPEntry{
			Row:      rapid.SampledFrom([]string{"r1", "r2"}).Draw(t, "igmp row"),
			Datapath: sw,
			Address:  rapid.SampledFrom([]string{"239.0.0.1", "224.0.0.9", "ff0e::1", "ff02::1", relations.IGMPMrouters, "junk"}).Draw(t, "igmp address"),
			Port:     port,
		}
		s.SetIGMPEntry(e, !s.HasIGMPEntry(e))
	},
}
