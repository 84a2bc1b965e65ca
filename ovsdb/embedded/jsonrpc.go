package embedded

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
)

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
