package ovsdb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// olderNBSchema writes to dir 23.03's NB schema without its Copp table
// and the columns that refer to it, as an older release's NB looks to
// northd, and returns its path.
func olderNBSchema(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile("/usr/share/ovn/ovn-nb.ovsschema")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	tables := schema["tables"].(map[string]any)
	delete(tables, "Copp")
	for _, table := range tables {
		cols := table.(map[string]any)["columns"].(map[string]any)
		for name, col := range cols {
			if strings.Contains(mustJSON(t, col), `"refTable":"Copp"`) {
				delete(cols, name)
			}
		}
	}
	path := filepath.Join(dir, "older-nb.ovsschema")
	if err := os.WriteFile(path, []byte(mustJSON(t, schema)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLiveOlderNBSchemaStandby: northlog on an NB whose schema its models
// do not fit does not keep the SB lock, so a real ovn-northd beside it
// takes over and computes the SB.
func TestLiveOlderNBSchemaStandby(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	s.kill("nb")
	if err := os.Remove(s.File("nb")); err != nil {
		t.Fatal(err)
	}
	s.run("ovsdb-tool", "create", s.File("nb"), olderNBSchema(t, t.TempDir()))
	s.start("nb")
	s.run("ovn-nbctl", "init")
	l := runNorthd(t, s)
	time.Sleep(500 * time.Millisecond)
	s.start("northd")
	s.run("ovn-nbctl", "--timeout=30", "--wait=sb", "ls-add", "sw0")
	if l.Active() {
		t.Error("northlog active on an NB it cannot read")
	}
	if got := s.run("ovn-sbctl", "--bare", "--columns=external_ids", "list", "Datapath_Binding"); !strings.Contains(got, "name=sw0") {
		t.Fatalf("SB Datapath_Binding: %q", got)
	}
}
