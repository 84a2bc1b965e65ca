package embedded

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/northlog/northlog/ovsdb/wire"
	dbase "github.com/ovn-org/libovsdb/database"
	"github.com/ovn-org/libovsdb/model"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// monitor is one monitor a session created with "monitor" (version 1),
// "monitor_cond" (2) or "monitor_cond_since" (3).
type monitor struct {
	db      *database
	version int
	id      json.RawMessage
	tables  map[string]*tableMonitor
}

// tableMonitor is what a monitor watches in one table. OVS clients may send
// an array of requests per table (RFC 7047, 4.1.5); the server merges them:
// the union of their columns, of their select flags and of their conditions.
type tableMonitor struct {
	schema                          *ovsdb.TableSchema
	codec                           *tableCodec
	columns                         []*columnCodec // sorted by name
	initial, insert, delete, modify bool
	where                           []clause // rows matching any clause; nil: every row
}

// clause is one element of a monitor condition: a literal true or false, or
// a condition on a column, its value already in libovsdb's native form.
type clause struct {
	literal *bool
	cond    ovsdb.Condition
	native  any
}

// monitorRequest is one <monitor-request> (RFC 7047, 4.1.5, and the "where"
// of ovsdb-server(7)'s monitor_cond).
type monitorRequest struct {
	Columns []string          `json:"columns"`
	Where   []json.RawMessage `json:"where"`
	Select  *struct {
		Initial *bool `json:"initial"`
		Insert  *bool `json:"insert"`
		Delete  *bool `json:"delete"`
		Modify  *bool `json:"modify"`
	} `json:"select"`
}

// monitorKey is the key of a monitor id: its compact JSON text.
func monitorKey(id json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, id); err != nil {
		return string(id)
	}
	return b.String()
}

// allColumns is the sorted list of a table's columns.
func allColumns(table *ovsdb.TableSchema) []string {
	return slices.Sorted(maps.Keys(table.Columns))
}

// parseTableRequests merges the monitor requests for one table, given as one
// object or an array of them.
func parseTableRequests(table *ovsdb.TableSchema, codec *tableCodec, raw json.RawMessage, withWhere bool) (*tableMonitor, error) {
	var reqs []monitorRequest
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		if err := json.Unmarshal(raw, &reqs); err != nil {
			return nil, err
		}
	} else {
		var req monitorRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, err
		}
		reqs = []monitorRequest{req}
	}
	tm := &tableMonitor{schema: table, codec: codec}
	columns := map[string]bool{}
	allRows := !withWhere
	for _, req := range reqs {
		if len(req.Columns) == 0 {
			for _, c := range allColumns(table) {
				columns[c] = true
			}
		}
		for _, c := range req.Columns {
			if c == "_uuid" || c == "_version" {
				continue
			}
			if table.Column(c) == nil {
				return nil, fmt.Errorf("unknown column %q", c)
			}
			columns[c] = true
		}
		flag := func(p *bool) bool { return p == nil || *p }
		if req.Select == nil {
			tm.initial, tm.insert, tm.delete, tm.modify = true, true, true, true
		} else {
			tm.initial = tm.initial || flag(req.Select.Initial)
			tm.insert = tm.insert || flag(req.Select.Insert)
			tm.delete = tm.delete || flag(req.Select.Delete)
			tm.modify = tm.modify || flag(req.Select.Modify)
		}
		if withWhere {
			if req.Where == nil {
				allRows = true
			}
			where, err := parseWhere(table, req.Where)
			if err != nil {
				return nil, err
			}
			tm.where = append(tm.where, where...)
		}
	}
	for _, c := range slices.Sorted(maps.Keys(columns)) {
		tm.columns = append(tm.columns, codec.byName[c])
	}
	if allRows || len(tm.where) == 0 {
		// ovsdb-server(7): an empty condition matches every row.
		tm.where = nil
	}
	return tm, nil
}

// parseWhere parses a monitor condition: an array of conditions and
// booleans, true when any of them is.
func parseWhere(table *ovsdb.TableSchema, raw []json.RawMessage) ([]clause, error) {
	where := make([]clause, 0, len(raw))
	for _, r := range raw {
		var b bool
		if err := json.Unmarshal(r, &b); err == nil {
			where = append(where, clause{literal: &b})
			continue
		}
		var parts []json.RawMessage
		if err := json.Unmarshal(r, &parts); err != nil || len(parts) != 3 {
			return nil, fmt.Errorf("bad condition %s", r)
		}
		var column string
		if err := json.Unmarshal(parts[0], &column); err != nil {
			return nil, fmt.Errorf("bad condition %s", r)
		}
		cs := table.Column(column)
		if cs == nil {
			return nil, fmt.Errorf("condition on unknown column %q", column)
		}
		var cond ovsdb.Condition
		if err := json.Unmarshal(r, &cond); err != nil {
			return nil, fmt.Errorf("bad condition %s: %w", r, err)
		}
		native, err := ovsdb.OvsToNative(cs, cond.Value)
		if err != nil {
			return nil, fmt.Errorf("bad condition %s: %w", r, err)
		}
		where = append(where, clause{cond: cond, native: native})
	}
	return where, nil
}

