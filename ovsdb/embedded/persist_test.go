package embedded

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations/schema"
)

// restart stops the servers and starts new ones on the same directory.
func restart(t *testing.T, s *Servers) *Servers {
	t.Helper()
	s.Close()
	s2, err := Start(context.Background(), s.dir, schema.OVN2303, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s2.Close)
	return s2
}

// selectAll is every row of a table with the given columns.
func selectAll(t *testing.T, c *rawClient, db, table string, columns ...string) any {
	t.Helper()
	return c.mustCall("transact", db, map[string]any{"op": "select", "table": table, "where": []any{}, "columns": columns}).([]any)[0].(map[string]any)["rows"]
}

func TestDataSurvivesRestart(t *testing.T) {
	s := startServers(t)
	c := dialRaw(t, s.NBRemote())
	sw := insertSwitch(t, c, "sw0")
	insertSwitch(t, c, "gone")
	byName := func(name string) []any { return []any{[]any{"name", "==", name}} }
	p1, p2 := "11111111-0000-0000-0000-000000000001", "11111111-0000-0000-0000-000000000002"
	c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": p1, "row": map[string]any{"name": "p1", "addresses": "00:00:00:00:00:01"}},
		map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid": p2, "row": map[string]any{"name": "p2"}},
		map[string]any{"op": "mutate", "table": "Logical_Switch", "where": byName("sw0"),
			"mutations": []any{[]any{"ports", "insert", []any{"set", []any{[]any{"uuid", p1}, []any{"uuid", p2}}}}}})
	c.mustCall("transact", "OVN_Northbound",
		map[string]any{"op": "update", "table": "Logical_Switch", "where": byName("sw0"), "row": map[string]any{"other_config": []any{"map", []any{[]any{"k", "v"}}}}},
		map[string]any{"op": "mutate", "table": "Logical_Switch", "where": byName("sw0"),
			"mutations": []any{[]any{"ports", "delete", []any{"uuid", p2}}}},
		map[string]any{"op": "delete", "table": "Logical_Switch", "where": byName("gone")})
	sb := dialRaw(t, s.SBRemote())
	sb.mustCall("transact", "OVN_Southbound", map[string]any{"op": "insert", "table": "SB_Global", "row": map[string]any{"nb_cfg": 7}})

	s = restart(t, s)
	c = dialRaw(t, s.NBRemote())
	want := jsonValue(t, `[{"_uuid": ["uuid", "`+sw+`"], "name": "sw0", "ports": ["uuid", "`+p1+`"], "other_config": ["map", [["k", "v"]]]}]`)
	if got := selectAll(t, c, "OVN_Northbound", "Logical_Switch", "_uuid", "name", "ports", "other_config"); !cmp.Equal(got, want) {
		t.Errorf("Logical_Switch after restart = %v, want %v", got, want)
	}
	want = jsonValue(t, `[{"name": "p1", "addresses": "00:00:00:00:00:01"}]`)
	if got := selectAll(t, c, "OVN_Northbound", "Logical_Switch_Port", "name", "addresses"); !cmp.Equal(got, want) {
		t.Errorf("Logical_Switch_Port after restart = %v, want %v", got, want)
	}
	if got := selectAll(t, dialRaw(t, s.SBRemote()), "OVN_Southbound", "SB_Global", "nb_cfg"); !cmp.Equal(got, jsonValue(t, `[{"nb_cfg": 7}]`)) {
		t.Errorf("SB_Global after restart = %v", got)
	}

	// The restart compacted the file: the schema, then one record.
	f, err := os.Open(filepath.Join(s.dir, "nb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, bad := readRecords(f)
	if bad != nil || len(records) != 2 {
		t.Errorf("compacted nb.db: %d records, %v", len(records), bad)
	}
}

func TestDamagedFileEnd(t *testing.T) {
	s := startServers(t)
	insertSwitch(t, dialRaw(t, s.NBRemote()), "kept")
	s.Close()
	// A crash in the middle of a write leaves half a record.
	path := filepath.Join(s.dir, "nb.db")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("OVSDB JSON 500 0123456789012345678901234567890123456789\n{\"Logical_Switch\""); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s = restart(t, s)
	if got := selectAll(t, dialRaw(t, s.NBRemote()), "OVN_Northbound", "Logical_Switch", "name"); !cmp.Equal(got, jsonValue(t, `[{"name": "kept"}]`)) {
		t.Errorf("Logical_Switch after a damaged end = %v", got)
	}
}

func TestFileOfAnotherSchema(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if _, err := writeRecord(&b, []byte(`{"name":"OVN_Northbound","version":"6.3.0","tables":{}}`)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "nb.db"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), dir, schema.OVN2303, nil)
	if err == nil || !strings.Contains(err.Error(), "6.3.0") {
		t.Fatalf("Start on a 6.3.0 NB file: %v", err)
	}
	// The failed start left no socket behind.
	if _, err := os.Stat(filepath.Join(dir, "nb.sock")); err == nil {
		t.Error("nb.sock remains after a failed start")
	}
}

// TestStockOvsdbServerReadsFile serves a file the embedded server wrote with
// the stock ovsdb-server.
func TestStockOvsdbServerReadsFile(t *testing.T) {
	requireTools(t, "ovsdb-tool", "ovsdb-server", "ovn-nbctl")
	s := startServers(t)
	tool(t, s, "ovn-nbctl", "ls-add", "sw0")
	tool(t, s, "ovn-nbctl", "lsp-add", "sw0", "p1", "--", "lsp-set-addresses", "p1", "00:00:00:00:00:01 10.0.0.1")
	tool(t, s, "ovn-nbctl", "set", "Logical_Switch", "sw0", "other_config:a=b")
	want := tool(t, s, "ovn-nbctl", "show")
	s.Close()

	path := filepath.Join(s.dir, "nb.db")
	if out, err := exec.Command("ovsdb-tool", "db-name", path).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "OVN_Northbound" {
		t.Fatalf("ovsdb-tool db-name: %v %s", err, out)
	}
	dir := t.TempDir()
	daemon(t, dir, "ovsdb-server", "--no-chdir", "--remote=punix:"+filepath.Join(dir, "nb.sock"),
		"--unixctl="+filepath.Join(dir, "nb.ctl"), "--log-file="+filepath.Join(dir, "nb.log"), path)
	ref := refServers{dir}
	eventually(t, "ovsdb-server socket", func() bool { _, err := os.Stat(filepath.Join(dir, "nb.sock")); return err == nil })
	if got := tool(t, ref, "ovn-nbctl", "show"); got != want {
		t.Errorf("ovsdb-server on the embedded file shows\n%s\nwant\n%s", got, want)
	}
	if got := tool(t, ref, "ovn-nbctl", "get", "Logical_Switch", "sw0", "other_config:a"); strings.TrimSpace(got) != `b` {
		t.Errorf("other_config:a = %q", got)
	}
}
