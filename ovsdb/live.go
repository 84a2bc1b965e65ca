package ovsdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/northlog/northlog/ovsdb/enginestats"
	"github.com/northlog/northlog/ovsdb/sbwriter"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// Config configures a live northd.
type Config struct {
	// NBRemote and SBRemote are the databases, in OVS remote syntax
	// ("unix:PATH", "tcp:HOST:PORT" or "ssl:HOST:PORT", several separated by
	// commas: the members of a cluster, of which only the leader is used).
	NBRemote, SBRemote string
	// Release, when set, is the OVN release whose northd is reproduced,
	// flows and SB rows, whatever the NB's schema version; otherwise it
	// follows the NB server's schema version (schema.ForServer), and an NB
	// of a version no release has is not used (as an NB whose schema does
	// not fit) until it is converted.
	Release *schema.Release
	// Rules are added to the built-in ones (see rules.NewFor).
	Rules []rules.Rule
	// Program, when set, builds the program the northd runs, in place of
	// the built-in rules of the release plus Rules; its stages' release is
	// the one reproduced, as if Release were set: an embedding program's own
	// stages (rules.NewWith), built-in rules left out or replaced
	// (rules.Builtin), inputs of its own that its rules read and Update
	// feeds. Recompute calls it again for the program it compares with,
	// which should hold the same inputs of its own.
	Program func() *rules.Program
	// Logger receives progress at info level and per-step detail at debug
	// level; nil discards.
	Logger *slog.Logger
	// Probe is the interval of the echo sent to each server to detect a
	// dead connection; 0 means ovn-northd's default (5 s, none on unix:
	// sockets), a negative value none. NB_Global's
	// options:northd_probe_interval overrides it (see probeFor).
	Probe time.Duration
	// MaxBackoff bounds the wait between reconnection attempts (see
	// wire.Session, which starts it at 1 s or MaxBackoff if less); 0
	// means 8 s, as ovn-northd.
	MaxBackoff time.Duration
	// OnStep, when set, is called after every iteration that did work,
	// from the northd's goroutine.
	OnStep func(StepStats)
	// TLS is what "ssl:" remotes use, as ovn-northd's -p, -c, -C,
	// --ssl-protocols and --ssl-ciphers give it.
	TLS TLSOptions
	// Paused starts the northd paused (ovn-northd's --dry-run): it
	// follows both databases but writes nothing until Resume.
	Paused bool
	// SerialChanges runs the process on one processor (GOMAXPROCS 1)
	// while the northd follows changes, from the end of its cold start's
	// write until Run returns, but for the iterations that recompute
	// everything, and only while Threads is 1 (procs.go). Leave it off
	// when other work shares the process (the embedded databases).
	SerialChanges bool
	// RPCLog, when set, receives at debug level every JSON-RPC request
	// sent to either database, as OVS's jsonrpc module logs them.
	RPCLog *slog.Logger
	// EngineLog, when set, receives at debug level "Initializing new run"
	// at the start of every iteration, as the inc_proc_eng module of
	// ovn-northd logs each run of its engine (OVN's tests check that
	// none falls between the SB transaction and the sb_cfg it acks).
	EngineLog *slog.Logger
	// Threads is ovn-northd's --n-threads: how many goroutines a large
	// step (a cold start's, a recompute's) runs the program's operators
	// on, at most GOMAXPROCS. 0 and 1, ovn-northd's default, step in
	// order: one core, and the least memory. SetThreads changes it.
	Threads int
}

// TLSOptions name the files and settings of ovn-northd's SSL options.
type TLSOptions struct {
	// PrivateKey, Certificate and CACert are PEM file paths.
	PrivateKey, Certificate, CACert string
	// Protocols and Ciphers are OVS's --ssl-protocols and --ssl-ciphers
	// values, as given ("" for OVS's defaults).
	Protocols, Ciphers string
	// BootstrapCACert, when set, trusts the CA certificate the peer
	// presents on first contact and saves it to CACert.
	BootstrapCACert bool
}

// files is what the wire client reads for ssl: remotes.
func (o TLSOptions) files() wire.TLSFiles {
	return wire.TLSFiles{PrivateKey: o.PrivateKey, Certificate: o.Certificate, CACert: o.CACert,
		Protocols: o.Protocols, Ciphers: o.Ciphers, BootstrapCACert: o.BootstrapCACert}
}

// StepStats describes one iteration of the live northd.
type StepStats struct {
	// NBRows is the number of NB rows changed since the last step.
	NBRows int
	// FlowsAdded and FlowsRemoved count the program's logical flow changes
	// (per datapath, before datapath groups; the change of a flow that two
	// rules make counts too).
	FlowsAdded, FlowsRemoved int
	// Engine is the time the program took.
	Engine time.Duration
	// SB counts the SB rows inserted, updated and deleted, per table.
	SB map[string][3]int
	// SBTxn is the time the SB transaction took, from request to reply;
	// a streamed one's (Northd.streamFill) includes making its operations.
	SBTxn time.Duration
	// Err is set when the SB transaction failed (it is retried).
	Err error
	// Flows is the number of logical flows after the step, one per key and
	// datapath or datapath set (sbwriter.Writer.DesiredFlows).
	Flows int
}

// Totals are the SB rows a northd inserted, updated and deleted since it
// started, per table.
type Totals map[string][3]int

