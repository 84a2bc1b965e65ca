package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// TestAppendJSONMatchesLibovsdb: the operations northd sends mean the same
// written by appendJSON as by libovsdb's MarshalJSON methods, but for an
// insert's empty sets and maps, which appendJSON leaves out.
func TestAppendJSONMatchesLibovsdb(t *testing.T) {
	const u = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01"
	zero, lock, comment, durable := 0, "ovn_northd", "c", true
	ops := []lovsdb.Operation{
		{Op: lovsdb.OperationInsert, Table: "Logical_Flow", UUIDName: "row1", Row: lovsdb.Row{
			"match": `ip4 && "a\"b" \ é` + "\x01\n\t\xff", "priority": 100, "pipeline": "ingress",
			"logical_datapath": lovsdb.OvsSet{GoSet: []any{lovsdb.UUID{GoUUID: u}}},
			"logical_dp_group": lovsdb.OvsSet{GoSet: []any{}},
			"external_ids":     lovsdb.OvsMap{GoMap: map[any]any{"stage-name": "ls_in_acl", "source": "northd.c:1"}},
			"tags":             lovsdb.OvsMap{GoMap: map[any]any{}},
			"ports":            lovsdb.OvsSet{GoSet: []any{lovsdb.UUID{GoUUID: "row2"}, lovsdb.UUID{GoUUID: u}}},
			"flag":             true,
		}},
		{Op: lovsdb.OperationUpdate, Table: "SB_Global", Row: lovsdb.Row{"nb_cfg": 7}, Where: WhereUUID(u)},
		{Op: lovsdb.OperationMutate, Table: "Multicast_Group", Where: WhereUUID(u), Mutations: []lovsdb.Mutation{
			{Column: "ports", Mutator: lovsdb.MutateOperationInsert, Value: lovsdb.OvsSet{GoSet: []any{lovsdb.UUID{GoUUID: u}}}},
			{Column: "ports", Mutator: lovsdb.MutateOperationDelete, Value: lovsdb.OvsSet{GoSet: []any{}}},
		}},
		{Op: lovsdb.OperationDelete, Table: "Logical_Flow", Where: WhereUUID(u)},
		{Op: lovsdb.OperationWait, Table: "NB_Global", Where: WhereUUID(u), Timeout: &zero, Columns: []string{"options"}, Until: "==",
			Rows: []lovsdb.Row{{"options": lovsdb.OvsMap{GoMap: map[any]any{"a": "b"}}}}},
		{Op: lovsdb.OperationWait, Table: "T", Timeout: &zero, Where: []lovsdb.Condition{}},
		{Op: lovsdb.OperationAssert, Lock: &lock},
		{Op: lovsdb.OperationSelect, Table: "T"},
		{Op: lovsdb.OperationComment, Comment: &comment},
		{Op: lovsdb.OperationCommit, Durable: &durable},
	}
	for _, op := range ops {
		// An insert's empty sets and maps are left out: the columns'
		// defaults.
		ref := op
		if op.Op == lovsdb.OperationInsert {
			ref.Row = maps.Clone(op.Row)
			maps.DeleteFunc(ref.Row, func(_ string, v any) bool { return isEmptyValue(v) })
		}
		want, err := json.Marshal(ref)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendJSON(nil, op)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(got) {
			t.Fatalf("invalid JSON: %s", got)
		}
		var w, g lovsdb.Operation
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(w, g); d != "" {
			t.Errorf("%s: appendJSON differs (-libovsdb +appendJSON):\n%s\n%s\n%s", op.Op, d, want, got)
		}
		var wa, ga any
		_ = json.Unmarshal(want, &wa)
		_ = json.Unmarshal(got, &ga)
		if op.Op != lovsdb.OperationInsert && !cmp.Equal(wa, ga) {
			t.Errorf("%s: differs as plain JSON:\n%s\n%s", op.Op, want, got)
		}
	}
}