// matches reports whether a row satisfies the monitor's condition.
func (tm *tableMonitor) matches(r row) bool {
	if tm.where == nil {
		return true
	}
	for _, c := range tm.where {
		if c.literal != nil {
			if *c.literal {
				return true
			}
			continue
		}
		v := r.native(c.cond.Column)
		if v == nil {
			continue
		}
		if ok, err := c.cond.Function.Evaluate(v, c.native); err == nil && ok {
			return true
		}
	}
	return false
}

// monitor creates a monitor (RFC 7047, 4.1.5; ovsdb-server(7) for
// monitor_cond and monitor_cond_since) and returns its initial contents.
// monitor_cond_since finds the client's data current only when the client's
// last transaction id is the database's latest; otherwise it sends every row.
func (s *server) monitor(sess *session, method string, params []json.RawMessage) (any, error) {
	version := map[string]int{"monitor": 1, "monitor_cond": 2, "monitor_cond_since": 3}[method]
	n := 3
	if version == 3 {
		n = 4
	}
	db, err := s.lookupDB(params, n)
	if err != nil {
		return nil, err
	}
	var requests map[string]json.RawMessage
	if err := json.Unmarshal(params[2], &requests); err != nil {
		return nil, fmt.Errorf("%s: monitor requests must be an object", method)
	}
	mon := &monitor{db: db, version: version, id: params[1], tables: make(map[string]*tableMonitor)}
	for table, raw := range requests {
		ts := db.schema.Table(table)
		if ts == nil {
			return nil, fmt.Errorf("%s: unknown table %q", method, table)
		}
		tm, err := parseTableRequests(ts, db.codecs[table], raw, version > 1)
		if err != nil {
			return nil, fmt.Errorf("%s: table %s: %w", method, table, err)
		}
		mon.tables[table] = tm
	}
	var lastID string
	if version == 3 {
		if err := json.Unmarshal(params[3], &lastID); err != nil {
			return nil, fmt.Errorf("%s: last transaction id must be a string", method)
		}
	}

	key := monitorKey(mon.id)
	if _, dup := sess.monitors[key]; dup {
		return nil, errors.New("duplicate monitor ID")
	}
	found := version == 3 && lastID == db.lastTxn && lastID != zeroTxnID
	updates := tableUpdates{}
	if !found {
		for table, tm := range mon.tables {
			if !tm.initial {
				continue
			}
			rows, err := s.store.rows(db.name, table)
			if err != nil {
				return nil, err
			}
			for uuid, m := range rows {
				if r := tm.codec.row(m); tm.matches(r) {
					updates.add(table, uuid, mon.rowUpdate(tm, "initial", nil, &r))
				}
			}
		}
	}
	sess.monitors[key] = mon
	if version == 3 {
		b := append(strconv.AppendBool([]byte{'['}, found), ',')
		b = wire.AppendString(b, db.lastTxn)
		b = append(b, ',')
		return rawJSON(append(updates.appendJSON(b), ']')), nil
	}
	return rawJSON(updates.appendJSON(nil)), nil
}

// monitorCancel ends a monitor.
func (s *server) monitorCancel(sess *session, params []json.RawMessage) (any, error) {
	if len(params) != 1 {
		return nil, errors.New("monitor_cancel: expected one monitor id")
	}
	key := monitorKey(params[0])
	if _, ok := sess.monitors[key]; !ok {
		return nil, errors.New("unknown monitor")
	}
	delete(sess.monitors, key)
	return struct{}{}, nil
}

