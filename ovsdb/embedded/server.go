package embedded

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/ovn-org/libovsdb/model"
	"github.com/ovn-org/libovsdb/ovsdb"
	"github.com/ovn-org/libovsdb/ovsdb/serverdb"
	"github.com/ovn-org/libovsdb/updates"
)

// zeroTxnID is the transaction id of a database no transaction has changed
// yet; clients send it in monitor_cond_since when they have no data.
const zeroTxnID = "00000000-0000-0000-0000-000000000000"

// serverDBName is the name of the database that describes the others.
const serverDBName = "_Server"

// database is one OVSDB database that a server serves.
type database struct {
	name       string
	schemaJSON json.RawMessage // sent as is for get_schema and in _Server
	// schema is the schema served; model's is it completed with the
	// tables and columns of the models it lacks (the models are every
	// release's), which no client sees or can write.
	schema  ovsdb.DatabaseSchema
	model   model.DatabaseModel
	lastTxn string  // id of the last committed transaction
	file    *dbFile // where commits are logged; nil for _Server
	refs    *refIndex
	codecs  map[string]*tableCodec // by table
}

// server answers the OVSDB JSON-RPC protocol (RFC 7047 and ovsdb-server(7):
// monitor_cond, monitor_cond_since, the _Server database) on one listener for
// one data database. libovsdb's in-memory database and transaction code hold
// the data and check and apply each transaction; the server adds the parts
// that stock OVS/OVN clients need and libovsdb's own server lacks.
type server struct {
	logger *slog.Logger
	id     string // answered to get_server_id
	store  *store
	dbs    map[string]*database
	names  []string // list_dbs answer: the data database, then _Server

	// mu is held while a request is handled and its reply queued, so
	// requests run one at a time and every outbox holds messages in the
	// order the server did things: a monitor's initial contents come
	// before the updates of later commits, each commit reaches each
	// monitor once.
	mu       sync.Mutex
	sessions map[*session]struct{}
	locks    map[string][]*lockWaiter // lock name → waiters, owner first
	closed   bool

	ln net.Listener
	wg sync.WaitGroup
}

// newServer makes a server for the database that schemaJSON describes and
// clientModel maps to Go types, kept in the file at path, plus its _Server
// database.
func newServer(logger *slog.Logger, schemaJSON []byte, clientModel model.ClientDBModel, modelSchema ovsdb.DatabaseSchema, path string) (*server, error) {
	var schema ovsdb.DatabaseSchema
	if err := json.Unmarshal(schemaJSON, &schema); err != nil {
		return nil, fmt.Errorf("parsing schema: %w", err)
	}
	if schema.Name != clientModel.Name() {
		return nil, fmt.Errorf("schema is for database %q, model for %q", schema.Name, clientModel.Name())
	}
	serverModel, err := serverdb.FullDatabaseModel()
	if err != nil {
		return nil, err
	}
	serverSchema := serverdb.Schema()
	serverSchemaJSON, err := json.Marshal(serverSchema)
	if err != nil {
		return nil, err
	}

	s := &server{
		logger: logger,
		id:     uuid.NewString(),
		store: newStore(map[string]model.ClientDBModel{
			schema.Name:  clientModel,
			serverDBName: serverModel,
		}),
		dbs:      make(map[string]*database),
		names:    []string{schema.Name, serverDBName},
		sessions: make(map[*session]struct{}),
		locks:    make(map[string][]*lockWaiter),
	}
	full := schema
	full.Tables = maps.Clone(schema.Tables)
	wire.CompleteSchema(&full, modelSchema)
	for _, d := range []struct {
		schema, full ovsdb.DatabaseSchema
		json         []byte
		client       model.ClientDBModel
	}{
		{schema, full, schemaJSON, clientModel},
		{serverSchema, serverSchema, serverSchemaJSON, serverModel},
	} {
		dbModel, errs := model.NewDatabaseModel(d.full, d.client)
		if len(errs) > 0 {
			return nil, fmt.Errorf("database %s: model does not fit schema: %v", d.schema.Name, errors.Join(errs...))
		}
		refs, err := newRefIndex(&d.full)
		if err != nil {
			return nil, err
		}
		codecs, err := newTableCodecs(&d.schema, &d.full, dbModel)
		if err != nil {
			return nil, err
		}
		storeSchema, err := libovsdbSchema(d.full)
		if err != nil {
			return nil, err
		}
		if err := s.store.CreateDatabase(d.schema.Name, storeSchema); err != nil {
			return nil, err
		}
		s.dbs[d.schema.Name] = &database{
			name:       d.schema.Name,
			schemaJSON: d.json,
			schema:     d.schema,
			model:      dbModel,
			lastTxn:    zeroTxnID,
			refs:       refs,
			codecs:     codecs,
		}
	}

	// _Server's Database table lists every database, as ovsdb-server's does;
	// OVS clients read the data database's schema from its row.
	var ops []ovsdb.Operation
	for _, name := range s.names {
		ops = append(ops, ovsdb.Operation{
			Op:    ovsdb.OperationInsert,
			Table: "Database",
			Row: ovsdb.Row{
				"name":      name,
				"model":     serverdb.DatabaseModelStandalone,
				"connected": true,
				"leader":    true,
				"schema":    ovsdb.OvsSet{GoSet: []any{string(s.dbs[name].schemaJSON)}},
			},
		})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if results := s.commit(s.dbs[serverDBName], ops, true); firstError(results) != nil {
		return nil, fmt.Errorf("filling %s: %s", serverDBName, firstError(results).Error)
	}
	if err := s.openFile(s.dbs[schema.Name], path); err != nil {
		return nil, err
	}
	return s, nil
}

// serve accepts connections on ln until close is called. A failed accept
// (out of file descriptors, say) is logged and retried after a pause.
func (s *server) serve(ln net.Listener) {
	s.ln = ln
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			nc, err := ln.Accept()
			if err == nil {
				s.startSession(nc)
				continue
			}
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return
			}
			s.logger.Error("ovsdb server cannot accept a connection", "listener", ln.Addr().String(), "err", err)
			time.Sleep(100 * time.Millisecond)
		}
	}()
}

