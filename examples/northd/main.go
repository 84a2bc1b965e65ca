// Command northd is northlog's drop-in for ovn-northd 23.03: it keeps an
// OVN Southbound database computed from a Northbound one, doing on each NB
// change only the work that change needs.
//
//	northd --ovnnb-db=unix:/run/ovn/ovnnb_db.sock --ovnsb-db=unix:/run/ovn/ovnsb_db.sock
//
// With neither database given, it serves an in-process NB and SB database
// on unix sockets in --state-dir (kept in files there across restarts),
// prints the line that points ovn-nbctl, ovn-sbctl and ovn-trace at them,
//
//	export OVN_NB_DB=unix:DIR/nb.sock OVN_SB_DB=unix:DIR/sb.sock
//
// and runs against them.
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
	"strconv"
	"strings"
	"syscall"

	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/ovsdb/embedded"
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

// optionalValue is a string flag that may be given without a value, like
// ovn-northd's --pidfile[=FILE]: alone it takes def.
type optionalValue struct {
	set   bool
	value string
	def   string
}

func (o *optionalValue) String() string { return o.value }
func (o *optionalValue) Set(s string) error {
	o.set = true
	o.value = s
	if s == "true" {
		o.value = o.def
	}
	return nil
}
func (o *optionalValue) IsBoolFlag() bool { return true }

func defaultStateDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "northlog")
	}
	return "northlog-state"
}

// run is the daemon: flags, logging, the databases, then the northd until
// ctx ends (SIGINT or SIGTERM).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("northd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nbDB := fs.String("ovnnb-db", "", "OVN Northbound database (unix:PATH or tcp:HOST:PORT, comma-separated for a cluster); with neither database given, serve both in --state-dir")
	sbDB := fs.String("ovnsb-db", "", "OVN Southbound database, as --ovnnb-db")
	stateDir := fs.String("state-dir", defaultStateDir(), "directory of the in-process databases (sockets nb.sock and sb.sock, files nb.db and sb.db)")
	verbose := fs.Bool("verbose", false, "log at debug level: one line per step")
	fs.BoolVar(verbose, "v", false, "same as --verbose")
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	pidfile := &optionalValue{def: "northlog-northd.pid"}
	fs.Var(pidfile, "pidfile", "write the process id to `FILE` (default northlog-northd.pid)")
	metricsAddr := fs.String("metrics-address", "", "serve Prometheus metrics on `ADDRESS` (host:port), at /metrics")
	logFile := &optionalValue{def: "northlog-northd.log"}
	fs.Var(logFile, "log-file", "log to `FILE` instead of stderr (default northlog-northd.log)")
	cpuProfile := fs.String("cpuprofile", "", "write a pprof CPU profile of the whole run to `FILE` at exit")
	memProfile := fs.String("memprofile", "", "write a pprof heap profile to `FILE` at exit: what the northd holds then, and what it allocated since it started")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: northd [flags]\n       northd flows [--format canonical|lflow-list] NB_DB_FILE\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		// As ovn-northd's, --log-file and --pidfile take an optional
		// value, which must then follow an '='.
		fmt.Fprintf(stderr, "northd: unexpected argument %q (--log-file and --pidfile take FILE as --log-file=FILE)\n\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(stderr, "northd: --log-level: %v\n", err)
		return 2
	}
	if *verbose {
		lvl = slog.LevelDebug
	}
	out := stderr
	if logFile.set {
		f, err := os.OpenFile(logFile.value, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "northd: %v\n", err)
			return 1
		}
		defer f.Close()
		out = f
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: lvl}))
	if pidfile.set {
		if err := os.WriteFile(pidfile.value, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			log.Error("cannot write the pid file", "err", err)
			return 1
		}
		defer os.Remove(pidfile.value)
	}
	stopCPUProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		log.Error("cannot profile", "err", err)
		return 1
	}
	defer func() {
		if err := stopCPUProfile(); err != nil {
			log.Error("cannot write the CPU profile", "err", err)
		}
	}()

	switch {
	case *nbDB == "" && *sbDB == "":
		srv, err := embedded.Start(ctx, *stateDir, log.With("component", "embedded"))
		if err != nil {
			log.Error("cannot start the embedded databases", "err", err)
			return 1
		}
		defer srv.Close()
		*nbDB, *sbDB = srv.NBRemote(), srv.SBRemote()
		// Before anyone else can reach the NB: ovn-nbctl creates an
		// NB_Global row too when it finds none, and two would split
		// --wait=sb between them.
		if err := ovsdb.InitNB(ctx, *nbDB); err != nil {
			log.Error("cannot initialise the embedded NB", "err", err)
			return 1
		}
		fmt.Fprintf(stdout, "export OVN_NB_DB=%s OVN_SB_DB=%s\n", *nbDB, *sbDB)
		if f, ok := stdout.(*os.File); ok {
			_ = f.Sync()
		}
	case *nbDB == "" || *sbDB == "":
		fmt.Fprintln(stderr, "northd: give both --ovnnb-db and --ovnsb-db, or neither for the embedded databases")
		return 2
	}
	log.Info("northd starting", "nb", *nbDB, "sb", *sbDB)
	cfg := ovsdb.Config{NBRemote: *nbDB, SBRemote: *sbDB, Logger: log}
	var status *statusCollector
	if *metricsAddr != "" {
		onStep, sc, err := serveMetrics(ctx, *metricsAddr, log)
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
	err = d.Run(ctx)
	if *memProfile != "" {
		// While d, and so the program's state, is still live.
		if err := writeHeapProfile(*memProfile); err != nil {
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

// flows prints the logical flows of an NB database file.
func flows(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("northd flows", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "canonical", "output format: canonical (DATAPATH|PIPELINE|TABLE|PRIORITY|MATCH|ACTIONS, sorted) or lflow-list (as ovn-sbctl lflow-list)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: northd flows [--format canonical|lflow-list] NB_DB_FILE

Computes the logical flows ovn-northd 23.03 would write for the OVN
Northbound database in NB_DB_FILE, a standalone database file such as
ovsdb-server writes (/var/lib/ovn/ovnnb_db.db). A clustered database file
must be converted first:

  ovsdb-tool cluster-to-standalone nb-standalone.db /var/lib/ovn/ovnnb_db.db

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *format != "canonical" && *format != "lflow-list" {
		fs.Usage()
		return 2
	}
	out, err := ovsdb.ComputeFromFile(fs.Arg(0))
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
	if *format == "lflow-list" {
		named := rules.ResolveFlowKeys(out.Flows, func(id string) string { return out.Names[id] })
		if err := rules.WriteLflowList(stdout, named, out.Names); err != nil {
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
