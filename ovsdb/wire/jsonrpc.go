package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// rpcConn is a JSON-RPC 1.0 session over a stream, as OVSDB speaks it
// (RFC 7047 section 4): calls with their replies, and the server's
// requests and notifications, handled one at a time in the order they
// came, each before the messages that follow it.
//
// It keeps memory bounded by the messages in flight rather than by the
// largest one ever seen: a message is read into one buffer, or a large one
// into parts (rope) that are dropped after use, handlers and reply
// decoders get sub-slices of it (no copy; the rope handlers walk the parts
// and drop them behind them), and a call's parameters are written element
// by element straight to the socket.
type rpcConn struct {
	nc net.Conn

	wmu sync.Mutex
	w   *bufio.Writer

	mu       sync.Mutex
	nextID   uint64
	pending  map[uint64]*rpcCall
	handlers map[string]func(params []byte) error
	// ropeHandlers serve methods whose params they walk in place in a
	// message read in parts (rope): those that can be tens of MB. Each
	// returns the position past the params.
	ropeHandlers map[string]func(r *rope, params ropePos) (ropePos, error)
	err          error         // why the session ended, once it has
	done         chan struct{} // closed when the session has ended

	// trace, when set, logs every request sent (setTrace).
	trace atomic.Pointer[rpcTrace]
}

// rpcTrace is where a session logs the requests it sends: OVS's jsonrpc
// module's "send request" lines, which OVN's tests grep.
type rpcTrace struct {
	log  *slog.Logger
	name string
}

// setTrace logs every request sent from now on to log at debug level,
// naming the session name; a nil log stops it.
func (c *rpcConn) setTrace(log *slog.Logger, name string) {
	if log == nil {
		c.trace.Store(nil)
		return
	}
	c.trace.Store(&rpcTrace{log: log, name: name})
}

// rpcCall is a call waiting for its reply: decode takes the result (in
// the read loop, on the message buffer), or, when set, ropeDecode takes
// that of a reply read in parts and returns the position past it; done
// the outcome.
type rpcCall struct {
	decode     func(result []byte) error
	ropeDecode func(r *rope, result ropePos) (ropePos, error)
	done       chan error
}

// newRPCConn starts a session on nc. handlers are the server's methods
// this side serves, by name; each gets the raw params and runs in the read
// loop; their slices are valid only until they return. "echo" is answered
// without one; ropeHandlers, when they have the method, serve it in a
// message read in parts. The session ends on the first read or write
// error, or Close; done is then closed and every waiting call fails.
func newRPCConn(nc net.Conn, handlers map[string]func(params []byte) error, ropeHandlers map[string]func(*rope, ropePos) (ropePos, error)) *rpcConn {
	c := &rpcConn{
		nc:           nc,
		w:            bufio.NewWriterSize(nc, 64<<10),
		pending:      map[uint64]*rpcCall{},
		handlers:     handlers,
		ropeHandlers: ropeHandlers,
		done:         make(chan struct{}),
	}
	go c.readLoop()
	return c
}

// Done is closed when the session has ended; Err then tells why.
func (c *rpcConn) Done() <-chan struct{} { return c.done }

