// Command northd is northlog's drop-in for ovn-northd 23.03 and 26.03 (the
// NB's schema version says which, or --release): it keeps an
// OVN Southbound database computed from a Northbound one, doing on each NB
// change only the work that change needs.
//
// It takes ovn-northd's command line (getopt's long and short options,
// OVS's daemon, vlog and SSL options), answers ovn-appctl on an OVS
// control socket with ovn-northd's commands (commands.go), and logs in
// OVS's format (internal/vlog), so that Debian's ovn-ctl and OVN's tests
// run it as ovn-northd:
//
//	northd --ovnnb-db=unix:/run/ovn/ovnnb_db.sock --ovnsb-db=unix:/run/ovn/ovnsb_db.sock
//
// The databases are ovn-northd's: the options, else $OVN_NB_DB and
// $OVN_SB_DB, else the sockets ovnnb_db.sock and ovnsb_db.sock in
// $OVN_RUNDIR (default /var/run/ovn). Only when no database option is
// given, neither variable is set and neither socket exists, it serves an
// in-process NB and SB database on unix sockets in --state-dir (kept in
// files there across restarts), prints the line that points ovn-nbctl,
// ovn-sbctl and ovn-trace at them,
//
//	export OVN_NB_DB=unix:DIR/nb.sock OVN_SB_DB=unix:DIR/sb.sock
//
// and runs against them. The log says which databases it uses.
//
// Like ovn-northd, it takes the SB lock "ovn_northd" and writes only while
// it holds it, so that several northds (northlog's or ovn-northd's) can run
// on one SB as one active and the others on standby.
//
// The flows subcommand computes the logical flows of an NB database file
// with no server:
//
//	northd flows [--format canonical|lflow-list] NB_DB_FILE
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/northlog/northlog/internal/daemon"
	"github.com/northlog/northlog/internal/unixctl"
	"github.com/northlog/northlog/internal/vlog"
	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/ovsdb/embedded"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "flows" {
		os.Exit(flows(os.Args[2:], os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// settings are the command line's values.
type settings struct {
	program                    string // the command's name
	nbDB, sbDB, unixctl, user  string
	dryRun, detach, noChdir    bool
	monitor, overwritePidfile  bool
	pidfile, logFile           optional
	nThreads                   int
	specs                      []string // -v/--verbose, in order
	syslogMethod, syslogTarget string
	tls                        ovsdb.TLSOptions
	stateDir, metricsAddr      string
	release                    *schema.Release // --release
	cpuProfile, memProfile     string
	help, version, listOptions bool
	optionLog                  []logLine // to log once logging is set up
}

// optional is an option whose argument may be left out (--pidfile,
// --log-file): set says it was given, value is "" when alone.
type optional struct {
	set   bool
	value string
}

// options are ovn-northd 23.03's options (its own, OVS's daemon, vlog and
// SSL options) and northlog's own.
func (s *settings) options() []option {
	str := func(p *string) func(string, bool) error {
		return func(v string, _ bool) error { *p = v; return nil }
	}
	flag := func(p *bool) func(string, bool) error {
		return func(string, bool) error { *p = true; return nil }
	}
	opt := func(p *optional) func(string, bool) error {
		return func(v string, _ bool) error { *p = optional{set: true, value: v}; return nil }
	}
	ignored := func(string, bool) error { return nil }
	return []option{
		{"ovnnb-db", 'D', requiredArg, str(&s.nbDB)},
		{"ovnsb-db", 'd', requiredArg, str(&s.sbDB)},
		{"unixctl", 'u', requiredArg, str(&s.unixctl)},
		{"help", 'h', noArg, flag(&s.help)},
		{"options", 'o', noArg, flag(&s.listOptions)},
		{"version", 'V', noArg, flag(&s.version)},
		{"dry-run", 0, noArg, flag(&s.dryRun)},
		{"n-threads", 0, requiredArg, s.setThreads},
		{"detach", 0, noArg, flag(&s.detach)},
		{"no-chdir", 0, noArg, flag(&s.noChdir)},
		{"monitor", 0, noArg, flag(&s.monitor)},
		{"pidfile", 0, optionalArg, opt(&s.pidfile)},
		{"overwrite-pidfile", 0, noArg, flag(&s.overwritePidfile)},
		{"user", 0, requiredArg, str(&s.user)},
		{"no-self-confinement", 0, noArg, ignored},
		{"verbose", 'v', optionalArg, func(v string, _ bool) error { s.specs = append(s.specs, v); return nil }},
		{"log-file", 0, optionalArg, opt(&s.logFile)},
		{"syslog-method", 0, requiredArg, str(&s.syslogMethod)},
		{"syslog-target", 0, requiredArg, str(&s.syslogTarget)},
		{"private-key", 'p', requiredArg, str(&s.tls.PrivateKey)},
		{"certificate", 'c', requiredArg, str(&s.tls.Certificate)},
		{"ca-cert", 'C', requiredArg, str(&s.tls.CACert)},
		{"ssl-protocols", 0, requiredArg, str(&s.tls.Protocols)},
		{"ssl-ciphers", 0, requiredArg, str(&s.tls.Ciphers)},
		{"bootstrap-ca-cert", 0, requiredArg, func(v string, _ bool) error {
			s.tls.CACert, s.tls.BootstrapCACert = v, true
			return nil
		}},
		// northlog's own.
		{"state-dir", 0, requiredArg, str(&s.stateDir)},
		{"release", 0, requiredArg, func(v string, _ bool) error {
			r, err := schema.Parse(v)
			s.release = &r
			return err
		}},
		{"log-level", 0, requiredArg, s.setLogLevel},
		{"metrics-address", 0, requiredArg, str(&s.metricsAddr)},
		{"cpuprofile", 0, requiredArg, str(&s.cpuProfile)},
		{"memprofile", 0, requiredArg, str(&s.memProfile)},
	}
}

// setLogLevel is northlog's --log-level: every module and destination at
// one slog level name (debug, info, warn, error).
func (s *settings) setLogLevel(v string, _ bool) error {
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		return fmt.Errorf("--log-level: %v", err)
	}
	s.specs = append(s.specs, map[slog.Level]string{slog.LevelDebug: "dbg", slog.LevelInfo: "info",
		slog.LevelWarn: "warn", slog.LevelError: "err"}[l])
	return nil
}

// Environment and defaults, as OVN's: the run and log directories, the
// databases.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func runDir() string { return envOr("OVN_RUNDIR", "/var/run/ovn") }

// logDir is where --log-file's default goes: ovn-northd's log library
// (OVS's) reads OVS_LOGDIR; OVN_LOGDIR, which ovn-ctl uses, next.
func logDir() string { return envOr("OVS_LOGDIR", envOr("OVN_LOGDIR", "/var/log/ovn")) }

// inDir is name in dir unless it is absolute (OVS's abs_file_name).
func inDir(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

func defaultStateDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "northlog")
	}
	return "northlog-state"
}