// close stops the listener, drops every session and waits for their
// goroutines.
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	sessions := make([]*session, 0, len(s.sessions))
	for sess := range s.sessions {
		sessions = append(sessions, sess)
	}
	s.mu.Unlock()
	if s.ln != nil {
		s.ln.Close()
	}
	for _, sess := range sessions {
		sess.nc.Close()
	}
	s.wg.Wait()
	s.store.close()
	for _, db := range s.dbs {
		if db.file != nil && db.file.f != nil {
			if err := db.file.f.Close(); err != nil {
				s.logger.Error("ovsdb: closing the database file", "file", db.file.path, "err", err)
			}
		}
	}
}

// session is one client connection.
type session struct {
	srv      *server
	nc       net.Conn
	out      *outbox
	monitors map[string]*monitor    // by the compact JSON of the monitor id
	waiters  map[string]*lockWaiter // by lock name
}

func (s *server) startSession(nc net.Conn) {
	sess := &session{
		srv:      s,
		nc:       nc,
		out:      newOutbox(),
		monitors: make(map[string]*monitor),
		waiters:  make(map[string]*lockWaiter),
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		nc.Close()
		return
	}
	s.sessions[sess] = struct{}{}
	s.mu.Unlock()

	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		if err := sess.out.writeTo(nc); err != nil {
			s.logger.Debug("ovsdb session write failed", "err", err)
			nc.Close()
		}
	}()
	go func() {
		defer s.wg.Done()
		if err := readMessages(nc, sess.handle); err != nil {
			s.logger.Debug("ovsdb session read failed", "err", err)
		}
		s.endSession(sess)
		nc.Close()
	}()
}

// endSession forgets a session's monitors and releases its locks.
func (s *server) endSession(sess *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, sess)
	for name := range sess.waiters {
		s.unlock(sess, name)
	}
	sess.out.close()
}

// send queues one message for the client.
func (sess *session) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		sess.srv.logger.Error("ovsdb: cannot encode message", "err", err)
		return
	}
	sess.out.put(b)
}

// notify queues a notification.
func (sess *session) notify(method string, params ...any) {
	sess.send(notification{Method: method, Params: params})
}

// handle answers one message from the client. Responses to requests the
// server never sends, and notifications ("cancel" included: transactions
// never wait here), need no answer.
func (sess *session) handle(m *message) {
	if m.Method == "" || isNull(m.ID) {
		return
	}
	sess.srv.mu.Lock()
	defer sess.srv.mu.Unlock()
	result, err := sess.call(m.Method, m.Params)
	if err != nil {
		sess.send(reply{ID: m.ID, Error: err.Error()})
		return
	}
	if raw, ok := result.(rawJSON); ok {
		b := append(append([]byte(`{"id":`), m.ID...), `,"result":`...)
		sess.out.put(append(append(b, raw...), `,"error":null}`...))
		return
	}
	sess.send(reply{ID: m.ID, Result: result})
}

