//go:build linux

// Command compare runs northlog's northd and a reference ovn-northd side
// by side on the same ovn-kubernetes-like topology and prints what each
// costs, as a Markdown table:
//
//	go run ./bench/cmd/compare                 # issue 6's size: 100 nodes × 50 pods, 500 LBs, 200 policies
//	go run ./bench/cmd/compare -preset small   # 10 × 10, a quick run
//	go run ./bench/cmd/compare -release 26.03  # against ovn-northd 26.03.2
//	go run ./bench/cmd/compare -release 23.03,26.03 # one table per reference, one after the other
//	go run ./bench/cmd/compare -preset huge -northlog-only # 100,000 ports, northlog's northd alone
//	go run ./bench/cmd/compare -northlog-only -embedded # northlog's embedded NB and SB beside ovsdb-server
//	go run ./bench/cmd/compare -n-threads 2    # every northd with --n-threads=2 (default: none, one thread each)
//
// The reference is a release's build (internal/reference.BuildOf): 23.03.1
// is Debian's ovn-central, 26.03.2 the build at $OVN_REF_HOME_2603 or
// ../shared/ovn-26.03 (-ref-home). Both sides run on that build's
// ovsdb-server with its schemas, so northlog's northd gets an NB of the
// reference's release and reproduces that release (it follows the NB's
// schema version). In a temporary directory it starts two NB/SB
// ovsdb-server pairs on unix sockets, loads the topology (bench/topology)
// into both NBs with ovsdb-client, and measures, for each northd:
//
//   - cold start: from starting the northd on the loaded NB and a newly
//     created, empty SB until `ovn-nbctl --wait=sb sync` returns, and the
//     northd's and the SB server's CPU by then; the median of -cold-runs
//     cold starts per side, the sides taking turns to go first (ABBA…);
//   - the wall time of `ovn-nbctl --wait=sb lsp-add` (a pod port with
//     addresses and port security) and `lsp-del`, over -changes changes of
//     each, median and p90, the two sides alternating; and what its
//     --print-wait-time gives as "ovn-northd delay before processing"
//     and "ovn-northd completion": from the client's commit to the start
//     of the northd's run that took it, and to the sb_cfg_timestamp the
//     northd wrote, the northd's share measured within each command (1 ms
//     steps); with -warmup N, after N unmeasured changes on each side;
//   - the northd's CPU time per change (per change from the threads'
//     schedstat; over the whole change phase from /proc/PID/stat), and the
//     SB server's;
//   - the northd's and the SB server's peak RSS (VmHWM);
//   - the SB's logical flows: rows, canonical lines, and the difference
//     between the two SBs by stage.
//
// With -embedded, one more side runs northlog's northd as the README does,
// with no database options: it serves its own NB and SB (ovsdb/embedded) in
// its --state-dir, of -release's schemas. The topology is loaded into that
// NB with the same ovsdb-client transactions while the northd runs paused
// (--dry-run: it follows the NB but writes nothing, so the SB stays empty);
// each cold start stops it, removes the SB's file and starts it again on
// the persisted NB, so it includes reading the NB's file. Its servers'
// CPU and memory are the northd process's.
//
// The client's own cost is the same commands with --wait=none, run on each
// side between its measured changes, with its northd running: the same
// client on the same database state, without the wait for the SB. After each change the programs are left to go
// idle before the next one, so every change is measured on a quiet system.
// Everything started is stopped on exit, on SIGINT and on -timeout.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/northlog/northlog/bench/topology"
	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

