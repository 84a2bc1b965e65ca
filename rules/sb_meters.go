package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// Meter is one SB Meter row with its Meter_Band rows, as ovn-northd 23.03
// writes them (northd.c sync_meters): one per NB Meter, by name, and one
// per ACL whose log meter is a fair meter, named "METER__ACL-UUID", a
// private copy of the meter so that each ACL's log is rate-limited on its
// own.
type Meter struct {
	Name string
	Unit string
	// Bands are the meter's bands, sorted, duplicates kept (see MeterBand).
	Bands MeterBands
}

// MeterBand is one Meter_Band row's columns.
type MeterBand struct {
	Action    string
	Rate      int
	BurstSize int
}

// MeterBands is a list of bands as a comparable value: each band as
// "rate burst action", sorted (bands_need_update's order does not
// matter as long as both sides use one), joined by newlines.
type MeterBands string

func meterBandsOf(bands []MeterBand) MeterBands {
	lines := make([]string, len(bands))
	for i, b := range bands {
		lines[i] = fmt.Sprintf("%d %d %s", b.Rate, b.BurstSize, b.Action)
	}
	slices.Sort(lines)
	return MeterBands(strings.Join(lines, "\n"))
}

// Slice decodes the bands, in their sorted order.
func (m MeterBands) Slice() []MeterBand {
	if m == "" {
		return nil
	}
	var out []MeterBand
	for line := range strings.SplitSeq(string(m), "\n") {
		var b MeterBand
		if _, err := fmt.Sscanf(line, "%d %d %s", &b.Rate, &b.BurstSize, &b.Action); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// CompareMeters orders meters by name, then contents.
func CompareMeters(a, b Meter) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Unit, b.Unit), cmp.Compare(a.Bands, b.Bands))
}

// meterBand is one band of an NB meter: the band row's UUID keeps two
// equal bands of one meter apart.
type meterBand struct {
	Meter string // NB Meter _uuid
	Row   string
	Band  MeterBand
}

// SBMeters computes the Meter rows.
func SBMeters(n *relations.NB) engine.Rel[Meter] {
	bands := relations.Listed(n.Refs.MeterBands, n.MeterBands, func(meter string, b *nb.MeterBand) meterBand {
		return meterBand{Meter: meter, Row: b.UUID, Band: MeterBand{Action: b.Action, Rate: b.Rate, BurstSize: b.BurstSize}}
	})
	bandsOf := engine.GroupBy(engine.IndexBy(bands, func(b meterBand) string { return b.Meter }),
		func(meter string, bs []meterBand) []engine.KV[string, MeterBands] {
			list := make([]MeterBand, len(bs))
			for i, b := range bs {
				list[i] = b.Band
			}
			return []engine.KV[string, MeterBands]{{Key: meter, Value: meterBandsOf(list)}}
		})
	meters := engine.Join(
		n.Meters.ByUUID(),
		engine.IndexBy(bandsOf, func(kv engine.KV[string, MeterBands]) string { return kv.Key }),
		func(_ string, m *nb.Meter, kv engine.KV[string, MeterBands]) fairMeter {
			return fairMeter{Meter: Meter{Name: m.Name, Unit: m.Unit, Bands: kv.Value},
				Fair: m.Fair != nil && *m.Fair}
		})
	metered := engine.Filter(n.ACLs.Rows, func(a *nb.ACL) bool {
		return a.Meter != nil && (a.Log || !fairMetersOnlyLogged(n))
	})
	aclMeters := engine.Join(
		engine.IndexBy(metered, func(a *nb.ACL) string { return *a.Meter }),
		engine.IndexBy(engine.Filter(meters, func(m fairMeter) bool { return m.Fair }),
			func(m fairMeter) string { return m.Name }),
		func(_ string, a *nb.ACL, m fairMeter) Meter {
			m.Meter.Name = m.Name + "__" + a.UUID
			return m.Meter
		})
	return engine.Distinct(engine.Union(
		engine.Map(meters, func(m fairMeter) Meter { return m.Meter }), aclMeters))
}

// fairMetersOnlyLogged: from 26.03, an ACL has its private copy of a fair
// meter only while it logs (en-meters.c sync_acl_fair_meter); 23.03 makes
// one for every ACL that names the meter.
func fairMetersOnlyLogged(n *relations.NB) bool { return n.Release >= schema.OVN2603 }

// fairMeter is an NB meter's SB row and whether the meter is fair.
type fairMeter struct {
	Meter
	Fair bool
}
