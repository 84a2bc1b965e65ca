package relations

import (
	"slices"
	"testing"

	"github.com/northlog/northlog/relations/schema"
)

// TestFeaturesOf: a feature holds when every chassis that is not remote
// reports it true, as smap_get_bool reads it.
func TestFeaturesOf(t *testing.T) {
	for _, c := range []struct {
		name    string
		chassis []map[string]string
		want    Features
	}{
		{"no chassis", nil, AllFeatures},
		{"all features", []map[string]string{{"ct-no-masked-label": "true", "ovn-ct-lb-related": "TRUE", "ct-commit-to-zone": "true", "ct-next-zone": "true", "ovn-sample-with-registers": "true", "ct-state-save": "true", "ct-commit-nat-v2": "true", "ct-label-flush": "true"}}, AllFeatures},
		{"old chassis", []map[string]string{{"ct-no-masked-label": "true", "ovn-ct-lb-related": "true"}, {}}, Features{}},
		{"no related", []map[string]string{{"ct-no-masked-label": "true", "ovn-ct-lb-related": "yes"}}, Features{CTNoMaskedLabel: true}},
		{"masked label", []map[string]string{{"ct-no-masked-label": "false", "ovn-ct-lb-related": "true"}}, Features{CTLBRelated: true}},
		{"23.03 chassis", []map[string]string{{"ct-no-masked-label": "true", "ovn-ct-lb-related": "true"}}, Features{CTNoMaskedLabel: true, CTLBRelated: true}},
		{"no zone lookups", []map[string]string{{"ct-commit-to-zone": "true"}}, Features{CTCommitToZone: true}},
		{"remote old chassis", []map[string]string{{"is-remote": "true"}}, AllFeatures},
		{"not remote", []map[string]string{{"is-remote": "false"}}, Features{}},
	} {
		if got := FeaturesOf(slices.Values(c.chassis)); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestFeaturesReadFor: a release sees only the features its northd reads
// from the chassis; the others hold.
func TestFeaturesReadFor(t *testing.T) {
	old := FeaturesOf(slices.Values([]map[string]string{{}}))
	if got := old.ReadFor(schema.OVN2303); got != (Features{CTCommitToZone: true, CTNextZone: true, SampleWithRegisters: true, CTStateSave: true, CTCommitNATv2: true, CTLabelFlush: true}) {
		t.Errorf("23.03 with a chassis of no features: %+v", got)
	}
	if got := old.ReadFor(schema.OVN2603); got != (Features{CTNoMaskedLabel: true, CTLBRelated: true}) {
		t.Errorf("26.03 with a chassis of no features: %+v", got)
	}
}