// Northd is northlog's live northd: it computes the SB from the NB with
// the rules program, incrementally, and keeps the SB in step, like
// ovn-northd 23.03 but doing on each NB change only the work the change
// needs.
//
// One goroutine runs everything. NB updates are applied to the program
// one committed transaction at a time; updates that arrive while an SB
// transaction is in flight are taken together in the next step. The SB
// transaction of a step writes only the rows that differ from what the SB
// holds.
//
// Like ovn-northd, it takes the OVSDB lock "ovn_northd" on the SB
// connection and writes nothing, to the SB or the NB, until it owns it:
// of several northds (northlog's or ovn-northd's) on one SB, one is
// active and the others are on standby, following both databases so as to
// take over at once when the active one goes away. Its SB transactions
// assert the lock, so none commits once the lock is lost. A new SB
// connection asks for the lock again.
type Northd struct {
	cfg  Config
	log  *slog.Logger
	prog *rules.Program
	feed *nbFeed
	w    *sbwriter.Writer
	// forced tells whether Config says which release to reproduce
	// (Release or Program); otherwise it follows the NB (useRelease).
	forced bool

	nb, sb *wire.Conn
	// nbS and sbS are the databases' sessions: their members, reconnect
	// backoff and cluster index seen.
	nbS, sbS *wire.Session
	active   bool // the SB connection owns the lock
	nbLoaded bool // the NB contents have been read once
	macs     randomMACs
	options  globalOptionsMemo
	cfgDone  int  // the nb_cfg the SB reflects, -1 before the first write
	nbUnfit  bool // the NB's schema does not fit: no SB connection
	// dialErr are the connection failures of each database since its
	// last connection, each logged once (the members fail in turn).
	// once.
	dialErr         map[string]map[string]bool
	upAll           bool // every switch port's up column needs a check
	coldStart       time.Time
	coldStartLogged bool
	// procs is what the northd asks of the process's processors (setProcs).
	procs procMode
	// started is closed once the northd has started (Started);
	// startedClosed says it is.
	started       chan struct{}
	startedClosed bool
	// endColdStartGC restores the GC percent lowered from a cold start's
	// ApplyProgram until its streamed write's paused tables' rows are
	// applied (lowerGCForColdStart).
	endColdStartGC func()
	// again is the backoff of the SB transaction: set after a failed
	// one, so that it is retried even if nothing else happens; ipamAgain
	// the same for the NB dynamic_addresses transaction.
	again, ipamAgain wire.Backoff

	// ctl takes the operator's requests (control.go) to the northd's
	// goroutine; fullNext makes the next iteration count as a full one
	// (Recompute).
	ctl      chan func()
	fullNext bool
	// inputsChanged says that the program's inputs changed since its last
	// step (the databases' rows, chassis features, Update's own inputs):
	// the next iteration of an active northd steps it. On standby or
	// paused it does not compute, as ovn-northd's engine does not run
	// then; it takes what changed meanwhile in one step once active.
	inputsChanged bool

	// threads is Config.Threads, or SetThreads' since.
	threads atomic.Int64

	mu     sync.Mutex
	totals Totals
	// isActive is active, for other goroutines; status their view of
	// the connections.
	isActive bool
	status   map[string]*ConnStatus
	// paused: Pause was called, or Config.Paused; no writes, no lock.
	paused bool
	// release is the one prog is for, written under mu (read by Release);
	// releaseKnown says whether the release is known: forced, or the NB
	// has said.
	release      schema.Release
	releaseKnown bool
	// nodeStats are EngineStats' counters; mismatches counts Recompute's
	// differences.
	nodeStats  [3]NodeStats
	engine     *enginestats.Northd2603
	mismatches int
}

// ConnStatus is where one database connection stands, for the operator
// (ovn-appctl *-connection-status, metrics).
type ConnStatus struct {
	// Member is the server connected to, "" when not connected.
	Member string
	// Connects counts the connections made since Run started; all but the
	// first are reconnections.
	Connects int
	// LastError is why the last connection attempt or connection failed.
	LastError string
}

// Connections is where the northd's lock and connections stand.
type Connections struct {
	// Active tells whether it owns the SB lock and so writes.
	Active bool
	// NB and SB are its database connections.
	NB, SB ConnStatus
}

// Connections reports where the northd's lock and connections stand; it
// may be called from any goroutine.
func (d *Northd) Connections() Connections {
	d.mu.Lock()
	defer d.mu.Unlock()
	return Connections{Active: d.isActive, NB: *d.status["NB"], SB: *d.status["SB"]}
}

// setStatus records a connection made (member set) or lost or failed
// (err set) of database db, "NB" or "SB".
func (d *Northd) setStatus(db, member string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.status[db]
	st.Member = member
	if member != "" {
		st.Connects++
	}
	if err != nil {
		st.LastError = err.Error()
	}
}

// LockName is the OVSDB lock on the SB that northds (ovn-northd's and
// northlog's) take to decide which one writes.
const LockName = "ovn_northd"

// Active reports whether the northd owns the SB lock and so writes.
func (d *Northd) Active() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.isActive
}

// NewNorthd builds a northd; Run runs it.
func NewNorthd(cfg Config) *Northd {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.EngineLog == nil {
		cfg.EngineLog = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 8 * time.Second
	}
	d := &Northd{
		cfg:     cfg,
		log:     cfg.Logger,
		macs:    newRandomMACs(),
		cfgDone: -1,
		dialErr: map[string]map[string]bool{},
		status:  map[string]*ConnStatus{"NB": {}, "SB": {}},
		totals:  Totals{},
		ctl:     make(chan func()),
		paused:  cfg.Paused,
		started: make(chan struct{}),
	}
	d.SetThreads(cfg.Threads)
	// Until the NB says which release it is for, the oldest's: what it
	// was built for is replaced when the NB connects (useRelease).
	switch {
	case cfg.Program != nil:
		d.forced = true
		d.build(cfg.Program())
	case cfg.Release != nil:
		d.forced = true
		d.build(rules.NewFor(*cfg.Release, cfg.Rules...))
	default:
		d.build(rules.NewFor(0, cfg.Rules...))
	}
	d.nbS = wire.NewSession(cfg.NBRemote, cfg.MaxBackoff)
	d.sbS = wire.NewSession(cfg.SBRemote, cfg.MaxBackoff)
	return d
}

// newProgram is a fresh program of the configuration: Program's, or the
// built-in rules of the northd's release and Rules.
func (d *Northd) newProgram() *rules.Program {
	if d.cfg.Program != nil {
		return d.cfg.Program()
	}
	return rules.NewFor(d.release, d.cfg.Rules...)
}

// build makes prog the northd's program, with a new NB feed and SB writer
// for it: they hold no rows until their databases send them.
func (d *Northd) build(prog *rules.Program) {
	// The SB writer keeps the desired flows; the program's Output would
	// hold every one a second time.
	prog.Flows.DropContents()
	d.prog = prog
	d.mu.Lock()
	d.release = prog.Stages.Release()
	d.releaseKnown = d.releaseKnown || d.forced
	d.mu.Unlock()
	d.feed = newNBFeed(d.log, d.macs, d.release)
	d.w = sbwriter.New(d.log, prog.Stages, sbwriter.PortNames{Name: d.feed.portName, UUIDs: d.feed.portUUIDs})
	d.nbLoaded = false
}

