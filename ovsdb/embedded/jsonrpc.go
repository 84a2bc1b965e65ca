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

// readMessages decodes JSON-RPC messages from r and calls handle for each,
// until r ends or carries something that is not a JSON object.
func readMessages(r net.Conn, handle func(*message)) error {
	dec := json.NewDecoder(bufio.NewReader(r))
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		handle(&m)
	}
}
