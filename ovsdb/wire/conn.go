package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
	"github.com/ovn-org/libovsdb/updates"
)

// Conn is one connection to an OVSDB server with one monitor on one
// database: libovsdb's wire types, models and update arithmetic over our
// own JSON-RPC session (rpcConn).
//
// libovsdb v0.7.0's client is not used because northd needs what it does
// not give: it hands cache changes to handlers one row at a time through a
// bounded buffer that drops events when full, with no sign of where one
// server transaction ends, so a `--wait=sb` answered from it could be
// answered before the rest of the NB transaction was computed; on reconnect
// it refills its cache without reporting the rows that went away; and it
// panics when its reconnect backoff gives up. Conn hands over each update
// notification — one committed transaction — whole and in order, and a lost
// connection is the caller's to redo.
type Conn struct {
	conn *activityConn
	rpc  *rpcConn
	// writing counts the transactions still being written: the server
	// cannot answer an echo before it has read them whole.
	writing atomic.Int32
	// known are the strings of the rows a transaction in flight inserts,
	// for the decoders of their echo (until Resume when it was paused).
	known atomic.Pointer[sentStrings]
	// paused are the tables whose updates Pause stopped.
	paused []string
	// resuming: Resume's update has yet to arrive (Resuming).
	resuming atomic.Bool
	// remote is the server connected to, one of Dial's list.
	remote string
	// probe is the inactivity probe interval, 0 for none; probeSet wakes
	// the prober when it changes.
	probe    atomic.Int64
	probeSet chan struct{}
	dbName   string
	client   model.ClientDBModel
	model    model.DatabaseModel
	// decoders decode the whole rows of the monitored tables whose
	// models they can; the rest go through libovsdb.
	decoders map[string]*rowDecoder
	opts     Options
	// lacks are the tables (col "") and columns monitored that the
	// server's schema lacks (Options.Schema).
	lacks []missing
	// version and has are the server's schema version and, by table, its
	// columns.
	version string
	has     map[string]map[string]bool

	// rows is the monitored contents, kept by the read loop to apply the
	// next update notification's differences to. The read loop also
	// applies the monitor's initial contents, before any notification.
	rows map[string]map[string]model.Model

	// lockMu orders a lock request's reply before the "locked" and
	// "stolen" notifications that follow it.
	lockMu sync.Mutex
	// lockName is the OVSDB lock requested ("" for none); hasLock tells
	// whether the session owns it.
	lockName string
	hasLock  atomic.Bool

	mu      sync.Mutex
	batches []Batch
	err     error         // why the connection ended, once it has
	ready   chan struct{} // holds a token when batches or err are new
	done    chan struct{} // closed when the connection has ended
}

// Change is one row change: Old nil for an insert, New nil for a delete.
// Models are never modified once handed over.
type Change struct {
	Table, UUID string
	Old, New    model.Model
	// Diff is set for a "modify" that changed a set or a map column: the
	// update2 diff, each column that changed in its model field's type, a
	// set or a map as the elements that went or came.
	Diff map[string]any
	// Columns names, for a "modify" the row decoder made, every column
	// that changed: what a reader that follows some columns looks at in
	// place of comparing Old and New field by field. Nil otherwise.
	Columns []string
}

// UnkeptChange is a row change of a table the connection does not keep
// (Options.Unkept): Update is what its Unkept made of an insert or a
// modify, nil for a delete. 48 bytes, where a Change and its uuid's
// string are 120: a cold start's echo brings hundreds of thousands.
type UnkeptChange struct {
	Table  string
	UUID   uuid.UUID
	Update any
}

// Batch is the row changes of one committed transaction, or the whole
// contents when Initial: those of the tables kept, and, apart, those of
// the tables not kept (Options.Unkept), each in the order they came.
type Batch struct {
	Initial bool
	Changes []Change
	Unkept  []UnkeptChange
}

