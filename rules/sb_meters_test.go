package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
)

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