// useRelease follows the release of the NB server's schema version: a
// program for it when the northd has another, or an error for a version
// no release has. With Config.Release or Program set, the release is the
// one they say, with a warning when the NB's version is not its.
func (d *Northd) useRelease(version string) error {
	r, err := schema.ForServer(version)
	switch {
	case d.forced:
		if err != nil || r != d.release {
			d.log.Warn("NB schema version is not the release's; reproducing the release set", "nb_schema", version,
				"release", d.release.Point(), "release_nb_schema", d.release.NBVersion())
		}
		return nil
	case err != nil:
		return fmt.Errorf("%w: %w (or set the release to reproduce)", wire.ErrSchema, err)
	}
	d.mu.Lock()
	d.releaseKnown = true
	d.mu.Unlock()
	if r != d.release {
		d.build(rules.NewFor(r, d.cfg.Rules...))
		if d.sb != nil {
			// The new writer learns the SB from a new connection's
			// initial contents.
			d.lost(&d.sb, d.sbS, "SB", errors.New("release changed"))
		}
	}
	return nil
}

// Release is the OVN release the northd reproduces; ok is false while it
// is not known: it follows the NB, which has not connected. It may be
// called from any goroutine.
func (d *Northd) Release() (r schema.Release, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.release, d.releaseKnown
}

// totalRows is the number of SB rows written since Run started.
func (d *Northd) totalRows() int {
	n := 0
	for _, c := range d.Totals() {
		n += c[0] + c[1] + c[2]
	}
	return n
}

// Totals returns the SB rows written since Run started.
func (d *Northd) Totals() Totals {
	d.mu.Lock()
	defer d.mu.Unlock()
	return maps.Clone(d.totals)
}

// Run runs the northd until ctx ends; it returns ctx's error. Lost
// connections are retried forever, with backoff; after a reconnection the
// NB is compared with what the program has and the SB with what it should
// hold, and only the differences are applied.
func (d *Northd) Run(ctx context.Context) error {
	defer d.markStarted()
	d.coldStart = time.Now()
	nbModel, err := nb.FullDatabaseModel()
	if err != nil {
		return err
	}
	sbModel, err := sb.FullDatabaseModel()
	if err != nil {
		return err
	}
	defer func() {
		if d.endColdStartGC != nil {
			d.endColdStartGC()
		}
		d.setProcs(procsAsSet)
	}()
	nbSchema, sbSchema := nb.Schema(), sb.Schema()
	nbTables := slices.Sorted(maps.Keys(nbSchema.Tables))
	defer func() {
		if d.nb != nil {
			d.nb.Close()
		}
		if d.sb != nil {
			d.sb.Close()
		}
	}()
	for {
		d.dial(ctx, &d.nb, d.nbS, nbModel, &nbSchema, nbTables)
		d.dial(ctx, &d.sb, d.sbS, sbModel, &sbSchema, sbwriter.Tables)
		d.iterate(ctx)
		var nbReady, sbReady <-chan struct{}
		if d.nb != nil {
			nbReady = d.nb.Ready()
		}
		if d.sb != nil {
			sbReady = d.sb.Ready()
		}
		var retry <-chan time.Time
		var next []time.Time
		if d.nb == nil {
			next = append(next, d.nbS.Due())
		}
		if d.sb == nil {
			next = append(next, d.sbS.Due())
		}
		for _, r := range []*wire.Backoff{&d.again, &d.ipamAgain} {
			if r.Delay() > 0 {
				next = append(next, r.Next())
			}
		}
		// MAC bindings or FDB rows to age: an iteration writes the SB.
		if at, ok := d.w.NextAging(); d.active && ok && at.After(time.Now()) {
			next = append(next, at)
		}
		if len(next) > 0 {
			retry = time.After(time.Until(slices.MinFunc(next, time.Time.Compare)))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-nbReady:
		case <-sbReady:
		case <-retry:
		case f := <-d.ctl:
			f()
		}
	}
}

// dialSilence is how long a connection being made may go with nothing from
// the server before northd tries again. The initial contents of a large
// database take longer than that to arrive, and are waited for while they
// do: each new try would ask for them all again.
const dialSilence = 30 * time.Second

// dial tries the next member of a database that is down, when its
// session's backoff has passed. schema is the models': a server whose
// schema lacks some of it is used without what it lacks, with a warning
// for each table and column, as ovn-northd's IDL does.
func (d *Northd) dial(ctx context.Context, c **wire.Conn, s *wire.Session, m model.ClientDBModel, schema *lovsdb.DatabaseSchema, tables []string) {
	if *c != nil || s.Waiting() || c == &d.sb && d.nbUnfit {
		return
	}
	name := m.Name()
	nc, err := s.Dial(ctx, name, m, wire.Options{
		Tables: tables, Schema: schema, NotMonitored: sbwriter.NotMonitored, Unkept: sbwriter.Unkept,
		TLS: d.cfg.TLS.files(), Trace: d.cfg.RPCLog,
		Silence: dialSilence})
	if err == nil && c == &d.sb && !d.IsPaused() {
		lctx, cancel := context.WithTimeout(ctx, dialSilence)
		defer cancel()
		if err = nc.Lock(lctx, LockName); err != nil {
			nc.Close()
			s.Lost(err)
		}
	}
	if err == nil && c == &d.nb {
		if err = d.useRelease(nc.Version()); err != nil {
			nc.Close()
			s.Lost(err)
		}
	}
	if c == &d.nb {
		d.nbUnfit = errors.Is(err, wire.ErrSchema)
		if d.nbUnfit && d.sb != nil {
			// Unable to compute, northd must not keep the SB lock from a
			// standby that can: the SB waits until the NB fits.
			d.log.Warn("NB schema does not fit: leaving the SB and its lock to another northd")
			d.sb.Close()
			d.sb = nil
			d.sbS.Lost(err)
			d.setStatus("SB", "", err)
		}
	}
	if err != nil {
		d.markStarted()
		d.setStatus(dbLabel(c == &d.nb), "", err)
		// The same failure again is not news: one warning, then debug.
		key := err.Error()
		if errors.Is(err, wire.ErrSchema) {
			key = wire.ErrSchema.Error() // its details come in random order
		}
		level := slog.LevelWarn
		if d.dialErr[name][key] {
			level = slog.LevelDebug
		}
		if d.dialErr[name] == nil {
			d.dialErr[name] = map[string]bool{}
		}
		d.dialErr[name][key] = true
		if ctx.Err() == nil {
			d.log.Log(ctx, level, "cannot connect", "database", name, "err", err, "retry", s.Backoff())
		}
		return
	}
	delete(d.dialErr, name)
	d.setStatus(dbLabel(c == &d.nb), nc.Remote(), nil)
	nc.SetProbe(d.probeFor(nc.Remote()))
	d.log.Info("connected", "database", name, "member", nc.Remote(), "schema", nc.Version())
	expect := d.release.SBSchema()
	if c == &d.sb && nc.Version() != d.release.SBVersion() {
		// The release's rows may not fit (26.03's flow tables go past
		// 23.03's table_id range): as ovn-northd, write anyway, and say.
		d.log.Warn("SB schema version is not the release's: the SB may refuse its rows (database needs upgrade?)",
			"sb_schema", nc.Version(), "release", d.release.Point(), "release_sb_schema", d.release.SBVersion())
	}
	if c == &d.nb {
		expect = d.release.NBSchema()
		d.log.Info("reproducing ovn-northd "+d.release.Point(), "nb_schema", nc.Version(), "forced", d.forced)
	}
	for _, l := range nc.Lacks(&expect) {
		d.log.Warn(l)
	}
	*c = nc
}