// Options say what a connection monitors and how it watches the server.
type Options struct {
	// Tables are the tables monitored, all their modelled columns but
	// those in NotMonitored.
	Tables []string
	// Schema, when set, is the schema the models were made from. A
	// server whose schema lacks some of its tables or columns (an older
	// release's database) is then used as OVS's IDL uses it: what it
	// lacks is not monitored, so reads as empty, and Lacks says what it
	// is. Without it such a server is refused (ErrSchema).
	Schema *lovsdb.DatabaseSchema
	// NotMonitored are, by table, columns left out of the monitor.
	NotMonitored map[string]map[string]bool
	// Unkept are the tables whose rows the connection does not keep,
	// with the decoder of each one's row updates (see Unkept).
	Unkept map[string]Unkept
	// Probe is the initial inactivity probe interval (see prober,
	// SetProbe); 0 or less is none.
	Probe time.Duration
	// Index, when set, is the cluster index seen of the database: a
	// member with older data is refused, and the connection ends if its
	// member's data goes back (see Session).
	Index *ClusterIndex
	// TLS is what "ssl:" remotes use.
	TLS TLSFiles
	// Trace, when set, receives at debug level every request sent, as
	// OVS's jsonrpc module logs them ("-vjsonrpc").
	Trace *slog.Logger
	// Silence, when positive, bounds how long Dial waits for a server
	// from which nothing arrives: connecting, and then each wait with
	// nothing read, fails after it with ErrSilent. A server that sends a
	// large database's contents slowly is not given up on, however long
	// it takes (ctx can still end it).
	Silence time.Duration
}

// ErrSilent is Dial's error when nothing came from the server for
// Options.Silence.
var ErrSilent = errors.New("nothing received from the server")

// Dial connects to the first server of remote (OVS remote syntax:
// "unix:PATH", "tcp:HOST:PORT" or "ssl:HOST:PORT", several separated by
// commas) that
// answers and, for a member of a cluster, is its connected leader (see
// watchServer), checks that its schema of database dbName fits the models, and
// monitors opts.Tables. The initial contents are the first batch. The
// connection ends when ctx does, on Close, or when the server goes away
// or stays silent (see prober).
func Dial(ctx context.Context, remote, dbName string, client model.ClientDBModel, opts Options) (*Conn, error) {
	var errs []error
	for r := range strings.SplitSeq(remote, ",") {
		c, err := dialOne(ctx, strings.TrimSpace(r), dbName, client, opts)
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func dialOne(ctx context.Context, remote, dbName string, client model.ClientDBModel, opts Options) (*Conn, error) {
	network, addr, ok := strings.Cut(remote, ":")
	switch {
	case !ok:
		return nil, fmt.Errorf("%s: not an OVSDB remote (unix:PATH, tcp:HOST:PORT or ssl:HOST:PORT)", remote)
	case network != "unix" && network != "tcp" && network != "ssl":
		return nil, fmt.Errorf("%s: only unix:, tcp: and ssl: remotes are supported", remote)
	}
	nc, err := dialNet(ctx, network, addr, opts.TLS, opts.Silence)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", remote, err)
	}
	ac := &activityConn{Conn: nc}
	ac.lastRead.Store(time.Now().UnixNano())
	if opts.Silence > 0 {
		var stop context.CancelFunc
		ctx, stop = untilSilent(ctx, ac, opts.Silence)
		defer stop()
	}
	c := &Conn{
		conn:     ac,
		remote:   remote,
		dbName:   dbName,
		client:   client,
		opts:     opts,
		rows:     map[string]map[string]model.Model{},
		ready:    make(chan struct{}, 1),
		done:     make(chan struct{}),
		probeSet: make(chan struct{}, 1),
	}
	// Notifications are handled in the read loop, in order, each before
	// any later message: a reply to a call comes after the updates the
	// server sent before it.
	c.rpc = newRPCConn(ac, map[string]func([]byte) error{
		"update2": func(params []byte) error {
			tu, err := parseUpdate2(params)
			if err != nil {
				return c.fail(fmt.Errorf("%s: update2: %w", remote, err))
			}
			return c.apply(tu, false)
		},
		"update": c.serverUpdate,
		"locked": func(params []byte) error { return c.lockEvent(params, true) },
		"stolen": func(params []byte) error { return c.lockEvent(params, false) },
	}, map[string]func(*rope, ropePos) (ropePos, error){
		"update2": func(r *rope, params ropePos) (ropePos, error) {
			at, err := r.secondElement(params)
			if err != nil {
				return at, c.fail(fmt.Errorf("%s: update2: %w", remote, err))
			}
			var end ropePos
			if err := c.apply(rawUpdates{r: r, at: at, end: &end}, false); err != nil {
				return end, err
			}
			return r.closeArray(end)
		},
	})
	if opts.Trace != nil {
		c.rpc.setTrace(opts.Trace, remote)
	}
	go func() {
		select {
		case <-c.rpc.Done():
			c.fail(fmt.Errorf("%s: %w", remote, c.rpc.Err()))
		case <-c.done:
		}
		c.rpc.Close()
	}()
	if err := c.watchServer(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", remote, causeOf(ctx, err))
	}
	if err := c.start(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", remote, causeOf(ctx, err))
	}
	c.SetProbe(opts.Probe)
	go c.prober()
	return c, nil
}

// untilSilent is ctx, ended with ErrSilent once nothing has been read on
// ac for silence; stop releases it.
func untilSilent(ctx context.Context, ac *activityConn, silence time.Duration) (_ context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		tick := time.NewTicker(silence / 4)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if time.Since(time.Unix(0, ac.lastRead.Load())) > silence {
					cancel(fmt.Errorf("%w for %v", ErrSilent, silence))
					return
				}
			}
		}
	}()
	return ctx, func() { cancel(nil) }
}