// monitorCondChange replaces the conditions of some tables of a monitor
// (ovsdb-server(7), monitor_cond_change) and sends the rows that the change
// brings in as inserts and those it drops as deletes, under the new id.
func (s *server) monitorCondChange(sess *session, params []json.RawMessage) (any, error) {
	if len(params) != 3 {
		return nil, errors.New("monitor_cond_change: expected old id, new id and changes")
	}
	var changes map[string][]monitorRequest
	if err := json.Unmarshal(params[2], &changes); err != nil {
		return nil, fmt.Errorf("monitor_cond_change: %w", err)
	}
	oldKey, newKey := monitorKey(params[0]), monitorKey(params[1])
	mon, ok := sess.monitors[oldKey]
	if !ok {
		return nil, errors.New("unknown monitor")
	}
	if _, dup := sess.monitors[newKey]; dup && newKey != oldKey {
		return nil, errors.New("duplicate monitor ID")
	}
	if mon.version == 1 {
		return nil, errors.New("monitor_cond_change: monitor has no conditions")
	}
	newWhere := make(map[string][]clause, len(changes))
	for table, reqs := range changes {
		tm, ok := mon.tables[table]
		if !ok {
			return nil, fmt.Errorf("monitor_cond_change: table %q is not monitored", table)
		}
		var where []clause
		all := false
		for _, req := range reqs {
			if req.Where == nil {
				all = true
			}
			w, err := parseWhere(tm.schema, req.Where)
			if err != nil {
				return nil, fmt.Errorf("monitor_cond_change: table %s: %w", table, err)
			}
			where = append(where, w...)
		}
		if all || len(where) == 0 {
			where = nil
		}
		newWhere[table] = where
	}

	updates := tableUpdates{}
	for table, where := range newWhere {
		tm := mon.tables[table]
		rows, err := s.store.rows(mon.db.name, table)
		if err != nil {
			return nil, err
		}
		newTM := *tm
		newTM.where = where
		for uuid, m := range rows {
			r := tm.codec.row(m)
			was, is := tm.matches(r), newTM.matches(r)
			switch {
			case is && !was:
				updates.add(table, uuid, mon.rowUpdate(tm, "insert", nil, &r))
			case was && !is:
				updates.add(table, uuid, mon.rowUpdate(tm, "delete", &r, nil))
			}
		}
		tm.where = where
	}
	delete(sess.monitors, oldKey)
	mon.id = params[1]
	sess.monitors[newKey] = mon
	mon.send(sess, updates)
	return struct{}{}, nil
}

// tableUpdates is the <table-updates> or <table-updates2> of a monitor
// reply or notification: table → row uuid → the row update's JSON.
type tableUpdates map[string]map[string][]byte

func (u tableUpdates) add(table, uuid string, ru []byte) {
	if ru == nil {
		return
	}
	if u[table] == nil {
		u[table] = make(map[string][]byte)
	}
	u[table][uuid] = ru
}