// embedded reports whether the databases are northlog's in-process ones:
// no database option, neither OVN_NB_DB nor OVN_SB_DB, and neither of
// ovn-northd's default sockets present. Otherwise the missing ones get
// ovn-northd's defaults.
func (s *settings) embedded() bool {
	nbSock, sbSock := filepath.Join(runDir(), "ovnnb_db.sock"), filepath.Join(runDir(), "ovnsb_db.sock")
	if s.nbDB == "" && s.sbDB == "" && os.Getenv("OVN_NB_DB") == "" && os.Getenv("OVN_SB_DB") == "" {
		_, nbErr := os.Stat(nbSock)
		_, sbErr := os.Stat(sbSock)
		if nbErr != nil && sbErr != nil {
			return true
		}
	}
	if s.nbDB == "" {
		s.nbDB = envOr("OVN_NB_DB", "unix:"+nbSock)
	}
	if s.sbDB == "" {
		s.sbDB = envOr("OVN_SB_DB", "unix:"+sbSock)
	}
	return false
}

// version is what -V and the version command print: ovn-northd's first
// line, which ovs-lib's stop_daemon reads to choose "exit", with the
// release reproduced, r (nil when not known yet: it follows the NB), then
// what northlog is.
func version(program string, r *schema.Release) string {
	var points []string
	for _, r := range schema.Releases() {
		points = append(points, r.Point())
	}
	if r == nil {
		return fmt.Sprintf("%s %s\nnorthlog, drop-in for ovn-northd %s (as the NB's schema version says)\n",
			program, schema.Newest.Point(), strings.Join(points, ", "))
	}
	return fmt.Sprintf("%s %s\nnorthlog, drop-in for ovn-northd %s\n", program, r.Point(), r.Point())
}