// causeOf is err, or why ctx ended when it did.
func causeOf(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
		return cause
	}
	return err
}

// dialNet opens the stream, giving up after timeout if positive: "ssl" is
// TCP with TLS, its configuration read from files at each dial so that
// renewed certificates are used. The socket is read and written with raw
// system calls (rawSocket), under TLS too.
func dialNet(ctx context.Context, network, addr string, files TLSFiles, timeout time.Duration) (net.Conn, error) {
	if network != "ssl" {
		d := net.Dialer{Timeout: timeout}
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return rawSocket(network, nc), nil
	}
	cfg, err := files.Config()
	if err != nil {
		return nil, err
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	// As tls.Dialer: the host is the name the client asks for (SNI).
	cfg.ServerName, _, _ = net.SplitHostPort(addr)
	tc := tls.Client(rawSocket("tcp", nc), cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return tc, nil
}

// start reads the schema and sets up the monitor.
func (c *Conn) start(ctx context.Context) error {
	var schema lovsdb.DatabaseSchema
	if err := c.rpc.Call(ctx, "get_schema", lovsdb.NewGetSchemaArgs(c.dbName), into(&schema)); err != nil {
		return fmt.Errorf("get_schema %s: %w", c.dbName, err)
	}
	has := serverColumns(schema)
	c.version, c.has = schema.Version, has
	if c.opts.Schema != nil {
		CompleteSchema(&schema, *c.opts.Schema)
	}

	dbModel, errs := model.NewDatabaseModel(schema, c.client)
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s: %w", ErrSchema, c.dbName, errors.Join(errs...))
	}
	c.model = dbModel
	c.decoders = map[string]*rowDecoder{}
	requests := map[string]lovsdb.MonitorRequest{}
	for _, t := range c.opts.Tables {
		cols, err := modelColumns(dbModel, t, c.opts.NotMonitored[t])
		if err != nil {
			return err
		}
		// As ovsdb-idl.c's ovsdb_idl_compose_monitor_request.
		if has[t] == nil {
			c.lacks = append(c.lacks, missing{t, ""})
			continue
		}
		cols = slices.DeleteFunc(cols, func(col string) bool {
			if has[t][col] {
				return false
			}
			c.lacks = append(c.lacks, missing{t, col})
			return true
		})
		if d, ok := newRowDecoder(dbModel.Types()[t]); ok {
			c.decoders[t] = d
		}
		requests[t] = lovsdb.MonitorRequest{Columns: cols, Select: lovsdb.NewDefaultMonitorSelect()}
	}
	// The initial contents are applied in the read loop, before the
	// update notifications that follow them.
	err := c.rpc.callRope(ctx, lovsdb.ConditionalMonitorRPC, lovsdb.NewMonitorArgs(c.dbName, nil, requests),
		func(result []byte) error {
			return c.apply(rawUpdates{b: result}, true)
		},
		func(r *rope, result ropePos) (ropePos, error) {
			var end ropePos
			err := c.apply(rawUpdates{r: r, at: result, end: &end}, true)
			return end, err
		})
	if err != nil {
		return fmt.Errorf("monitor_cond %s: %w", c.dbName, err)
	}
	return nil
}

// serverColumns lists, by table, the columns a server's schema has.
func serverColumns(schema lovsdb.DatabaseSchema) map[string]map[string]bool {
	has := map[string]map[string]bool{}
	for name, t := range schema.Tables {
		has[name] = map[string]bool{}
		for col := range t.Columns {
			has[name][col] = true
		}
	}
	return has
}

// NewModel is the database model of the models newClient makes over
// schema, or why they do not fit it.
func NewModel(schema lovsdb.DatabaseSchema, newClient func() (model.ClientDBModel, error)) (model.DatabaseModel, error) {
	client, err := newClient()
	if err != nil {
		return model.DatabaseModel{}, err
	}
	m, errs := model.NewDatabaseModel(schema, client)
	return m, errors.Join(errs...)
}

// CompleteSchema adds to schema the tables and columns of full it lacks,
// so that the models made from full fit it; a server is not asked for
// them (serverColumns).
func CompleteSchema(schema *lovsdb.DatabaseSchema, full lovsdb.DatabaseSchema) {
	for name, t := range full.Tables {
		st, ok := schema.Tables[name]
		if !ok {
			schema.Tables[name] = t
			continue
		}
		cols := maps.Clone(st.Columns)
		for col, cs := range t.Columns {
			if _, ok := cols[col]; !ok {
				cols[col] = cs
			}
		}
		st.Columns = cols
		schema.Tables[name] = st
	}
}

// missing is a table (col "") or a column a server's schema lacks.
type missing struct{ table, col string }

// Lacks describes, one line each as ovsdb-idl logs them, the monitored
// tables and columns that the server's schema lacks (Options.Schema) and
// expect has: the schema the client expects of the server, part of
// Options.Schema (a release's, Options.Schema being the union of every
// release's); nil expects all of Options.Schema.
func (c *Conn) Lacks(expect *lovsdb.DatabaseSchema) []string {
	var lines []string
	for _, m := range c.lacks {
		if expect != nil {
			t, ok := expect.Tables[m.table]
			if _, has := t.Columns[m.col]; !ok || m.col != "" && !has {
				continue
			}
		}
		if m.col == "" {
			lines = append(lines, fmt.Sprintf("%s database lacks %s table (database needs upgrade?)", c.dbName, m.table))
		} else {
			lines = append(lines, fmt.Sprintf("%s table in %s database lacks %s column (database needs upgrade?)", m.table, c.dbName, m.col))
		}
	}
	return lines
}

// Version is the server's schema version of the database.
func (c *Conn) Version() string { return c.version }

// Has reports whether the server's schema has column col of table.
func (c *Conn) Has(table, col string) bool { return c.has[table][col] }

// modelColumns lists the columns of table that its model has, but those
// in skip.
func modelColumns(dbModel model.DatabaseModel, table string, skip map[string]bool) ([]string, error) {
	typ, ok := dbModel.Types()[table]
	if !ok {
		return nil, fmt.Errorf("no model for table %s", table)
	}
	if dbModel.Schema.Table(table) == nil {
		return nil, fmt.Errorf("server has no table %s", table)
	}
	var cols []string
	for i := range typ.Elem().NumField() {
		if col := typ.Elem().Field(i).Tag.Get("ovsdb"); col != "" && col != "_uuid" && !skip[col] {
			cols = append(cols, col)
		}
	}
	slices.Sort(cols)
	return cols, nil
}

// rawUpdates is a table-updates2 object with the row updates not decoded
// yet: b, or the object at `at` in a message read in parts (r); valid
// while the message is handled. Its rows are walked in place (each), not
// indexed first: a cold start's SB echo holds hundreds of thousands.
type rawUpdates struct {
	b  []byte
	r  *rope
	at ropePos
	// end, when set, is where each's walk of r ends: past the object.
	end *ropePos
}

// each calls fn with each row update, and its table and row's UUID.
func (tu rawUpdates) each(fn func(table, uuid string, ru []byte) error) error {
	if tu.r != nil {
		end, err := tu.r.eachRow(tu.at, fn)
		if tu.end != nil {
			*tu.end = end
		}
		return err
	}
	return walkObject(tu.b, func(table string, rows []byte) error {
		return walkObject(rows, func(uuid string, ru []byte) error { return fn(table, uuid, ru) })
	})
}

// parseUpdate2 reads the parameters of an update2 notification: the
// monitor's id and its table-updates2.
func parseUpdate2(params []byte) (rawUpdates, error) {
	var ps [][]byte
	if err := walkArray(params, func(p []byte) error {
		ps = append(ps, p)
		return nil
	}); err != nil {
		return rawUpdates{}, err
	}
	if len(ps) != 2 {
		return rawUpdates{}, fmt.Errorf("%d parameters", len(ps))
	}
	return rawUpdates{b: ps[1]}, nil
}

// updateRow is the row of a row-update2 and whether it is a whole row
// (an "initial" or "insert") or a "modify"; nil for a delete, which
// deleted reports.
func updateRow(ru []byte) (row []byte, whole, deleted bool, err error) {
	err = walkMembers(ru, func(kind, r []byte) error {
		switch string(kind) {
		case `"initial"`, `"insert"`:
			row, whole = r, true
		case `"modify"`:
			row = r
		case `"delete"`:
			deleted = true
		}
		return nil
	})
	return row, whole, deleted, err
}

// apply turns one update (or the initial contents) into a batch. The row
// updates of a table not kept (opts.Unkept) are handed on as its Unkept
// decodes them. Whole rows, modifies and deletes are made by the table's
// rowDecoder when it has one; the rest goes through libovsdb's models and
// update arithmetic.
func (c *Conn) apply(tu rawUpdates, initial bool) error {
	var mu updates.ModelUpdates
	var fast []Change
	var unkeptChanges []UnkeptChange
	known := &knownStrings{}
	if k := c.known.Load(); k != nil {
		known.sent = *k
	}
	err := tu.each(func(table, uuid string, raw []byte) error {
		if unkept := c.opts.Unkept[table]; unkept != nil {
			ch, err := handOn(unkept, table, uuid, raw, known)
			if err != nil {
				return c.fail(fmt.Errorf("%s %s %s: %w", c.dbName, table, uuid, err))
			}
			unkeptChanges = append(unkeptChanges, ch)
			return nil
		}
		current := c.rows[table]
		dec := c.decoders[table]
		if dec != nil {
			row, whole, deleted, err := updateRow(raw)
			if err != nil {
				return c.fail(fmt.Errorf("%s %s %s: %w", c.dbName, table, uuid, err))
			}
			switch {
			case deleted:
				if current[uuid] != nil {
					fast = append(fast, Change{Table: table, UUID: uuid, Old: current[uuid]})
				}
				return nil
			case whole && current[uuid] == nil:
				m, err := dec.decode(row, uuid, known)
				if err != nil {
					return c.fail(fmt.Errorf("%s %s %s: %w", c.dbName, table, uuid, err))
				}
				fast = append(fast, Change{Table: table, UUID: uuid, New: m})
				return nil
			case row != nil && !whole && current[uuid] != nil:
				m, diff, cols, ok, err := dec.modify(current[uuid], row, known)
				if err != nil {
					return c.fail(fmt.Errorf("%s %s %s: %w", c.dbName, table, uuid, err))
				}
				if ok {
					fast = append(fast, Change{Table: table, UUID: uuid, Old: current[uuid], New: m, Diff: diff, Columns: cols})
					return nil
				}
			}
		}
		var ru lovsdb.RowUpdate2
		if err := json.Unmarshal(raw, &ru); err != nil {
			return c.fail(fmt.Errorf("%s %s %s: %w", c.dbName, table, uuid, err))
		}
		switch {
		case ru.Modify != nil && current[uuid] == nil:
			return c.fail(fmt.Errorf("%s: update modifies unknown %s row %s", c.dbName, table, uuid))
		case ru.Initial == nil && ru.Insert == nil && ru.Modify == nil && current[uuid] == nil:
			return nil // a delete of a row never seen
		}
		if err := mu.AddRowUpdate2(c.model, table, uuid, current[uuid], ru); err != nil {
			return c.fail(fmt.Errorf("%s %s %s: %w", c.dbName, table, uuid, err))
		}
		return nil
	})
	if err != nil {
		return c.fail(fmt.Errorf("%s: update: %w", c.dbName, err))
	}
	b := Batch{Initial: initial, Changes: fast, Unkept: unkeptChanges}
	for _, c2 := range fast {
		if c.rows[c2.Table] == nil {
			c.rows[c2.Table] = map[string]model.Model{}
		}
		if c2.New == nil {
			delete(c.rows[c2.Table], c2.UUID)
		} else {
			c.rows[c2.Table][c2.UUID] = c2.New
		}
	}
	for _, table := range mu.GetUpdatedTables() {
		if c.rows[table] == nil {
			c.rows[table] = map[string]model.Model{}
		}
		_ = mu.ForEachModelUpdate(table, func(uuid string, old, new model.Model) error {
			if new == nil {
				delete(c.rows[table], uuid)
			} else {
				c.rows[table][uuid] = new
			}
			b.Changes = append(b.Changes, Change{Table: table, UUID: uuid, Old: old, New: new})
			return nil
		})
	}
	if len(b.Changes) == 0 && len(b.Unkept) == 0 && !initial {
		return nil
	}
	c.mu.Lock()
	c.batches = append(c.batches, b)
	c.mu.Unlock()
	c.signal()
	return nil
}

// handOn is the change of a row update of a table the connection does not
// keep: its Update decoded by unkept, nil for a delete.
func handOn(unkept Unkept, table, row string, raw []byte, known *knownStrings) (UnkeptChange, error) {
	u, err := uuid.Parse(row)
	if err != nil || len(row) != 36 {
		return UnkeptChange{}, fmt.Errorf("row %q: not a uuid", row)
	}
	diff, whole, deleted, err := updateRow(raw)
	if err != nil || deleted {
		return UnkeptChange{Table: table, UUID: u}, err
	}
	if diff == nil {
		return UnkeptChange{}, fmt.Errorf("row update without a row: %.80s", raw)
	}
	update, err := unkept(Row{diff, known}, whole)
	return UnkeptChange{Table: table, UUID: u, Update: update}, err
}

func (c *Conn) signal() {
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// fail ends the connection with err, the first reason given; it returns err.
func (c *Conn) fail(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
		c.signal()
	}
	return err
}

// ErrSchema is the cause of a connection refused because the server's
// schema does not fit the models.
var ErrSchema = errors.New("schema does not fit")

// Remote is the server connected to: one member of Dial's list.
func (c *Conn) Remote() string { return c.remote }

// Close ends the connection.
func (c *Conn) Close() { c.fail(errClosed) }

var errClosed = errors.New("connection closed")

// Ready is signalled when Take has something new.
func (c *Conn) Ready() <-chan struct{} { return c.ready }

// Take returns the batches received since the last call, and, once the
// connection has ended, why. It consumes Ready's signal of what it
// returns, which would otherwise wake the caller once more for nothing.
func (c *Conn) Take() ([]Batch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.ready:
	default:
	}
	bs := c.batches
	c.batches = nil
	return bs, c.err
}