func main() {
	topo := topology.Flags(flag.CommandLine)
	var c config
	flag.IntVar(&c.changes, "changes", 20, "lsp-add and lsp-del changes measured on each side")
	flag.IntVar(&c.warmup, "warmup", 0, "unmeasured changes (a --wait=sb lsp-add and lsp-del each) on each side between the cold starts and the measured changes: the SB server's malloc stays slow for its first few dozen transactions after a cold start's write")
	flag.IntVar(&c.coldRuns, "cold-runs", 3, "cold starts measured on each side, the sides taking turns to go first; the median (of an even number, the lower middle one) is reported")
	flag.DurationVar(&c.timeout, "timeout", 45*time.Minute, "bound on the whole run")
	flag.DurationVar(&c.cmdTimeout, "cmd-timeout", 5*time.Minute, "bound on each ovn-nbctl command (a cold start included)")
	flag.StringVar(&c.northd, "northd", "", "northlog northd binary (default: go build ./examples/northd into the run directory)")
	flag.BoolVar(&c.refOnly, "ref-only", false, "run the reference side only (northlog's northd not needed)")
	flag.BoolVar(&c.northlogOnly, "northlog-only", false, "run northlog's side only, on the reference build's servers and schemas (for sizes the reference takes too long on, such as -preset huge)")
	flag.BoolVar(&c.embedded, "embedded", false, "add a side: northlog's northd on its own embedded NB and SB (no database options), beside the same on ovsdb-server")
	flag.StringVar(&c.dir, "dir", "", "run directory (default: a new temporary directory, removed at the end unless -keep)")
	flag.BoolVar(&c.keep, "keep", false, "keep the run directory (databases and logs)")
	flag.IntVar(&c.nThreads, "n-threads", 0, "--n-threads=N given to every northd (default: none, so ovn-northd's default of one thread each; northlog then steps in order)")
	releases := flag.String("release", "", "the reference's OVN release, 23.03 or 26.03, or several separated by commas, each compared in turn with its own table (default 23.03, or 26.03 with -ref-home)")
	refHome := flag.String("ref-home", "", "the 26.03 build's directory (bin/, share/); default $"+reference.HomeEnv2603+" or ../shared/ovn-26.03 from the module root")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var err error
	if *refHome != "" {
		err = os.Setenv(reference.HomeEnv2603, *refHome)
	}
	if err == nil {
		c.releases, err = parseReleases(*releases, *refHome != "")
	}
	if err == nil {
		c.topo, err = topo()
	}
	if err == nil {
		err = run(c, log, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

// parseReleases reads -release: releases separated by commas; when empty,
// 26.03 if -ref-home names its build, else 23.03.
func parseReleases(list string, refHome bool) ([]schema.Release, error) {
	if list == "" {
		if refHome {
			return []schema.Release{schema.OVN2603}, nil
		}
		return []schema.Release{schema.OVN2303}, nil
	}
	var rs []schema.Release
	for name := range strings.SplitSeq(list, ",") {
		r, err := schema.Parse(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("-release: %w", err)
		}
		if slices.Contains(rs, r) {
			return nil, fmt.Errorf("-release: %s given twice", r)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

type config struct {
	topo         topology.Options
	releases     []schema.Release
	changes      int
	warmup       int
	coldRuns     int
	timeout      time.Duration
	cmdTimeout   time.Duration
	northd       string
	refOnly      bool
	northlogOnly bool
	embedded     bool
	dir          string
	keep         bool
	nThreads     int // --n-threads for every northd; 0: none given
}

// side is one NB/SB pair and the northd between them.
type side struct {
	name string
	dir  reference.Dir
	argv func(s *side) []string // the northd's command line
	// embedded: the northd serves its own NB and SB in the directory
	// (its --state-dir), so nb and sb stay nil.
	embedded bool
	nb, sb   *reference.Daemon
	northd   *reference.Daemon
	cmdTO    time.Duration
	res      result
}

// result is what was measured on one side.
type result struct {
	load               time.Duration
	loadCPU            time.Duration   // the NB server's CPU during the load
	cold               []time.Duration // wall of each cold start, in run order
	coldCPU, coldSBCPU []time.Duration // northd's and the SB server's CPU by the end of each cold start
	add, del           []time.Duration // wall of ovn-nbctl --wait=sb
	addDelay, delDelay []time.Duration // its --print-wait-time's "ovn-northd delay before processing"
	addDone, delDone   []time.Duration // and "ovn-northd completion"
	clientAdd          []time.Duration // wall of the same with --wait=none
	clientDel          []time.Duration
	northdCPU, sbCPU   []time.Duration // per change, add and del alike
	addCPU, delCPU     []time.Duration // the northd's per lsp-add and per lsp-del
	nbCPU              []time.Duration // the NB server's per change: the client's requests
	coldNBCPU          []time.Duration // the NB server's during each cold start: the northd's monitor
	phaseCPU           time.Duration   // northd, whole change phase, /proc/PID/stat
	rss, sbRSS, nbRSS  int64
	flows              []string
	lflowRows          int

	// coldQuietCPU and coldQuietSBCPU are the northd's and the SB
	// server's CPU once both are quiet after each cold start: what it
	// costs, wherever within it sync returns.
	coldQuietCPU, coldQuietSBCPU []time.Duration
}

func (s *side) daemons() []*reference.Daemon {
	var ds []*reference.Daemon
	for _, d := range []*reference.Daemon{s.northd, s.sb, s.nb} {
		if d != nil {
			ds = append(ds, d)
		}
	}
	return ds
}

// why returns err, or the exit of one of the side's daemons if one has
// exited: that is the cause of whatever failed after it.
func (s *side) why(err error) error {
	for _, d := range s.daemons() {
		if d.Exited() {
			return d.DeathError()
		}
	}
	return err
}

// pids are the process ids of the side's running daemons.
func (s *side) pids() []int {
	var pids []int
	for _, d := range s.daemons() {
		pids = append(pids, d.Pid())
	}
	return pids
}

func (s *side) stop() {
	for _, d := range s.daemons() {
		d.Stop()
	}
}

// run compares northlog's northd with each reference of c.releases in
// turn, each on servers and an NB of its own release, and prints a table
// for each.
func run(c config, log *slog.Logger, out io.Writer) error {
	if c.refOnly && c.northlogOnly {
		return errors.New("-ref-only and -northlog-only: at most one")
	}
	if c.refOnly && c.embedded {
		return errors.New("-ref-only and -embedded: the embedded databases are northlog's northd's")
	}
	var builds []*reference.Build
	for _, r := range c.releases {
		b := reference.BuildOf(r)
		if err := b.Available(); err != nil {
			return err
		}
		builds = append(builds, b)
	}
	if c.changes < 1 {
		return fmt.Errorf("-changes %d: want at least 1", c.changes)
	}
	if c.coldRuns < 1 {
		return fmt.Errorf("-cold-runs %d: want at least 1", c.coldRuns)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, c.timeout)
	defer cancelT()

	topo, err := topology.Generate(c.topo)
	if err != nil {
		return err
	}
	dir := c.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "northlog-bench-"); err != nil {
			return err
		}
		if !c.keep {
			defer os.RemoveAll(dir)
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	log.Info("run directory", "dir", dir, "topology", fmt.Sprintf("%+v", topo.Options), "transactions", len(topo.Transactions))

	bin := c.northd
	if bin == "" && !c.refOnly {
		if bin, err = buildNorthd(ctx, dir, log); err != nil {
			return err
		}
	}
	for i, b := range builds {
		if len(builds) > 1 {
			if i > 0 {
				fmt.Fprintln(out)
			}
			fmt.Fprintf(out, "### northlog beside %s\n\n", b)
		}
		if err := compareWith(ctx, c, b, bin, topo, filepath.Join(dir, b.Release().String()), log, out); err != nil {
			return fmt.Errorf("%s: %w", b, err)
		}
	}
	if c.keep {
		fmt.Fprintf(out, "\nRun directory (databases, logs): %s\n", dir)
	}
	return nil
}

// compareWith runs the reference build b (unless -northlog-only) and,
// unless -ref-only, northlog's northd bin side by side in dir, both on b's
// servers and schemas, and prints the table. Everything it starts is
// stopped when it returns.
func compareWith(ctx context.Context, c config, b *reference.Build, bin string, topo *topology.Topology, dir string, log *slog.Logger, out io.Writer) error {
	loadStart := loadAverage()
	ovnNorthd, err := b.Tool("ovn-northd")
	if err != nil {
		return err
	}
	var sides []*side
	if !c.northlogOnly {
		sides = append(sides, &side{name: b.String(), dir: reference.Dir{Path: filepath.Join(dir, "ref"), Build: b}, argv: func(s *side) []string {
			return []string{ovnNorthd, "--no-chdir", "-vconsole:off", "--log-file=" + filepath.Join(s.dir.Path, "northd.log"),
				"--unixctl=" + filepath.Join(s.dir.Path, "northd.ctl"), "--ovnnb-db=" + s.dir.NBRemote(), "--ovnsb-db=" + s.dir.SBRemote()}
		}})
	}
	if !c.refOnly {
		sides = append(sides, &side{name: "northlog", dir: reference.Dir{Path: filepath.Join(dir, "northlog"), Build: b}, argv: func(s *side) []string {
			return []string{bin, "--ovnnb-db=" + s.dir.NBRemote(), "--ovnsb-db=" + s.dir.SBRemote(), "--log-file=" + filepath.Join(s.dir.Path, "northd.log")}
		}})
	}
	if c.embedded {
		sides = append(sides, &side{name: "northlog, embedded NB+SB", embedded: true, dir: reference.Dir{Path: filepath.Join(dir, "embedded"), Build: b}, argv: func(s *side) []string {
			return []string{bin, "--state-dir=" + s.dir.Path, "--release=" + b.Release().String(), "--log-file=" + filepath.Join(s.dir.Path, "northd.log")}
		}})
	}
	for _, s := range sides {
		s.cmdTO = c.cmdTimeout
		defer s.stop()
		if c.nThreads > 0 {
			argv := s.argv
			s.argv = func(s *side) []string { return append(argv(s), fmt.Sprint("--n-threads=", c.nThreads)) }
		}
	}

	for _, s := range sides {
		if err := s.startNB(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		log.Info("loading NB", "side", s.name)
		if s.res.load, err = s.load(ctx, topo); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}

	for round := range c.coldRuns {
		for _, s := range inTurn(sides, round) {
			log.Info("cold start", "side", s.name, "round", round+1)
			if err := s.coldStart(ctx); err != nil {
				return fmt.Errorf("%s: cold start %d: %w", s.name, round+1, s.why(err))
			}
			log.Info("cold start done", "side", s.name, "round", round+1, "seconds", s.res.cold[round].Seconds())
		}
	}

	if c.warmup > 0 {
		log.Info("unmeasured changes", "count", c.warmup)
	}
	for i := range c.warmup {
		for _, s := range inTurn(sides, i) {
			if err := s.unmeasuredChange(ctx, topo.SparePort(i)); err != nil {
				return fmt.Errorf("%s: unmeasured change %d: %w", s.name, i, s.why(err))
			}
		}
	}
	log.Info("changes", "count", c.changes)
	phase0 := make([]time.Duration, len(sides))
	for i, s := range sides {
		if phase0[i], err = cpuTotal(s.northd.Pid()); err != nil {
			return err
		}
	}
	for i := range c.changes {
		for _, s := range inTurn(sides, i) {
			if err := s.measuredChange(ctx, topo.SparePort(i), i%4 >= 2); err != nil {
				return fmt.Errorf("%s: change %d: %w", s.name, i, s.why(err))
			}
		}
	}
	for i, s := range sides {
		if err := s.finish(ctx, phase0[i], log); err != nil {
			return fmt.Errorf("%s: %w", s.name, s.why(err))
		}
	}
	report(out, topo, b.Release(), sides, loadStart, c.nThreads, c.warmup)
	return nil
}

// inTurn is the order of the sides in round i of a measurement: as given
// in even rounds, reversed in odd ones, so that neither side always goes
// first.
func inTurn(sides []*side, round int) []*side {
	order := slices.Clone(sides)
	if round%2 == 1 {
		slices.Reverse(order)
	}
	return order
}

// finish reads what is measured at the end: the northd's CPU over the
// change phase (which started at phase0), the peak RSSs and the SB's flows.
func (s *side) finish(ctx context.Context, phase0 time.Duration, log *slog.Logger) error {
	end, err := cpuTotal(s.northd.Pid())
	if err != nil {
		return err
	}
	s.res.phaseCPU = end - phase0
	if s.res.rss, err = peakRSS(s.northd.Pid()); err != nil {
		return err
	}
	for _, d := range []struct {
		server *reference.Daemon
		rss    *int64
	}{{s.sb, &s.res.sbRSS}, {s.nb, &s.res.nbRSS}} {
		if d.server == nil {
			continue
		}
		if *d.rss, err = peakRSS(d.server.Pid()); err != nil {
			return err
		}
	}
	log.Info("dumping SB flows", "side", s.name)
	dump, err := s.dir.Build.DumpSB(ctx, s.dir.SBRemote())
	if err != nil {
		return err
	}
	if s.res.flows, err = dump.Flows(); err != nil {
		return err
	}
	s.res.lflowRows, err = s.countRows(ctx, "Logical_Flow")
	return err
}

// buildNorthd builds examples/northd of the module in the working directory
// into dir.
func buildNorthd(ctx context.Context, dir string, log *slog.Logger) (string, error) {
	mod, err := exec.CommandContext(ctx, "go", "list", "-m").Output()
	if err != nil || strings.TrimSpace(string(mod)) != "github.com/northlog/northlog" {
		return "", fmt.Errorf("run from the northlog module or pass -northd (go list -m: %q, %v)", strings.TrimSpace(string(mod)), err)
	}
	bin := filepath.Join(dir, "northlog-northd")
	log.Info("building northlog's northd", "binary", bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./examples/northd")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./examples/northd: %w\n%s(pass -ref-only to measure the reference alone)", err, b)
	}
	return bin, nil
}

// startNB creates an empty NB database, starts its server and initialises
// it (ovn-nbctl init). Each cold start creates the SB (freshSB). An
// embedded side's NB is its northd's, started paused: it initialises the
// NB itself and writes nothing to the SB until the cold start.
func (s *side) startNB(ctx context.Context) error {
	if err := os.MkdirAll(s.dir.Path, 0o755); err != nil {
		return err
	}
	if s.embedded {
		if err := s.startNorthd(ctx, "--dry-run"); err != nil {
			return err
		}
		return s.waitOutput(ctx, "export OVN_NB_DB=")
	}
	nb, err := s.serve(ctx, "nb")
	if err != nil {
		return err
	}
	s.nb = nb
	_, err = s.nbctl(ctx, "init")
	return err
}

// startNorthd starts the side's northd with extra options; an embedded
// one, until its NB socket listens.
func (s *side) startNorthd(ctx context.Context, extra ...string) error {
	env := s.dir.Env()
	if s.embedded {
		// No database option, variable or default socket: the embedded
		// databases.
		env = slices.DeleteFunc(env, func(v string) bool {
			return strings.HasPrefix(v, "OVN_NB_DB=") || strings.HasPrefix(v, "OVN_SB_DB=")
		})
	}
	d, err := reference.StartDaemon(reference.DaemonSpec{
		Name: s.name + " northd", Dir: s.dir.Path, Env: env, Output: s.output(), Argv: append(s.argv(s), extra...)})
	if err != nil {
		return err
	}
	s.northd = d
	if s.embedded {
		return d.WaitListening(ctx, strings.TrimPrefix(s.dir.NBRemote(), "unix:"))
	}
	return nil
}

// output is the file that receives the northd's stdout and stderr.
func (s *side) output() string { return filepath.Join(s.dir.Path, "northd.out") }

// waitOutput returns once the northd has printed text.
func (s *side) waitOutput(ctx context.Context, text string) error {
	for {
		if b, err := os.ReadFile(s.output()); err == nil && strings.Contains(string(b), text) {
			return nil
		}
		select {
		case <-s.northd.Done():
			return s.northd.DeathError()
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// freshSB stops the side's northd and SB server, if running, and serves a
// newly created, empty SB database: what every cold start starts from. An
// embedded side's SB is its northd's to create.
func (s *side) freshSB(ctx context.Context) error {
	for _, d := range []**reference.Daemon{&s.northd, &s.sb} {
		if *d != nil {
			(*d).Stop()
			*d = nil
		}
	}
	if err := os.Remove(s.dir.File("sb")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if s.embedded {
		return nil
	}
	sb, err := s.serve(ctx, "sb")
	if err != nil {
		return err
	}
	s.sb = sb
	return nil
}

// serve creates the empty database db ("nb" or "sb") and starts its server.
func (s *side) serve(ctx context.Context, db string) (*reference.Daemon, error) {
	if err := s.dir.CreateDB(ctx, db); err != nil {
		return nil, err
	}
	return s.dir.StartServer(ctx, db)
}

// command runs argv with the side's environment, bounded by the command
// timeout and cut short if one of the side's daemons exits; it returns the
// wall time and stdout.
func (s *side) command(ctx context.Context, argv ...string) (time.Duration, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cmdTO)
	defer cancel()
	watch := make(chan struct{})
	defer close(watch)
	for _, d := range s.daemons() {
		go func() {
			select {
			case <-d.Done():
				cancel()
			case <-watch:
			}
		}()
	}
	cmd := s.dir.Command(ctx, argv[0], argv[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	stdout, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		return 0, nil, s.why(fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String())))
	}
	return wall, stdout, nil
}

// waitTimes reads what `ovn-nbctl --wait=sb --print-wait-time` prints, in
// milliseconds from the client's commit: "ovn-northd delay before
// processing", to the nb_cfg_timestamp the northd wrote when its run that
// took the change began (the NB server's commit and the update's way to
// the northd), and "ovn-northd completion", to the sb_cfg_timestamp it
// wrote with sb_cfg once the SB had committed its transaction. The
// completion is the northd's share of the wait measured within one
// command, where the wall over the client's own cost is a difference of
// two noisy medians.
func waitTimes(out []byte) (delay, completion time.Duration, err error) {
	read := func(label string) (time.Duration, error) {
		for line := range strings.Lines(string(out)) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), label); ok {
				ms, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), "ms"), 10, 64)
				if err != nil {
					return 0, fmt.Errorf("--print-wait-time: %q: %w", line, err)
				}
				return time.Duration(ms) * time.Millisecond, nil
			}
		}
		return 0, fmt.Errorf("--print-wait-time printed no %q: %q", label, out)
	}
	if delay, err = read("ovn-northd delay before processing:"); err == nil {
		completion, err = read("ovn-northd completion:")
	}
	return delay, completion, err
}

func (s *side) nbctl(ctx context.Context, args ...string) (time.Duration, error) {
	wall, _, err := s.command(ctx, append([]string{"ovn-nbctl", "--db=" + s.dir.NBRemote()}, args...)...)
	return wall, err
}

// transact runs one OVSDB transaction with ovsdb-client and fails if any
// operation failed.
func (s *side) transact(ctx context.Context, remote string, tx json.RawMessage) ([]json.RawMessage, error) {
	_, out, err := s.command(ctx, "ovsdb-client", "transact", remote, string(tx))
	if err != nil {
		return nil, err
	}
	return reference.TransactResults(remote, out)
}

// load applies the topology's transactions to the NB, one ovsdb-client
// call each, and returns the time it took.
// The NB server's CPU during it goes to loadCPU: the ovsdb-server's, or
// the embedded side's paused northd's.
func (s *side) load(ctx context.Context, t *topology.Topology) (time.Duration, error) {
	server := s.nb
	if s.embedded {
		server = s.northd
	}
	cpu0, err := cpuFine(server.Pid())
	if err != nil {
		return 0, err
	}
	start := time.Now()
	for _, tx := range t.Transactions {
		if _, err := s.transact(ctx, s.dir.NBRemote(), tx); err != nil {
			return 0, err
		}
	}
	wall := time.Since(start)
	cpu1, err := cpuFine(server.Pid())
	s.res.loadCPU = cpu1 - cpu0
	return wall, err
}

// countRows counts the rows of an SB table.
func (s *side) countRows(ctx context.Context, table string) (int, error) {
	q, err := json.Marshal([]any{"OVN_Southbound", map[string]any{"op": "select", "table": table, "where": []any{}, "columns": []string{"_uuid"}}})
	if err != nil {
		return 0, err
	}
	res, err := s.transact(ctx, s.dir.SBRemote(), q)
	if err != nil {
		return 0, err
	}
	var sel struct{ Rows []json.RawMessage }
	if err := json.Unmarshal(res[0], &sel); err != nil {
		return 0, err
	}
	return len(sel.Rows), nil
}

// coldStart starts the northd on the loaded NB and a fresh, empty SB
// (freshSB), once both servers are quiet, and records the time until
// ovn-nbctl --wait=sb sync returns and the CPU the northd and the SB server
// used by then; then it waits for quiet and records their CPU again. The
// northd stays running.
func (s *side) coldStart(ctx context.Context) error {
	if err := s.freshSB(ctx); err != nil {
		return err
	}
	if err := waitIdle(ctx, s.pids()...); err != nil {
		return err
	}
	_, _, nb0, err := s.cpus()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := s.startNorthd(ctx); err != nil {
		return err
	}
	d := s.northd
	if _, err := s.nbctl(ctx, "--wait=sb", "sync"); err != nil {
		return err
	}
	wall := time.Since(start)
	northdCPU, err := cpuTotal(d.Pid())
	if err != nil {
		return err
	}
	sbCPU, err := s.sbCPU()
	if err != nil {
		return err
	}
	s.res.cold = append(s.res.cold, wall)
	s.res.coldCPU = append(s.res.coldCPU, northdCPU)
	s.res.coldSBCPU = append(s.res.coldSBCPU, sbCPU)
	_, _, nb1, err := s.cpus()
	if err != nil {
		return err
	}
	s.res.coldNBCPU = append(s.res.coldNBCPU, nb1-nb0)
	if err := waitIdle(ctx, s.pids()...); err != nil {
		return err
	}
	if northdCPU, err = cpuTotal(d.Pid()); err != nil {
		return err
	}
	if sbCPU, err = s.sbCPU(); err != nil {
		return err
	}
	s.res.coldQuietCPU = append(s.res.coldQuietCPU, northdCPU)
	s.res.coldQuietSBCPU = append(s.res.coldQuietSBCPU, sbCPU)
	return nil
}

// addPort and delPort are the measured changes: a pod's port added with
// its addresses and port security in one ovn-nbctl call, and deleted.
func addPort(p topology.Port) []string {
	return []string{"lsp-add", p.Switch, p.Name, "--", "lsp-set-addresses", p.Name, p.Addresses, "--", "lsp-set-port-security", p.Name, p.Addresses}
}

func delPort(p topology.Port) []string { return []string{"lsp-del", p.Name} }

// cpus is the CPU time the northd, the SB server and the NB server have
// used so far (/proc/PID/task/*/schedstat), 0 for those not running: the
// servers when embedded, the northd before a cold start.
func (s *side) cpus() (northd, sb, nb time.Duration, err error) {
	var cpu [3]time.Duration
	for i, d := range []*reference.Daemon{s.northd, s.sb, s.nb} {
		if d == nil {
			continue
		}
		if cpu[i], err = cpuFine(d.Pid()); err != nil {
			return 0, 0, 0, err
		}
	}
	return cpu[0], cpu[1], cpu[2], nil
}

// sbCPU is the SB server's CPU time so far (/proc/PID/stat), 0 when it is
// the northd's own.
func (s *side) sbCPU() (time.Duration, error) {
	if s.sb == nil {
		return 0, nil
	}
	return cpuTotal(s.sb.Pid())
}

// unmeasuredChange makes one --wait=sb lsp-add and one lsp-del of p and
// waits for quiet (-warmup).
func (s *side) unmeasuredChange(ctx context.Context, p topology.Port) error {
	for _, args := range [][]string{addPort(p), delPort(p)} {
		if _, err := s.nbctl(ctx, append([]string{"--wait=sb"}, args...)...); err != nil {
			return err
		}
	}
	return waitIdle(ctx, s.pids()...)
}

// measuredChange makes one --wait=sb lsp-add and one lsp-del of p, each
// followed by a wait for quiet, and records their wall times and the CPU
// the northd and the SB server used for each; then (or first, if
// noneFirst) the same with --wait=none, whose wall times are the client's
// own cost.
func (s *side) measuredChange(ctx context.Context, p topology.Port, noneFirst bool) error {
	waits := []string{"--wait=sb", "--wait=none"}
	if noneFirst {
		slices.Reverse(waits)
	}
	for _, wait := range waits {
		for _, c := range []struct {
			args                            []string
			walls, delay, done, cpu, client *[]time.Duration
		}{
			{addPort(p), &s.res.add, &s.res.addDelay, &s.res.addDone, &s.res.addCPU, &s.res.clientAdd},
			{delPort(p), &s.res.del, &s.res.delDelay, &s.res.delDone, &s.res.delCPU, &s.res.clientDel},
		} {
			n0, sb0, nb0, err := s.cpus()
			if err != nil {
				return err
			}
			flags := []string{wait}
			if wait == "--wait=sb" {
				flags = append(flags, "--print-wait-time")
			}
			args := slices.Concat([]string{"ovn-nbctl", "--db=" + s.dir.NBRemote()}, flags, c.args)
			wall, out, err := s.command(ctx, args...)
			if err != nil {
				return err
			}
			if err := waitIdle(ctx, s.pids()...); err != nil {
				return err
			}
			if wait == "--wait=none" {
				*c.client = append(*c.client, wall)
				continue
			}
			n1, sb1, nb1, err := s.cpus()
			if err != nil {
				return err
			}
			delay, done, err := waitTimes(out)
			if err != nil {
				return fmt.Errorf("%s: %w", strings.Join(args, " "), err)
			}
			*c.walls = append(*c.walls, wall)
			*c.delay = append(*c.delay, delay)
			*c.done = append(*c.done, done)
			s.res.northdCPU = append(s.res.northdCPU, n1-n0)
			*c.cpu = append(*c.cpu, n1-n0)
			s.res.sbCPU = append(s.res.sbCPU, sb1-sb0)
			s.res.nbCPU = append(s.res.nbCPU, nb1-nb0)
		}
	}
	return nil
}
