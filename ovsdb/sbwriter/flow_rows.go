package sbwriter

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"
	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
)

// Unkept are the SB tables whose rows the writer keeps and the connection
// does not (wire.Options.Unkept): Logical_Flow, hundreds of thousands of
// rows at 25,000 ports, kept once, as flowRows, where a model and its
// uuid string per row in the connection and the mirror's pointer to it
// were ~270 bytes a row.
var Unkept = map[string]wire.Unkept{sb.LogicalFlowTable: decodeFlowUpdate}

// flowRow is a Logical_Flow row as the mirror keeps it: the columns the
// monitor brings (NotMonitored), its datapath and group as uuids, match
// and actions the strings the writer sent (the desired flows' keys'), and
// the stage of its key, which comes from its datapaths (see
// sbMirror.addFlow). 80 bytes.
type flowRow struct {
	match, actions string
	meter          *string
	dp, group      uuid.UUID
	priority       uint16
	table          uint8
	stage          rules.Stage
	flags          flowFlags
}

// flowFlags are a flowRow's optional references, its pipeline, and
// whether it has a key.
type flowFlags uint8

const (
	hasDP flowFlags = 1 << iota
	hasGroup
	egress
	keyed
)

// datapath is the row's logical_datapath, ok false for none.
func (f *flowRow) datapath() (uuid.UUID, bool) { return f.dp, f.flags&hasDP != 0 }

// dpGroup is the row's logical_dp_group, ok false for none.
func (f *flowRow) dpGroup() (uuid.UUID, bool) { return f.group, f.flags&hasGroup != 0 }

// key is the row's key, ok false when it has none.
func (f *flowRow) key() (flowKey, bool) {
	if f.flags&keyed == 0 {
		return flowKey{}, false
	}
	k := flowKey{Stage: f.stage, Priority: int(f.priority), Match: f.match, Actions: f.actions}
	if f.meter != nil {
		k.Meter, k.HasMeter = *f.meter, true
	}
	return k, true
}

// flowDiff is a "modify" of a flow row, checked by the read loop: the
// mirror decodes it onto a copy of the row it holds (flowRow.decode).
type flowDiff struct{ diff wire.Row }

// decodeFlowUpdate is the read loop's decoding of a Logical_Flow row
// update: a whole row as a *flowRow, a "modify" as a flowDiff.
func decodeFlowUpdate(r wire.Row, whole bool) (any, error) {
	var f flowRow
	switch err := f.decode(r); {
	case err != nil:
		return nil, err
	case whole:
		return &f, nil
	}
	return flowDiff{r.Detached()}, nil
}

// decode sets the columns of f that r gives.
func (f *flowRow) decode(r wire.Row) error {
	return r.Columns(func(col []byte, v wire.Value) error {
		if err := f.decodeColumn(string(col), v); err != nil {
			return fmt.Errorf("%s: %w", col, err)
		}
		return nil
	})
}

// decodeColumn sets column col of f from v; a column the row does not
// keep is left alone.
func (f *flowRow) decodeColumn(col string, v wire.Value) error {
	var err error
	switch col {
	case "match":
		f.match, err = v.String()
	case "actions":
		f.actions, err = v.String()
	case "controller_meter":
		f.meter = nil
		m, ok, merr := v.Optional()
		if err = merr; ok {
			s, serr := m.String()
			f.meter, err = &s, serr
		}
	case "logical_datapath":
		f.dp, err = f.optionalUUID(v, hasDP)
	case "logical_dp_group":
		f.group, err = f.optionalUUID(v, hasGroup)
	case "pipeline":
		var p string
		p, err = v.String()
		f.flags &^= egress
		if p == sb.LogicalFlowPipelineEgress {
			f.flags |= egress
		}
	case "priority":
		var n int
		if n, err = v.Int(); err == nil && (n < 0 || n > 65535) {
			err = fmt.Errorf("priority %d out of range", n)
		}
		f.priority = uint16(n)
	case "table_id":
		var n int
		if n, err = v.Int(); err == nil && (n < 0 || n > 255) {
			err = fmt.Errorf("table_id %d out of range", n)
		}
		f.table = uint8(n)
	}
	return err
}

// optionalUUID is an optional reference column's uuid, flag set in f when
// it has one.
func (f *flowRow) optionalUUID(v wire.Value, flag flowFlags) (uuid.UUID, error) {
	f.flags &^= flag
	atom, ok, err := v.Optional()
	if !ok || err != nil {
		return uuid.UUID{}, err
	}
	f.flags |= flag
	return atom.UUID()
}

// rowText is the text of row uuid u, for a lookup in a map by string that
// makes no string: m[string(t[:])].
func rowText(u uuid.UUID) (t [36]byte) {
	hex.Encode(t[:8], u[:4])
	t[8] = '-'
	hex.Encode(t[9:13], u[4:6])
	t[13] = '-'
	hex.Encode(t[14:18], u[6:8])
	t[18] = '-'
	hex.Encode(t[19:23], u[8:10])
	t[23] = '-'
	hex.Encode(t[24:], u[10:])
	return t
}

