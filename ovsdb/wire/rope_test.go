package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ropeOf splits msg into parts of size bytes, the first read and the
// rest read as the rope's walks reach them, as frameReader hands out a
// large message.
func ropeOf(msg string, size int) *rope {
	var parts [][]byte
	for len(msg) > size {
		parts = append(parts, []byte(msg[:size]))
		msg = msg[size:]
	}
	parts = append(parts, []byte(msg))
	r := &rope{parts: parts[:1]}
	if len(parts) > 1 {
		next := 1
		r.more = func() ([]byte, bool, error) {
			next++
			return parts[next-1], next == len(parts), nil
		}
	}
	return r
}

// updatesMessage is an update2 notification of n rows in two tables, with
// strings that hold escapes and brackets.
func updatesMessage(n int) string {
	var rows [2][]string
	for i := range n {
		rows[i%2] = append(rows[i%2], fmt.Sprintf(`"u%d": {"insert":{"match":"a\"]}%d\\","n":%d,"s":["set",[true,false]]}}`, i, i, i))
	}
	return fmt.Sprintf(` {"params":[null , {"T1":{%s},"T2":{%s}}],"id":null,"method":"update2"}`,
		strings.Join(rows[0], ","), strings.Join(rows[1], " , "))
}

type rowSeen struct{ Table, UUID, Row string }

// TestRopeEachRow: walked in place, a message read in parts of any size
// gives the rows that its params give walked in one buffer, and the parts
// behind each row handed over are dropped.
func TestRopeEachRow(t *testing.T) {
	msg := updatesMessage(50)
	var want []rowSeen
	params, err := ParseMessage([]byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	tu, err := parseUpdate2(params.Params)
	if err != nil {
		t.Fatal(err)
	}
	if err := tu.each(func(table, uuid string, ru []byte) error {
		want = append(want, rowSeen{table, uuid, string(ru)})
		return nil
	}); err != nil || len(want) != 50 {
		t.Fatalf("%d rows, %v", len(want), err)
	}
	for _, size := range []int{1, 2, 3, 7, 64, 1000, len(msg)} {
		r := ropeOf(msg, size)
		m, err := parseRopeMessage(r, nil)
		if err != nil || m.Method != "update2" || string(m.ID) != "null" || !m.hasParams {
			t.Fatalf("size %d: message %+v, %v", size, m, err)
		}
		at, err := r.secondElement(m.params)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		var got []rowSeen
		if err := (rawUpdates{r: r, at: at}).each(func(table, uuid string, ru []byte) error {
			got = append(got, rowSeen{table, uuid, string(ru)})
			return nil
		}); err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("size %d (-one buffer +parts):\n%s", size, d)
		}
		if size < len(msg)/4 && r.parts[len(r.parts)/2] != nil {
			t.Errorf("size %d: the parts behind the rows are kept", size)
		}
	}
	for _, bad := range []string{msg[:len(msg)-20], strings.Replace(msg, `"u3": {`, `"u3" {`, 1), strings.Replace(msg, `"T2":{`, `"T2":[`, 1)} {
		r := ropeOf(bad, 5)
		m, err := parseRopeMessage(r, nil)
		if err == nil {
			var at ropePos
			if at, err = r.secondElement(m.params); err == nil {
				err = (rawUpdates{r: r, at: at}).each(func(string, string, []byte) error { return nil })
			}
		}
		if err == nil {
			t.Errorf("%.40q...: no error", bad[len(bad)-40:])
		}
	}
}