// defaultEmbedded is the release of the in-process databases when
// --release does not say: 23.03 until 26.03's flows are complete.
const defaultEmbedded = schema.OVN2303

// run is the process: the command line, logging, becoming a daemon
// (detach, monitor, user, pidfile), then serve until ctx ends (SIGINT,
// SIGTERM or "exit").
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	s, code, done := parseCommandLine(args, stdout, stderr)
	if done {
		return code
	}
	program := s.program
	logs := vlog.New(program, stderr, logModules...)
	for _, spec := range s.specs {
		if err := logs.Set(spec); err != nil {
			fmt.Fprintf(stderr, "%s: processing %q: %v\n", program, spec, err)
			return 1
		}
	}
	// As OVS: the option, else $OVS_SYSLOG_METHOD, else the local syslog.
	if err := logs.SetSyslog(cmp.Or(s.syslogMethod, os.Getenv("OVS_SYSLOG_METHOD")), s.syslogTarget); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", program, err)
		return 1
	}
	if s.detach && !daemon.Detached() {
		return daemon.Detach(!s.noChdir)
	}
	if s.detach && s.monitor && !daemon.Monitored() {
		return daemon.Monitor()
	}
	if s.logFile.set {
		if err := logs.SetLogFile(inDir(logDir(), cmp.Or(s.logFile.value, program+".log"))); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", program, err)
			return 1
		}
		defer logs.CloseLogFile()
	}
	log := slog.New(logs.Handler("ovn_northd"))
	for _, l := range s.optionLog {
		log.Log(ctx, l.level, l.msg)
	}
	if s.user != "" {
		if err := daemon.SwitchUser(s.user); err != nil {
			log.Error(err.Error())
			return 1
		}
	}
	if s.pidfile.set {
		pf, err := daemon.CreatePidfile(inDir(runDir(), cmp.Or(s.pidfile.value, program+".pid")), s.overwritePidfile)
		if err != nil {
			log.Error(err.Error())
			fmt.Fprintf(stderr, "%s: %v\n", program, err)
			return 1
		}
		defer pf.Remove()
	}
	stopCPUProfile, err := startCPUProfile(s.cpuProfile)
	if err != nil {
		log.Error("cannot profile", "err", err)
		return 1
	}
	defer func() {
		if err := stopCPUProfile(); err != nil {
			log.Error("cannot write the CPU profile", "err", err)
		}
	}()
	return serve(ctx, s, logs, log, stdout, stderr)
}

