package ovsdb

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
)

const nbSchemaFile = "/usr/share/ovn/ovn-nb.ovsschema"

// needOVN skips the test when the OVSDB and OVN tools are not installed,
// except in CI, where their absence is a failure.
func needOVN(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"ovsdb-tool", "ovsdb-server", "ovsdb-client", "ovn-nbctl"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not found: CI must install ovn-central", tool)
			}
			t.Skipf("%s not found: apt-get install -y ovn-central", tool)
		}
	}
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		cmd := strings.Join(args, " ")
		if len(cmd) > 200 {
			cmd = cmd[:200] + "..."
		}
		t.Fatalf("%s %s: %v\n%s", name, cmd, err, stderr)
	}
	return string(out)
}

// server is an ovsdb-server serving one database file on a unix socket.
type server struct {
	db, sock string
	cmd      *exec.Cmd
}

// startServer runs ovsdb-server on file until stop or the end of the test.
func startServer(t testing.TB, file string) *server {
	t.Helper()
	dir := t.TempDir()
	s := &server{db: file, sock: filepath.Join(dir, "db.sock")}
	s.cmd = exec.Command("ovsdb-server", "--no-chdir", "--remote=punix:"+s.sock,
		"--unixctl="+filepath.Join(dir, "ctl"), "--log-file="+filepath.Join(dir, "log"), file)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(s.sock); err == nil {
			return s
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Fatalf("ovsdb-server did not start on %s:\n%s", file, log)
		}
	}
}

func (s *server) remote() string { return "unix:" + s.sock }

func (s *server) stop() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

// nbctl runs ovn-nbctl commands against s.
func (s *server) nbctl(t testing.TB, args ...string) {
	t.Helper()
	run(t, "ovn-nbctl", append([]string{"--db=" + s.remote()}, args...)...)
}

// dumpModels reads every row of the NB served by s with `ovsdb-client -f
// json dump`, decodes it with libovsdb's own row decoder and converts it to
// nb models: an account of the database independent of ReadDatabaseFile.
func dumpModels(t *testing.T, s *server) map[string][]model.Model {
	t.Helper()
	dump := run(t, "ovsdb-client", "-f", "json", "dump", s.remote(), "OVN_Northbound")
	dbModel, err := wire.NewModel(nb.Schema(), nb.FullDatabaseModel)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string][]model.Model{}
	for name, rows := range dumpRows(t, nb.Schema(), []byte(dump)) {
		ms := []model.Model{}
		for _, uuid := range slices.Sorted(maps.Keys(rows)) {
			row := rows[uuid]
			m, err := model.CreateModel(dbModel, name, &row, uuid)
			if err != nil {
				t.Fatalf("%s row %s: %v", name, uuid, err)
			}
			ms = append(ms, m)
		}
		tables[name] = ms
	}
	return tables
}

// sameAsDump fails unless got holds the rows of want.
func sameAsDump(t *testing.T, want map[string][]model.Model, got *NBContents) {
	t.Helper()
	for name, rows := range want {
		if d := cmp.Diff(rows, got.Tables[name], cmp.Comparer(sameSlice)); d != "" {
			t.Errorf("table %s: LoadNB differs from ovsdb-client dump (-dump +LoadNB):\n%s", name, d)
		}
	}
	for name := range got.Tables {
		if _, ok := want[name]; !ok {
			t.Errorf("LoadNB has table %s, the dump does not", name)
		}
	}
}

// sameSlice treats a nil and an empty set column alike: libovsdb makes
// either, depending on how the empty set was written.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || slices.Equal(a, b))
}

// newNB creates an empty NB database file in a fresh directory.
func newNB(t testing.TB) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "nb.db")
	run(t, "ovsdb-tool", "create", file, nbSchemaFile)
	return file
}