// TestWalk: walkObject and walkArray find what encoding/json finds, and
// reject what it rejects at the levels they read.
func TestWalk(t *testing.T) {
	obj := ` { "a" : [1, {"x":"]}"}, "q\"\\"] , "k\"ey":"v\\" ,"n":null,"o":{}, "e":[] } `
	want := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(obj), &want); err != nil {
		t.Fatal(err)
	}
	got := map[string]json.RawMessage{}
	if err := walkObject([]byte(obj), func(k string, v []byte) error {
		got[k] = v
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("walkObject (-encoding/json +walk):\n%s", d)
	}
	var elems []string
	if err := walkArray(want["a"], func(e []byte) error {
		elems = append(elems, string(e))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{`1`, `{"x":"]}"}`, `"q\"\\"`}, elems); d != "" {
		t.Errorf("walkArray:\n%s", d)
	}
	for _, bad := range []string{``, `[`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a":[}`, `{"a":"x}`,
		`{"a":1}x`, `[1]`, `{1:2}`, `{"a":[1,2}`, `{"a":"\`} {
		if err := walkObject([]byte(bad), func(string, []byte) error { return nil }); err == nil {
			t.Errorf("walkObject(%q): no error", bad)
		}
	}
}

// FuzzWalkObject: on any input walkObject fails or agrees with
// encoding/json on a valid object; it never panics.
func FuzzWalkObject(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"\"","b":[{"c":"\\"}]}`, `{"a":[1,2,`, `{"\u0041":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := map[string]json.RawMessage{}
		err := walkObject(b, func(k string, v []byte) error {
			got[k] = v
			return nil
		})
		want := map[string]json.RawMessage{}
		if err == nil && json.Unmarshal(b, &want) == nil {
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%q (-encoding/json +walk):\n%s", b, d)
			}
		}
	})
}

// nextWhole is frameReader.next with a message read in parts joined.
func nextWhole(f *frameReader) ([]byte, error) {
	b, r, err := f.next()
	if r != nil && err == nil {
		b, err = r.join()
	}
	return b, err
}

// TestFrameReader: messages come out whole whatever the reads' sizes, a
// large message in the parts it was read into, and its buffer is not kept.
func TestFrameReader(t *testing.T) {
	big := `{"big":"` + strings.Repeat(`x\"`, 3<<20) + `"}`
	msgs := []string{`{"a":"}\\"}`, ` [1,{"b":[]}]`, "\n" + big, `{"c":"\u00e9 é"}`}
	stream := strings.Join(msgs, "")
	for name, r := range map[string]func() *frameReader{
		"whole":    func() *frameReader { return &frameReader{r: strings.NewReader(stream)} },
		"one byte": func() *frameReader { return &frameReader{r: iotest.OneByteReader(strings.NewReader(stream[:200]))} },
		"halves":   func() *frameReader { return &frameReader{r: iotest.HalfReader(strings.NewReader(stream))} },
	} {
		fr := r()
		for i, want := range msgs {
			if name == "one byte" && i == 2 {
				break
			}
			got, r, err := fr.next()
			if err != nil {
				t.Fatalf("%s: message %d: %v", name, i, err)
			}
			if (r != nil) != (i == 2) {
				t.Errorf("%s: message %d: read in parts %v", name, i, r != nil)
			}
			if r != nil {
				if got, err = r.join(); err != nil {
					t.Fatalf("%s: message %d: %v", name, i, err)
				}
			}
			if string(got) != want {
				t.Fatalf("%s: message %d: got %.60q, want %.60q", name, i, got, want)
			}
			if i == 3 && cap(fr.buf) > frameKeep {
				t.Errorf("%s: the buffer of a %d-byte message is kept", name, len(big))
			}
		}
	}
	fr := &frameReader{r: strings.NewReader(`{"a":[`)}
	if _, _, err := fr.next(); err == nil {
		t.Error("truncated message: no error")
	}
	fr = &frameReader{r: strings.NewReader(big[:len(big)-2])}
	if _, r, err := fr.next(); err != nil || r == nil {
		t.Errorf("truncated large message: %v before its first part is walked", err)
	} else if _, err := r.join(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated large message: %v", err)
	}
	fr = &frameReader{r: strings.NewReader(`x{}`)}
	if _, _, err := fr.next(); err == nil {
		t.Error("garbage: no error")
	}
}

// TestReadMessages: messages arriving a byte at a time, or larger than
// the read buffer, with brackets and escaped quotes inside strings and
// whitespace between them, come out whole, in order, and intact after the
// messages that follow them were read; a stream that holds something
// other than objects ends the read with an error, its end with none.
func TestReadMessages(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	stream := `{"method":"echo","params":["}{\"[]\\"],"id":1}` + "\n  " +
		`{"id":2,"result":{"a":[1,{"b":"]"}]},"error":null}{"method":"update","params":["` + big + `"],"id":null}` +
		` {"id":3,"result":[],"error":null}`
	want := []string{
		`echo ["}{\"[]\\"] 1  `,
		`  2 {"a":[1,{"b":"]"}]} null`,
		`update ["` + big + `"] null  `,
		`  3 [] null`,
	}
	for name, r := range map[string]io.Reader{
		"whole":            strings.NewReader(stream),
		"a byte at a time": iotest.OneByteReader(strings.NewReader(stream)),
	} {
		var msgs []Message
		err := ReadMessages(r, func(m Message) { msgs = append(msgs, m) })
		var got []string
		for _, m := range msgs {
			got = append(got, m.Method+" "+string(m.Params)+" "+string(m.ID)+" "+string(m.Result)+" "+string(m.Error))
		}
		if err != nil || !cmp.Equal(got, want) {
			t.Errorf("%s: err %v, messages differ: %s", name, err, cmp.Diff(want, got))
		}
	}
	for _, bad := range []string{`{"id":1} [1]`, `{"method":null,"id":1}`, `{"id":1`} {
		if err := ReadMessages(strings.NewReader(bad), func(Message) {}); err == nil {
			t.Errorf("%s: read to its end", bad)
		}
	}
}

// FuzzParseMessage: a message read in parts of any size has the members
// it has read in one buffer, or fails as it does there.
func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{`{"method":"update2","params":[null,{"T":{}}],"id":null}`, `{"id":7,"result":[{"count":1}],"error":null}`,
		` {"id" : "x", "error" : {"error":"e"} , "result":null}`, `{"method":"\u0065cho","id":[1]}`, `{"method":1}`, `{"id":1,"x":[}`, `[]`, `{}0`} {
		for _, size := range []uint8{0, 1, 3} {
			f.Add([]byte(s), size)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, size uint8) {
		want, wantErr := ParseMessage(b)
		r := ropeOf(string(b), int(size)+1)
		m, err := parseRopeMessage(r, nil)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q in pieces of %d: %v; in one: %v", b, size+1, err, wantErr)
		}
		if err != nil {
			return
		}
		member := func(has bool, p ropePos) []byte {
			if !has {
				return nil
			}
			end, err := r.valueEnd(p)
			if err != nil {
				t.Fatal(err)
			}
			p, _, _ = r.skipSpace(p)
			return r.slice(p, end)
		}
		m.Params, m.Result = member(m.hasParams, m.params), member(m.hasResult, m.result)
		if d := cmp.Diff(want, m.Message); d != "" {
			t.Errorf("%q in pieces of %d (-one buffer +parts):\n%s", b, size+1, d)
		}
	})
}