// dbLabel names a database in Status: "NB" or "SB".
func dbLabel(isNB bool) string {
	if isNB {
		return "NB"
	}
	return "SB"
}

// probeFor is the inactivity probe of a connection to remote, as 23.03's
// get_probe_interval: NB_Global's options:northd_probe_interval when set
// (milliseconds; 0 is none, less than 1 s is 1 s), else Config.Probe, else
// none on a unix: socket and 5 s on others.
func (d *Northd) probeFor(remote string) time.Duration {
	def := d.cfg.Probe
	if def == 0 && !strings.HasPrefix(remote, "unix:") {
		def = 5 * time.Second
	}
	if d.feed.global == nil {
		return max(def, 0)
	}
	ms := relations.SmapInt(d.feed.global.Options, "northd_probe_interval", int(max(def, 0)/time.Millisecond))
	if ms > 0 && ms < 1000 {
		ms = 1000
	}
	return time.Duration(max(ms, 0)) * time.Millisecond
}

// faultLevel is the level of a failed connection or transaction: WARN,
// or INFO when err is Run's context being cancelled, which is the northd
// exiting (ovn-northd exits without a warning).
func faultLevel(err error) slog.Level {
	if errors.Is(err, context.Canceled) {
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

// lost drops a connection that ended.
func (d *Northd) lost(c **wire.Conn, s *wire.Session, name string, err error) {
	d.log.Log(context.Background(), faultLevel(err), "connection lost", "database", name, "member", (*c).Remote(), "err", err)
	d.setStatus(name, "", err)
	(*c).Close()
	*c = nil
	s.Lost(err)
}

// iterate takes what the servers sent, steps the program, and writes the
// SB and NB.
func (d *Northd) iterate(ctx context.Context) {
	d.cfg.EngineLog.Debug("Initializing new run")
	var st StepStats
	full := d.fullNext
	d.fullNext = false
	var nbBatches, sbBatches []wire.Batch
	if d.nb != nil {
		bs, err := d.nb.Take()
		nbBatches = bs
		for _, b := range bs {
			full = full || b.Initial
		}
		n, ferr := d.feed.apply(d.prog.NB, bs)
		if ferr != nil {
			d.log.Error("cannot apply NB update", "err", ferr)
		}
		for _, b := range bs {
			d.nbLoaded = d.nbLoaded || b.Initial
		}
		// NB_Global may have changed the probe interval.
		for _, c := range []*wire.Conn{d.nb, d.sb} {
			if c != nil {
				c.SetProbe(d.probeFor(c.Remote()))
			}
		}
		st.NBRows = n
		if err != nil {
			d.lost(&d.nb, d.nbS, "NB", err)
		}
	}
	if st.NBRows > 0 && vxlanModeOptions(d.release) && d.feed.global != nil {
		d.w.SetVXLANOptions(!relations.SmapBool(d.feed.global.Options, "vxlan_mode", true), d.feed.icVXLANMode())
	}
	// resuming: the SB's mirror lacks the rows of a streamed write until
	// the monitor's resumed update has been applied.
	resuming := d.sb != nil && d.sb.Resuming()
	if d.sb != nil {
		bs, err := d.sb.Take()
		sbBatches = bs
		d.w.ApplySB(bs)
		d.feed.status.sbRows(d.w.TakeStatusChanged())
		if end := d.endColdStartGC; end != nil && !resuming {
			// The update that resumed the monitor after a streamed write
			// holds the rows of its tables: once applied, its transient
			// data is garbage.
			defer end()
			d.endColdStartGC = nil
		}
		if err != nil {
			d.lost(&d.sb, d.sbS, "SB", err)
		}
	}
	// ovn-northd's loop_start_time, once the updates are read and before
	// the program runs: the nb_cfg_timestamp of a new nb_cfg, where
	// `ovn-nbctl --print-wait-time`'s "delay before processing" ends.
	loopStart := time.Now()
	monitors := d.w.FeedMonitors(d.prog.NB) + d.w.FeedIGMP(d.prog.NB) + d.w.FeedVirtualParents(d.prog.NB) + d.w.FeedQueueIDs(d.prog.NB) +
		d.w.FeedLearnedRoutes(d.prog.NB) + d.w.FeedRemoteChassis(d.prog.NB)
	if d.followLock() {
		full = true
	}
	if full {
		d.setProcs(d.procsFor(true))
	}
	defer func() { d.setProcs(d.procsFor(false)) }()
	if d.countIteration(full, nbBatches, sbBatches) {
		d.w.ResyncLoadBalancers()
	}
	d.inputsChanged = d.updateFeatures() || st.NBRows > 0 || monitors > 0 || d.inputsChanged
	if d.inputsChanged && d.active {
		d.inputsChanged = false
		start := time.Now()
		for _, r := range d.step(d.prog) {
			d.log.Log(context.Background(), relations.RejectionLevel(r.Op), "NB row skipped", "reason", r.Error())
		}
		for _, c := range d.prog.Diagnostics.Delta() {
			if c.Weight > 0 {
				d.log.Log(context.Background(), c.Tuple.Level, c.Tuple.Text)
			}
		}
		st.Engine = time.Since(start)
		d.feed.status.usedBFDs(d.prog.UsedBFDs.Delta())
		for _, w := range d.prog.Flows.EachChange() {
			if w > 0 {
				st.FlowsAdded++
			} else {
				st.FlowsRemoved++
			}
		}
		if d.endColdStartGC == nil && d.w.WillFillFlows(st.FlowsAdded) {
			// A cold start's desired rows are made on top of the
			// program's whole state and the step's garbage.
			d.endColdStartGC = lowerGCForColdStart()
		}
		d.w.ApplyProgram(d.prog)
		d.prog.Flows.DropChanges()
	}
	if !d.nbLoaded || !d.active {
		if d.sb != nil && !d.active {
			d.markStarted() // paused or on standby: no run to wait for
		}
		return
	}
	if d.feed.global == nil {
		// An NB nobody initialised: northd creates its NB_Global row.
		if d.nb != nil {
			if err := d.nb.Transact(ctx, initNBOps()); err != nil && ctx.Err() == nil {
				d.log.Warn("cannot create NB_Global", "err", err)
			}
		}
		return
	}
	nbCfg := d.feed.global.NbCfg
	options := d.options.get(d.feed.global, d.release, d.macs, d.w.MaxDatapathKey())
	d.wantNBOptions(options)
	d.w.SetAgingSettings(sbwriter.AgingSettings{
		MACBindingRemovalLimit: relations.SmapUint(d.feed.global.Options, "mac_binding_removal_limit", 0),
		FDBRemovalLimit:        relations.SmapUint(d.feed.global.Options, "fdb_removal_limit", 0),
	})
	d.w.SetChassisFeaturesIgnored(relations.IgnoresChassisFeatures(d.release, d.feed.global.Options))
	nbCols := lovsdb.Row{"options": options}
	var newPorts map[string]string
	if d.sb != nil && !d.again.Waiting() && !resuming {
		ok, inserted := d.writeSB(ctx, &st, nbCfg, loopStart, options, nbCols)
		newPorts = inserted
		if ok {
			d.cfgDone = nbCfg
			d.again.Reset()
			if !d.coldStartLogged {
				d.coldStartLogged = true
				d.log.Info("cold start done", "nb_rows", d.feed.count(), "flows", d.w.DesiredFlows(),
					"sb_rows_written", d.totalRows(),
					"seconds", time.Since(d.coldStart).Seconds())
			}
		} else {
			d.again.Failed(d.cfg.MaxBackoff)
		}
		d.markStarted()
	}
	if d.sb != nil {
		// The SB server composes the resumed update while the NB is
		// written, and the read loop decodes it while the next iteration
		// reads the NB's echo: the write is committed, so sb_cfg need not
		// wait for the update, only the next SB write does.
		if err := d.sb.Resume(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn("cannot resume the SB monitor", "err", err)
		}
	}
	// Options northd rewrites go first: sb_cfg follows in the iteration
	// that reads them back, as in ovn-northd, whose engine has seen them
	// when `--wait=sb` returns.
	if d.cfgDone >= 0 && maps.Equal(d.feed.global.Options, options) {
		nbCols["sb_cfg"] = d.cfgDone
		if d.feed.global.SbCfg != d.cfgDone {
			nbCols["sb_cfg_timestamp"] = int(time.Now().UnixMilli())
		}
	}
	if d.sb != nil && !resuming {
		// Chassis_Private is among the paused tables of an SB filled
		// from empty: a chassis that registered meanwhile is not yet seen.
		hv, ts := d.hvCfg(nbCfg)
		nbCols["hv_cfg"] = hv
		if d.feed.global.HvCfg != hv {
			nbCols["hv_cfg_timestamp"] = ts
		}
	}
	if d.nb != nil {
		d.writeIPAM(ctx)
		d.writeNB(ctx, nbCols, newPorts)
	}
	if st.NBRows > 0 || st.SB != nil || st.Err != nil {
		d.report(st)
	}
}

// Started is closed once the northd has started: it has made its first
// run (written the SB for the NB it read), or found that it cannot make
// one now (paused, on standby, a database unreachable), or Run returned.
// ovn-northd detaches before it connects, and its first run follows within
// milliseconds, before whatever its starter does next (OVN's tests clear
// the engine counters and change the NB at once); a daemon of this slower
// northd detaches when Started is closed.
func (d *Northd) Started() <-chan struct{} { return d.started }

// markStarted closes started, once.
func (d *Northd) markStarted() {
	if !d.startedClosed {
		d.startedClosed = true
		close(d.started)
	}
}

// updateFeatures feeds the program the chassis features of the SB's
// Chassis rows after they changed, and reports whether the features did.
func (d *Northd) updateFeatures() bool {
	if !d.w.ChassisChanged() {
		return false
	}
	f := relations.FeaturesOf(d.w.ChassisOtherConfigs())
	if f == d.prog.Features.Get() {
		return false
	}
	d.log.Info("chassis features changed", "ct_no_masked_label", f.CTNoMaskedLabel, "ct_lb_related", f.CTLBRelated,
		"ct_commit_to_zone", f.CTCommitToZone, "ct_next_zone", f.CTNextZone)
	d.prog.Features.Set(f)
	return true
}

// followLock notes a change of the SB lock's owner: on becoming active,
// every SB row is compared with what it should be, as the active northd
// may have left it otherwise (23.03 recomputes everything). It reports
// whether the northd has just become active.
func (d *Northd) followLock() bool {
	active := d.sb != nil && d.sb.HasLock()
	if active == d.active {
		return false
	}
	d.active = active
	d.mu.Lock()
	d.isActive = active
	d.mu.Unlock()
	if active {
		d.log.Info("ovn-northd lock acquired. This ovn-northd instance is now active.")
		d.w.MarkAll()
		d.upAll = true
		// A transaction that failed for want of the lock says nothing of
		// the server: write at once.
		d.again.Reset()
		return true
	}
	d.log.Info("ovn-northd lock lost. This ovn-northd instance is now on standby.")
	return false
}

// writeSB reconciles the SB and commits the result; it reports whether
// the SB now reflects the program (the transaction succeeded or was not
// needed), and the ports whose Port_Binding the transaction inserted (by
// name; the values are the rows' names in the transaction). A new nb_cfg
// is stamped in NB_Global with loopStart, when the run began.
func (d *Northd) writeSB(ctx context.Context, st *StepStats, nbCfg int, loopStart time.Time, options map[string]string, nbCols lovsdb.Row) (bool, map[string]string) {
	start := time.Now()
	stream := d.streamFill(ctx)
	var emit func(lovsdb.Operation)
	if stream != nil {
		emit = stream.Add
		if d.endColdStartGC == nil {
			// A fill not written by the iteration that applied its flows:
			// put off, or retried after a failed write.
			d.endColdStartGC = lowerGCForColdStart()
		}
	}
	t := d.w.Reconcile(emit)
	g := d.w.Global()
	sbOptions := d.sbOptions(options)
	switch {
	case g == nil:
		t.Insert(sb.SBGlobalTable, lovsdb.Row{"nb_cfg": nbCfg, "options": wire.StrMap(sbOptions), "ipsec": d.feed.global.Ipsec})
		nbCols["nb_cfg_timestamp"] = int(loopStart.UnixMilli())
	default:
		row := lovsdb.Row{}
		if g.NbCfg != nbCfg {
			row["nb_cfg"] = nbCfg
			nbCols["nb_cfg_timestamp"] = int(loopStart.UnixMilli())
		}
		if !maps.Equal(g.Options, sbOptions) {
			row["options"] = wire.StrMap(sbOptions)
		}
		if g.Ipsec != d.feed.global.Ipsec {
			row["ipsec"] = d.feed.global.Ipsec
		}
		t.Update(sb.SBGlobalTable, g.UUID, row)
	}
	var err error
	switch {
	case stream != nil:
		// The SB server takes seconds to commit a cold start's write,
		// with northd idle: the ports' columns go to the NB meanwhile.
		if err = stream.Send(); err == nil {
			ports := d.sendPorts(ctx, t.InsertedPorts())
			err = stream.Wait(ctx)
			d.waitPorts(ctx, ports)
			returnColdStartPages()
		}
	case t.Empty():
		return true, nil
	default:
		start = time.Now()
		err = d.sb.Transact(ctx, t.TakeOps(d.sb.AssertLock()))
	}
	st.SBTxn = time.Since(start)
	st.SB = t.Summary()
	d.w.Sent(t)
	if err != nil {
		st.Err = err
		// What the SB holds is known again from the monitor; reconcile
		// everything against it at the next step.
		d.w.Failed()
		return false, nil
	}
	d.mu.Lock()
	for table, n := range st.SB {
		tot := d.totals[table]
		d.totals[table] = [3]int{tot[0] + n[0], tot[1] + n[1], tot[2] + n[2]}
	}
	d.mu.Unlock()
	return true, t.InsertedPorts()
}

// streamFill starts the transaction of a write that fills an SB without
// flows (a cold start's tens of thousands of rows) before the writer makes
// its operations, so that the SB server reads and parses them meanwhile;
// the monitor of the SB's empty tables is paused until the write is done
// (conn.pause). Otherwise, or when it cannot start, it returns nil: the
// transaction is written once made.
func (d *Northd) streamFill(ctx context.Context) *wire.Txn {
	if !d.w.FillsFlows() {
		return nil
	}
	if tables := d.w.EmptyTables(); d.sb.Pause(ctx, tables) {
		d.log.Info("filling an SB without flows; the monitor of its empty tables is paused until the write is done", "tables", len(tables))
	}
	stream, err := d.sb.StartTransact()
	if err != nil {
		return nil
	}
	stream.Add(d.sb.AssertLock())
	return stream
}

// sbOptions are SB_Global's options: NB_Global's as northd writes them
// (globalOptions) and what the release tells ovn-controllers there. 23.03:
// whether load balancer flows use ct_mark, which only chassis that do not
// mask ct_label support. 26.03 (update_sb_config_options_to_sbrec): that
// it outputs explicitly after arp/nd_ns and uses the consolidated
// registers; the SB's own sbctl_probe_interval is kept.
func (d *Northd) sbOptions(options map[string]string) map[string]string {
	sbOptions := maps.Clone(options)
	switch {
	case d.release >= schema.OVN2603:
		sbOptions["arp_ns_explicit_output"] = "true"
		sbOptions["register_consolidation"] = "true"
		if g := d.w.Global(); g != nil {
			if v, ok := g.Options["sbctl_probe_interval"]; ok {
				sbOptions["sbctl_probe_interval"] = v
			}
		}
	case d.prog.Features.Get().CTNoMaskedLabel:
		delete(sbOptions, "lb_hairpin_use_ct_mark")
	default:
		sbOptions["lb_hairpin_use_ct_mark"] = "false"
	}
	return sbOptions
}

// hvCfg is the nb_cfg every chassis has caught up with, and when the last
// of them did (update_sequence_numbers); nbCfg when there is no chassis.
func (d *Northd) hvCfg(nbCfg int) (int, int) {
	hv, ts := nbCfg, 0
	for _, cp := range d.w.ChassisPrivate() {
		if cp.Chassis != nil {
			if ch := d.w.Chassis(*cp.Chassis); ch != nil && relations.SmapBool(ch.OtherConfig, "is-remote", false) {
				continue
			}
		}
		delta := cp.NbCfg - hv
		switch {
		case cp.NbCfg < hv || delta > 1<<31-1:
			hv, ts = cp.NbCfg, cp.NbCfgTimestamp
		case cp.NbCfg == hv && cp.NbCfgTimestamp > ts:
			ts = cp.NbCfgTimestamp
		}
	}
	return hv, ts
}

// writeNB writes NB_Global's columns that northd owns, BFD status, network
// function groups' active function, switch port health checks' status, and
// the
// columns northd owns of the ports whose binding or row changed; newPorts are
// the ports
// whose Port_Binding writeSB has just inserted.
func (d *Northd) writeNB(ctx context.Context, cols lovsdb.Row, newPorts map[string]string) {
	ports := d.portOps(newPorts)
	global := slices.Concat(nbGlobalUpdate(d.feed.global, cols), d.bfdStatusOps(), d.nfActiveOps(), d.portHealthStatusOps())
	// A few ports go with NB_Global, in one transaction rather than two; a
	// cold start's thousands go after it, so that the sb_cfg that
	// `ovn-nbctl --wait=sb` waits for is not held up by them.
	txns := [][]lovsdb.Operation{append(global, ports...)}
	if len(ports) > portsWithGlobal {
		txns = [][]lovsdb.Operation{global, ports}
	}
	for _, ops := range txns {
		if len(ops) == 0 {
			continue
		}
		d.nbWritten(ctx, d.nb.Transact(ctx, ops))
	}
}

// nbWritten takes the outcome of an NB transaction of writeNB's or
// sendPorts' (sent, or failed to send): a failure has the next writeNB
// write every port's columns again.
func (d *Northd) nbWritten(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		d.log.Warn("NB transaction failed; retrying at the next step", "err", err)
		d.upAll = true
	}
}

// portsWithGlobal is the most switch ports whose columns writeNB writes in
// NB_Global's transaction.
const portsWithGlobal = 64

// sendPorts sends the switch ports' columns (portOps; newPorts are the
// ports whose Port_Binding the SB transaction being committed inserts) in
// an NB transaction of their own, and returns it for waitPorts; nil when
// there is nothing to write or no NB. ovn-northd too sends its NB and SB
// transactions of a run together.
func (d *Northd) sendPorts(ctx context.Context, newPorts map[string]string) *wire.Txn {
	if d.nb == nil {
		return nil
	}
	ops := d.portOps(newPorts)
	if len(ops) == 0 {
		return nil
	}
	t, err := d.nb.StartTransact()
	if err == nil {
		for _, op := range ops {
			t.Add(op)
		}
		err = t.Send()
	}
	if err != nil {
		d.nbWritten(ctx, err)
		return nil
	}
	return t
}

// waitPorts waits for sendPorts' transaction (nbWritten).
func (d *Northd) waitPorts(ctx context.Context, t *wire.Txn) {
	if t != nil {
		d.nbWritten(ctx, t.Wait(ctx))
	}
}

// portOps sets the ipv6_prefix of router ports (ipv6PrefixOp) and the
// Logical_Switch_Port columns northd owns, for each switch port that has a
// Port_Binding (handle_port_binding_changes,
// build_ports): up (portUp); tag, from tag_request. A
// binding in newPorts is one the monitor has not shown yet, on no chassis:
// its port's columns are written with the nb_cfg handshake rather than in
// a transaction of their own once the monitor shows it.
func (d *Northd) portOps(newPorts map[string]string) []lovsdb.Operation {
	if d.upAll {
		// Every status column is written again too (writeNB).
		d.feed.status.markAll()
	}
	names := d.feed.takePorts()
	for name := range d.w.TakePortsChanged(d.upAll) {
		names[name] = true
	}
	d.upAll = false
	var ops []lovsdb.Operation
	// Tags given in this pass: ports of one parent taken together must not
	// get the same one before the NB shows the first.
	given := map[parentTag]bool{}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if op, ok := d.ipv6PrefixOp(name); ok {
			ops = append(ops, op)
		}
		if op, ok := d.hostingChassisOp(name); ok {
			ops = append(ops, op)
		}
		lsp := d.feed.lspByName[name]
		if lsp == nil {
			continue
		}
		var pb *sb.PortBinding // nil for one just inserted
		if _, inserted := newPorts[name]; !inserted {
			var ok bool
			if pb, ok = d.w.PortBinding(name); !ok {
				continue
			}
		}
		row := lovsdb.Row{}
		up := d.portUp(lsp, pb)
		if lsp.Up == nil || *lsp.Up != up {
			row["up"] = wire.OptBool(up)
		}
		if tag, ok := d.newTag(lsp, given); ok {
			row["tag"] = wire.OptInt(tag, true)
		}
		if len(row) > 0 {
			ops = append(ops, lovsdb.Operation{Op: lovsdb.OperationUpdate, Table: nb.LogicalSwitchPortTable,
				Row: row, Where: wire.WhereUUID(lsp.UUID)})
		}
	}
	return ops
}

