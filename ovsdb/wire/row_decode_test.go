package wire

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
	"github.com/ovn-org/libovsdb/updates"
)

// TestRowDecoder: the row decoders read every NB and SB table's rows as
// libovsdb's generic path does, in every notation ovsdb-server uses: each
// column as a bare atom, as a set or map of none, one or two elements.
func TestRowDecoder(t *testing.T) {
	const u1 = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01"
	eachTable(t, func(dbModel model.DatabaseModel, table string, ts lovsdb.TableSchema, dec *rowDecoder) {
		for n := range 3 {
			row := notationRow(ts, n)
			got, err := dec.decode([]byte(row), u1, nil)
			if err != nil {
				t.Errorf("%s: %v", row, err)
				continue
			}
			var r lovsdb.Row
			if err := json.Unmarshal([]byte(row), &r); err != nil {
				t.Fatal(err)
			}
			want, err := model.CreateModel(dbModel, table, &r, u1)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s %s: row decoder differs (-libovsdb +ours):\n%s", table, row, d)
			}
		}
	})
	dec, _ := newRowDecoder(reflect.TypeFor[*sb.LogicalFlow]())
	for _, bad := range []string{
		`{"logical_datapath":["set",[["uuid","a"],["uuid","b"]]]}`,
		`{"external_ids":["set",[]]}`,
		`{"external_ids":["map",[["a"]]]}`,
		`{"match":["set",["a"]]}`,
		`{"table_id":"1"}`,
	} {
		if _, err := dec.decode([]byte(bad), u1, nil); err == nil {
			t.Errorf("%s: decoded", bad)
		}
	}
}

// TestKnownStrings: a decoded string equal to a known one is that one,
// escaped in JSON or not; others are decoded. The strings of columns not
// monitored are not known.
func TestKnownStrings(t *testing.T) {
	match, actions := strings.Clone(`inport == "p1"`), strings.Clone("next;")
	known := addInserted(nil, &lovsdb.Operation{
		Op: lovsdb.OperationInsert, Table: sb.LogicalFlowTable, Row: lovsdb.Row{"match": match, "actions": actions,
			"flow_desc": "d", "external_ids": lovsdb.OvsMap{GoMap: map[any]any{"stage-hint": "h"}}}},
		map[string]bool{"flow_desc": true, "external_ids": true})
	if len(known) != 2 {
		t.Errorf("known strings %v, want the match and actions alone", known)
	}
	dec, _ := newRowDecoder(reflect.TypeFor[*sb.LogicalFlow]())
	m, err := dec.decode([]byte(`{"match":"inport == \"p1\"","actions":"next;","pipeline":"ingress"}`), "u", &knownStrings{sent: known})
	if err != nil {
		t.Fatal(err)
	}
	f := m.(*sb.LogicalFlow)
	if unsafe.StringData(f.Match) != unsafe.StringData(match) || unsafe.StringData(f.Actions) != unsafe.StringData(actions) {
		t.Errorf("match %q, actions %q: copies of the known strings", f.Match, f.Actions)
	}
	if f.Pipeline != "ingress" {
		t.Errorf("pipeline %q", f.Pipeline)
	}
}

// TestUUIDsShared: the uuid atoms decoded in one update are held once,
// whichever rows refer to them.
func TestUUIDsShared(t *testing.T) {
	dec, _ := newRowDecoder(reflect.TypeFor[*sb.LogicalFlow]())
	known := &knownStrings{}
	const dp = `"f0d4c4b0-2a4c-4e4e-9f3b-5d7e8a1b2c3d"`
	var flows []*sb.LogicalFlow
	for _, u := range []string{"u1", "u2"} {
		m, err := dec.decode([]byte(`{"logical_datapath":["uuid",`+dp+`],"match":"1","actions":"next;"}`), u, known)
		if err != nil {
			t.Fatal(err)
		}
		flows = append(flows, m.(*sb.LogicalFlow))
	}
	a, b := flows[0].LogicalDatapath, flows[1].LogicalDatapath
	if a == nil || b == nil || *a != dp[1:len(dp)-1] || *b != *a {
		t.Fatalf("logical_datapath %v, %v", a, b)
	}
	if unsafe.StringData(*a) != unsafe.StringData(*b) {
		t.Error("two rows' equal uuid atoms are two copies")
	}
}

