package wire

import "bytes"

// rope is a message larger than the frame reader's buffer, in the
// buffers it is read into, in order. It is walked in place, the rest read
// as the walk reaches it, and a walk of row updates drops the buffers
// behind it (eachRow): a cold start's echo is a message of tens of MB,
// which read whole before its walk would be held whole until its first
// rows are decoded.
type rope struct {
	parts [][]byte
	// more reads the next part and reports whether the message ends in
	// it; nil once it has (or for a message read whole). err is why a
	// read failed.
	more func() ([]byte, bool, error)
	err  error
}

// grow reads the next part; false at the message's end or on a read
// error (err).
func (r *rope) grow() bool {
	if r.more == nil || r.err != nil {
		return false
	}
	part, last, err := r.more()
	if err != nil {
		r.err = err
		return false
	}
	if last {
		r.more = nil
	}
	r.parts = append(r.parts, part)
	return true
}

// finish reads what is left of the message, dropping it, so that the
// frame reader stands after it; it returns the read's error, if any.
func (r *rope) finish() error {
	for r.grow() {
		r.parts[len(r.parts)-1] = nil
	}
	return r.err
}

// ropePos is a position in a rope: a buffer and an offset in it, which
// may be its length (the position is then the next buffer's start).
type ropePos struct{ part, off int }

// norm moves p from the end of a buffer to the start of the next one;
// false at the rope's end.
func (r *rope) norm(p ropePos) (ropePos, bool) {
	for p.part < len(r.parts) && p.off >= len(r.parts[p.part]) {
		p = ropePos{p.part + 1, p.off - len(r.parts[p.part])}
		if p.part == len(r.parts) && !r.grow() {
			break
		}
	}
	return p, p.part < len(r.parts)
}

// skipSpace is the first position at or after p that holds no space, and
// its byte; false at the rope's end.
func (r *rope) skipSpace(p ropePos) (ropePos, byte, bool) {
	for {
		var ok bool
		if p, ok = r.norm(p); !ok {
			return p, 0, false
		}
		b := r.parts[p.part]
		for p.off < len(b) && isSpace(b[p.off]) {
			p.off++
		}
		if p.off < len(b) {
			return p, b[p.off], true
		}
	}
}

// valueEnd is the position just past the JSON value at p, which may go
// on across buffers (valueScan).
func (r *rope) valueEnd(p ropePos) (ropePos, error) {
	p, _, ok := r.skipSpace(p)
	if !ok {
		return p, errBadJSON
	}
	var s valueScan
	for {
		end, done, err := s.scan(r.parts[p.part], p.off)
		if err != nil || done {
			return ropePos{p.part, end}, err
		}
		if p, ok = r.norm(ropePos{p.part, end}); !ok {
			return p, s.cutShort()
		}
	}
}

// slice is the bytes from a to b: a sub-slice of a buffer, or a copy of
// the bytes across buffers.
func (r *rope) slice(a, b ropePos) []byte {
	if a.part == b.part {
		return r.parts[a.part][a.off:b.off]
	}
	out := bytes.Clone(r.parts[a.part][a.off:])
	for i := a.part + 1; i < b.part; i++ {
		out = append(out, r.parts[i]...)
	}
	if b.part < len(r.parts) {
		out = append(out, r.parts[b.part][:b.off]...)
	}
	return out
}

// release drops the buffers before p's.
func (r *rope) release(p ropePos) {
	for i := range min(p.part, len(r.parts)) {
		r.parts[i] = nil
	}
}

// join is the whole message in one buffer, the parts dropped as they are
// copied: for messages no walker reads in place.
func (r *rope) join() ([]byte, error) {
	for r.grow() {
	}
	if r.err != nil {
		return nil, r.err
	}
	size := 0
	for _, p := range r.parts {
		size += len(p)
	}
	out := make([]byte, 0, size)
	for i, p := range r.parts {
		out = append(out, p...)
		r.parts[i] = nil
	}
	return out, nil
}