// portUp is a switch port's up column (handle_port_binding_changes): true
// for router ports (and, from 26.03, ports of type "switch"); for a port
// bound to a chassis, true, or the binding's up when the chassis reports
// port status: in 23.03 one whose other_config has port-up-notif, in 26.03
// any but a remote chassis (other_config is-remote); false for an unbound
// port. pb is nil for a binding just inserted.
func (d *Northd) portUp(lsp *nb.LogicalSwitchPort, pb *sb.PortBinding) bool {
	switch {
	case lsp.Type == relations.LSPTypeRouter, lsp.Type == relations.LSPTypeSwitch && relations.SwitchPeerPorts(d.release):
		return true
	case pb == nil || pb.Chassis == nil:
		return false
	}
	ch := d.w.Chassis(*pb.Chassis)
	reportsUp := ch != nil && relations.SmapBool(ch.OtherConfig, "port-up-notif", false)
	if everyLocalChassisReportsUp(d.release) {
		reportsUp = ch == nil || !relations.SmapBool(ch.OtherConfig, "is-remote", false)
	}
	return !reportsUp || pb.Up != nil && *pb.Up
}

// hostingChassisOp sets a distributed gateway port's status:hosting-chassis
// to the chassis that its chassisredirect port, binding name, is bound to,
// and removes it once the binding is on none (26.03
// handle_cr_port_binding_changes).
func (d *Northd) hostingChassisOp(name string) (lovsdb.Operation, bool) {
	lrpName, isCR := strings.CutPrefix(name, "cr-")
	lrp := d.feed.lrpByName[lrpName]
	pb, bound := d.w.PortBinding(name)
	if !reportsHostingChassis(d.release) || !isCR || lrp == nil || !bound || pb.Type != "chassisredirect" {
		return lovsdb.Operation{}, false
	}
	status := maps.Clone(lrp.Status)
	if status == nil {
		status = map[string]string{}
	}
	delete(status, hostingChassis)
	if pb.Chassis != nil {
		if ch := d.w.Chassis(*pb.Chassis); ch != nil {
			status[hostingChassis] = ch.Name
		}
	}
	if maps.Equal(status, lrp.Status) {
		return lovsdb.Operation{}, false
	}
	return lovsdb.Operation{Op: lovsdb.OperationUpdate, Table: nb.LogicalRouterPortTable,
		Row: lovsdb.Row{"status": wire.StrMap(status)}, Where: wire.WhereUUID(lrp.UUID)}, true
}