// notationRow is a row of every column of ts, plus one no model has, in
// notation n: 0 sets and maps of one element, a set's one element bare; 1
// of none (of one where the column needs one); 2 of two.
func notationRow(ts lovsdb.TableSchema, n int) string {
	cols := []string{`"no_such_column":1`}
	for name, c := range ts.Columns {
		key := atomNotation(c.TypeObj.Key, 0)
		var v string
		switch {
		case c.Type == lovsdb.TypeMap:
			pair := func(i int) string {
				return "[" + atomNotation(c.TypeObj.Key, i) + "," + atomNotation(c.TypeObj.Value, i) + "]"
			}
			v = [...]string{`["map",[` + pair(0) + `]]`, `["map",[]]`, `["map",[` + pair(0) + "," + pair(1) + `]]`}[n]
		case c.Type != lovsdb.TypeSet:
			v = key
		case n == 0:
			v = key
		case n == 1 && c.TypeObj.Min() == 0:
			v = `["set",[]]`
		case n == 2 && c.TypeObj.Max() != 1:
			v = `["set",[` + key + "," + atomNotation(c.TypeObj.Key, 1) + `]]`
		default:
			v = `["set",[` + key + `]]`
		}
		cols = append(cols, strconv.Quote(name)+":"+v)
	}
	return "{" + strings.Join(cols, ",") + "}"
}

// atomNotation is the i-th value (0 or 1) of an atom of type bt.
func atomNotation(bt *lovsdb.BaseType, i int) string {
	if len(bt.Enum) > i {
		b, _ := json.Marshal(bt.Enum[i])
		return string(b)
	}
	switch bt.Type {
	case lovsdb.TypeUUID:
		return `["uuid","6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e0` + strconv.Itoa(2+i) + `"]`
	case lovsdb.TypeInteger:
		return strconv.Itoa(7 + i)
	case lovsdb.TypeBoolean:
		return strconv.FormatBool(i == 0)
	case lovsdb.TypeReal:
		return strconv.Itoa(2+i) + ".5"
	}
	return [...]string{`"a\"b\\c\/d\u00e9\n"`, `"k2"`}[i]
}

// FuzzDecodeString: decodeString decodes what encoding/json decodes, and
// fails where it fails.
func FuzzDecodeString(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\"b\\c\/d\ne\tf"`, `"\u00e9\ud83d\ude00"`, `"\x"`, `"a\"`, `"\xff"`, `"é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, q []byte) {
		end, err := valueEnd(q, 0)
		if err != nil || end != len(q) || q[0] != '"' {
			return // decodeString takes whole string values, as walkObject gives them
		}
		got, gerr := decodeString(q, nil)
		var want string
		werr := json.Unmarshal(q, &want)
		if (gerr == nil) != (werr == nil) || got != want {
			t.Errorf("decodeString(%q) = %q, %v; encoding/json: %q, %v", q, got, gerr, want, werr)
		}
	})
}

