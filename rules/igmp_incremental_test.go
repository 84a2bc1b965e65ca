package rules

import (
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// The SB change below joins TestIncrementalEqualsRecompute's random steps:
// an IGMP_Group entry learnt or forgotten, on a switch (a datapath that is
// none when there is no switch), mostly for a port, else for a name no
// port has, with addresses that make a group with or without a flow, no
// group, or the multicast routers.
func init() {
	nbChanges["toggleIGMPEntry"] = func(t *rapid.T, s *nbState, p *Program) {
		sw := pick(t, s, nb.LogicalSwitchTable, "igmp switch")
		if sw == "" {
			sw = s.uuid()
		}
		port := "gone"
		if id := pick(t, s, nb.LogicalSwitchPortTable, "igmp port"); id != "" && rapid.IntRange(0, 3).Draw(t, "igmp port exists") > 0 {
			port = s.rows[nb.LogicalSwitchPortTable][id].(*nb.LogicalSwitchPort).Name
		}
		e := relations.IGMPEntry{
			Row:      rapid.SampledFrom([]string{"r1", "r2"}).Draw(t, "igmp row"),
			Datapath: sw,
			Address:  rapid.SampledFrom([]string{"239.0.0.1", "224.0.0.9", "ff0e::1", "ff02::1", relations.IGMPMrouters, "junk"}).Draw(t, "igmp address"),
			Port:     port,
		}
		if s.igmp == nil {
			s.igmp = map[relations.IGMPEntry]bool{}
		}
		in := !s.igmp[e]
		if in {
			s.igmp[e] = true
		} else {
			delete(s.igmp, e)
		}
		p.NB.SetIGMPEntry(e, in)
	}
}
