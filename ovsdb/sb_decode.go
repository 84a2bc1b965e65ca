package ovsdb

import (
	"encoding/json"
	"fmt"

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
// be left out).
func decodeLogicalFlow(raw json.RawMessage, uuid string) (model.Model, error) {
	var r struct {
		Actions         string          `json:"actions"`
		Match           string          `json:"match"`
		Pipeline        string          `json:"pipeline"`
		Priority        int             `json:"priority"`
		TableID         int             `json:"table_id"`
		LogicalDatapath json.RawMessage `json:"logical_datapath"`
		LogicalDpGroup  json.RawMessage `json:"logical_dp_group"`
		ControllerMeter json.RawMessage `json:"controller_meter"`
		ExternalIDs     json.RawMessage `json:"external_ids"`
		Tags            json.RawMessage `json:"tags"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	f := &sb.LogicalFlow{UUID: uuid, Actions: r.Actions, Match: r.Match, Pipeline: r.Pipeline, Priority: r.Priority, TableID: r.TableID}
	var err error
	if f.LogicalDatapath, err = optionalAtom(r.LogicalDatapath, "uuid"); err != nil {
		return nil, fmt.Errorf("logical_datapath: %w", err)
	}
	if f.LogicalDpGroup, err = optionalAtom(r.LogicalDpGroup, "uuid"); err != nil {
		return nil, fmt.Errorf("logical_dp_group: %w", err)
	}
	if f.ControllerMeter, err = optionalAtom(r.ControllerMeter, ""); err != nil {
		return nil, fmt.Errorf("controller_meter: %w", err)
	}
	if f.ExternalIDs, err = stringMap(r.ExternalIDs); err != nil {
		return nil, fmt.Errorf("external_ids: %w", err)
	}
	if f.Tags, err = stringMap(r.Tags); err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	return f, nil
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