// Transact runs ops as one transaction and checks every result. The update
// notifications the transaction causes are taken before Transact returns.
func (c *Conn) Transact(ctx context.Context, ops []lovsdb.Operation) error {
	t, err := c.StartTransact()
	if err != nil {
		return err
	}
	for _, op := range ops {
		t.Add(op)
	}
	return t.Finish(ctx)
}

// Txn is a transaction being written: each operation goes to the
// server as it is added, so that the server reads and parses a large
// transaction while the rest is still being made.
type Txn struct {
	c *Conn
	r *paramWriter
	// n counts the operations, for the reply's decoder (in the read loop).
	n      atomic.Int64
	known  sentStrings
	failed []string
}

// StartTransact starts a transaction whose operations Add writes and
// Finish ends. The connection's other writes wait until then.
func (c *Conn) StartTransact() (*Txn, error) {
	t := &Txn{c: c}
	r, err := c.rpc.request("transact", func(reply []byte) error {
		var err error
		t.failed, err = resultErrors(reply, int(t.n.Load()))
		return err
	})
	if err != nil {
		return nil, err
	}
	c.writing.Add(1)
	r.add(c.dbName)
	t.r = r
	return t, nil
}

// Add writes one operation.
func (t *Txn) Add(op lovsdb.Operation) {
	t.r.addOperation(&op)
	t.n.Add(1)
	t.known = addInserted(t.known, &op, t.c.opts.NotMonitored[op.Table])
}

