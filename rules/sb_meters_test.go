package rules

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
	"pgregory.net/rapid"
)

// sbRowChanges are random NB changes of the rows the SB Meter, DNS,
// Chassis_Template_Var, Mirror and IP_Multicast outputs read.
var sbRowChanges = map[string]nbChange{
	"addSwitch": nbChanges["addSwitch"],
	"delSwitch": nbChanges["delSwitch"],
	"addMeter": func(t *rapid.T, s *nbState, p *Program) {
		id := s.uuid()
		m := &nb.Meter{UUID: id, Name: rapid.SampledFrom([]string{"m1", "m2", "m3"}).Draw(t, "name"),
			Unit: rapid.SampledFrom([]string{"kbps", "pktps"}).Draw(t, "unit")}
		if rapid.Bool().Draw(t, "fair") {
			fair := true
			m.Fair = &fair
		}
		for range rapid.IntRange(1, 3).Draw(t, "bands") {
			b := s.uuid()
			// Equal bands in one meter are kept apart by their rows.
			s.set(t, p, nb.MeterBandTable, b, &nb.MeterBand{UUID: b, Action: "drop",
				Rate: rapid.IntRange(1, 3).Draw(t, "rate"), BurstSize: rapid.IntRange(0, 1).Draw(t, "burst")})
			m.Bands = append(m.Bands, b)
		}
		s.set(t, p, nb.MeterTable, id, m)
	},
	"setBand": func(t *rapid.T, s *nbState, p *Program) {
		if id := pick(t, s, nb.MeterBandTable, "band"); id != "" {
			edit(t, s, p, nb.MeterBandTable, id, func(b *nb.MeterBand) { b.Rate = rapid.IntRange(1, 3).Draw(t, "rate") })
		}
	},
	"toggleFair": func(t *rapid.T, s *nbState, p *Program) {
		if id := pick(t, s, nb.MeterTable, "meter"); id != "" {
			edit(t, s, p, nb.MeterTable, id, func(m *nb.Meter) {
				fair := m.Fair == nil || !*m.Fair
				m.Fair = &fair
			})
		}
	},
	"delMeter": deleteRow(nb.MeterTable),
	"setACL": func(t *rapid.T, s *nbState, p *Program) {
		id := pickOrNew(t, s, nb.ACLTable, "acl")
		acl := &nb.ACL{UUID: id, Direction: "to-lport", Priority: 1000, Match: "ip", Action: "allow", Log: true}
		if name := rapid.SampledFrom([]string{"", "m1", "m2", "m3"}).Draw(t, "meter"); name != "" {
			acl.Meter = &name
		}
		s.set(t, p, nb.ACLTable, id, acl)
	},
	"delACL": deleteRow(nb.ACLTable),
	"setDNS": func(t *rapid.T, s *nbState, p *Program) {
		id := pickOrNew(t, s, nb.DNSTable, "dns")
		records := map[string]string{}
		for i := range rapid.IntRange(0, 2).Draw(t, "records") {
			records[fmt.Sprintf("VM%d.Example.org", i)] = rapid.SampledFrom([]string{"10.0.0.1", "AEF0::1 10.0.0.2"}).Draw(t, "ips")
		}
		s.set(t, p, nb.DNSTable, id, &nb.DNS{UUID: id, Records: records})
	},
	"linkDNS": func(t *rapid.T, s *nbState, p *Program) {
		id, d := pick(t, s, nb.LogicalSwitchTable, "ls"), pick(t, s, nb.DNSTable, "dns")
		if id == "" || d == "" {
			return
		}
		edit(t, s, p, nb.LogicalSwitchTable, id, func(ls *nb.LogicalSwitch) {
			if i := slices.Index(ls.DNSRecords, d); i >= 0 {
				ls.DNSRecords = slices.Delete(slices.Clone(ls.DNSRecords), i, i+1)
			} else {
				ls.DNSRecords = append(slices.Clone(ls.DNSRecords), d)
			}
		})
	},
	"delDNS": delListed(nb.DNSTable, nb.LogicalSwitchTable, func(x *nb.LogicalSwitch) *[]string { return &x.DNSRecords }),

	"setMirror": func(t *rapid.T, s *nbState, p *Program) {
		id := pickOrNew(t, s, nb.MirrorTable, "mirror")
		if s.rows[nb.MirrorTable][id] != nil && rapid.Bool().Draw(t, "delete") {
			s.set(t, p, nb.MirrorTable, id, nil)
			return
		}
		s.set(t, p, nb.MirrorTable, id, &nb.Mirror{UUID: id, Name: "mir" + id[len(id)-3:],
			Filter: rapid.SampledFrom([]string{"to-lport", "from-lport"}).Draw(t, "filter"), Sink: genIPv4.Draw(t, "sink"),
			Type: "gre", Index: rapid.IntRange(0, 2).Draw(t, "index")})
	},
	"setMcast": func(t *rapid.T, s *nbState, p *Program) {
		id := pick(t, s, nb.LogicalSwitchTable, "ls")
		if id == "" {
			return
		}
		edit(t, s, p, nb.LogicalSwitchTable, id, func(ls *nb.LogicalSwitch) {
			ls.OtherConfig = map[string]string{
				"mcast_snoop":        rapid.SampledFrom([]string{"true", "false"}).Draw(t, "snoop"),
				"mcast_idle_timeout": rapid.SampledFrom([]string{"5", "600", "-1", "x"}).Draw(t, "idle"),
			}
			if rapid.Bool().Draw(t, "src") {
				ls.OtherConfig["mcast_ip4_src"] = genIPv4.Draw(t, "ip4")
			}
		})
	},
	"setTemplateVar": func(t *rapid.T, s *nbState, p *Program) {
		chassis := rapid.SampledFrom([]string{"hv1", "hv2"}).Draw(t, "chassis")
		id := ""
		for _, u := range s.ids(nb.ChassisTemplateVarTable) {
			if s.rows[nb.ChassisTemplateVarTable][u].(*nb.ChassisTemplateVar).Chassis == chassis {
				id = u
			}
		}
		switch {
		case id != "" && rapid.Bool().Draw(t, "delete"):
			s.set(t, p, nb.ChassisTemplateVarTable, id, nil)
			return
		case id == "":
			id = s.uuid()
		}
		s.set(t, p, nb.ChassisTemplateVarTable, id, &nb.ChassisTemplateVar{UUID: id, Chassis: chassis,
			Variables: map[string]string{"VIP": genIPv4.Draw(t, "vip")}})
	},
}