// hostingChassis is the key of a router port's status that names the
// chassis its chassisredirect port is bound to.
const hostingChassis = "hosting-chassis"

// reportsHostingChassis: 26.03 writes the NB status of distributed gateway
// ports.
func reportsHostingChassis(r schema.Release) bool { return r >= schema.OVN2603 }

// vxlanModeOptions: 26.03 reads NB_Global options:vxlan_mode and the
// switches' other_config:ic-vxlan_mode (sbwriter.Writer.SetVXLANOptions).
func vxlanModeOptions(r schema.Release) bool { return r >= schema.OVN2603 }

// everyLocalChassisReportsUp: 26.03 takes a bound port's up from its
// binding on any chassis but a remote one; 23.03 only on a chassis that
// says it reports it (port-up-notif).
func everyLocalChassisReportsUp(r schema.Release) bool { return r >= schema.OVN2603 }

// bfdStatusOps set the status of the NB BFD rows as 23.03 does
// (build_bfd_table, parsed_routes_add, bfd_cleanup_connections): unset is
// admin_down; the SB row's status, which ovn-controller reports, when
// neither is admin_down; then down for a session a route uses that is
// admin_down, and admin_down for one no route uses.
// It checks the rows whose inputs changed (statusDirt).
func (d *Northd) bfdStatusOps() []lovsdb.Operation {
	used := d.feed.status.used
	var ops []lovsdb.Operation
	for _, u := range d.feed.status.takeBFDs() {
		b, ok := d.feed.rows[nb.BFDTable][u].(*nb.BFD)
		if !ok {
			continue
		}
		status := nb.BFDStatusAdminDown
		if b.Status != nil {
			status = *b.Status
		}
		if s, ok := d.w.BFDStatus(b.LogicalPort, b.DstIP); ok && s != status && s != sb.BFDStatusAdminDown && status != nb.BFDStatusAdminDown {
			status = s
		}
		switch {
		case used[u] && status == nb.BFDStatusAdminDown:
			status = nb.BFDStatusDown
		case !used[u]:
			status = nb.BFDStatusAdminDown
		}
		if b.Status == nil || *b.Status != status {
			ops = append(ops, lovsdb.Operation{Op: lovsdb.OperationUpdate, Table: nb.BFDTable,
				Row: lovsdb.Row{"status": wire.OptString(status, true)}, Where: wire.WhereUUID(u)})
		}
	}
	return ops
}