// Finish sends the end of the transaction, waits for its reply and
// checks every result, as Transact.
func (t *Txn) Finish(ctx context.Context) error {
	if err := t.Send(); err != nil {
		return err
	}
	return t.Wait(ctx)
}

// Send sends the end of the transaction, for the caller to do something
// else while the server commits it; Wait then waits for its reply.
func (t *Txn) Send() error {
	c := t.c
	if len(t.known) > 0 {
		c.known.Store(&t.known)
	}
	err := t.r.end()
	c.writing.Add(-1)
	return err
}

// Wait waits for the reply of a transaction Send sent and checks every
// result, as Transact.
func (t *Txn) Wait(ctx context.Context) error {
	c := t.c
	if len(t.known) > 0 && len(c.paused) == 0 {
		defer c.known.Store(nil)
	}
	err := t.r.call.wait(ctx)
	if err == nil && len(t.failed) > 0 {
		err = fmt.Errorf("%d ovsdb operations failed: %s", len(t.failed), strings.Join(t.failed, ""))
		if strings.Contains(err.Error(), "not leader") {
			// The member lost its leadership: as on a _Server update
			// saying so, the connection ends for the new leader, where
			// the caller writes again.
			err = c.fail(fmt.Errorf("%s: %w: %w", c.remote, ErrNotLeader, err))
		}
	}
	return err
}

