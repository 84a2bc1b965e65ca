package wire

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/google/uuid"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// unkeptRow is what the test's Unkept makes of a row update.
type unkeptRow struct {
	whole   bool
	match   string
	ref     uuid.UUID
	hasRef  bool
	columns []string
}

func decodeUnkept(r Row, whole bool) (any, error) {
	u := &unkeptRow{whole: whole}
	err := r.Columns(func(col []byte, v Value) error {
		u.columns = append(u.columns, string(col))
		var err error
		switch string(col) {
		case "match":
			u.match, err = v.String()
		case "ref":
			var atom Value
			if atom, u.hasRef, err = v.Optional(); u.hasRef && err == nil {
				u.ref, err = atom.UUID()
			}
		}
		return err
	})
	return u, err
}

// TestUnkeptHandedOn: the row updates of a table the connection does not
// keep come as its Unkept decodes them, inserts and modifies alike, with
// the strings of a transaction in flight shared; deletes come with no
// update, even of a row never seen; they come apart from the changes of
// the tables kept, their uuids as 16 bytes; the connection keeps none of
// the rows, and a row that the Unkept cannot decode, or whose uuid is
// none, ends the connection.
func TestUnkeptHandedOn(t *testing.T) {
	const u1, u2, ref = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01", "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e02", "0b9f3a52-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
	c := &Conn{dbName: "db", opts: Options{Unkept: map[string]Unkept{"T": decodeUnkept}},
		rows: map[string]map[string]model.Model{}, ready: make(chan struct{}, 1), done: make(chan struct{})}
	match := strings.Clone(`inport == "p"`)
	known := addInserted(nil, &lovsdb.Operation{Op: lovsdb.OperationInsert, Table: "T", Row: lovsdb.Row{"match": match}}, nil)
	c.known.Store(&known)
	update := `{"T":{"` + u1 + `":{"insert":{"match":"inport == \"p\"","ref":["uuid","` + ref + `"],"x":1}},` +
		`"` + u2 + `":{"modify":{"ref":["set",[]]}}}}`
	if err := c.apply(rawUpdates{b: []byte(update)}, false); err != nil {
		t.Fatal(err)
	}
	c.known.Store(nil)
	if err := c.apply(rawUpdates{b: []byte(`{"T":{"` + u1 + `":{"delete":null},"` + u2 + `":{"delete":null}}}`)}, false); err != nil {
		t.Fatal(err)
	}
	bs, err := c.Take()
	if err != nil || len(bs) != 2 || len(bs[0].Unkept) != 2 || len(bs[1].Unkept) != 2 || len(bs[0].Changes)+len(bs[1].Changes) != 0 {
		t.Fatalf("batches %+v, %v", bs, err)
	}
	byUUID := map[string]UnkeptChange{}
	for _, ch := range bs[0].Unkept {
		if ch.Table != "T" {
			t.Errorf("change %+v: of table %s", ch, ch.Table)
		}
		byUUID[ch.UUID.String()] = ch
	}
	ins, _ := byUUID[u1].Update.(*unkeptRow)
	if ins == nil || !ins.whole || ins.match != match || !ins.hasRef || ins.ref != uuid.MustParse(ref) || len(ins.columns) != 3 {
		t.Errorf("insert %+v", ins)
	} else if unsafe.StringData(ins.match) != unsafe.StringData(match) {
		t.Errorf("match %q: a copy of the string sent", ins.match)
	}
	if mod, _ := byUUID[u2].Update.(*unkeptRow); mod == nil || mod.whole || mod.hasRef || len(mod.columns) != 1 {
		t.Errorf("modify %+v", mod)
	}
	for _, ch := range bs[1].Unkept {
		if ch.Update != nil {
			t.Errorf("delete %+v", ch)
		}
	}
	if len(c.rows["T"]) != 0 {
		t.Errorf("rows kept: %v", c.rows["T"])
	}
	for _, bad := range []string{`"` + u1 + `":{"insert":{"ref":["uuid","nope"]}}`, `"` + u1 + `":{"insert":{"match":1}}`, `"` + u1 + `":{"initial":3}`,
		`"` + u1 + `":{}`, `"row1":{"delete":null}`} {
		c := &Conn{dbName: "db", opts: c.opts, rows: map[string]map[string]model.Model{}, ready: make(chan struct{}, 1), done: make(chan struct{})}
		if err := c.apply(rawUpdates{b: []byte(`{"T":{` + bad + `}}`)}, false); err == nil {
			t.Errorf("%s: handed on", bad)
		}
	}
}
