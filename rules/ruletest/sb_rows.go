package ruletest

import (
	"fmt"
	"slices"

	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// sbRowChanges are random NB changes of the rows the SB Meter, DNS,
// Chassis_Template_Var, Mirror and IP_Multicast outputs read.
var sbRowChanges = map[string]Change{
	"addMeter": func(t *rapid.T, s *State) {
		id := s.UUID()
		m := &nb.Meter{UUID: id, Name: rapid.SampledFrom([]string{"m1", "m2", "m3"}).Draw(t, "name"),
			Unit: rapid.SampledFrom([]string{"kbps", "pktps"}).Draw(t, "unit")}
		if rapid.Bool().Draw(t, "fair") {
			fair := true
			m.Fair = &fair
		}
		for range rapid.IntRange(1, 3).Draw(t, "bands") {
			b := s.UUID()
			// Equal bands in one meter are kept apart by their rows.
			s.Set(t, nb.MeterBandTable, b, &nb.MeterBand{UUID: b, Action: "drop",
				Rate: rapid.IntRange(1, 3).Draw(t, "rate"), BurstSize: rapid.IntRange(0, 1).Draw(t, "burst")})
			m.Bands = append(m.Bands, b)
		}
		s.Set(t, nb.MeterTable, id, m)
	},
	"setBand": func(t *rapid.T, s *State) {
		if id := s.Pick(t, nb.MeterBandTable, "band"); id != "" {
			Edit(t, s, nb.MeterBandTable, id, func(b *nb.MeterBand) { b.Rate = rapid.IntRange(1, 3).Draw(t, "rate") })
		}
	},
	"toggleFair": func(t *rapid.T, s *State) {
		if id := s.Pick(t, nb.MeterTable, "meter"); id != "" {
			Edit(t, s, nb.MeterTable, id, func(m *nb.Meter) {
				fair := m.Fair == nil || !*m.Fair
				m.Fair = &fair
			})
		}
	},
	"delMeter": DeleteRow(nb.MeterTable),
	"setACL": func(t *rapid.T, s *State) {
		id := s.PickOrNew(t, nb.ACLTable, "acl")
		acl := &nb.ACL{UUID: id, Direction: "to-lport", Priority: 1000, Match: "ip", Action: "allow", Log: true}
		if name := rapid.SampledFrom([]string{"", "m1", "m2", "m3"}).Draw(t, "meter"); name != "" {
			acl.Meter = &name
		}
		s.Set(t, nb.ACLTable, id, acl)
	},
	"delACL": DeleteRow(nb.ACLTable),
	"setDNS": func(t *rapid.T, s *State) {
		id := s.PickOrNew(t, nb.DNSTable, "dns")
		records := map[string]string{}
		for i := range rapid.IntRange(0, 2).Draw(t, "records") {
			records[fmt.Sprintf("VM%d.Example.org", i)] = rapid.SampledFrom([]string{"10.0.0.1", "AEF0::1 10.0.0.2"}).Draw(t, "ips")
		}
		s.Set(t, nb.DNSTable, id, &nb.DNS{UUID: id, Records: records})
	},
	"linkDNS": func(t *rapid.T, s *State) {
		id, d := s.Pick(t, nb.LogicalSwitchTable, "ls"), s.Pick(t, nb.DNSTable, "dns")
		if id == "" || d == "" {
			return
		}
		Edit(t, s, nb.LogicalSwitchTable, id, func(ls *nb.LogicalSwitch) {
			if i := slices.Index(ls.DNSRecords, d); i >= 0 {
				ls.DNSRecords = slices.Delete(slices.Clone(ls.DNSRecords), i, i+1)
			} else {
				ls.DNSRecords = append(slices.Clone(ls.DNSRecords), d)
			}
		})
	},
	"delDNS": DeleteListed(nb.DNSTable, nb.LogicalSwitchTable, func(x *nb.LogicalSwitch) *[]string { return &x.DNSRecords }),

	"setMirror": func(t *rapid.T, s *State) {
		id := s.PickOrNew(t, nb.MirrorTable, "mirror")
		if s.rows[nb.MirrorTable][id] != nil && rapid.Bool().Draw(t, "delete") {
			s.Set(t, nb.MirrorTable, id, nil)
			return
		}
		s.Set(t, nb.MirrorTable, id, &nb.Mirror{UUID: id, Name: "mir" + id[len(id)-3:],
			Filter: rapid.SampledFrom([]string{"to-lport", "from-lport"}).Draw(t, "filter"), Sink: genIPv4.Draw(t, "sink"),
			Type: "gre", Index: rapid.IntRange(0, 2).Draw(t, "index")})
	},
	"setMcast": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalSwitchTable, "ls")
		if id == "" {
			return
		}
		Edit(t, s, nb.LogicalSwitchTable, id, func(ls *nb.LogicalSwitch) {
			ls.OtherConfig = map[string]string{
				"mcast_snoop":        rapid.SampledFrom([]string{"true", "false"}).Draw(t, "snoop"),
				"mcast_idle_timeout": rapid.SampledFrom([]string{"5", "600", "-1", "x"}).Draw(t, "idle"),
			}
			if rapid.Bool().Draw(t, "src") {
				ls.OtherConfig["mcast_ip4_src"] = genIPv4.Draw(t, "ip4")
			}
		})
	},
	"setTemplateVar": func(t *rapid.T, s *State) {
		chassis := rapid.SampledFrom([]string{"hv1", "hv2"}).Draw(t, "chassis")
		id := ""
		for _, u := range s.IDs(nb.ChassisTemplateVarTable) {
			if s.rows[nb.ChassisTemplateVarTable][u].(*nb.ChassisTemplateVar).Chassis == chassis {
				id = u
			}
		}
		switch {
		case id != "" && rapid.Bool().Draw(t, "delete"):
			s.Set(t, nb.ChassisTemplateVarTable, id, nil)
			return
		case id == "":
			id = s.UUID()
		}
		s.Set(t, nb.ChassisTemplateVarTable, id, &nb.ChassisTemplateVar{UUID: id, Chassis: chassis,
			Variables: map[string]string{"VIP": genIPv4.Draw(t, "vip")}})
	},
}
