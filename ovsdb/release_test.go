package ovsdb

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/northlog/northlog/relations/schema"
)

// TestLoadNBRelease: an NB file made by ovsdb-tool from each release's
// schema reads as that release, and ComputeFromFile numbers its flows by
// that release's stage table; a schema version between releases is refused
// with the supported ones named.
func TestLoadNBRelease(t *testing.T) {
	needOVN(t)
	dir := t.TempDir()
	create := func(name string, schemaText []byte) string {
		s := filepath.Join(dir, name+".ovsschema")
		if err := os.WriteFile(s, schemaText, 0o644); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(dir, name+".db")
		run(t, "ovsdb-tool", "create", db, s)
		return db
	}
	for _, r := range schema.Releases() {
		db := create("nb-"+r.String(), r.NB())
		c, err := LoadNB(db)
		if err != nil {
			t.Fatalf("LoadNB(%s schema): %v", r, err)
		}
		if c.Release != r {
			t.Errorf("LoadNB(%s schema).Release = %s", r, c.Release)
		}
		o, err := ComputeFromFile(db)
		if err != nil {
			t.Fatalf("ComputeFromFile(%s schema): %v", r, err)
		}
		if got := o.Stages.Release(); got != r {
			t.Errorf("ComputeFromFile(%s schema) computed for %s", r, got)
		}
	}
	between := bytes.Replace(schema.OVN2303.NB(), []byte(`"version": "7.0.0"`), []byte(`"version": "7.5.0"`), 1)
	_, err := LoadNB(create("nb-between", between))
	if err == nil || !strings.Contains(err.Error(), "7.5.0") || !strings.Contains(err.Error(), "7.0.0") || !strings.Contains(err.Error(), "7.18.0") {
		t.Errorf("LoadNB(schema 7.5.0) = %v; want a refusal naming 7.0.0 and 7.18.0", err)
	}
}