// TestLoadNBMatchesDump builds an NB through ovsdb-server with ovn-nbctl —
// inserts, an online compaction, then updates of scalar, optional, set and
// map columns, deletes and more inserts — and checks that LoadNB
// reads from the file exactly what ovsdb-client dump reads from the server.
func TestLoadNBMatchesDump(t *testing.T) {
	needOVN(t)
	file := newNB(t)
	s := startServer(t, file)
	s.nbctl(t, "init")
	s.nbctl(t, "ls-add", "sw0", "--", "lsp-add", "sw0", "p1", "--", "lsp-set-addresses", "p1", "0a:00:00:00:00:01 10.0.0.1",
		"--", "lsp-add", "sw0", "p2", "--", "lsp-add", "sw0", "gone")
	s.nbctl(t, "ls-add", "sw1", "--", "lr-add", "lr0", "--", "lrp-add", "lr0", "lrp0", "0a:00:00:00:00:ff", "10.0.0.254/24", "fd00::1/64")
	s.nbctl(t, "set", "Logical_Switch", "sw0", "external_ids:b=0", "external_ids:c=0")
	// The snapshot ovsdb-server writes when it compacts is followed by diffs.
	run(t, "ovs-appctl", "-t", filepath.Join(filepath.Dir(s.sock), "ctl"), "ovsdb-server/compact")
	s.nbctl(t, "lsp-set-addresses", "p1", "0a:00:00:00:00:02 10.0.0.2", "unknown", "router")
	s.nbctl(t, "lsp-set-addresses", "p1", "0a:00:00:00:00:02 10.0.0.2", "dynamic")
	s.nbctl(t, "set", "Logical_Switch", "sw0", "other_config:subnet=10.0.0.0/24", "external_ids:a=1", "external_ids:b=2")
	s.nbctl(t, "set", "Logical_Switch", "sw0", "external_ids:a=3")
	s.nbctl(t, "remove", "Logical_Switch", "sw0", "external_ids", "b")
	s.nbctl(t, "set", "Logical_Switch_Port", "p2", "tag_request=7", "enabled=false", "type=localnet", "options:network_name=phys")
	s.nbctl(t, "lsp-del", "gone")
	s.nbctl(t, "ls-del", "sw1")
	s.nbctl(t, "acl-add", "sw0", "from-lport", "1001", "ip4 && tcp.dst == 22", "drop")
	s.nbctl(t, "lr-route-add", "lr0", "0.0.0.0/0", "10.0.0.1")
	s.nbctl(t, "clear", "Logical_Switch_Port", "p2", "tag_request")
	s.nbctl(t, "set", "Logical_Switch_Port", "p2", "enabled=true")
	s.nbctl(t, "lsp-add", "sw0", "p3", "--", "lsp-set-port-security", "p3", "0a:00:00:00:00:03 10.0.0.3")
	s.nbctl(t, "--", "--id=@g", "create", "Port_Group", "name=pg", "--", "add", "Port_Group", "pg", "ports", "@g")
	want := dumpModels(t, s)
	s.stop()

	got, err := LoadNB(file)
	if err != nil {
		t.Fatal(err)
	}
	if got.Warning != nil {
		t.Errorf("warning on an intact file: %v", got.Warning)
	}
	sameAsDump(t, want, got)
	if n := len(got.Tables["Logical_Switch_Port"]); n != 3 {
		t.Errorf("%d ports; want p1, p2, p3", n)
	}
	var seen []string
	for table, m := range got.All() {
		if table == "Logical_Switch" {
			seen = append(seen, m.(*nb.LogicalSwitch).Name)
		}
	}
	if !slices.Equal(seen, []string{"sw0"}) {
		t.Errorf("All() yields switches %v; want [sw0]", seen)
	}
}