// Pause stops the monitor's updates of tables (their condition becomes
// false) so that a transaction filling them is not echoed before its
// reply: ovsdb-server composes and sends a transaction's monitor update
// before it answers, and for a cold start's tens of thousands of flows
// that is a third of its work and our decoding on top. Resume must
// follow. Pause reports false, pausing nothing, when the server cannot
// change a monitor's conditions (it answers monitor_cond_change with an
// error). Tables the server's schema lacks are not monitored, so they
// are left out.
func (c *Conn) Pause(ctx context.Context, tables []string) bool {
	tables = slices.DeleteFunc(slices.Clone(tables), func(t string) bool { return c.has[t] == nil })
	if err := c.rpc.Call(ctx, "monitor_cond_change", condChange(tables, false), nil); err != nil {
		return false
	}
	c.paused = tables
	return true
}

// Resume takes up the paused tables' updates again: their whole contents,
// the rows inserted meanwhile included, come as one update, which the
// read loop decodes while the caller goes on. Resuming reports true until
// that update is among the batches Take returns; Ready is signalled then.
// A failure ends the connection, as a monitor left paused would miss
// changes: the reconnect reads everything again.
func (c *Conn) Resume(ctx context.Context) error {
	if len(c.paused) == 0 {
		return nil
	}
	call, err := c.rpc.send("monitor_cond_change", condChange(c.paused, true), nil)
	c.paused = nil
	if err != nil {
		c.known.Store(nil)
		return c.fail(fmt.Errorf("%s: resume monitor: %w", c.dbName, err))
	}
	c.resuming.Store(true)
	go func() {
		// The server sends the update before its reply, and the read
		// loop has made it a batch before the reply ends the wait.
		err := call.wait(ctx)
		c.known.Store(nil)
		if err != nil {
			c.fail(fmt.Errorf("%s: resume monitor: %w", c.dbName, err))
		}
		c.resuming.Store(false)
		c.signal()
	}()
	return nil
}

