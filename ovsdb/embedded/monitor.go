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
	table                           *table
	columns                         []*column // sorted by name
	initial, insert, delete, modify bool
	where                           []condition // rows matching any of them; nil: every row
}

// monitorRequest is one <monitor-request> (RFC 7047, 4.1.5, and the "where"
// of ovsdb-server(7)'s monitor_cond).
type monitorRequest struct {
	Columns []string        `json:"columns"`
	Where   json.RawMessage `json:"where"`
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
func parseTableRequests(tb *table, raw json.RawMessage, withWhere bool) (*tableMonitor, error) {
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
	tm := &tableMonitor{table: tb}
	columns := map[*column]bool{}
	allRows := !withWhere
	for _, req := range reqs {
		if len(req.Columns) == 0 {
			for _, c := range tb.columns {
				columns[c] = true
			}
		}
		for _, c := range req.Columns {
			if c == "_uuid" || c == "_version" {
				continue
			}
			col := tb.byName[c]
			if col == nil {
				return nil, fmt.Errorf("unknown column %q", c)
			}
			columns[col] = true
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
			where, all, err := parseMonitorWhere(tb, req.Where)
			if err != nil {
				return nil, err
			}
			allRows = allRows || all
			tm.where = append(tm.where, where...)
		}
	}
	for _, c := range tb.columns {
		if columns[c] {
			tm.columns = append(tm.columns, c)
		}
	}
	if allRows || len(tm.where) == 0 {
		// ovsdb-server(7): an empty condition matches every row.
		tm.where = nil
	}
	return tm, nil
}

// parseMonitorWhere parses a monitor condition: an array of conditions and
// booleans, true when any of them is; all is set when there is none.
func parseMonitorWhere(tb *table, raw json.RawMessage) (where []condition, all bool, err error) {
	if wire.IsNull(raw) {
		return nil, true, nil
	}
	where, err = tb.parseWhere(raw, nil)
	if err != nil {
		return nil, false, err
	}
	return where, false, nil
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
		tm, err := parseTableRequests(db.tables[table], raw, version > 1)
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
			for uuid, r := range tm.table.rows {
				if matchesAny(tm.where, r) {
					updates.add(table, uuid, mon.rowUpdate(tm, "initial", nil, r))
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
	newWhere := make(map[string][]condition, len(changes))
	for table, reqs := range changes {
		tm, ok := mon.tables[table]
		if !ok {
			return nil, fmt.Errorf("monitor_cond_change: table %q is not monitored", table)
		}
		var where []condition
		all := false
		for _, req := range reqs {
			w, none, err := parseMonitorWhere(tm.table, req.Where)
			if err != nil {
				return nil, fmt.Errorf("monitor_cond_change: table %s: %w", table, err)
			}
			all = all || none
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
		for uuid, r := range tm.table.rows {
			was, is := matchesAny(tm.where, r), matchesAny(where, r)
			switch {
			case is && !was:
				updates.add(table, uuid, mon.rowUpdate(tm, "insert", nil, r))
			case was && !is:
				updates.add(table, uuid, mon.rowUpdate(tm, "delete", r, nil))
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
	size := 2
	for table, rows := range u {
		size += len(table) + 5
		for _, ru := range rows {
			size += len(ru) + 40 // a uuid, its quotes, a colon and a comma
		}
	}
	b = append(slices.Grow(b, size), '{')
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
func (mon *monitor) sendUpdate(sess *session, changes map[*table][]*change) {
	updates := tableUpdates{}
	for _, tm := range mon.tables {
		for _, c := range changes[tm.table] {
			old, new := c.old, c.new
			if old != nil && !matchesAny(tm.where, old) {
				old = nil
			}
			if new != nil && !matchesAny(tm.where, new) {
				new = nil
			}
			uuid := c.old
			if uuid == nil {
				uuid = c.new
			}
			switch {
			case old == nil && new != nil && tm.insert:
				updates.add(tm.table.name, uuid.uuid, mon.rowUpdate(tm, "insert", nil, new))
			case old != nil && new == nil && tm.delete:
				updates.add(tm.table.name, uuid.uuid, mon.rowUpdate(tm, "delete", old, nil))
			case old != nil && new != nil && tm.modify:
				updates.add(tm.table.name, uuid.uuid, mon.rowUpdate(tm, "modify", old, new))
			}
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
			return append(appendRow([]byte(`{"new":`), new, tm.columns, false), '}')
		case "delete":
			return append(appendRow([]byte(`{"old":`), old, tm.columns, false), '}')
		}
		b := []byte(`{"old":{`)
		n := 0
		for _, c := range tm.columns {
			ov := old.cols[c.index]
			if !equalDatums(ov, new.cols[c.index]) {
				if n++; n > 1 {
					b = append(b, ',')
				}
				b = c.appendDatum(append(wire.AppendString(b, c.name), ':'), ov)
			}
		}
		if n == 0 {
			return nil
		}
		return append(appendRow(append(b, `},"new":`...), new, tm.columns, false), '}')
	}
	switch kind {
	case "initial", "insert":
		b := append(wire.AppendString([]byte{'{'}, kind), ':')
		return append(appendRow(b, new, tm.columns, true), '}')
	case "delete":
		return []byte(`{"delete":null}`)
	}
	b := []byte(`{"modify":{`)
	n := 0
	for _, c := range tm.columns {
		mark := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		b = append(wire.AppendString(b, c.name), ':')
		var ok bool
		if b, ok = c.appendDiff(b, old.cols[c.index], new.cols[c.index]); ok {
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