// appendJSON appends the JSON object of u.
func (u tableUpdates) appendJSON(b []byte) []byte {
	b = append(b, '{')
	i := 0
	for table, rows := range u {
		if i++; i > 1 {
			b = append(b, ',')
		}
		b = append(wire.AppendString(b, table), ':', '{')
		j := 0
		for uuid, ru := range rows {
			if j++; j > 1 {
				b = append(b, ',')
			}
			b = append(wire.AppendString(b, uuid), ':')
			b = append(b, ru...)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// sendUpdate sends one committed change to the client, as "update",
// "update2" or "update3" after the monitor's version. A row that starts or
// stops matching the monitor's condition is sent as an insert or a delete.
func (mon *monitor) sendUpdate(sess *session, update dbase.Update) {
	updates := tableUpdates{}
	for _, table := range update.GetUpdatedTables() {
		tm, ok := mon.tables[table]
		if !ok {
			continue
		}
		err := update.ForEachModelUpdate(table, func(uuid string, old, new model.Model) error {
			var oldInfo, newInfo *row
			if old != nil {
				if r := tm.codec.row(old); tm.matches(r) {
					oldInfo = &r
				}
			}
			if new != nil {
				if r := tm.codec.row(new); tm.matches(r) {
					newInfo = &r
				}
			}
			switch {
			case oldInfo == nil && newInfo != nil && tm.insert:
				updates.add(table, uuid, mon.rowUpdate(tm, "insert", nil, newInfo))
			case oldInfo != nil && newInfo == nil && tm.delete:
				updates.add(table, uuid, mon.rowUpdate(tm, "delete", oldInfo, nil))
			case oldInfo != nil && newInfo != nil && tm.modify:
				updates.add(table, uuid, mon.rowUpdate(tm, "modify", oldInfo, newInfo))
			}
			return nil
		})
		if err != nil {
			sess.srv.logger.Error("ovsdb: cannot build monitor update", "table", table, "err", err)
		}
	}
	mon.send(sess, updates)
}

// send queues a notification carrying updates, if there are any.
func (mon *monitor) send(sess *session, updates tableUpdates) {
	if len(updates) == 0 {
		return
	}
	method := map[int]string{1: "update", 2: "update2", 3: "update3"}[mon.version]
	b := append([]byte(`{"id":null,"method":`), strconv.Quote(method)...)
	b = append(append(b, `,"params":[`...), mon.id...)
	if mon.version == 3 {
		b = wire.AppendString(append(b, ','), mon.db.lastTxn)
	}
	b = updates.appendJSON(append(b, ','))
	sess.out.put(append(b, "]}"...))
}

// rowUpdate is the JSON of one <row-update> (version 1) or <row-update2>
// for a row that is initial, inserted, deleted or modified; nil when a
// modification leaves every monitored column as it was.
func (mon *monitor) rowUpdate(tm *tableMonitor, kind string, old, new *row) []byte {
	if mon.version == 1 {
		switch kind {
		case "initial", "insert":
			return append(new.appendRow([]byte(`{"new":`), tm.columns, false), '}')
		case "delete":
			return append(old.appendRow([]byte(`{"old":`), tm.columns, false), '}')
		}
		b := []byte(`{"old":{`)
		n := 0
		for _, cc := range tm.columns {
			ov := old.field(cc)
			if changed(cc, ov, new.field(cc)) {
				if n++; n > 1 {
					b = append(b, ',')
				}
				b = appendValue(append(wire.AppendString(b, cc.name), ':'), cc, ov)
			}
		}
		if n == 0 {
			return nil
		}
		return append(new.appendRow(append(b, `},"new":`...), tm.columns, false), '}')
	}
	switch kind {
	case "initial", "insert":
		b := append(wire.AppendString([]byte{'{'}, kind), ':')
		return append(new.appendRow(b, tm.columns, true), '}')
	case "delete":
		return []byte(`{"delete":null}`)
	}
	b := []byte(`{"modify":{`)
	n := 0
	for _, cc := range tm.columns {
		mark := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		b = append(wire.AppendString(b, cc.name), ':')
		var ok bool
		if b, ok = appendDiff(b, cc, old.field(cc), new.field(cc)); ok {
			n++
		} else {
			b = b[:mark]
		}
	}
	if n == 0 {
		return nil
	}
	return append(b, "}}"...)
}

// defaultValue is the default value of a column (RFC 7047, 5.2.1) in OVSDB
// notation.
func defaultValue(cs *ovsdb.ColumnSchema) any {
	switch cs.Type {
	case ovsdb.TypeSet:
		return ovsdb.OvsSet{GoSet: []any{}}
	case ovsdb.TypeMap:
		return ovsdb.OvsMap{GoMap: map[any]any{}}
	}
	atomic := string(cs.Type)
	if cs.Type == ovsdb.TypeEnum {
		atomic = cs.TypeObj.Key.Type
	}
	switch atomic {
	case ovsdb.TypeInteger:
		return 0
	case ovsdb.TypeReal:
		return 0.0
	case ovsdb.TypeBoolean:
		return false
	case ovsdb.TypeUUID:
		return ovsdb.UUID{GoUUID: zeroTxnID}
	default:
		return ""
	}
}

// diff is the <row-update2> "modify" value of a column that changed from
// old to new (ovsdb-server(7), update2): the new value of an atomic column,
// the symmetric difference of a set, and for a map the pairs that are new or
// changed, with their new value, and the removed keys, with their old value.
// It is nil when the column did not change.
func diff(cs *ovsdb.ColumnSchema, old, new any) any {
	switch cs.Type {
	case ovsdb.TypeSet:
		o, n := setElems(old), setElems(new)
		var d []any
		for e := range o {
			if _, ok := n[e]; !ok {
				d = append(d, e)
			}
		}
		for e := range n {
			if _, ok := o[e]; !ok {
				d = append(d, e)
			}
		}
		if len(d) == 0 {
			return nil
		}
		return ovsdb.OvsSet{GoSet: d}
	case ovsdb.TypeMap:
		o, n := mapPairs(old), mapPairs(new)
		d := map[any]any{}
		for k, v := range n {
			if ov, ok := o[k]; !ok || ov != v {
				d[k] = v
			}
		}
		for k, v := range o {
			if _, ok := n[k]; !ok {
				d[k] = v
			}
		}
		if len(d) == 0 {
			return nil
		}
		return ovsdb.OvsMap{GoMap: d}
	default:
		if old == new {
			return nil
		}
		return new
	}
}

// setElems is the elements of a set value, as a set: OVSDB atoms are
// comparable Go values.
func setElems(v any) map[any]struct{} {
	s, _ := v.(ovsdb.OvsSet)
	elems := make(map[any]struct{}, len(s.GoSet))
	for _, e := range s.GoSet {
		elems[e] = struct{}{}
	}
	return elems
}

func mapPairs(v any) map[any]any {
	if m, ok := v.(ovsdb.OvsMap); ok {
		return m.GoMap
	}
	return nil
}