// nfActiveOps set each network function group's network_function_active
// to the function the program made active, or none
// (network_function_update_active).
func (d *Northd) nfActiveOps() []lovsdb.Operation {
	var ops []lovsdb.Operation
	for _, a := range d.prog.NetworkFunctionsActive.Contents() {
		g, ok := d.feed.rows[nb.NetworkFunctionGroupTable][a.Group].(*nb.NetworkFunctionGroup)
		if !ok {
			continue
		}
		if was := g.NetworkFunctionActive; was == nil && a.Active == "" || was != nil && *was == a.Active {
			continue
		}
		active := lovsdb.OvsSet{GoSet: []any{}}
		if a.Active != "" {
			active.GoSet = []any{lovsdb.UUID{GoUUID: a.Active}}
		}
		ops = append(ops, lovsdb.Operation{Op: lovsdb.OperationUpdate, Table: nb.NetworkFunctionGroupTable,
			Row: lovsdb.Row{"network_function_active": active}, Where: wire.WhereUUID(a.Group)})
	}
	return ops
}

// portHealthStatusOps copy into each switch port health check the status
// ovn-controller gives its Service_Monitor, once it gives one (26.03
// handle_service_monitor_changes; no status leaves the NB's as it is).
// It checks the ports whose checks' inputs changed (statusDirt).
func (d *Northd) portHealthStatusOps() []lovsdb.Operation {
	var ops []lovsdb.Operation
	for _, name := range d.feed.status.takePorts() {
		lsp := d.feed.lspByName[name]
		if lsp == nil {
			continue
		}
		for _, u := range lsp.HealthChecks {
			hc, ok := d.feed.rows[nb.LogicalSwitchPortHealthCheckTable][u].(*nb.LogicalSwitchPortHealthCheck)
			if !ok {
				continue
			}
			mon := d.w.ServiceMonitor(hc.Address, hc.Port, name, hc.Protocol)
			if mon == nil || mon.Type == nil || *mon.Type != sb.ServiceMonitorTypeLogicalSwitchPort || mon.SrcIP != hc.SrcIP ||
				mon.Status == nil || hc.Status != nil && *hc.Status == *mon.Status {
				continue
			}
			ops = append(ops, lovsdb.Operation{Op: lovsdb.OperationUpdate, Table: nb.LogicalSwitchPortHealthCheckTable,
				Row: lovsdb.Row{"status": wire.OptString(*mon.Status, true)}, Where: wire.WhereUUID(u)})
		}
	}
	return ops
}