// TestRPCConn: against a scripted server, a call's reply comes after the
// notifications sent before it, echo is answered, a server error is the
// call's error, and a lost connection fails the calls waiting.
func TestRPCConn(t *testing.T) {
	client, server := net.Pipe()
	var seen []string
	c := newRPCConn(client, map[string]func([]byte) error{
		"update2": func(params []byte) error {
			seen = append(seen, string(params))
			return nil
		},
	}, nil)
	defer c.Close()
	srv := &frameReader{r: server}
	expect := func(want string) {
		t.Helper()
		b, err := nextWhole(srv)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Fatalf("server read %s, want %s", b, want)
		}
	}
	send := func(s string) {
		t.Helper()
		if _, err := server.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type result struct {
		reply []lovsdb.OperationResult
		err   error
	}
	res := make(chan result, 1)
	go func() {
		var r result
		r.err = c.Call(ctx, "transact", lovsdb.NewTransactArgs("DB", lovsdb.Operation{Op: lovsdb.OperationDelete, Table: "T", Where: WhereUUID("u")}), into(&r.reply))
		res <- r
	}()
	expect(`{"method":"transact","id":1,"params":["DB",{"op":"delete","table":"T","where":[["_uuid","==",["named-uuid","u"]]]}]}`)
	send(`{"method":"update2","params":[null,{"T":{}}],"id":null}`)
	send(`{"id":"echo","method":"echo","params":["x"]}`)
	expect(`{"id":"echo","result":["x"],"error":null}`)
	send(`{"id":1,"result":[{"count":1}],"error":null}`)
	r := <-res
	if r.err != nil || len(r.reply) != 1 || r.reply[0].Count != 1 {
		t.Fatalf("transact: %+v", r)
	}
	if fmt.Sprint(seen) != `[[null,{"T":{}}]]` {
		t.Errorf("notifications seen before the reply: %v", seen)
	}
	go func() { res <- result{err: c.Call(ctx, "get_schema", []any{"X"}, into(new(any)))} }()
	expect(`{"method":"get_schema","id":2,"params":["X"]}`)
	send(`{"id":2,"result":null,"error":{"error":"unknown database","details":"X"}}`)
	if r := <-res; r.err == nil || !strings.Contains(r.err.Error(), "unknown database") {
		t.Errorf("server error: %v", r.err)
	}
	go func() { res <- result{err: c.Call(ctx, "echo", nil, nil)} }()
	expect(`{"method":"echo","id":3,"params":[]}`)
	server.Close()
	if r := <-res; r.err != errClosed {
		t.Errorf("call on a lost connection: %v", r.err)
	}
	<-c.Done()
	if c.Err() == nil {
		t.Error("session ended without a reason")
	}
}
