package embedded

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// TestReadMessagesFramesStream: messages arriving a byte at a time, or
// larger than the read buffer, with brackets and escaped quotes inside
// strings and whitespace between them, come out whole and in order; a
// stream that holds something other than objects ends the read.
func TestReadMessagesFramesStream(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	stream := `{"method":"echo","params":["}{\"[]\\"],"id":1}` + "\n  " +
		`{"id":2,"result":{"a":[1,{"b":"]"}]},"error":null}{"method":"update","params":["` + big + `"],"id":null}`
	want := []string{
		`echo ["}{\"[]\\"] 1  `,
		`  2 {"a":[1,{"b":"]"}]} null`,
		`update ["` + big + `"] null  `,
	}
	for _, r := range []struct {
		name string
		r    io.Reader
	}{
		{"whole", strings.NewReader(stream)},
		{"a byte at a time", iotest.OneByteReader(strings.NewReader(stream))},
	} {
		var got []string
		err := readMessages(r.r, func(m *message) {
			got = append(got, m.Method+" "+string(m.Params)+" "+string(m.ID)+" "+string(m.Result)+" "+string(m.Error))
		})
		if err != nil || !cmp.Equal(got, want) {
			t.Errorf("%s: err %v, messages differ: %s", r.name, err, cmp.Diff(want, got))
		}
	}
	if err := readMessages(strings.NewReader(`{"id":1} [1]`), func(*message) {}); err == nil {
		t.Error("a stream with an array in it was read to its end")
	}
}
