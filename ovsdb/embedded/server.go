package embedded

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/ovn-org/libovsdb/ovsdb"
	"github.com/ovn-org/libovsdb/ovsdb/serverdb"
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
	schema     ovsdb.DatabaseSchema
	tables     map[string]*table
	lastTxn    string  // id of the last committed transaction
	file       *dbFile // where commits are logged; nil for _Server
	refs       *refIndex
}

// server answers the OVSDB JSON-RPC protocol (RFC 7047 and ovsdb-server(7):
// monitor_cond, monitor_cond_since, the _Server database) on one listener for
// one data database, whose rows it holds (store.go) and changes by
// transactions (txn.go).
type server struct {
	logger *slog.Logger
	id     string // answered to get_server_id
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

// newServer makes a server for the database that schemaJSON describes,
// kept in the file at path, plus its _Server database.
func newServer(logger *slog.Logger, schemaJSON []byte, path string) (*server, error) {
	var schema ovsdb.DatabaseSchema
	if err := json.Unmarshal(schemaJSON, &schema); err != nil {
		return nil, fmt.Errorf("parsing schema: %w", err)
	}
	serverSchema := serverdb.Schema()
	serverSchemaJSON, err := json.Marshal(serverSchema)
	if err != nil {
		return nil, err
	}

	s := &server{
		logger:   logger,
		id:       uuid.NewString(),
		dbs:      make(map[string]*database),
		names:    []string{schema.Name, serverDBName},
		sessions: make(map[*session]struct{}),
		locks:    make(map[string][]*lockWaiter),
	}
	for _, d := range []struct {
		schema ovsdb.DatabaseSchema
		json   []byte
	}{
		{schema, schemaJSON},
		{serverSchema, serverSchemaJSON},
	} {
		tables, err := newTables(&d.schema)
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", d.schema.Name, err)
		}
		s.dbs[d.schema.Name] = &database{
			name:       d.schema.Name,
			schemaJSON: d.json,
			schema:     d.schema,
			tables:     tables,
			lastTxn:    zeroTxnID,
			refs:       newRefIndex(),
		}
	}

	// _Server's Database table lists every database, as ovsdb-server's does;
	// OVS clients read the data database's schema from its row.
	sdb := s.dbs[serverDBName]
	t := newTxn(sdb, len(s.names))
	tb := sdb.tables["Database"]
	for _, name := range s.names {
		r := tb.newRow(uuid.NewString())
		for column, a := range map[string]atom{
			"name":      {s: name},
			"model":     {s: serverdb.DatabaseModelStandalone},
			"connected": {n: 1},
			"leader":    {n: 1},
			"schema":    {s: string(s.dbs[name].schemaJSON)},
		} {
			r.cols[tb.byName[column].index] = datum{keys: []atom{a}}
		}
		t.changes[r.uuid] = &change{table: tb, new: r}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.commit(t); err != nil {
		return nil, fmt.Errorf("filling %s: %w", serverDBName, err)
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
		if err := wire.ReadMessages(nc, sess.handle); err != nil {
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
func (sess *session) handle(m wire.Message) {
	if m.Method == "" || wire.IsNull(m.ID) {
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
	params := []json.RawMessage{}
	if !wire.IsNull(rawParams) {
		err := wire.WalkArray(rawParams, func(p []byte) error {
			params = append(params, p)
			return nil
		})
		if err != nil {
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

// commit puts a transaction's changes in place, when its operations
// succeeded and it changes something: it completes and checks referential
// integrity (refs.go), checks the indexes, logs the transaction to db's file, applies it and sends the change to
// every monitor of db. The caller holds s.mu.
func (s *server) commit(t *txn) error {
	db := t.db
	t.dropUnchanged()
	if len(t.changes) == 0 {
		return nil
	}
	refs, err := referentialIntegrity(t)
	if err != nil {
		return err
	}
	t.dropUnchanged()
	if len(t.changes) == 0 {
		return nil
	}
	if err := checkIndexes(t); err != nil {
		return err
	}
	byTable := t.byTable()
	if db.file != nil {
		if err := s.logCommit(db, byTable, t.size); err != nil {
			return &opErr{"I/O error", err.Error()}
		}
	}
	t.apply()
	db.refs.commitRefs(refs)
	db.lastTxn = uuid.NewString()
	if db.file != nil {
		s.maybeCompact(db)
	}
	for sess := range s.sessions {
		for _, mon := range sess.monitors {
			if mon.db == db {
				mon.sendUpdate(sess, byTable)
			}
		}
	}
	return nil
}

// transact runs a "transact" request (RFC 7047, 4.1.3) and returns its
// result array: one element per operation, null for those not run after a
// failure, plus one error element when the commit itself fails.
//
// "comment" and "commit" succeed (the databases live in memory, so
// durability is moot), "abort" fails the transaction, "assert" checks that
// the session owns the lock. The _Server database is read-only.
func (s *server) transact(sess *session, db *database, rawOps []json.RawMessage) rawJSON {
	t := newTxn(db, len(rawOps))
	for _, raw := range rawOps {
		t.size += len(raw)
	}
	results := make([][]byte, 0, len(rawOps)+1)
	failed := false
	for _, raw := range rawOps {
		res, err := s.execute(sess, t, raw)
		if err != nil {
			results = append(results, errorJSON(err))
			failed = true
			break
		}
		results = append(results, res)
	}
	if !failed {
		if err := s.commit(t); err != nil {
			results = append(results, errorJSON(err))
		}
	}
	b := []byte{'['}
	for i := range max(len(results), len(rawOps)) {
		if i > 0 {
			b = append(b, ',')
		}
		if i < len(results) {
			b = append(b, results[i]...)
		} else {
			b = append(b, "null"...)
		}
	}
	return append(b, ']')
}

// execute runs one operation of a transaction and returns its result.
func (s *server) execute(sess *session, t *txn, raw []byte) ([]byte, error) {
	op, err := parseOperation(raw)
	if err != nil {
		return nil, err
	}
	switch op.op {
	case "comment", "commit":
		return []byte("{}"), nil
	case "abort":
		return nil, &opErr{"aborted", "aborted by request"}
	case "assert":
		if !s.ownsLock(sess, op.lock) {
			return nil, &opErr{"not owner", fmt.Sprintf("Asserted lock %s not held.", op.lock)}
		}
		return []byte("{}"), nil
	case "insert", "update", "mutate", "delete":
		if t.db.name == serverDBName {
			return nil, &opErr{"not allowed", fmt.Sprintf("%s operation not allowed on table in reserved database %s", op.op, serverDBName)}
		}
	}
	switch op.op {
	case "insert":
		return t.insert(op)
	case "update":
		return t.update(op)
	case "mutate":
		return t.mutate(op)
	case "delete":
		return t.delete(op)
	case "select":
		return t.selectRows(op)
	case "wait":
		return t.wait(op)
	}
	return nil, syntaxErr("No operation %q", op.op)
}

// errorJSON is a failed operation's or commit's result.
func errorJSON(err error) []byte {
	oe, ok := err.(*opErr)
	if !ok {
		oe = &opErr{"syntax error", err.Error()}
	}
	b := wire.AppendString([]byte(`{"error":`), oe.tag)
	b = wire.AppendString(append(b, `,"details":`...), oe.details)
	return append(b, '}')
}
