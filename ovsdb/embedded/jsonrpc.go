package embedded

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync"
)

// message is one JSON-RPC 1.0 message as OVSDB uses it (RFC 7047, 4): a
// request has a method and a non-null id, a notification a method and a null
// id, a response a result or an error and the id of its request.
type message struct {
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	ID     json.RawMessage `json:"id,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// isNull reports whether a raw JSON value is absent or null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// reply is the response to a request.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result"`
	Error  any             `json:"error"`
}

// rawJSON is a result the server encoded itself (compact, valid JSON): the
// reply is assembled around it rather than encoded again by reflection.
type rawJSON []byte

// notification is a server-to-client message that needs no answer.
type notification struct {
	ID     any    `json:"id"`
	Method string `json:"method"`
	Params []any  `json:"params"`
}

// outbox is a connection's queue of encoded messages. Enqueueing never
// blocks, so a commit can notify every monitoring client while holding the
// server lock; one writer goroutine per connection drains it in order, which
// keeps a transaction's update notifications ahead of its reply.
type outbox struct {
	mu      sync.Mutex
	pending [][]byte
	closed  bool
	wake    chan struct{}
}

func newOutbox() *outbox {
	return &outbox{wake: make(chan struct{}, 1)}
}

// put queues one encoded message; it is dropped once the outbox is closed.
func (o *outbox) put(b []byte) {
	o.mu.Lock()
	if !o.closed {
		o.pending = append(o.pending, b)
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// close makes the writer stop after it has written what is queued.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// writeTo writes queued messages to w until the outbox is closed and empty or
// a write fails.
func (o *outbox) writeTo(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for {
		<-o.wake
		o.mu.Lock()
		batch, closed := o.pending, o.closed
		o.pending = nil
		o.mu.Unlock()
		for _, b := range batch {
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if closed {
			return nil
		}
	}
}

// readMessages reads JSON-RPC messages from r and calls handle for each,
// until r ends or carries something that is not a JSON object. It finds
// where each message ends by its brackets, outside strings, and walks it
// in place: a transaction of tens of megabytes is neither scanned twice
// nor copied into each member.
func readMessages(r io.Reader, handle func(*message)) error {
	buf := make([]byte, 0, 64<<10)
	var f framer
	for {
		if len(buf) == cap(buf) {
			if f.start > 0 {
				n := copy(buf, buf[f.start:])
				buf, f.scanned, f.start = buf[:n], f.scanned-f.start, 0
			}
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		for {
			msg, bad := f.next(buf)
			if bad {
				return errBadJSON
			}
			if msg == nil {
				break
			}
			m, perr := parseMessage(bytes.Clone(msg))
			if perr != nil {
				return perr
			}
			handle(m)
		}
		if f.start == len(buf) {
			buf, f.start, f.scanned = buf[:0], 0, 0
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// framer finds the messages in a stream of JSON objects: buf[start:] is
// what is left of it, scanned up to scanned.
type framer struct {
	start, scanned int
	depth          int
	inString, esc  bool
}

// next returns the next whole message in buf, or nil if it has not all
// arrived; bad reports a stream that does not hold JSON objects.
func (f *framer) next(buf []byte) (msg []byte, bad bool) {
	if f.depth == 0 {
		for f.start < len(buf) && isSpace(buf[f.start]) {
			f.start++
		}
		f.scanned = f.start
		if f.start == len(buf) {
			return nil, false
		}
		if buf[f.start] != '{' {
			return nil, true
		}
	}
	for i := f.scanned; i < len(buf); i++ {
		c := buf[i]
		switch {
		case f.inString:
			switch {
			case f.esc:
				f.esc = false
			case c == '\\':
				f.esc = true
			case c == '"':
				f.inString = false
			}
		case c == '"':
			f.inString = true
		case c == '{' || c == '[':
			f.depth++
		case c == '}' || c == ']':
			if f.depth--; f.depth == 0 {
				msg = buf[f.start : i+1]
				f.start, f.scanned = i+1, i+1
				return msg, false
			}
		}
	}
	f.scanned = len(buf)
	return nil, false
}

// parseMessage reads a message's members.
func parseMessage(b []byte) (*message, error) {
	m := &message{}
	err := eachMember(b, func(key string, v []byte) error {
		var err error
		switch key {
		case "method":
			m.Method, err = jsonString(v)
		case "params":
			m.Params = v
		case "id":
			m.ID = v
		case "result":
			m.Result = v
		case "error":
			m.Error = v
		}
		return err
	})
	return m, err
}