// parseCommandLine reads the options into settings; done says the
// command line asked for no daemon (--help, --version, an error) and the
// program exits with code.
func parseCommandLine(args []string, stdout, stderr io.Writer) (s *settings, code int, done bool) {
	program := filepath.Base(os.Args[0])
	s = &settings{program: program, stateDir: defaultStateDir(), nThreads: 1}
	opts := s.options()
	operands, err := parseOptions(opts, args)
	if err == nil && len(operands) > 0 {
		err = fmt.Errorf("unexpected argument %q (--log-file and --pidfile take FILE as --log-file=FILE)", operands[0])
	}
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", program, err)
		return s, 1, true
	case s.help:
		usage(stdout, program)
		return s, 0, true
	case s.listOptions:
		for _, o := range opts {
			fmt.Fprintf(stdout, "--%s%s\n", o.long, map[argKind]string{requiredArg: "=arg", optionalArg: "[=arg]"}[o.arg])
		}
		return s, 0, true
	case s.version:
		fmt.Fprint(stdout, version(program, s.release))
		return s, 0, true
	}
	return s, 0, false
}

// serve runs the control socket, the embedded databases if s asks for
// them, and the northd until ctx ends or ovn-appctl says exit.
func serve(ctx context.Context, s *settings, logs *vlog.Vlog, log *slog.Logger, stdout, stderr io.Writer) int {
	program := s.program
	ctx, exit := context.WithCancel(ctx)
	defer exit()
	embedded := s.embedded()
	ctlPath := inDir(runDir(), cmp.Or(s.unixctl, fmt.Sprintf("%s.%d.ctl", program, os.Getpid())))
	ctl, err := unixctl.Listen(ctlPath, version(program, s.release), slog.New(logs.Handler("unixctl")))
	switch {
	case err == nil:
		defer ctl.Close()
	case s.unixctl == "":
		// No OVN run directory (the README's first run, a benchmark):
		// no ovn-appctl, but a northd. ovn-northd would stop here.
		log.Warn("no control socket", "err", err)
	default:
		log.Error(err.Error())
		fmt.Fprintf(stderr, "%s: %v\n", program, err)
		return 1
	}
	if embedded {
		srv, err := startEmbedded(ctx, s, slog.New(logs.Handler("embedded")), stdout)
		if err != nil {
			log.Error("cannot start the embedded databases", "err", err)
			return 1
		}
		defer srv.Close()
	}
	log.Info("northd starting", "nb", s.nbDB, "sb", s.sbDB, "embedded", embedded)
	cfg := ovsdb.Config{NBRemote: s.nbDB, SBRemote: s.sbDB, Release: s.release, TLS: s.tls, Paused: s.dryRun,
		Logger: slog.New(logs.Handler("northd")), RPCLog: slog.New(logs.Handler("jsonrpc")),
		EngineLog: slog.New(logs.Handler("inc_proc_eng")), SerialChanges: !embedded}
	var status *statusCollector
	if s.metricsAddr != "" {
		onStep, sc, err := serveMetrics(ctx, s.metricsAddr, log)
		if err != nil {
			log.Error("cannot serve metrics", "err", err)
			return 1
		}
		cfg.OnStep, status = onStep, sc
	}
	d := ovsdb.NewNorthd(cfg)
	if status != nil {
		status.northd.Store(d)
	}
	threads := newThreadPool(d, slog.New(logs.Handler("ovn_parallel_hmap")))
	// ovn-northd empties its pool when it leaves its loop (exit), not on a
	// signal.
	var exited atomic.Bool
	if ctl != nil {
		registerCommands(ctl, d, logs, s, threads, func() { exited.Store(true); exit() })
	}
	if s.detach {
		// ovn-northd's console ends where it detaches, before it connects.
		logs.SetConsole(nil)
	}
	threads.resize(s.nThreads)
	run := make(chan error, 1)
	go func() { run <- d.Run(ctx) }()
	if s.detach {
		// What follows the start of a detached ovn-northd finds it past
		// its first run: so with this one (ovsdb.Northd.Started), unless
		// that takes long.
		select {
		case <-d.Started():
		case <-time.After(maxStartWait):
		}
	}
	if err := daemon.Ready(); err != nil {
		log.Warn("cannot finish detaching", "err", err)
	}
	err = <-run
	if exited.Load() {
		threads.resize(0)
	}
	if s.memProfile != "" {
		// While d, and so the program's state, is still live.
		if err := writeHeapProfile(s.memProfile); err != nil {
			log.Error("cannot write the heap profile", "err", err)
		}
		runtime.KeepAlive(d)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error("northd stopped", "err", err)
		return 1
	}
	log.Info("northd stopped")
	return 0
}