// Resuming reports whether the update that Resume brings has yet to
// arrive: until then, what Take has returned lacks the paused tables'
// rows.
func (c *Conn) Resuming() bool { return c.resuming.Load() }

// condChange is the monitor_cond_change parameters that set the condition
// of tables in the monitor (whose id is null) to where.
func condChange(tables []string, where bool) []any {
	reqs := map[string][]map[string][]bool{}
	for _, t := range tables {
		reqs[t] = []map[string][]bool{{"where": {where}}}
	}
	return []any{nil, nil, reqs}
}

// addInserted adds to known the strings of the row that op inserts, if
// it is an insert: a column's value, or the elements of a set or map, but
// those of the columns in skip, which the echo does not bring (a flow's
// external_ids, tags and flow_desc). It returns known, made when nil and
// needed.
func addInserted(known sentStrings, op *lovsdb.Operation, skip map[string]bool) sentStrings {
	if op.Op != lovsdb.OperationInsert {
		return known
	}
	add := func(v any) {
		if s, ok := v.(string); ok {
			if known == nil {
				known = sentStrings{}
			}
			known[s] = s
		}
	}
	for col, v := range op.Row {
		if skip[col] {
			continue
		}
		switch v := v.(type) {
		case lovsdb.OvsSet:
			for _, e := range v.GoSet {
				add(e)
			}
		case lovsdb.OvsMap:
			for k, e := range v.GoMap {
				add(k)
				add(e)
			}
		default:
			add(v)
		}
	}
	return known
}

// resultErrors describes the failed operations of a transaction from its
// reply: a result per operation, and one more error when the commit
// failed. Only results that hold an error are decoded: the reply to a
// cold start's write is tens of thousands of inserted rows' uuids, which
// northd does not read.
func resultErrors(reply []byte, ops int) ([]string, error) {
	var failed []string
	n := 0
	err := walkArray(reply, func(r []byte) error {
		i := n
		n++
		if !bytes.Contains(r, []byte(`"error"`)) {
			return nil
		}
		var res lovsdb.OperationResult
		if err := json.Unmarshal(r, &res); err != nil {
			return err
		}
		if res.Error != "" {
			failed = append(failed, fmt.Sprintf("[op %d: %s: %s]", i, res.Error, res.Details))
		}
		return nil
	})
	if err == nil && n < ops {
		err = fmt.Errorf("%d operations submitted but only %d results received", ops, n)
	}
	return failed, err
}

// Lock asks the server for the OVSDB lock name (RFC 7047 4.1.8, "lock"):
// the session owns it at once when nobody else does, else once every
// earlier claim is dropped, when the server sends "locked". Another
// session's "steal" takes it away ("stolen"); the claim then waits in the
// queue again, as ovsdb-server keeps a "lock" claim. HasLock tells where
// the session stands; Ready is signalled at each change. The lock goes
// with the connection.
func (c *Conn) Lock(ctx context.Context, name string) error {
	c.lockMu.Lock()
	defer c.lockMu.Unlock()
	if c.lockName != "" {
		return fmt.Errorf("lock %q: already asked for %q", name, c.lockName)
	}
	var reply struct {
		Locked bool `json:"locked"`
	}
	if err := c.rpc.Call(ctx, "lock", []any{name}, into(&reply)); err != nil {
		return fmt.Errorf("lock %q: %w", name, err)
	}
	c.lockName = name
	if reply.Locked {
		c.hasLock.Store(true)
		c.signal()
	}
	return nil
}