// call runs one request; the caller holds s.mu. A malformed request that trips a panic in the code
// it reaches is answered with an error: one bad client must not stop the
// server.
func (sess *session) call(method string, rawParams json.RawMessage) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			sess.srv.logger.Error("ovsdb: request failed", "method", method, "panic", r)
			result, err = nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	var params []json.RawMessage
	if !isNull(rawParams) {
		if err := json.Unmarshal(rawParams, &params); err != nil {
			return nil, fmt.Errorf("%s: params must be an array", method)
		}
	}
	s := sess.srv
	switch method {
	case "echo":
		return params, nil
	case "list_dbs":
		return s.names, nil
	case "get_server_id":
		return s.id, nil
	case "set_db_change_aware":
		// Databases never change under a session here, so there is
		// nothing to be aware of.
		return struct{}{}, nil
	case "get_schema":
		db, err := s.lookupDB(params, 1)
		if err != nil {
			return nil, err
		}
		return db.schemaJSON, nil
	case "transact":
		db, err := s.lookupDB(params, len(params))
		if err != nil {
			return nil, err
		}
		return s.transact(sess, db, params[1:]), nil
	case "monitor", "monitor_cond", "monitor_cond_since":
		return s.monitor(sess, method, params)
	case "monitor_cond_change":
		return s.monitorCondChange(sess, params)
	case "monitor_cancel":
		return s.monitorCancel(sess, params)
	case "lock", "steal", "unlock":
		return s.lockRequest(sess, method, params)
	default:
		return nil, errors.New("unknown method")
	}
}

// lookupDB finds the database named by params[0] of a request that takes at
// least n params.
func (s *server) lookupDB(params []json.RawMessage, n int) (*database, error) {
	if len(params) == 0 || len(params) < n {
		return nil, errors.New("missing database name")
	}
	var name string
	if err := json.Unmarshal(params[0], &name); err != nil {
		return nil, errors.New("database name must be a string")
	}
	db, ok := s.dbs[name]
	if !ok {
		return nil, fmt.Errorf("unknown database %q", name)
	}
	return db, nil
}

// firstError is the first failed result of a transaction, or nil.
func firstError(results []*ovsdb.OperationResult) *ovsdb.OperationResult {
	for _, r := range results {
		if r != nil && r.Error != "" {
			return r
		}
	}
	return nil
}

// commit runs ops as one libovsdb transaction on db and, when apply is set,
// every operation succeeds, something changed and every value fits its
// column, logs it to db's file, applies it and sends the change to every
// monitor of db. The caller holds s.mu.
//
// The server checks "wait" operations itself: libovsdb compares sets in
// order and skips the expected values that are a column's default, so an
// IDL's verification of a set column could fail forever or pass wrongly.
// Each wait runs as a select in its place in the transaction, which sees the
// operations before it, and fails the transaction with "timed out" at once
// when its rows do not match (as if its timeout were 0).
func (s *server) commit(db *database, ops []ovsdb.Operation, apply bool) []*ovsdb.OperationResult {
	for i, op := range ops {
		if err := checkServed(db, op); err != nil {
			results := make([]*ovsdb.OperationResult, len(ops))
			for j := range i {
				results[j] = &ovsdb.OperationResult{}
			}
			results[i] = &ovsdb.OperationResult{Error: "unknown column", Details: err.Error()}
			return results[:i+1]
		}
	}
	lib := slices.Clone(ops)
	for i, op := range lib {
		if op.Op == ovsdb.OperationWait {
			lib[i] = ovsdb.Operation{Op: ovsdb.OperationSelect, Table: op.Table, Where: op.Where}
		}
	}
	results, update := s.store.NewTransaction(db.name).Transact(lib...)
	for i, op := range ops {
		if i >= len(results) || results[i] == nil || results[i].Error != "" {
			break
		}
		if op.Op == ovsdb.OperationWait {
			if !waitHolds(db.schema.Table(op.Table), op, results[i].Rows) {
				results = results[:i+1]
				results[i] = &ovsdb.OperationResult{Error: "timed out", Details: "\"wait\" condition not met"}
				return append(results, make([]*ovsdb.OperationResult, len(ops)-i-1)...)
			}
			results[i] = &ovsdb.OperationResult{}
		}
	}
	if !apply || firstError(results) != nil || len(update.GetUpdatedTables()) == 0 {
		return results
	}
	changes, ok := update.(updates.DatabaseUpdate)
	if !ok {
		return append(results, &ovsdb.OperationResult{Error: "commit failed", Details: fmt.Sprintf("unexpected update %T", update)})
	}
	refs, failed := s.referentialIntegrity(db, &changes.ModelUpdates)
	if failed != nil {
		return append(results, failed)
	}
	update = updates.NewDatabaseUpdate(changes.ModelUpdates, nil)
	if len(update.GetUpdatedTables()) == 0 {
		return results
	}
	if err := checkConstraints(db, update); err != nil {
		return append(results, &ovsdb.OperationResult{Error: "constraint violation", Details: err.Error()})
	}
	if db.file != nil {
		if err := s.logCommit(db, update); err != nil {
			return append(results, &ovsdb.OperationResult{Error: "I/O error", Details: err.Error()})
		}
	}
	txnID := uuid.New()
	if err := s.store.Commit(db.name, txnID, update); err != nil {
		return append(results, &ovsdb.OperationResult{Error: "commit failed", Details: err.Error()})
	}
	db.refs.commitRefs(refs)
	db.lastTxn = txnID.String()
	if db.file != nil {
		s.maybeCompact(db)
	}
	for sess := range s.sessions {
		for _, mon := range sess.monitors {
			if mon.db == db {
				mon.sendUpdate(sess, update)
			}
		}
	}
	return results
}