// maxStartWait bounds how long a detaching northd waits for its first
// run: a large NB's takes seconds, which its starter need not wait for.
const maxStartWait = 2 * time.Second

// logModules are the vlog modules: ovn_northd for the program's own
// lines, northd for the northd's, jsonrpc for the requests sent to the
// databases (at debug level, "-vjsonrpc"), inc_proc_eng for the start of
// each iteration (at debug level), ovn_parallel_hmap for the thread
// count (threadPool), and the others'.
var logModules = []string{"ovn_northd", "northd", "jsonrpc", "inc_proc_eng", "unixctl", "embedded", "ovn_parallel_hmap"}

// startEmbedded serves the in-process NB and SB in the state directory,
// points s at them, and prints the line that points OVN's tools at them.
func startEmbedded(ctx context.Context, s *settings, log *slog.Logger, stdout io.Writer) (*embedded.Servers, error) {
	release := defaultEmbedded
	if s.release != nil {
		release = *s.release
	}
	srv, err := embedded.Start(ctx, s.stateDir, release, log)
	if err != nil {
		return nil, err
	}
	s.nbDB, s.sbDB = srv.NBRemote(), srv.SBRemote()
	// Before anyone else can reach the NB: ovn-nbctl creates an NB_Global
	// row too when it finds none, and two would split --wait=sb between
	// them.
	if err := ovsdb.InitNB(ctx, s.nbDB); err != nil {
		srv.Close()
		return nil, fmt.Errorf("cannot initialise the embedded NB: %w", err)
	}
	fmt.Fprintf(stdout, "export OVN_NB_DB=%s OVN_SB_DB=%s\n", s.nbDB, s.sbDB)
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync()
	}
	return srv, nil
}

// usage is -h's text, ovn-northd's with northlog's options.
func usage(w io.Writer, program string) {
	fmt.Fprintf(w, `%[1]s: OVN northbound management daemon (northlog)
usage: %[1]s [OPTIONS]
       %[1]s flows [--format canonical|lflow-list] NB_DB_FILE

Options:
  --ovnnb-db=DATABASE       connect to ovn-nb database at DATABASE
                            (default: $OVN_NB_DB, else unix:%[2]s/ovnnb_db.sock)
  --ovnsb-db=DATABASE       connect to ovn-sb database at DATABASE
                            (default: $OVN_SB_DB, else unix:%[2]s/ovnsb_db.sock)
                            with neither, no such variable and no such socket:
                            northlog's in-process databases in --state-dir
  --dry-run                 start in paused state (do not commit db changes)
  --n-threads=N             specify number of threads (1..%[3]d; default 1: a
                            large step, a cold start's, runs on up to N cores)
  --unixctl=SOCKET          override default control socket name
  -h, --help                display this help message
  -o, --options             list available options
  -V, --version             display version information

Daemon options:
  --detach                  run in background as daemon
  --monitor                 creates a process to monitor this daemon
  --no-chdir                do not chdir to '/'
  --pidfile[=FILE]          create pidfile (default: %[2]s/%[1]s.pid)
  --overwrite-pidfile       with --pidfile, start even if already running
  --user=USER[:GROUP]       run as USER (and GROUP)
  --no-self-confinement     accepted (nothing to confine)

Logging options:
  -vSPEC, --verbose=SPEC    set logging levels (MODULE:DESTINATION:LEVEL)
  -v, --verbose             set maximum verbosity level
  --log-file[=FILE]         enable logging to specified FILE
                            (default: %[4]s/%[1]s.log)
  --syslog-method=(libc|unix:file|udp:ip:port|null)
                            where syslog lines go (default: the local syslog)
  --syslog-target=HOST:PORT also send syslog lines to UDP HOST:PORT

PKI configuration (required to use SSL):
  -p, --private-key=FILE    file with private key
  -c, --certificate=FILE    file with certificate for private key
  -C, --ca-cert=FILE        file with trusted CA certificate(s)
  --bootstrap-ca-cert=FILE  file with peer CA certificate to read or create
  --ssl-protocols=PROTOS    list of SSL protocols to enable
  --ssl-ciphers=CIPHERS     list of SSL ciphers to enable

northlog options:
  --state-dir=DIR           directory of the in-process databases
                            (sockets nb.sock and sb.sock, files nb.db and sb.db)
  --release=RELEASE         reproduce ovn-northd RELEASE (23.03 or 26.03) whatever
                            the NB's schema version (default: the release of that
                            version; an older one than 23.03's is 23.03's), and
                            serve its schemas in the in-process databases
                            (default: 23.03)
  --log-level=LEVEL         every log destination at LEVEL (debug, info, warn, error)
  --metrics-address=ADDR    serve Prometheus metrics on ADDR (host:port), at /metrics
  --cpuprofile=FILE         write a pprof CPU profile of the whole run to FILE at exit
  --memprofile=FILE         write a pprof heap profile to FILE at exit
`, program, runDir(), maxThreads, logDir())
}