// BenchmarkRowDecode decodes a Port_Binding row as the bench topology's SB
// echoes them: with the row decoder, alone (a row's own update) and as one
// of the rows of an update that share the datapath uuid (a cold start's),
// and through libovsdb's generic path it replaces (encoding/json into a
// row update, then the model).
func BenchmarkRowDecode(b *testing.B) {
	const u = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01"
	row := `{"logical_port":"default_pod-17-42","datapath":["uuid","9f6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e07"],` +
		`"tunnel_key":43,"mac":"0a:58:0a:11:00:2c 10.17.0.44","port_security":"0a:58:0a:11:00:2c 10.17.0.44",` +
		`"options":["map",[["requested-chassis","node-17"],["iface-id-ver","pod-17-42"]]],` +
		`"external_ids":["map",[["neutron:port_name","pod-17-42"]]],"up":false}`
	dbModel, err := NewModel(sb.Schema(), sb.FullDatabaseModel)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("rowDecoder", func(b *testing.B) {
		dec, _ := newRowDecoder(reflect.TypeFor[*sb.PortBinding]())
		b.ReportAllocs()
		for b.Loop() {
			if _, err := dec.decode([]byte(row), u, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rowDecoder/update", func(b *testing.B) {
		dec, _ := newRowDecoder(reflect.TypeFor[*sb.PortBinding]())
		known := &knownStrings{}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := dec.decode([]byte(row), u, known); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("libovsdb", func(b *testing.B) {
		update := []byte(`{"insert":` + row + `}`)
		b.ReportAllocs()
		for b.Loop() {
			var mu updates.ModelUpdates
			var ru lovsdb.RowUpdate2
			if err := json.Unmarshal(update, &ru); err != nil {
				b.Fatal(err)
			}
			if err := mu.AddRowUpdate2(dbModel, sb.PortBindingTable, u, nil, ru); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRowModify: the row decoders apply an update2 "modify" of any NB and
// SB table's column as libovsdb's update arithmetic does (up to the order
// of a set's elements): a column of at most one value takes its new value
// (ovsdb_datum_diff gives it), a set or a map the elements that went or
// came; old rows are left as they were.
func TestRowModify(t *testing.T) {
	const u1 = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01"
	anyOrder := cmpopts.SortSlices(func(a, b any) bool { return fmt.Sprint(a) < fmt.Sprint(b) })
	eachTable(t, func(dbModel model.DatabaseModel, table string, ts lovsdb.TableSchema, dec *rowDecoder) {
		for n := range 3 {
			old, err := dec.decode([]byte(notationRow(ts, n)), u1, nil)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := dec.decode([]byte(notationRow(ts, n)), u1, nil)
			for name, c := range ts.Columns {
				k0, k1 := atomNotation(c.TypeObj.Key, 0), atomNotation(c.TypeObj.Key, 1)
				diffs := []string{k1}
				switch {
				case c.Type == lovsdb.TypeMap:
					v0, v1 := atomNotation(c.TypeObj.Value, 0), atomNotation(c.TypeObj.Value, 1)
					diffs = []string{`["map",[[` + k0 + `,` + v0 + `]]]`, `["map",[[` + k0 + `,` + v1 + `],[` + k1 + `,` + v1 + `]]]`}
				case c.Type == lovsdb.TypeSet && c.TypeObj.Max() != 1:
					diffs = []string{k1, `["set",[` + k0 + `,` + k1 + `]]`}
				case c.Type == lovsdb.TypeSet && c.TypeObj.Min() == 0 && n != 1:
					diffs = append(diffs, `["set",[]]`)
				}
				for _, diff := range diffs {
					row := `{` + strconv.Quote(name) + `:` + diff + `}`
					got, _, cols, ok, err := dec.modify(old, []byte(row), nil)
					if err != nil || !ok {
						t.Errorf("%s %s on row %d: applied %v, %v", table, row, n, ok, err)
						continue
					}
					var r lovsdb.Row
					if err := json.Unmarshal([]byte(row), &r); err != nil {
						t.Fatal(err)
					}
					var mu updates.ModelUpdates
					if err := mu.AddRowUpdate2(dbModel, table, u1, old, lovsdb.RowUpdate2{Modify: &r}); err != nil {
						t.Fatalf("%s %s: libovsdb: %v", table, row, err)
					}
					want := mu.GetModel(table, u1)
					if d := cmp.Diff(want, got, anyOrder, cmpopts.EquateEmpty()); d != "" {
						t.Errorf("%s %s on row %d: modify differs (-libovsdb +ours):\n%s", table, row, n, d)
					}
					if !slices.Equal(cols, []string{name}) {
						t.Errorf("%s %s on row %d: columns changed %v", table, row, n, cols)
					}
				}
			}
			if d := cmp.Diff(before, old); d != "" {
				t.Errorf("%s row %d: modified in place:\n%s", table, n, d)
			}
		}
	})
}

// TestRowModifySet: a set's elements come at their place in the server's
// order and go from where they are, the rest kept in theirs; the change's
// diff is each column changed, a set as its elements toggled.
func TestRowModifySet(t *testing.T) {
	dec, _ := newRowDecoder(reflect.TypeFor[*sb.MulticastGroup]())
	p := func(i int) string { return fmt.Sprintf("6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e%02d", i) }
	ref := func(i int) string { return `["uuid","` + p(i) + `"]` }
	old := &sb.MulticastGroup{UUID: p(0), Name: "_MC_flood", TunnelKey: 32768, Ports: []string{p(2), p(4), p(6)}}
	for _, tc := range []struct {
		diff  string
		ports []string
		elems []string
	}{
		{`{"ports":` + ref(5) + `}`, []string{p(2), p(4), p(5), p(6)}, []string{p(5)}},
		{`{"ports":` + ref(1) + `}`, []string{p(1), p(2), p(4), p(6)}, []string{p(1)}},
		{`{"ports":` + ref(7) + `,"tunnel_key":32769}`, []string{p(2), p(4), p(6), p(7)}, []string{p(7)}},
		{`{"ports":["set",[` + ref(4) + `,` + ref(3) + `,` + ref(6) + `]]}`, []string{p(2), p(3)}, []string{p(4), p(3), p(6)}},
	} {
		m, diff, cols, ok, err := dec.modify(old, []byte(tc.diff), nil)
		if err != nil || !ok {
			t.Fatalf("%s: %v, %v", tc.diff, ok, err)
		}
		if got := m.(*sb.MulticastGroup).Ports; !slices.Equal(got, tc.ports) {
			t.Errorf("%s: ports %v, want %v", tc.diff, got, tc.ports)
		}
		if got, _ := diff["ports"].([]string); !slices.Equal(got, tc.elems) || strings.Contains(tc.diff, "tunnel_key") != (diff["tunnel_key"] == 32769) {
			t.Errorf("%s: diff %v", tc.diff, diff)
		}
		if want := slices.Sorted(maps.Keys(diff)); !slices.Equal(slices.Sorted(slices.Values(cols)), want) {
			t.Errorf("%s: columns %v, want %v", tc.diff, cols, want)
		}
	}
	if _, diff, cols, _, _ := dec.modify(old, []byte(`{"tunnel_key":1}`), nil); diff != nil || !slices.Equal(cols, []string{"tunnel_key"}) {
		t.Errorf("a modify of atoms alone has a diff %v, columns %v", diff, cols)
	}
}

// eachTable calls fn with each NB and SB table: the database model, the
// table's name and schema and its row decoder.
func eachTable(t *testing.T, fn func(dbModel model.DatabaseModel, table string, ts lovsdb.TableSchema, dec *rowDecoder)) {
	t.Helper()
	for _, db := range []struct {
		schema lovsdb.DatabaseSchema
		client func() (model.ClientDBModel, error)
	}{{nb.Schema(), nb.FullDatabaseModel}, {sb.Schema(), sb.FullDatabaseModel}} {
		dbModel, err := NewModel(db.schema, db.client)
		if err != nil {
			t.Fatal(err)
		}
		for table, ts := range db.schema.Tables {
			dec, ok := newRowDecoder(dbModel.Types()[table])
			if !ok {
				t.Errorf("%s: no row decoder", table)
				continue
			}
			fn(dbModel, table, ts, dec)
		}
	}
}

// fullModel is the database model of every table of schema, from its
// client model.