// TestSBRowsIncremental: after every step of random NB changes, the
// Meter, DNS, Chassis_Template_Var, Mirror and IP_Multicast outputs maintained incrementally
// equal a full recompute, and the step's delta leads from the previous
// contents to the current ones.
func TestSBRowsIncremental(t *testing.T) {
	names := slices.Sorted(maps.Keys(sbRowChanges))
	rapid.Check(t, func(t *rapid.T) {
		s, p := newNBState(), New()
		var prevM []Meter
		var prevD []DNS
		var prevV []TemplateVar
		var prevMi []Mirror
		var prevIP []IPMulticast
		for range rapid.IntRange(1, 12).Draw(t, "steps") {
			for range rapid.IntRange(1, 4).Draw(t, "changes") {
				sbRowChanges[rapid.SampledFrom(names).Draw(t, "change")](t, s, p)
			}
			p.Step()
			full := s.load(t)
			prevM = checkOutput(t, "Meter", full.Meters, p.Meters, prevM)
			prevD = checkOutput(t, "DNS", full.DNS, p.DNS, prevD)
			prevV = checkOutput(t, "Chassis_Template_Var", full.TemplateVars, p.TemplateVars, prevV)
			prevMi = checkOutput(t, "Mirror", full.Mirrors, p.Mirrors, prevMi)
			prevIP = checkOutput(t, "IP_Multicast", full.IPMulticast, p.IPMulticast, prevIP)
		}
	})
}

// checkOutput requires inc's contents to be full's and its last delta to
// lead from prev to them; it returns the contents.
func checkOutput[T comparable](t *rapid.T, name string, full, inc *engine.Output[T], prev []T) []T {
	cur := inc.Contents()
	if d := cmp.Diff(full.Contents(), cur); d != "" {
		t.Fatalf("%s: incremental != recompute (-full +incremental):\n%s", name, d)
	}
	checkDelta(t, prev, inc.Delta(), cur)
	return cur
}

// TestSBMeterRows: the meter rows of one NB, written out: NB meters by
// name with their bands, duplicates kept, and each ACL whose meter is fair
// gets its own copy named after the ACL.
func TestSBMeterRows(t *testing.T) {
	p := New()
	fair := true
	meter := "mf"
	apply := func(table string, row model.Model) {
		if err := p.NB.Apply(table, nil, row); err != nil {
			t.Fatal(err)
		}
	}
	apply(nb.MeterBandTable, &nb.MeterBand{UUID: "b1", Action: "drop", Rate: 10})
	apply(nb.MeterBandTable, &nb.MeterBand{UUID: "b2", Action: "drop", Rate: 10})
	apply(nb.MeterBandTable, &nb.MeterBand{UUID: "b3", Action: "drop", Rate: 5, BurstSize: 2})
	apply(nb.MeterTable, &nb.Meter{UUID: "m1", Name: "plain", Unit: "kbps", Bands: []string{"b1", "b2"}})
	apply(nb.MeterTable, &nb.Meter{UUID: "m2", Name: meter, Unit: "pktps", Fair: &fair, Bands: []string{"b3"}})
	apply(nb.ACLTable, &nb.ACL{UUID: "acl-1", Meter: &meter, Log: true})
	plain := "plain"
	apply(nb.ACLTable, &nb.ACL{UUID: "acl-2", Meter: &plain, Log: true})
	p.Step()
	want := []Meter{
		{Name: "mf", Unit: "pktps", Bands: "5 2 drop"},
		{Name: "mf__acl-1", Unit: "pktps", Bands: "5 2 drop"},
		{Name: "plain", Unit: "kbps", Bands: "10 0 drop\n10 0 drop"},
	}
	if d := cmp.Diff(want, p.Meters.Contents()); d != "" {
		t.Errorf("meters (-want +got):\n%s", d)
	}
}