// checkWaitSyntax checks what waitHolds relies on: a known table and
// columns, and "==" or "!=".
func checkWaitSyntax(db *database, op ovsdb.Operation) error {
	table := db.schema.Table(op.Table)
	if table == nil {
		return fmt.Errorf("wait: unknown table %q", op.Table)
	}
	if op.Until != string(ovsdb.WaitConditionEqual) && op.Until != string(ovsdb.WaitConditionNotEqual) {
		return fmt.Errorf("wait: bad until %q", op.Until)
	}
	for _, c := range op.Columns {
		if table.Column(c) == nil {
			return fmt.Errorf("wait: unknown column %q", c)
		}
	}
	return nil
}

// waitHolds reports whether the rows a "wait" operation's where selects
// (RFC 7047, 5.2.6), projected on its columns, are (until "==") or are not
// (until "!=") the rows it lists, in any order.
func waitHolds(table *ovsdb.TableSchema, op ovsdb.Operation, rows []ovsdb.Row) bool {
	project := func(row ovsdb.Row) []any {
		values := make([]any, len(op.Columns))
		for i, c := range op.Columns {
			values[i] = canonicalValue(table.Column(c), row[c])
		}
		return values
	}
	equal := func(a, b []any) bool {
		for i, c := range op.Columns {
			if diff(table.Column(c), a[i], b[i]) != nil {
				return false
			}
		}
		return true
	}
	holds := len(rows) == len(op.Rows)
	unmatched := make([][]any, 0, len(rows))
	for _, r := range rows {
		unmatched = append(unmatched, project(r))
	}
	for _, want := range op.Rows {
		if !holds {
			break
		}
		w := project(want)
		i := slices.IndexFunc(unmatched, func(got []any) bool { return equal(got, w) })
		if i < 0 {
			holds = false
			break
		}
		unmatched = slices.Delete(unmatched, i, i+1)
	}
	if op.Until == string(ovsdb.WaitConditionNotEqual) {
		return !holds
	}
	return holds
}

// canonicalValue is a column value in the form the server builds from its
// own rows, whatever form a client wrote it in (an atom for a one-element
// set, a float for an integer); a missing value is the column's default.
func canonicalValue(cs *ovsdb.ColumnSchema, v any) any {
	if v == nil {
		return defaultValue(cs)
	}
	native, err := ovsdb.OvsToNative(cs, v)
	if err != nil {
		return v
	}
	ovs, err := ovsdb.NativeToOvs(cs, native)
	if err != nil {
		return v
	}
	return ovs
}

// writeOps are the operations that change a database.
var writeOps = []string{ovsdb.OperationInsert, ovsdb.OperationUpdate, ovsdb.OperationMutate, ovsdb.OperationDelete}