// Unlock gives up the lock asked for with Lock, owned or queued for
// (RFC 7047 4.1.10, "unlock"); Lock may then ask again.
func (c *Conn) Unlock(ctx context.Context) error {
	c.lockMu.Lock()
	defer c.lockMu.Unlock()
	if c.lockName == "" {
		return nil
	}
	name := c.lockName
	c.lockName = ""
	c.hasLock.Store(false)
	c.signal()
	if err := c.rpc.Call(ctx, "unlock", []any{name}, nil); err != nil {
		return fmt.Errorf("unlock %q: %w", name, err)
	}
	return nil
}

// lockEvent records a "locked" (owned true) or "stolen" notification.
func (c *Conn) lockEvent(raw []byte, owned bool) error {
	var params []string
	if err := json.Unmarshal(raw, &params); err != nil {
		return c.fail(fmt.Errorf("%s: lock notification: %w", c.dbName, err))
	}
	c.lockMu.Lock()
	defer c.lockMu.Unlock()
	if len(params) != 1 || params[0] != c.lockName || c.lockName == "" {
		return nil
	}
	c.hasLock.Store(owned)
	c.signal()
	return nil
}

// HasLock reports whether the session owns the lock asked for with Lock.
func (c *Conn) HasLock() bool { return c.hasLock.Load() }

// AssertLock is the operation that makes a transaction fail unless the
// session still owns the lock when the server runs it (ovsdb-idl adds the
// same to every transaction of a session with a lock).
func (c *Conn) AssertLock() lovsdb.Operation {
	name := c.lockName
	return lovsdb.Operation{Op: lovsdb.OperationAssert, Lock: &name}
}

// SetProbe changes the inactivity probe interval (see prober); 0 or less
// turns it off. The prober is woken only by a change: northd sets it on
// every iteration, and each wakeup would be a goroutine (and maybe a
// thread) woken per change for nothing.
func (c *Conn) SetProbe(d time.Duration) {
	probe := int64(max(d, 0))
	if c.probe.Swap(probe) == probe {
		return
	}
	select {
	case c.probeSet <- struct{}{}:
	default:
	}
}

// prober watches the connection as OVS's inactivity probe does: after
// probe with nothing received it sends an echo, and it ends the connection
// when another probe passes with nothing received still. A transaction
// still being written does not count as inactivity (the server cannot
// answer before it has read it); one waiting for its reply does, as in
// OVS: a server frozen with a transaction of ours must be dropped too.
// It sleeps until the next moment a probe could be due (or SetProbe), so
// that an idle northd is not woken for nothing: with no probe, never.
func (c *Conn) prober() {
	t := time.NewTimer(0)
	defer t.Stop()
	echoSent := time.Time{}
	for {
		select {
		case <-c.done:
			return
		case <-c.probeSet:
		case <-t.C:
		}
		probe := time.Duration(c.probe.Load())
		last := time.Unix(0, c.conn.lastRead.Load())
		var wait time.Duration
		switch {
		case probe == 0:
			echoSent = time.Time{}
			t.Stop()
			continue
		case c.writing.Load() > 0:
			echoSent = time.Time{}
			wait = probe
		case time.Since(last) < probe || last.After(echoSent) && !echoSent.IsZero():
			echoSent = time.Time{}
			wait = probe - time.Since(last)
		case echoSent.IsZero():
			echoSent = time.Now()
			_ = c.rpc.Go("echo", lovsdb.NewEchoArgs()) // a failure ends the session
			wait = probe
		case time.Since(echoSent) >= probe:
			c.fail(fmt.Errorf("%s: nothing received for %v", c.remote, time.Since(last).Round(time.Second)))
			return
		default:
			wait = probe - time.Since(echoSent)
		}
		t.Reset(wait)
	}
}

// activityConn records when it last read something.
type activityConn struct {
	net.Conn
	lastRead atomic.Int64 // UnixNano
}

func (a *activityConn) Read(b []byte) (int, error) {
	n, err := a.Conn.Read(b)
	if n > 0 {
		a.lastRead.Store(time.Now().UnixNano())
	}
	return n, err
}

// WhereUUID is the condition that selects the row uuid.
func WhereUUID(uuid string) []lovsdb.Condition {
	return []lovsdb.Condition{lovsdb.NewCondition("_uuid", lovsdb.ConditionEqual, lovsdb.UUID{GoUUID: uuid})}
}