func (c *rpcConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the session.
func (c *rpcConn) Close() { c.end(errClosed) }

func (c *rpcConn) end(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	pending := c.pending
	c.pending = nil
	close(c.done)
	c.mu.Unlock()
	c.nc.Close()
	for _, call := range pending {
		call.done <- errClosed
	}
}

// Call sends method with params (a JSON array, written element by element
// when it is a []any) and waits for the reply, whose result decode reads.
// decode runs in the read loop; its slice is valid only until it returns.
func (c *rpcConn) Call(ctx context.Context, method string, params []any, decode func(result []byte) error) error {
	call, err := c.send(method, params, decode)
	if err != nil {
		return err
	}
	return call.wait(ctx)
}

// wait waits for the call's reply.
func (call *rpcCall) wait(ctx context.Context) error {
	select {
	case err := <-call.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Go sends method with params and does not wait for the reply.
func (c *rpcConn) Go(method string, params []any) error {
	_, err := c.send(method, params, nil)
	return err
}

func (c *rpcConn) send(method string, params []any, decode func([]byte) error) (*rpcCall, error) {
	return c.sendCall(method, params, &rpcCall{decode: decode})
}

// callRope is Call with ropeDecode for a reply read in parts.
func (c *rpcConn) callRope(ctx context.Context, method string, params []any, decode func([]byte) error, ropeDecode func(*rope, ropePos) (ropePos, error)) error {
	call, err := c.sendCall(method, params, &rpcCall{decode: decode, ropeDecode: ropeDecode})
	if err != nil {
		return err
	}
	return call.wait(ctx)
}

func (c *rpcConn) sendCall(method string, params []any, call *rpcCall) (*rpcCall, error) {
	r, err := c.requestCall(method, call)
	if err != nil {
		return nil, err
	}
	for _, p := range params {
		r.add(p)
	}
	return r.call, r.end()
}

// paramWriter is a request being written: its params go to the socket as
// add gets them (a cold start's transaction has tens of thousands), and
// the connection's other writes wait until end.
type paramWriter struct {
	c      *rpcConn
	method string
	id     uint64
	call   *rpcCall
	n      int   // params written
	err    error // the first error; the rest is not written
	// traced is a copy of the params written, when the session traces
	// at debug level.
	traced []byte
	trace  *rpcTrace
}

// request starts writing a call of method, whose reply decode takes (when
// not nil).
func (c *rpcConn) request(method string, decode func([]byte) error) (*paramWriter, error) {
	return c.requestCall(method, &rpcCall{decode: decode})
}

func (c *rpcConn) requestCall(method string, call *rpcCall) (*paramWriter, error) {
	call.done = make(chan error, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, errClosed
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = call
	c.mu.Unlock()
	c.wmu.Lock()
	r := &paramWriter{c: c, method: method, id: id, call: call}
	if t := c.trace.Load(); t != nil && t.log.Enabled(context.Background(), slog.LevelDebug) {
		r.trace = t
	}
	b := AppendString(append(c.w.AvailableBuffer(), `{"method":`...), method)
	b = append(b, `,"id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"params":[`...)
	_, r.err = c.w.Write(b)
	return r, nil
}

// add writes one param.
func (r *paramWriter) add(p any) {
	r.write(func(b []byte) ([]byte, error) { return appendJSON(b, p) })
}

// addOperation writes one param, an operation: not boxed as any first
// (a cold start's transaction has tens of thousands).
func (r *paramWriter) addOperation(op *lovsdb.Operation) {
	r.write(func(b []byte) ([]byte, error) { return appendOperation(b, op) })
}

// write writes the param that encode appends.
func (r *paramWriter) write(encode func(b []byte) ([]byte, error)) {
	if r.err != nil {
		return
	}
	w := r.c.w
	// A param is encoded into the buffer's free space; when little is
	// left, an encoding would outgrow it into a new array.
	if w.Available() < w.Size()/4 {
		if r.err = w.Flush(); r.err != nil {
			return
		}
	}
	b := w.AvailableBuffer()
	if r.n > 0 {
		b = append(b, ',')
	}
	b, err := encode(b)
	if err != nil {
		r.err = fmt.Errorf("%s: %w", r.method, err)
		return
	}
	r.n++
	if r.trace != nil {
		r.traced = append(r.traced, b...)
	}
	_, r.err = w.Write(b)
}

// end finishes the request and lets other writes go; an error of any
// write ends the session.
func (r *paramWriter) end() error {
	defer r.c.wmu.Unlock()
	if r.trace != nil {
		r.trace.log.Debug(fmt.Sprintf("%s: send request, method=%q, params=[%s], id=%d", r.trace.name, r.method, r.traced, r.id))
	}
	if r.err == nil {
		if _, r.err = r.c.w.WriteString("]}"); r.err == nil {
			r.err = r.c.w.Flush()
		}
	}
	if r.err != nil {
		r.c.end(r.err)
		return errClosed
	}
	return nil
}

// reply answers request id (raw JSON) with result (raw JSON).
func (c *rpcConn) reply(id, result []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b := append(c.w.AvailableBuffer(), `{"id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	b = append(b, `,"error":null}`...)
	if _, err := c.w.Write(b); err != nil {
		return err
	}
	return c.w.Flush()
}

// Message is one JSON-RPC 1.0 message as OVSDB uses it (RFC 7047, 4): a
// request has a method and a non-null id, a notification a method and a
// null id, a response a result or an error and the id of its request. Its
// members are sub-slices of the message; those it lacks are nil.
type Message struct {
	Method                    string
	Params, ID, Result, Error []byte
}

// ParseMessage reads the members of the message b.
func ParseMessage(b []byte) (Message, error) {
	var m Message
	err := walkObject(b, m.set)
	return m, err
}

// set sets the member key to v; other keys are no member of a message. A
// method that is not a string is an error, as in OVS's jsonrpc.
func (m *Message) set(key string, v []byte) (err error) {
	switch key {
	case "method":
		m.Method, err = JSONString(v)
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
}

// IsNull reports whether a member is absent or null.
func IsNull(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || bytes.Equal(v, []byte("null"))
}

// ReadMessages reads JSON-RPC messages from r and calls handle with each,
// in order, until r ends (nil) or carries something that is not a message:
// for the embedded servers. Each message is in memory of its own, which
// handle may keep; one read in parts is joined.
func ReadMessages(r io.Reader, handle func(Message)) error {
	fr := &frameReader{r: r}
	for {
		b, parts, err := fr.next()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
			return nil
		case err != nil:
			return err
		case parts != nil:
			if b, err = parts.join(); err != nil {
				return err
			}
		default:
			b = bytes.Clone(b)
		}
		m, err := ParseMessage(b)
		if err != nil {
			return fmt.Errorf("JSON-RPC message: %w", err)
		}
		handle(m)
	}
}

func (c *rpcConn) readLoop() {
	fr := &frameReader{r: c.nc}
	for {
		b, r, err := fr.next()
		switch {
		case err != nil:
		case r != nil:
			err = c.handleRope(r)
			if ferr := r.finish(); ferr != nil {
				err = ferr
			}
		default:
			err = c.handle(b)
		}
		if err != nil {
			c.end(err)
			return
		}
	}
}

// handle acts on one message.
func (c *rpcConn) handle(b []byte) error {
	m, err := ParseMessage(b)
	if err != nil {
		return fmt.Errorf("JSON-RPC message: %w", err)
	}
	if m.Method != "" {
		switch h := c.handlers[m.Method]; {
		case m.Method == "echo":
			// Answered from another goroutine: a write can wait for the
			// server, which may wait for this loop to read.
			id, params := bytes.Clone(m.ID), bytes.Clone(m.Params)
			go func() {
				if err := c.reply(id, params); err != nil {
					c.end(err)
				}
			}()
		case h != nil:
			if err := h(m.Params); err != nil {
				return err
			}
			c.replyDone(m.ID)
		}
		return nil
	}
	id, err := strconv.ParseUint(string(m.ID), 10, 64)
	if err != nil {
		return fmt.Errorf("JSON-RPC reply with id %s", m.ID)
	}
	c.mu.Lock()
	call := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	switch {
	case call == nil:
	case !IsNull(m.Error):
		call.done <- fmt.Errorf("%s", m.Error)
	case call.decode != nil:
		call.done <- call.decode(m.Result)
	default:
		call.done <- nil
	}
	return nil
}

// replyDone answers a request served, unless it is a notification (id
// null).
func (c *rpcConn) replyDone(id []byte) {
	if IsNull(id) {
		return
	}
	id = bytes.Clone(id)
	go func() {
		if err := c.reply(id, []byte("{}")); err != nil {
			c.end(err)
		}
	}()
}

// handleRope acts on one message read in parts: a request that a rope
// handler serves, or a reply whose call has a ropeDecode, is walked in
// place, as the rest of it is read when its method or id comes before it
// (as ovsdb-server sends them); any other is joined into one buffer first.
func (c *rpcConn) handleRope(r *rope) error {
	var handlerErr error
	var decoded *rpcCall // the call whose ropeDecode took the result
	m, err := parseRopeMessage(r, func(m *Message, key string, v ropePos) (ropePos, bool, error) {
		if h := c.ropeHandlers[m.Method]; h != nil && key == "params" {
			end, err := h(r, v)
			handlerErr = err
			return end, true, err
		}
		if key != "result" || m.Method != "" || !IsNull(m.Error) || r.isNull(v) {
			return v, false, nil
		}
		if decoded = c.ropeCall(m.ID); decoded == nil {
			return v, false, nil
		}
		end, err := decoded.ropeDecode(r, v)
		if err != nil {
			decoded.done <- err
			decoded = nil
			err = errDecoded
		}
		return end, true, err
	})
	switch {
	case handlerErr != nil:
		return handlerErr
	case errors.Is(err, errDecoded):
		return nil
	case err != nil:
		return fmt.Errorf("JSON-RPC message: %w", err)
	case decoded != nil && !IsNull(m.Error):
		decoded.done <- fmt.Errorf("%s", m.Error)
		return nil
	case decoded != nil:
		decoded.done <- nil
		return nil
	case m.walked:
		c.replyDone(m.ID)
		return nil
	}
	if h := c.ropeHandlers[m.Method]; h != nil && m.hasParams {
		if _, err := h(r, m.params); err != nil {
			return err
		}
		c.replyDone(m.ID)
		return nil
	}
	if m.Method == "" && m.hasResult && IsNull(m.Error) {
		if call := c.ropeCall(m.ID); call != nil {
			_, err := call.ropeDecode(r, m.result)
			call.done <- err
			return nil
		}
	}
	b, err := r.join()
	if err != nil {
		return err
	}
	return c.handle(b)
}

// errDecoded stops the parse of a reply whose ropeDecode failed: the call
// has its error.
var errDecoded = errors.New("reply not decoded")

// ropeCall takes the pending call of a reply with id, if it has a
// ropeDecode.
func (c *rpcConn) ropeCall(id []byte) *rpcCall {
	n, err := strconv.ParseUint(string(id), 10, 64)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	call := c.pending[n]
	if call == nil || call.ropeDecode == nil {
		return nil
	}
	delete(c.pending, n)
	return call
}

// into decodes a result into v.
func into(v any) func([]byte) error {
	return func(b []byte) error { return json.Unmarshal(b, v) }
}

// frameReader reads a stream of JSON values (objects or arrays, as
// OVSDB's messages are) one at a time.
type frameReader struct {
	r   io.Reader
	buf []byte
	// buf[:off] is the value handed out last, buf[off:n] what was read
	// after it.
	off, n int
	// The scan of the value being read: buf[:i] is scanned; stack counts
	// the brackets open.
	i, stack          int
	inString, started bool
}

const (
	frameMin = 64 << 10
	// frameKeep is the largest buffer kept from one message to the next;
	// a larger one, read for a large message, is left to the collector.
	frameKeep = 1 << 20
	// framePart is the largest buffer a message outgrowing buf is read
	// into, one after the other.
	framePart = 8 << 20
)

// next returns the next value, valid until the next call: in one buffer,
// or, larger than the buffer (a cold start's SB contents, tens of MB), as
// a rope that reads the rest of it into parts as it is walked (rope.more):
// a walk that drops the parts behind it then holds a few parts of the
// value at a time, not the whole. The caller ends the rope (rope.finish)
// before the next call.
func (f *frameReader) next() ([]byte, *rope, error) {
	rest := f.buf[f.off:f.n]
	if cap(f.buf) > frameKeep || f.buf == nil {
		f.buf = make([]byte, max(frameMin, 2*len(rest)))
	}
	f.n = copy(f.buf, rest)
	f.off, f.i, f.stack, f.inString, f.started = 0, 0, 0, false, false
	switch ended, err := f.read(); {
	case err != nil:
		return nil, nil, err
	case ended:
		return f.buf[:f.off], nil, nil
	}
	return nil, &rope{parts: [][]byte{f.buf}, more: f.nextPart}, nil
}

// nextPart reads the next part of a value larger than its first buffer,
// into a new buffer, and reports whether the value ends in it.
func (f *frameReader) nextPart() ([]byte, bool, error) {
	// An escape's second byte may be the next part's first.
	f.i -= f.n
	f.buf = make([]byte, min(2*len(f.buf), framePart))
	f.n = 0
	ended, err := f.read()
	if ended {
		return f.buf[:f.off], true, err
	}
	return f.buf, false, err
}

// read scans and reads into buf until the value ends (true; off is then
// its end) or buf is full (false).
func (f *frameReader) read() (bool, error) {
	for {
		for f.i < f.n {
			switch {
			case f.inString:
				seg := f.buf[f.i:f.n]
				q := bytes.IndexByte(seg, '"')
				lim := q
				if q < 0 {
					lim = len(seg)
				}
				if e := bytes.IndexByte(seg[:lim], '\\'); e >= 0 {
					f.i += e + 2
					continue
				}
				if q < 0 {
					f.i = f.n
					continue
				}
				f.i += q + 1
				f.inString = false
			case !f.started:
				switch c := f.buf[f.i]; {
				case isSpace(c):
				case c == '{' || c == '[':
					f.started, f.stack = true, 1
				default:
					return false, fmt.Errorf("JSON-RPC: unexpected %q", c)
				}
				f.i++
			default:
				switch f.buf[f.i] {
				case '"':
					f.inString = true
				case '{', '[':
					f.stack++
				case '}', ']':
					f.stack--
					if f.stack == 0 {
						f.off = f.i + 1
						return true, nil
					}
				}
				f.i++
			}
		}
		if f.n == len(f.buf) {
			return false, nil
		}
		k, err := f.r.Read(f.buf[f.n:])
		f.n += k
		if err != nil && k == 0 {
			if err == io.EOF && f.started {
				err = io.ErrUnexpectedEOF
			}
			return false, err
		}
	}
}