// maxTag bounds the VLAN tags of container ports.
const maxTag = 4095

// parentTag is a VLAN tag of a parent port's containers.
type parentTag struct {
	parent string
	tag    int
}

// newTag is the tag a switch port should get from its tag_request
// (tag_alloc_create_new_tag): the request itself, or for a container port
// requesting 0 the lowest tag no other container of its parent has, in the
// NB or in given (tags given but not yet written, to which it adds its own).
func (d *Northd) newTag(lsp *nb.LogicalSwitchPort, given map[parentTag]bool) (int, bool) {
	switch {
	case lsp.TagRequest == nil:
		return 0, false
	case *lsp.TagRequest != 0:
		return *lsp.TagRequest, lsp.Tag == nil || *lsp.Tag != *lsp.TagRequest
	case lsp.ParentName == nil || *lsp.ParentName == "" || lsp.Tag != nil:
		return 0, false
	}
	parent := *lsp.ParentName
	used := map[int]bool{}
	for _, other := range d.feed.lspByName {
		if other.ParentName != nil && *other.ParentName == parent && other.Tag != nil {
			used[*other.Tag] = true
		}
	}
	for tag := 1; tag <= maxTag; tag++ {
		if !used[tag] && !given[parentTag{parent, tag}] {
			given[parentTag{parent, tag}] = true
			return tag, true
		}
	}
	d.log.Error("out of VLAN tags for container ports", "parent", *lsp.ParentName)
	return 0, false
}

// report logs a step at debug level.
func (d *Northd) report(st StepStats) {
	st.Flows = d.w.DesiredFlows()
	if d.cfg.OnStep != nil {
		d.cfg.OnStep(st)
	}
	if st.Err != nil {
		d.log.Log(context.Background(), faultLevel(st.Err), "SB transaction failed; reconciling again at the next step", "err", st.Err)
		return
	}
	if !d.log.Enabled(context.Background(), slog.LevelDebug) {
		return // the attributes' formatting costs more than the rest of a report
	}
	attrs := []any{"nb_rows", st.NBRows, "flows_added", st.FlowsAdded, "flows_removed", st.FlowsRemoved,
		"engine", st.Engine, "sb_txn", st.SBTxn}
	for _, table := range slices.Sorted(maps.Keys(st.SB)) {
		n := st.SB[table]
		attrs = append(attrs, table, fmt.Sprintf("+%d ~%d -%d", n[0], n[1], n[2]))
	}
	d.log.Debug("step", attrs...)
}

// initNBOps create the NB_Global row.
func initNBOps() []lovsdb.Operation {
	return []lovsdb.Operation{{Op: lovsdb.OperationInsert, Table: nb.NBGlobalTable, Row: lovsdb.Row{}}}
}

// InitNB creates the NB_Global row of the NB at remote if it has none, as
// `ovn-nbctl init` does.
func InitNB(ctx context.Context, remote string) error {
	nbSchema := nb.Schema()
	m, err := nb.FullDatabaseModel()
	if err != nil {
		return err
	}
	c, err := wire.Dial(ctx, remote, m.Name(), m, wire.Options{Tables: []string{nb.NBGlobalTable}, Schema: &nbSchema})
	if err != nil {
		return err
	}
	defer c.Close()
	bs, err := c.Take()
	if err != nil {
		return err
	}
	if len(bs) > 0 && len(bs[0].Changes) > 0 {
		return nil
	}
	return c.Transact(ctx, initNBOps())
}