// flows prints the logical flows of an NB database file.
func flows(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("northd flows", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "canonical", "output format: canonical (DATAPATH|PIPELINE|TABLE|PRIORITY|MATCH|ACTIONS, sorted) or lflow-list (as ovn-sbctl lflow-list)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: northd flows [--format canonical|lflow-list] [--release 23.03|26.03] NB_DB_FILE

Computes the logical flows ovn-northd would write for the OVN Northbound
database in NB_DB_FILE, a standalone database file such as ovsdb-server
writes (/var/lib/ovn/ovnnb_db.db), as the release its schema version is
for (23.03.1 or 26.03.2) writes them. A clustered database file
must be converted first:

  ovsdb-tool cluster-to-standalone nb-standalone.db /var/lib/ovn/ovnnb_db.db

`)
		fs.PrintDefaults()
	}
	release := fs.String("release", "", "OVN release to compute for (23.03 or 26.03); default: the one the file's NB schema version is for")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *format != "canonical" && *format != "lflow-list" {
		fs.Usage()
		return 2
	}
	var opts ovsdb.ComputeOptions
	if *release != "" {
		r, err := schema.Parse(*release)
		if err != nil {
			fmt.Fprintf(stderr, "northd flows: %v\n", err)
			return 2
		}
		opts.Release = &r
	}
	out, err := ovsdb.Compute(fs.Arg(0), opts)
	if err != nil {
		fmt.Fprintf(stderr, "northd flows: %v\n", err)
		return 1
	}
	if out.Warning != nil {
		fmt.Fprintf(stderr, "northd flows: warning: %v\n", out.Warning)
	}
	for _, r := range out.Rejected {
		fmt.Fprintf(stderr, "northd flows: skipped: %v\n", r)
	}
	for _, d := range out.Diagnostics {
		fmt.Fprintf(stderr, "northd flows: %v: %s\n", d.Level, d.Text)
	}
	if *format == "lflow-list" {
		named := rules.ResolveFlowKeys(out.Flows, out.RefName)
		if err := rules.WriteLflowList(stdout, out.Stages, named, out.Names); err != nil {
			fmt.Fprintf(stderr, "northd flows: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprint(stdout, strings.Join(out.Canonical(), "\n"))
	if len(out.Flows) > 0 {
		fmt.Fprintln(stdout)
	}
	return 0
}