// TestRPCConnRope: a notification and a reply larger than the reader's
// buffer reach the rope handler and ropeDecode, other large messages
// their usual handler and decoder.
func TestRPCConnRope(t *testing.T) {
	client, server := net.Pipe()
	rows := func(r *rope, at ropePos) (n int, end ropePos, err error) {
		err = (rawUpdates{r: r, at: at, end: &end}).each(func(string, string, []byte) error {
			n++
			return nil
		})
		return n, end, err
	}
	notified := make(chan int, 1)
	plain := make(chan int, 1)
	c := newRPCConn(client, map[string]func([]byte) error{
		"other": func(params []byte) error {
			plain <- len(params)
			return nil
		},
	}, map[string]func(*rope, ropePos) (ropePos, error){
		"update2": func(r *rope, params ropePos) (ropePos, error) {
			at, err := r.secondElement(params)
			if err != nil {
				return at, err
			}
			n, end, err := rows(r, at)
			notified <- n
			if err != nil {
				return end, err
			}
			return r.closeArray(end)
		},
	})
	defer c.Close()
	const n = 5000 // about 450 kB
	msg := updatesMessage(n)
	go func() {
		server.Write([]byte(msg))
		server.Write([]byte(`{"method":"other","id":null,"params":["` + strings.Repeat("x", 200000) + `"]}`))
	}()
	if got := <-notified; got != n {
		t.Errorf("update2 in parts: %d rows, want %d", got, n)
	}
	if got := <-plain; got != 200004 {
		t.Errorf("other method in parts: params of %d bytes", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan int, 1)
	called := make(chan error, 1)
	go func() {
		called <- c.callRope(ctx, "monitor", nil, func([]byte) error {
			return errors.New("a large reply decoded in one buffer")
		}, func(r *rope, result ropePos) (ropePos, error) {
			n, end, err := rows(r, result)
			got <- n
			return end, err
		})
	}()
	srv := &frameReader{r: server}
	if _, err := nextWhole(srv); err != nil {
		t.Fatal(err)
	}
	reply := strings.Replace(strings.Replace(msg, `"params":[null , `, `"result":`, 1), `],"id":null,"method":"update2"}`, `,"id":1,"error":null}`, 1)
	server.Write([]byte(reply))
	if err := <-called; err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != n {
		t.Errorf("reply in parts: %d rows, want %d", g, n)
	}
}

// FuzzValueScan: a value read in pieces of any size ends where it ends
// read in one, or fails as it does there; a valid JSON text's value ends
// where encoding/json's does.
func FuzzValueScan(f *testing.F) {
	for _, s := range []string{` {"a":"]\"}","b":[1,{"c":[]}]} `, `"q\\\"x"`, `[1,"\\",{"k":"v"}]`, `12.5e3`, `true`,
		`{"a":[}`, `[1,2}`, `"abc`, `["x\`, `{"a":1}}`, `, 1`, `]`, ``, `   `} {
		for _, size := range []uint8{0, 1, 2, 4} {
			f.Add([]byte(s), size)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, size uint8) {
		want, wantErr := valueEnd(b, skipSpace(b, 0))
		r := ropeOf(string(b), int(size)+1)
		p, err := r.valueEnd(ropePos{})
		got := p.off
		for _, part := range r.parts[:min(p.part, len(r.parts))] {
			got += len(part)
		}
		if (err != nil) != (wantErr != nil) || err == nil && got != want {
			t.Errorf("%q in pieces of %d: end %d, %v; in one: %d, %v", b, size+1, got, err, want, wantErr)
		}
		if json.Valid(b) && (wantErr != nil || want != len(bytes.TrimRight(b, " \t\r\n"))) {
			t.Errorf("%q: end %d, %v; encoding/json's %d", b, want, wantErr, len(bytes.TrimRight(b, " \t\r\n")))
		}
	})
}

// TestRPCConnRopeWalkedAsRead: a notification read in parts whose method
// comes before its params, as ovsdb-server sends them, is walked as it is
// read: its first rows are handed over before its end has been read, and
// the walk holds at most two of its parts at a time.
func TestRPCConnRopeWalkedAsRead(t *testing.T) {
	client, server := net.Pipe()
	const n = 60000 // about 5 MB: parts of 64 kB to 4 MB
	type seen struct{ rows, parts, heldMost int }
	done := make(chan seen, 1)
	c := newRPCConn(client, nil, map[string]func(*rope, ropePos) (ropePos, error){
		"update2": func(r *rope, params ropePos) (ropePos, error) {
			at, err := r.secondElement(params)
			if err != nil {
				return at, err
			}
			var s seen
			end := ropePos{}
			err = (rawUpdates{r: r, at: at, end: &end}).each(func(string, string, []byte) error {
				if s.rows++; s.rows == 1 {
					s.parts = len(r.parts)
				}
				held := 0
				for _, p := range r.parts {
					if p != nil {
						held++
					}
				}
				s.heldMost = max(s.heldMost, held)
				return nil
			})
			done <- s
			if err != nil {
				return end, err
			}
			return r.closeArray(end)
		},
	})
	defer c.Close()
	msg := updatesMessage(n)
	at := strings.Index(msg, `"params"`)
	msg = `{"id":null,"method":"update2",` + strings.TrimSuffix(msg[at:], `,"id":null,"method":"update2"}`) + "}"
	go server.Write([]byte(msg))
	s := <-done
	switch {
	case s.rows != n:
		t.Errorf("%d rows, want %d", s.rows, n)
	case s.parts > 2:
		t.Errorf("the first row came after %d parts were read", s.parts)
	case s.heldMost > 2:
		t.Errorf("the walk held %d parts at once", s.heldMost)
	}
	// A reply whose id comes before its result, then one whose error
	// follows it.
	for _, tail := range []string{`,"error":null}`, `,"error":"e"}`} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rows := make(chan int, 1)
		called := make(chan error, 1)
		go func() {
			called <- c.callRope(ctx, "monitor", nil, func([]byte) error {
				return errors.New("a large reply decoded in one buffer")
			}, func(r *rope, result ropePos) (ropePos, error) {
				var end ropePos
				n := 0
				err := (rawUpdates{r: r, at: result, end: &end}).each(func(string, string, []byte) error {
					n++
					return nil
				})
				rows <- n
				return end, err
			})
		}()
		req, err := nextWhole(&frameReader{r: server})
		if err != nil {
			t.Fatal(err)
		}
		call, err := ParseMessage(req)
		if err != nil {
			t.Fatal(err)
		}
		at, err := (&rope{parts: [][]byte{[]byte(msg)}}).secondElement(ropePos{0, strings.Index(msg, "[")})
		if err != nil {
			t.Fatal(err)
		}
		end := strings.LastIndex(msg, "]")
		go server.Write([]byte(`{"id":` + string(call.ID) + `,"result":` + msg[at.off:end] + tail))
		err = <-called
		if got := <-rows; got != n || (err != nil) != (tail != `,"error":null}`) {
			t.Errorf("reply%s: %d rows, want %d; %v", tail, got, n, err)
		}
		cancel()
	}
}
