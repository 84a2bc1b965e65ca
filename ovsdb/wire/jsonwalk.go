package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// The JSON walk below finds the members of objects and the elements of
// arrays as sub-slices of a message, without copying or decoding them: an
// SB update notification is tens of megabytes, and only its rows need
// decoding (encoding/json would scan it once per level and copy it into
// every json.RawMessage on the way).

var errBadJSON = errors.New("malformed JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string whose opening quote is
// at b[i].
func stringEnd(b []byte, i int) (int, error) {
	i++
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return 0, errBadJSON
		}
		e := bytes.IndexByte(b[i:i+q], '\\')
		if e < 0 {
			return i + q + 1, nil
		}
		i += e + 2 // an escape and the byte it escapes
		if i > len(b) {
			return 0, errBadJSON
		}
	}
}

// valueEnd returns the index just past the JSON value that starts at
// b[i] (valueScan).
func valueEnd(b []byte, i int) (int, error) {
	var s valueScan
	end, done, err := s.scan(b, i)
	if err != nil || done {
		return end, err
	}
	return len(b), s.cutShort()
}

// valueScan finds the end of a JSON value read in pieces, the buffers a
// message was read into (rope), handed to scan in turn; one buffer is one
// piece (valueEnd). It checks the nesting and the strings, not the
// scalars: whatever is decoded later is checked by its decoder.
type valueScan struct {
	state scanState
	// closers are the brackets that close the arrays and objects open,
	// innermost last.
	closers []byte
	// skip is how far into the next piece the last one's scan reached:
	// the byte after an escape that ended it.
	skip int
}

type scanState uint8

const (
	scanStart  scanState = iota // at the value's first byte
	scanScalar                  // in a value that is neither string, array nor object
	scanString                  // in a string, at any depth
	scanNested                  // in an array or object, outside its strings
)

// scan reads piece b from i: where the value starts (a byte other than a
// space) in its first piece, 0 in the next ones. It returns the index
// just past the value and true when the value ends in b, or len(b) and
// false when it goes on in the next piece.
func (s *valueScan) scan(b []byte, i int) (int, bool, error) {
	i += s.skip
	if s.state == scanStart && i < len(b) {
		switch c := b[i]; {
		case c == '"':
			s.state = scanString
			i++
		case c == '{' || c == '[':
			s.state = scanNested
		case isSpace(c) || c == ',' || c == ']' || c == '}':
			return 0, false, errBadJSON
		default:
			s.state = scanScalar
		}
	}
	for i < len(b) {
		switch s.state {
		case scanScalar:
			for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != ']' && b[i] != '}' {
				i++
			}
			if i < len(b) {
				return i, true, nil
			}
		case scanString:
			q := bytes.IndexByte(b[i:], '"')
			lim := len(b)
			if q >= 0 {
				lim = i + q
			}
			if e := bytes.IndexByte(b[i:lim], '\\'); e >= 0 {
				i += e + 2 // an escape and the byte it escapes, which may be the next piece's first
				continue
			}
			if q < 0 {
				i = len(b)
				continue
			}
			i = lim + 1
			if len(s.closers) == 0 {
				return i, true, nil
			}
			s.state = scanNested
		case scanNested:
		nested:
			for ; i < len(b); i++ {
				switch c := b[i]; c {
				case '"':
					s.state = scanString
					i++
					break nested
				case '{', '[':
					s.closers = append(s.closers, c+2) // '{'+2 == '}', '['+2 == ']'
				case '}', ']':
					n := len(s.closers) - 1
					if n < 0 || s.closers[n] != c {
						return 0, false, errBadJSON
					}
					if s.closers = s.closers[:n]; n == 0 {
						return i + 1, true, nil
					}
				}
			}
		}
	}
	s.skip = i - len(b)
	return len(b), false, nil
}

// cutShort is what a value not ended by the end of its last piece is: a
// scalar ended there, anything else is cut short.
func (s *valueScan) cutShort() error {
	if s.state == scanScalar {
		return nil
	}
	return errBadJSON
}

// walkObject calls fn with each member of the JSON object b (a whole
// value, spaces around it allowed): its key, and its value as a sub-slice
// of b.
func walkObject(b []byte, fn func(key string, value []byte) error) error {
	return walkMembers(b, func(q, value []byte) error {
		key, err := jsonKey(q)
		if err != nil {
			return err
		}
		return fn(key, value)
	})
}

// walkMembers is walkObject with each key left quoted, as a sub-slice of
// b: for callers that only compare keys with known ones.
func walkMembers(b []byte, fn func(key, value []byte) error) error {
	return walk(b, '{', '}', func(b []byte, i int) (int, error) {
		if i >= len(b) || b[i] != '"' {
			return 0, errBadJSON
		}
		end, err := stringEnd(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i:end]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, errBadJSON
		}
		i = skipSpace(b, i+1)
		vend, err := valueEnd(b, i)
		if err != nil {
			return 0, err
		}
		return vend, fn(key, b[i:vend])
	})
}

// walkArray calls fn with each element of the JSON array b, as a sub-slice
// of b.
func walkArray(b []byte, fn func(elem []byte) error) error {
	return walk(b, '[', ']', func(b []byte, i int) (int, error) {
		end, err := valueEnd(b, i)
		if err != nil {
			return 0, err
		}
		return end, fn(b[i:end])
	})
}

// walk goes through the comma-separated items between open and close;
// item reads one from b[i] and returns the index past it.
func walk(b []byte, open, close byte, item func(b []byte, i int) (int, error)) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != open {
		return fmt.Errorf("%w: want %q", errBadJSON, open)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == close {
		return trailing(b, i+1)
	}
	for {
		end, err := item(b, i)
		if err != nil {
			return err
		}
		i = skipSpace(b, end)
		switch {
		case i >= len(b):
			return errBadJSON
		case b[i] == close:
			return trailing(b, i+1)
		case b[i] != ',':
			return errBadJSON
		}
		i = skipSpace(b, i+1)
	}
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errBadJSON
	}
	return nil
}

// jsonKey decodes a quoted string; one without escapes, valid UTF-8, is
// taken as is.
func jsonKey(q []byte) (string, error) {
	if bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		return string(q[1 : len(q)-1]), nil
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// WalkObject calls fn with each member of the JSON object b, its value as
// a sub-slice of b; for the embedded servers, which walk requests as this
// package walks replies.
func WalkObject(b []byte, fn func(key string, value []byte) error) error {
	return walkObject(b, fn)
}

// WalkArray calls fn with each element of the JSON array b, as a
// sub-slice of b.
func WalkArray(b []byte, fn func(elem []byte) error) error { return walkArray(b, fn) }

// JSONString decodes the quoted JSON string q.
func JSONString(q []byte) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", fmt.Errorf("%w: want a string", errBadJSON)
	}
	return jsonKey(q)
}
