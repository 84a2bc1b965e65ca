package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ovn-org/libovsdb/ovsdb"
)

// TestForServer: a live NB's schema version picks the release of that
// version, the oldest for an older version, and is refused, naming the
// supported versions, between two releases' or past the newest's.
func TestForServer(t *testing.T) {
	for _, c := range []struct {
		version string
		want    Release
		ok      bool
	}{
		{"7.0.0", OVN2303, true},
		{"7.18.0", OVN2603, true},
		{"6.1.0", OVN2303, true},
		{"5.32.1", OVN2303, true},
		{"7.5.0", 0, false},
		{"7.18.1", 0, false},
		{"8.0.0", 0, false},
		{"bogus", 0, false},
	} {
		r, err := ForServer(c.version)
		switch {
		case c.ok && (err != nil || r != c.want):
			t.Errorf("ForServer(%s) = %v, %v; want %v", c.version, r, err, c.want)
		case !c.ok && err == nil:
			t.Errorf("ForServer(%s) = %v; want a refusal", c.version, r)
		case !c.ok && !(strings.Contains(err.Error(), "7.0.0") && strings.Contains(err.Error(), "7.18.0")):
			t.Errorf("ForServer(%s): %v; want the supported versions named", c.version, err)
		}
	}
}

// TestInternalVersion: northd_internal_version as each release's
// ovn-northd writes it (ovn_get_internal_version).
func TestInternalVersion(t *testing.T) {
	for r, want := range map[Release]string{OVN2303: "23.03.1-20.27.0-70.6", OVN2603: "26.03.2-21.8.0-82.14"} {
		if got := r.InternalVersion(); got != want {
			t.Errorf("%s: %q, want %q", r, got, want)
		}
	}
}

// TestUnion: every release's tables and columns are in the union, with
// the enum values any release allows.
func TestUnion(t *testing.T) {
	for _, nb := range []bool{true, false} {
		text, err := Union(nb)
		if err != nil {
			t.Fatal(err)
		}
		var u ovsdb.DatabaseSchema
		if err := json.Unmarshal(text, &u); err != nil {
			t.Fatal(err)
		}
		for _, r := range Releases() {
			s := r.SBSchema()
			if nb {
				s = r.NBSchema()
			}
			for name, table := range s.Tables {
				for col := range table.Columns {
					if u.Table(name) == nil || u.Table(name).Column(col) == nil {
						t.Errorf("the union of %s lacks %s's %s column %s", s.Name, r, name, col)
					}
				}
			}
		}
		if !nb && !strings.Contains(string(text), `"stt"`) {
			t.Error("the SB union lacks 23.03's Encap type stt")
		}
	}
}