// rowUUID is the uuid of row s, ok false for a row named in a transaction
// (not yet in the SB).
func rowUUID(s string) (uuid.UUID, bool) {
	u, err := uuid.Parse(s)
	return u, err == nil && len(s) == 36
}

// applyFlow records a change of a Logical_Flow row (its Update, see
// decodeFlowUpdate) and returns the row before and after it, nil when
// there is none. A "modify" of a row the mirror does not hold changes
// nothing.
func (m *sbMirror) applyFlow(c wire.UnkeptChange) (old, f *flowRow, err error) {
	u := c.UUID
	old = m.flows[u]
	switch up := c.Update.(type) {
	case nil:
	case *flowRow:
		f = up
	case flowDiff:
		if old == nil {
			return nil, nil, fmt.Errorf("update modifies unknown Logical_Flow row %s", c.UUID)
		}
		modified := *old
		if err := modified.decode(up.diff); err != nil {
			return nil, nil, fmt.Errorf("Logical_Flow row %s: %w", c.UUID, err)
		}
		f = &modified
	default:
		return nil, nil, fmt.Errorf("Logical_Flow row %s: update %T", c.UUID, c.Update)
	}
	if old != nil {
		m.removeFlow(u, old)
	}
	if f != nil {
		m.addFlow(u, f)
	}
	return old, f, nil
}

// addFlow indexes flow row f, u, and finds its key's stage from the kind
// of its first datapath that names a switch or router; a row with none,
// or whose table is no stage, has no key (23.03 deletes such rows).
func (m *sbMirror) addFlow(u uuid.UUID, f *flowRow) {
	if g, ok := f.dpGroup(); ok {
		setindex.Add(m.groupFlows, g, u)
	}
	if dp, ok := f.datapath(); ok {
		setindex.Add(m.flowsByDP, dp, u)
	}
	f.flags &^= keyed
	if kind, ok := m.flowKind(f); ok {
		pipeline := rules.Ingress
		if f.flags&egress != 0 {
			pipeline = rules.Egress
		}
		if stage, ok := m.stages.Lookup(kind, pipeline, int(f.table)); ok {
			f.stage = stage
			f.flags |= keyed
		}
	}
	m.flows[u] = f
	if k, ok := f.key(); ok {
		e := m.flowsByKey[k]
		e.rows = insertSortedFunc(e.rows, u, compareUUIDs)
		m.flowsByKey[k] = e
	}
}

// removeFlow drops flow row f, u, from the indexes.
func (m *sbMirror) removeFlow(u uuid.UUID, f *flowRow) {
	delete(m.flows, u)
	if g, ok := f.dpGroup(); ok {
		setindex.Remove(m.groupFlows, g, u)
	}
	if dp, ok := f.datapath(); ok {
		setindex.Remove(m.flowsByDP, dp, u)
	}
	if k, ok := f.key(); ok {
		e := m.flowsByKey[k]
		e.rows = deleteSortedFunc(e.rows, u, compareUUIDs)
		storeFlow(m.flowsByKey, k, e)
	}
}

// rekeyFlows keys again the flows of a datapath or group row that
// changed, and returns them.
func (m *sbMirror) rekeyFlows(table, row string) []uuid.UUID {
	u, ok := rowUUID(row)
	if !ok {
		return nil
	}
	var flows map[uuid.UUID]bool
	switch table {
	case sb.DatapathBindingTable:
		flows = m.flowsByDP[u]
	case sb.LogicalDPGroupTable:
		flows = m.groupFlows[u]
	}
	rekeyed := make([]uuid.UUID, 0, len(flows))
	for u := range flows {
		rekeyed = append(rekeyed, u)
	}
	for _, u := range rekeyed {
		f := m.flows[u]
		m.removeFlow(u, f)
		m.addFlow(u, f)
	}
	return rekeyed
}

func (m *sbMirror) flowKind(f *flowRow) (rules.DatapathKind, bool) {
	if dp, ok := f.datapath(); ok {
		t := rowText(dp)
		if kind, ok := m.dpKind(string(t[:])); ok {
			return kind, true
		}
	}
	if g, ok := f.dpGroup(); ok {
		t := rowText(g)
		if grp := m.groups[string(t[:])]; grp != nil {
			for _, u := range grp.Datapaths {
				if kind, ok := m.dpKind(u); ok {
					return kind, true
				}
			}
		}
	}
	return 0, false
}

// groupFlowCount is the number of flow rows on group row g.
func (m *sbMirror) groupFlowCount(g string) int {
	u, ok := rowUUID(g)
	if !ok {
		return 0
	}
	return len(m.groupFlows[u])
}

// compareUUIDs orders uuids as their texts.
func compareUUIDs(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }
