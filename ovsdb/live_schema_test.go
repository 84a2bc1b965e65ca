package ovsdb

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
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

// withSchemas replaces the NB and SB databases of s by empty ones of the
// schemas given, and initialises the NB.
func withSchemas(t *testing.T, s *servers, nbSchema, sbSchema []byte) {
	t.Helper()
	dir := t.TempDir()
	for db, text := range map[string][]byte{"nb": nbSchema, "sb": sbSchema} {
		s.kill(db)
		if err := os.Remove(s.File(db)); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, db+".ovsschema")
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		s.run("ovsdb-tool", "create", s.File(db), path)
		s.start(db)
	}
	s.run("ovn-nbctl", "init")
}

// TestLiveReleaseFollowsNB: on databases of 26.03's schemas the live
// northd reproduces 26.03 (its northd_internal_version in NB_Global and
// SB_Global, 26.03's SB_Global options); on an NB whose schema version is
// no release's it writes nothing and holds no lock, naming the versions
// it supports, unless the release is forced.
func TestLiveReleaseFollowsNB(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	withSchemas(t, s, schema.OVN2603.NB(), schema.OVN2603.SB())
	l := runNorthd(t, s)
	s.sync()
	if r, ok := l.Release(); !ok || r != schema.OVN2603 {
		t.Fatalf("on 26.03's schemas the northd reproduces %s (known %v)", r, ok)
	}
	opts := sbGlobalOptions(t, s.SBRemote())
	for _, want := range []string{`northd_internal_version="26.03.2-21.8.0-82.14"`, `arp_ns_explicit_output="true"`, `register_consolidation="true"`} {
		if !strings.Contains(opts, want) {
			t.Errorf("SB_Global options %s lack %s", opts, want)
		}
	}
	if nb := nbOptions(t, s.NBRemote()); nb["northd_internal_version"] != "26.03.2-21.8.0-82.14" || nb["svc_monitor_mac_dst"] == "" {
		t.Errorf("NB_Global options %v: want 26.03's northd_internal_version and a svc_monitor_mac_dst", nb)
	}
	l.stop()

	between := bytes.Replace(schema.OVN2303.NB(), []byte(`"version": "7.0.0"`), []byte(`"version": "7.5.0"`), 1)
	withSchemas(t, s, between, schema.OVN2303.SB())
	var buf logBuffer
	l = runNorthd(t, s, withLog(&buf))
	waitFor(t, "the refusal of NB schema 7.5.0", func() bool {
		return strings.Contains(buf.String(), "NB schema version 7.5.0 is not one northlog reproduces")
	})
	if l.Active() || rowsWritten(l) > 0 {
		t.Fatalf("on NB schema 7.5.0 the northd is active (%v) or wrote %d rows", l.Active(), rowsWritten(l))
	}
	l.stop()

	forced := schema.OVN2303
	l = runNorthd(t, s, func(c *Config) { c.Release = &forced })
	s.sync()
	if !l.Active() || !strings.Contains(sbGlobalOptions(t, s.SBRemote()), "23.03.1-20.27.0-70.6") {
		t.Errorf("forced to 23.03 on NB schema 7.5.0: active %v, SB_Global options %s", l.Active(), sbGlobalOptions(t, s.SBRemote()))
	}
	l.stop()

	// 26.03 forced on an older NB: what the NB lacks is off.
	withSchemas(t, s, schema.OVN2303.NB(), schema.OVN2603.SB())
	forced = schema.OVN2603
	l = runNorthd(t, s, func(c *Config) { c.Release = &forced })
	s.script("ovn-nbctl ls-add sw0 -- lsp-add sw0 p1")
	s.sync()
	if rows := sbRows(t, s.SBRemote(), false); len(rows) == 0 || !strings.Contains(sbGlobalOptions(t, s.SBRemote()), "26.03.2-21.8.0-82.14") {
		t.Errorf("forced to 26.03 on 23.03's NB: rows %v, SB_Global options %s", rows, sbGlobalOptions(t, s.SBRemote()))
	}
}