// A file cut in the middle of its last record loads like ovsdb-server loads
// it: the records before it, with a warning.
func TestLoadNBTruncatedLastRecord(t *testing.T) {
	needOVN(t)
	file := newNB(t)
	s := startServer(t, file)
	s.nbctl(t, "init")
	s.nbctl(t, "ls-add", "sw0", "--", "lsp-add", "sw0", "p1")
	s.nbctl(t, "ls-add", "sw1", "--", "lsp-add", "sw1", "p2")
	s.stop()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	last := bytes.LastIndex(data, []byte("OVSDB JSON "))
	cut := filepath.Join(t.TempDir(), "cut.db")
	if err := os.WriteFile(cut, data[:last+(len(data)-last)/2], 0o644); err != nil {
		t.Fatal(err)
	}

	got, err := LoadNB(cut)
	if err != nil {
		t.Fatal(err)
	}
	if got.Warning == nil || !strings.Contains(got.Warning.Error(), "cut short") {
		t.Errorf("warning %v; want one about the record cut short", got.Warning)
	}
	// ovsdb-server opens the same file (it truncates a copy of it).
	served := filepath.Join(t.TempDir(), "served.db")
	if err := os.WriteFile(served, data[:last+(len(data)-last)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	want := dumpModels(t, startServer(t, served))
	sameAsDump(t, want, got)
	if n := len(got.Tables["Logical_Switch"]); n != 1 {
		t.Errorf("%d switches; want only sw0", n)
	}
}

func TestReadDatabaseFileErrors(t *testing.T) {
	needOVN(t)
	dir := t.TempDir()
	clustered := filepath.Join(dir, "clustered.db")
	run(t, "ovsdb-tool", "create-cluster", clustered, nbSchemaFile, "unix:"+filepath.Join(dir, "raft.sock"))
	sb := filepath.Join(dir, "sb.db")
	run(t, "ovsdb-tool", "create", sb, "/usr/share/ovn/ovn-sb.ovsschema")
	text := filepath.Join(dir, "text.db")
	if err := os.WriteFile(text, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ file, want string }{
		{clustered, "ovsdb-tool cluster-to-standalone"},
		{text, "not an OVSDB database file"},
		{empty, "not an OVSDB database file"},
		{sb, "a OVN_Southbound database, not OVN_Northbound"},
		{filepath.Join(dir, "absent.db"), "no such file"},
	} {
		_, err := LoadNB(tt.file)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadNB(%s) = %v; want an error containing %q", filepath.Base(tt.file), err, tt.want)
		}
	}
	// The conversion the error names gives a file LoadNB reads.
	standalone := filepath.Join(dir, "standalone.db")
	run(t, "ovsdb-tool", "cluster-to-standalone", standalone, clustered)
	if _, err := LoadNB(standalone); err != nil {
		t.Errorf("LoadNB(converted clustered file): %v", err)
	}
	if db, err := ReadDatabaseFile(sb); err != nil || db.Schema.Name != "OVN_Southbound" || len(db.Tables["SB_Global"]) != 0 {
		t.Errorf("ReadDatabaseFile(sb.db) = %v, %v; want an empty OVN_Southbound", db, err)
	}
}

// testdata/tiny.db holds transactions on testdata/tiny.ovsschema that
// exercise every kind of column: inserts, mutations and updates of scalar,
// optional, set and map columns, and a delete. testdata/tiny.dump is what
// ovsdb-client dump read from ovsdb-server serving that file (see
// testdata/make-tiny.sh); decoded with libovsdb's own row decoder, it must
// equal the rows ReadDatabaseFile replays.
func TestReadDatabaseFileDiffs(t *testing.T) {
	db, err := ReadDatabaseFile("testdata/tiny.db")
	if err != nil {
		t.Fatal(err)
	}
	dump, err := os.ReadFile("testdata/tiny.dump")
	if err != nil {
		t.Fatal(err)
	}
	want := dumpRows(t, db.Schema, dump)
	if len(want["T"]) != 2 {
		t.Fatalf("dump has %d rows; want 2", len(want["T"]))
	}
	if d := cmp.Diff(want, db.Tables); d != "" {
		t.Errorf("rows differ from ovsdb-server's (-server +ReadDatabaseFile):\n%s", d)
	}
}

// dumpRows reads the output of `ovsdb-client -f json dump` with libovsdb's
// own row decoder, in the form ReadDatabaseFile gives rows.
func dumpRows(t *testing.T, schema lovsdb.DatabaseSchema, dump []byte) map[string]map[string]lovsdb.Row {
	t.Helper()
	tables := map[string]map[string]lovsdb.Row{}
	for line := range strings.Lines(string(dump)) {
		var tbl struct {
			Caption  string              `json:"caption"`
			Headings []string            `json:"headings"`
			Data     [][]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &tbl); err != nil {
			t.Fatal(err)
		}
		name := strings.Fields(tbl.Caption)[0]
		ts := schema.Table(name)
		tables[name] = map[string]lovsdb.Row{}
		for _, cells := range tbl.Data {
			obj := map[string]json.RawMessage{}
			for k, h := range tbl.Headings {
				obj[h] = cells[k]
			}
			var u lovsdb.UUID
			if err := json.Unmarshal(obj["_uuid"], &u); err != nil {
				t.Fatal(err)
			}
			delete(obj, "_uuid")
			delete(obj, "_version")
			b, _ := json.Marshal(obj)
			var row lovsdb.Row
			if err := json.Unmarshal(b, &row); err != nil {
				t.Fatal(err)
			}
			for c, v := range row {
				row[c] = normalize(ts.Columns[c].TypeObj, v)
			}
			tables[name][u.GoUUID] = row
		}
	}
	return tables
}

// appendRecord appends a record holding body, with its header, to data.
func appendRecord(data []byte, body string) []byte {
	body += "\n"
	return fmt.Appendf(data, "OVSDB JSON %d %x\n%s", len(body), sha1.Sum([]byte(body)), body)
}

// A transaction that does not fit the schema is skipped whole, and the ones
// after it apply, as ovsdb-server 3.1 does: it logs "syntax ... unknown
// column" and serves the rest.
func TestReadDatabaseFileSkipsBadTransaction(t *testing.T) {
	needOVN(t)
	data, err := os.ReadFile("testdata/tiny.db")
	if err != nil {
		t.Fatal(err)
	}
	const a = "aa6c4f40-8bba-4e7a-9e99-0abff3e2223c"
	data = appendRecord(data, `{"T":{"`+a+`":{"s":"partial","nosuch":1}},"_is_diff":true}`)
	data = appendRecord(data, `{"T":{"`+a+`":{"i":42}},"_is_diff":true}`)
	file := filepath.Join(t.TempDir(), "bad.db")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := ReadDatabaseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if db.Warning == nil || !strings.Contains(db.Warning.Error(), `unknown column "nosuch"`) {
		t.Errorf("warning %v; want one about the unknown column", db.Warning)
	}
	if row := db.Tables["T"][a]; row["s"] != "a" || row["i"] != 42 {
		t.Errorf("row a has s=%v i=%v; want the bad transaction skipped (s=a) and the next applied (i=42)", row["s"], row["i"])
	}
	s := startServer(t, file)
	want := dumpRows(t, db.Schema, []byte(run(t, "ovsdb-client", "-f", "json", "dump", s.remote(), "Tiny")))
	if d := cmp.Diff(want, db.Tables); d != "" {
		t.Errorf("rows differ from ovsdb-server's (-server +ReadDatabaseFile):\n%s", d)
	}
}

// normalize turns a value as libovsdb decodes it from ovsdb-client's output
// into the form ReadDatabaseFile gives: integers as int, and a set column's
// single element or empty set as an OvsSet.
func normalize(ct *lovsdb.ColumnType, v any) any {
	atom := func(b *lovsdb.BaseType, a any) any {
		if f, ok := a.(float64); ok && b.Type == lovsdb.TypeInteger {
			return int(f)
		}
		return a
	}
	switch x := v.(type) {
	case lovsdb.OvsMap:
		m := map[any]any{}
		for k, e := range x.GoMap {
			m[atom(ct.Key, k)] = atom(ct.Value, e)
		}
		return lovsdb.OvsMap{GoMap: m}
	case lovsdb.OvsSet:
		set := []any{}
		for _, e := range x.GoSet {
			set = append(set, atom(ct.Key, e))
		}
		return lovsdb.OvsSet{GoSet: set}
	}
	if ct.Min() != 1 || ct.Max() != 1 {
		return lovsdb.OvsSet{GoSet: []any{atom(ct.Key, v)}}
	}
	return atom(ct.Key, v)
}

// dumpDatabase prints db's rows one per line, sorted, with the columns in
// name order and map pairs in key order.
func dumpDatabase(db *Database) string {
	var lines []string
	for table, rows := range db.Tables {
		for uuid, row := range rows {
			var b strings.Builder
			fmt.Fprintf(&b, "%s %s", table, uuid)
			for _, c := range slices.Sorted(maps.Keys(row)) {
				fmt.Fprintf(&b, " %s=%s", c, formatDatum(row[c]))
			}
			lines = append(lines, b.String())
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

func formatDatum(v any) string {
	switch x := v.(type) {
	case lovsdb.OvsMap:
		keys := slices.SortedFunc(maps.Keys(x.GoMap), compareAtoms)
		pairs := make([]string, len(keys))
		for k, key := range keys {
			pairs[k] = fmt.Sprintf("%v=%v", key, x.GoMap[key])
		}
		return "{" + strings.Join(pairs, ",") + "}"
	case lovsdb.OvsSet:
		return fmt.Sprint(x.GoSet)
	}
	return fmt.Sprintf("%v", v)
}

// The reader's damage handling on hand-made files: a record is used only
// when its header, length, checksum and JSON are all intact.
func TestReadDatabaseFileDamage(t *testing.T) {
	good, err := os.ReadFile("testdata/tiny.db")
	if err != nil {
		t.Fatal(err)
	}
	full, err := readDatabase(bufio.NewReader(bytes.NewReader(good)))
	if err != nil || full.Warning != nil {
		t.Fatalf("intact file: %v, %v", err, full.Warning)
	}
	lastRec := bytes.LastIndex(good, []byte("OVSDB JSON "))
	for _, tt := range []struct {
		name string
		data []byte
		warn string
	}{
		{"header cut", good[:lastRec+5], "header cut short"},
		{"body cut", good[:len(good)-3], "cut short"},
		{"checksum", flipLastByte(good), "checksum"},
		{"junk after", append(slices.Clone(good), "garbage\n"...), "bad record header"},
	} {
		db, err := readDatabase(bufio.NewReader(bytes.NewReader(tt.data)))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if db.Warning == nil || !strings.Contains(db.Warning.Error(), tt.warn) {
			t.Errorf("%s: warning %v; want %q", tt.name, db.Warning, tt.warn)
		}
		if tt.name == "junk after" {
			if dumpDatabase(db) != dumpDatabase(full) {
				t.Errorf("%s: rows differ from the intact file's", tt.name)
			}
		} else if dumpDatabase(db) == dumpDatabase(full) {
			t.Errorf("%s: the damaged last record was applied", tt.name)
		}
	}
}

func flipLastByte(b []byte) []byte {
	c := slices.Clone(b)
	c[len(c)-2] ^= 1
	return c
}

func FuzzReadDatabaseFile(f *testing.F) {
	tiny, err := os.ReadFile("testdata/tiny.db")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tiny)
	f.Add([]byte("OVSDB JSON 2 7d33fb6b9ad7bf93c8cba4b4d4c9e4cd7b2bc3d2\n{}"))
	f.Add([]byte("OVSDB CLUSTER 3 4ab4ed5c44cd9a3fbfc4c4e2a1b1b7bd12d97f1a\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := readDatabase(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		for table, rows := range db.Tables {
			ts := db.Schema.Table(table)
			for uuid, row := range rows {
				if !wire.IsUUID(uuid) || len(row) != len(ts.Columns) {
					t.Fatalf("table %s row %q has %d of %d columns", table, uuid, len(row), len(ts.Columns))
				}
				for name, v := range row {
					checkDatum(t, ts.Columns[name].TypeObj, v)
				}
			}
		}
		again, err := readDatabase(bufio.NewReader(bytes.NewReader(data)))
		if err != nil || dumpDatabase(again) != dumpDatabase(db) {
			t.Fatalf("second read differs: %v", err)
		}
	})
}

// checkDatum fails unless v is a valid value of column type ct.
func checkDatum(t *testing.T, ct *lovsdb.ColumnType, v any) {
	t.Helper()
	size := 1
	switch x := v.(type) {
	case lovsdb.OvsMap:
		if ct.Value == nil {
			t.Fatalf("map %v in a non-map column", x)
		}
		size = len(x.GoMap)
	case lovsdb.OvsSet:
		if ct.Value != nil || ct.Min() == 1 && ct.Max() == 1 {
			t.Fatalf("set %v in a map or scalar column", x)
		}
		size = len(x.GoSet)
		if !slices.IsSortedFunc(x.GoSet, compareAtoms) {
			t.Fatalf("set %v not sorted", x)
		}
	default:
		if ct.Min() != 1 || ct.Max() != 1 {
			t.Fatalf("atom %v in a set or map column", x)
		}
	}
	if size < ct.Min() || ct.Max() != lovsdb.Unlimited && size > ct.Max() {
		t.Fatalf("%v: %d values outside [%d, %d]", v, size, ct.Min(), ct.Max())
	}
}

// BenchmarkLoadNB reads an NB file of 50k rows written by ovsdb-server: 500
// switches of 99 ports each, every port with addresses and options.
func BenchmarkLoadNB(b *testing.B) {
	needOVN(b)
	file := newNB(b)
	s := startServer(b, file)
	conn, err := net.Dial("unix", s.sock)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	enc, dec := json.NewEncoder(conn), json.NewDecoder(conn)
	for batch := range 10 {
		ops := []any{"OVN_Northbound"}
		for sw := batch * 50; sw < (batch+1)*50; sw++ {
			var ports []any
			for p := range 99 {
				name := fmt.Sprintf("p%d_%d", sw, p)
				ports = append(ports, []string{"named-uuid", name})
				ops = append(ops, map[string]any{"op": "insert", "table": "Logical_Switch_Port", "uuid-name": name,
					"row": map[string]any{"name": name,
						"addresses": fmt.Sprintf("0a:00:00:%02x:%02x:%02x 10.%d.%d.%d", sw>>8, sw&255, p, sw>>8, sw&255, p+1),
						"options":   []any{"map", [][]string{{"requested-chassis", "hv1"}}}}})
			}
			ops = append(ops, map[string]any{"op": "insert", "table": "Logical_Switch",
				"row": map[string]any{"name": fmt.Sprintf("sw%d", sw), "ports": []any{"set", ports}}})
		}
		if err := enc.Encode(map[string]any{"method": "transact", "params": ops, "id": batch}); err != nil {
			b.Fatal(err)
		}
		var reply struct {
			Result []map[string]any `json:"result"`
			Error  any              `json:"error"`
		}
		if err := dec.Decode(&reply); err != nil || reply.Error != nil {
			b.Fatalf("transact: %v %v", err, reply.Error)
		}
		for _, r := range reply.Result {
			if r["error"] != nil {
				b.Fatalf("transact: %v", r)
			}
		}
	}
	s.stop()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.ResetTimer()
	start := cpu()
	for b.Loop() {
		c, err := LoadNB(file)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(c.Tables["Logical_Switch_Port"]) + len(c.Tables["Logical_Switch"]); n != 50000 {
			b.Fatalf("%d rows", n)
		}
	}
	// CPU time beside wall time: on a shared machine the two differ.
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/load")
	b.ReportMetric(float64((cpu()-start).Milliseconds())/float64(b.N), "cpu-ms/load")
}

// errors.Is must see through the path prefix ReadDatabaseFile adds.
func TestReadDatabaseFileMissing(t *testing.T) {
	_, err := ReadDatabaseFile(filepath.Join(t.TempDir(), "none.db"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err %v; want os.ErrNotExist", err)
	}
}
