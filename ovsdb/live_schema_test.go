package ovsdb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/northlog/northlog/internal/reference"
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

// TestLiveOlderNBSchema: northlog on an NB of an older schema (no Copp
// table, no copp columns) works as ovn-northd 23.03 does with it: one
// warning for each table and column it lacks, and the same flows as the
// real ovn-northd beside it on the same databases, whichever is active.
func TestLiveOlderNBSchema(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	s.kill("nb")
	if err := os.Remove(s.File("nb")); err != nil {
		t.Fatal(err)
	}
	s.run("ovsdb-tool", "create", s.File("nb"), olderNBSchema(t, t.TempDir()))
	s.start("nb")
	s.run("ovn-nbctl", "init")
	var buf logBuffer
	l := runNorthd(t, s, withLog(&buf))
	s.script(lockTopology)
	s.sync()
	if !l.Active() {
		t.Fatal("northlog alone on the SB is not active")
	}
	for _, w := range []string{
		"OVN_Northbound database lacks Copp table (database needs upgrade?)",
		"Logical_Switch table in OVN_Northbound database lacks copp column (database needs upgrade?)",
		"Logical_Router table in OVN_Northbound database lacks copp column (database needs upgrade?)",
	} {
		if n := strings.Count(buf.String(), w); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", w, n, buf.String())
		}
	}
	ours := dumpFlows(t, s.SBRemote())

	s.start("northd")
	if err := l.Pause(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.sync()
	if got := s.run("ovn-appctl", "-t", s.ctl("northd"), "status"); got != "Status: active\n" {
		t.Fatalf("ovn-northd: %q once northlog paused", got)
	}
	if r := reference.Compare(dumpFlows(t, s.SBRemote()), ours); !r.Equal() {
		t.Errorf("northlog's flows differ from ovn-northd's on the older NB:\n%s", r)
	}
}