// walkObject calls member with the key and the position of the value of
// each member of the object at p; member returns the position past the
// value. It returns the position past the object.
func (r *rope) walkObject(p ropePos, member func(key string, v ropePos) (ropePos, error)) (ropePos, error) {
	p, c, ok := r.skipSpace(p)
	if !ok || c != '{' {
		return p, errBadJSON
	}
	p.off++
	if p, c, ok = r.skipSpace(p); ok && c == '}' {
		p.off++
		return p, nil
	}
	for {
		if !ok || c != '"' {
			return p, errBadJSON
		}
		kend, err := r.valueEnd(p)
		if err != nil {
			return p, err
		}
		key, err := jsonKey(r.slice(p, kend))
		if err != nil {
			return p, err
		}
		if p, c, ok = r.skipSpace(kend); !ok || c != ':' {
			return p, errBadJSON
		}
		p.off++
		if p, err = member(key, p); err != nil {
			return p, err
		}
		p, c, ok = r.skipSpace(p)
		switch {
		case ok && c == '}':
			p.off++
			return p, nil
		case !ok || c != ',':
			return p, errBadJSON
		}
		p.off++
		p, c, ok = r.skipSpace(p)
	}
}

// secondElement is the position of the second element of the array at p.
func (r *rope) secondElement(p ropePos) (ropePos, error) {
	p, c, ok := r.skipSpace(p)
	if !ok || c != '[' {
		return p, errBadJSON
	}
	p.off++
	p, err := r.valueEnd(p)
	if err != nil {
		return p, err
	}
	if p, c, ok = r.skipSpace(p); !ok || c != ',' {
		return p, errBadJSON
	}
	p.off++
	return p, nil
}

// eachRow calls fn with each row update of the table-updates object at p,
// its table and its row's UUID, as rawUpdates.each does, and drops the
// buffers behind each row it has handed over. It returns the position
// past the object.
func (r *rope) eachRow(p ropePos, fn func(table, uuid string, ru []byte) error) (ropePos, error) {
	return r.walkObject(p, func(table string, rows ropePos) (ropePos, error) {
		return r.walkObject(rows, func(uuid string, v ropePos) (ropePos, error) {
			end, err := r.valueEnd(v)
			if err != nil {
				return end, err
			}
			v, _, _ = r.skipSpace(v)
			err = fn(table, uuid, r.slice(v, end))
			r.release(end)
			return end, err
		})
	})
}

// isNull reports whether the value at p is null.
func (r *rope) isNull(p ropePos) bool {
	_, c, ok := r.skipSpace(p)
	return ok && c == 'n'
}

// closeArray is the position past the "]" that ends an array at p, after
// its last element.
func (r *rope) closeArray(p ropePos) (ropePos, error) {
	p, c, ok := r.skipSpace(p)
	if !ok || c != ']' {
		return p, errBadJSON
	}
	p.off++
	return p, nil
}

// ropeMessage is a message read in parts: its members that are not walked
// in place, copied out of the parts (which are dropped as the walk goes on,
// while the id waits for the reply), and the positions of those that may
// be; walked says that walk took the params or result as it came.
type ropeMessage struct {
	Message              // Params and Result nil
	params, result       ropePos
	hasParams, hasResult bool
	walked               bool
}

// memberWalk is offered a message's params or result as parseRopeMessage
// meets it, with the members before it (the method, the id): it walks the
// value in place, as the rest of the message is read, and returns the
// position past it and true; or false, leaving the value to be walked
// once the message is read whole.
type memberWalk func(m *Message, key string, v ropePos) (end ropePos, walked bool, err error)

// parseRopeMessage parses a message read in parts; walk, when set, is
// offered its first params or result member.
func parseRopeMessage(r *rope, walk memberWalk) (ropeMessage, error) {
	var m ropeMessage
	end, err := r.walkObject(ropePos{}, func(key string, v ropePos) (ropePos, error) {
		if walk != nil && !m.walked && (key == "params" || key == "result") {
			end, walked, err := walk(&m.Message, key, v)
			if walked || err != nil {
				m.walked = walked
				return end, err
			}
		}
		end, err := r.valueEnd(v)
		if err != nil {
			return end, err
		}
		switch key {
		case "params":
			m.params, m.hasParams = v, true
		case "result":
			m.result, m.hasResult = v, true
		default:
			v, _, _ = r.skipSpace(v)
			err = m.set(key, bytes.Clone(r.slice(v, end)))
		}
		return end, err
	})
	if _, _, more := r.skipSpace(end); err == nil && more {
		err = errBadJSON
	}
	return m, err
}