// transact runs a "transact" request (RFC 7047, 4.1.3) and returns its
// result array: one element per operation, null for those not run after a
// failure, plus one error element when the commit itself fails.
//
// libovsdb's transaction runs insert, select, update, mutate and delete;
// commit checks "wait". The server answers the others itself: "comment" and
// "commit" succeed (the databases live in memory, so durability is moot),
// "abort" fails the transaction, "assert" checks that the session owns the
// lock. The _Server database is read-only.
func (s *server) transact(sess *session, db *database, rawOps []json.RawMessage) []any {
	results := make([]any, len(rawOps))
	var ops []ovsdb.Operation
	var opIndex []int // position in rawOps of each element of ops
	stopped := false  // an operation before the end failed on its own
	for i, raw := range rawOps {
		var op ovsdb.Operation
		if err := json.Unmarshal(raw, &op); err != nil {
			results[i] = opError("syntax error", err.Error())
			stopped = true
			break
		}
		switch {
		case op.Op == ovsdb.OperationComment || op.Op == ovsdb.OperationCommit:
			results[i] = struct{}{}
			continue
		case op.Op == ovsdb.OperationAbort:
			results[i] = opError("aborted", "aborted by request")
		case op.Op == ovsdb.OperationAssert:
			if op.Lock != nil && s.ownsLock(sess, *op.Lock) {
				results[i] = struct{}{}
				continue
			}
			results[i] = opError("not owner", "the session does not own the asserted lock")
		case db.name == serverDBName && slices.Contains(writeOps, op.Op):
			results[i] = opError("not allowed", "the _Server database is read-only")
		default:
			if op.Op == ovsdb.OperationWait {
				if err := checkWaitSyntax(db, op); err != nil {
					results[i] = opError("syntax error", err.Error())
					break
				}
			}
			ops = append(ops, op)
			opIndex = append(opIndex, i)
			continue
		}
		stopped = true
		break
	}

	// When an operation failed here, those before it run for their
	// results alone: nothing is committed.
	libResults := s.commit(db, ops, !stopped)

	failedAt := len(rawOps)
	for j, r := range libResults {
		if j >= len(ops) {
			// libovsdb appends commit-time failures (referential
			// integrity, indexes) after the operations' results.
			results = append(results, encodeResult(db, ovsdb.Operation{}, r))
			continue
		}
		i := opIndex[j]
		results[i] = encodeResult(db, ops[j], r)
		if r != nil && r.Error != "" && i < failedAt {
			failedAt = i
		}
	}
	for i := failedAt + 1; i < len(rawOps); i++ {
		results[i] = nil
	}
	return results
}

// opError is a failed operation's result.
func opError(kind, details string) map[string]string {
	return map[string]string{"error": kind, "details": details}
}

// encodeResult is the JSON form of one operation result: only the members
// RFC 7047 defines for that operation, "count" even when 0, and "rows" with
// exactly the requested columns (libovsdb's select leaves out columns that
// hold their default value and ignores "columns", which ovsdb-client and
// the OVS IDL rely on).
func encodeResult(db *database, op ovsdb.Operation, r *ovsdb.OperationResult) any {
	if r == nil {
		return nil
	}
	if r.Error != "" {
		return opError(r.Error, r.Details)
	}
	switch op.Op {
	case ovsdb.OperationInsert:
		return map[string]any{"uuid": r.UUID}
	case ovsdb.OperationUpdate, ovsdb.OperationMutate, ovsdb.OperationDelete:
		return map[string]any{"count": r.Count}
	case ovsdb.OperationSelect:
		table := db.schema.Table(op.Table)
		columns := op.Columns
		if len(columns) == 0 {
			columns = append(allColumns(table), "_uuid")
		}
		rows := make([]map[string]any, 0, len(r.Rows))
		for _, row := range r.Rows {
			out := make(map[string]any, len(columns))
			for _, c := range columns {
				if v, ok := row[c]; ok {
					out[c] = v
				} else if cs := table.Column(c); cs != nil && c != "_version" {
					out[c] = defaultValue(cs)
				}
			}
			rows = append(rows, out)
		}
		return map[string]any{"rows": rows}
	default:
		return struct{}{}
	}
}

// checkServed finds a column that op names and the served schema lacks
// (one of the models' that the store has, see database.schema).
func checkServed(db *database, op ovsdb.Operation) error {
	table := db.schema.Table(op.Table)
	if table == nil {
		return nil // libovsdb refuses it
	}
	cols := slices.Collect(maps.Keys(op.Row))
	cols = append(cols, op.Columns...)
	for _, m := range op.Mutations {
		cols = append(cols, m.Column)
	}
	for _, c := range op.Where {
		cols = append(cols, c.Column)
	}
	for _, row := range op.Rows {
		cols = slices.AppendSeq(cols, maps.Keys(row))
	}
	for _, c := range cols {
		if c != "_uuid" && c != "_version" && table.Column(c) == nil {
			return fmt.Errorf("No column %s in table %s.", c, op.Table)
		}
	}
	return nil
}
