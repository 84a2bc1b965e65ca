package relations

import (
	"slices"
	"testing"
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
		{"all features", []map[string]string{{"ct-no-masked-label": "true", "ovn-ct-lb-related": "TRUE"}}, AllFeatures},
		{"old chassis", []map[string]string{{"ct-no-masked-label": "true", "ovn-ct-lb-related": "true"}, {}}, Features{}},
		{"no related", []map[string]string{{"ct-no-masked-label": "true", "ovn-ct-lb-related": "yes"}}, Features{CTNoMaskedLabel: true}},
		{"masked label", []map[string]string{{"ct-no-masked-label": "false", "ovn-ct-lb-related": "true"}}, Features{CTLBRelated: true}},
		{"remote old chassis", []map[string]string{{"is-remote": "true"}}, AllFeatures},
		{"not remote", []map[string]string{{"is-remote": "false"}}, Features{}},
	} {
		if got := FeaturesOf(slices.Values(c.chassis)); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
