package ovsdb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/northlog/northlog/relations/sb"
	"github.com/ovn-org/libovsdb/model"
)

// fastDecoders decode whole rows of the tables that make most of an SB,
// without the reflection of libovsdb's generic path: a cold start or a
// take-over reads, and a full write echoes back, tens of thousands of
// Logical_Flow rows.
var fastDecoders = map[string]func(row json.RawMessage, uuid string) (model.Model, error){
	sb.LogicalFlowTable: decodeLogicalFlow,
}

// decodeLogicalFlow decodes a Logical_Flow row in OVSDB JSON notation, as
// an update2 insert or initial gives it (columns with default values may
// be left out, unknown ones are ignored).
func decodeLogicalFlow(raw json.RawMessage, uuid string) (model.Model, error) {
	f := &sb.LogicalFlow{UUID: uuid}
	err := walkObject(raw, func(col string, v []byte) error {
		var err error
		switch col {
		case "actions":
			f.Actions, err = jsonString(v)
		case "match":
			f.Match, err = jsonString(v)
		case "pipeline":
			f.Pipeline, err = jsonString(v)
		case "priority":
			f.Priority, err = jsonInt(v)
		case "table_id":
			f.TableID, err = jsonInt(v)
		case "logical_datapath":
			f.LogicalDatapath, err = optionalAtom(v, "uuid")
		case "logical_dp_group":
			f.LogicalDpGroup, err = optionalAtom(v, "uuid")
		case "controller_meter":
			f.ControllerMeter, err = optionalAtom(v, "")
		case "external_ids":
			f.ExternalIDs, err = stringMap(v)
		case "tags":
			f.Tags, err = stringMap(v)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", col, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// jsonString decodes a JSON string. One of printable ASCII is decoded
// here (its common escapes undone), any other by encoding/json.
func jsonString(q []byte) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", fmt.Errorf("not a string: %.40s", q)
	}
	body := q[1 : len(q)-1]
	escaped := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c < 0x20 || c >= utf8.RuneSelf || c == '"':
			return slowString(q)
		case c == '\\':
			escaped = true
			i++ // the escaped byte, checked below
		}
	}
	if !escaped {
		return string(body), nil
	}
	out := make([]byte, 0, len(body))
	for {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			return string(append(out, body...)), nil
		}
		if i+1 >= len(body) {
			return slowString(q)
		}
		out = append(out, body[:i]...)
		switch c := body[i+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			return slowString(q)
		}
		body = body[i+2:]
	}
}

func slowString(q []byte) (string, error) {
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// jsonInt decodes a JSON integer.
func jsonInt(v []byte) (int, error) {
	if n, err := strconv.Atoi(string(v)); err == nil {
		return n, nil
	}
	var n int
	err := json.Unmarshal(v, &n)
	return n, err
}

// optionalAtom decodes a column of at most one string or uuid (kind
// "uuid") atom: the atom, a set of it, or an empty set; nil when absent.
func optionalAtom(raw json.RawMessage, kind string) (*string, error) {
	if raw == nil {
		return nil, nil
	}
	var s string
	if kind == "" && json.Unmarshal(raw, &s) == nil {
		return &s, nil
	}
	var pair [2]json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil {
		return nil, err
	}
	var tag string
	if err := json.Unmarshal(pair[0], &tag); err != nil {
		return nil, err
	}
	switch tag {
	case "uuid":
		if kind != "uuid" {
			return nil, fmt.Errorf("uuid for a %q column", kind)
		}
		err := json.Unmarshal(pair[1], &s)
		return &s, err
	case "set":
		var elems []json.RawMessage
		if err := json.Unmarshal(pair[1], &elems); err != nil {
			return nil, err
		}
		switch len(elems) {
		case 0:
			return nil, nil
		case 1:
			return optionalAtom(elems[0], kind)
		}
		return nil, fmt.Errorf("set of %d for an optional column", len(elems))
	}
	return nil, fmt.Errorf("unexpected %s", raw)
}

// stringMap decodes a string-to-string map column; nil when absent.
func stringMap(raw json.RawMessage) (map[string]string, error) {
	if raw == nil {
		return nil, nil
	}
	var pair [2]json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil {
		return nil, err
	}
	var tag string
	if err := json.Unmarshal(pair[0], &tag); err != nil || tag != "map" {
		return nil, fmt.Errorf("not a map: %s", raw)
	}
	var pairs [][2]string
	if err := json.Unmarshal(pair[1], &pairs); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		out[p[0]] = p[1]
	}
	return out, nil
}
