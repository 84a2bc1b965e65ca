package ovsdb

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/northlog/northlog/bench/topology"
	"github.com/northlog/northlog/internal/cputime"
	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

// BenchmarkLiveChange measures what one `ovn-nbctl --wait=sb` change
// costs the live northd, as bench/cmd/compare's "northd CPU per change"
// does but in the benchmark's process: real NB and SB ovsdb-servers of
// the release, the bench topology (generated here) loaded into the NB and
// the northd started on it and synced before the timer starts; then each
// iteration is a pod port's `lsp-add` (with addresses and port security)
// and its `lsp-del`, each with --wait=sb. Everything the northd does for
// them is measured: the NB and SB read loops and JSON decoding, the
// program's steps, the SB and NB transactions and the iterations their
// echoes start. ovn-nbctl runs in a shell started once (startShell), so
// that neither its CPU nor the benchmark's fork and wait for it are
// counted. cpu-ns/change is the process CPU per change, garbage
// collection included, and median-cpu-ns/change the median of each
// lsp-add and lsp-del pair's (half of it), which leaves out the
// collections the runtime forces every two minutes whatever the changes;
// median-step-ns/change is the same median of the program's steps (their
// wall time, StepStats.Engine); B/op and allocs/op are per lsp-add plus
// lsp-del.
//
// The setup (loading the NB, the cold start) dwarfs the changes in a
// -cpuprofile or -memprofile; -live-change-cpuprofile and
// -live-change-memprofile profile the changes alone, and
// -live-change-trace traces them (runtime/trace: each goroutine handed
// over, each thread woken).
//
//	OVN_REF_HOME_2603=/work/shared/ovn-26.03 go test ./ovsdb -run XXX -bench 'LiveChange/release=26.03/ports=5k' -benchtime 100x
func BenchmarkLiveChange(b *testing.B) {
	eachPerChangeSize(b, func(b *testing.B, topo *topology.Topology, release schema.Release) {
		benchLiveChange(b, topo, reference.BuildOf(release))
	})
}

var (
	liveChangeCPUProfile = flag.String("live-change-cpuprofile", "", "BenchmarkLiveChange: write a CPU profile of the changes (not the setup) to this file")
	liveChangeMemProfile = flag.String("live-change-memprofile", "", "BenchmarkLiveChange: write the allocations profile to this file after the changes and to FILE.base before them (go tool pprof -sample_index=alloc_space -diff_base FILE.base FILE)")
	liveChangeTrace      = flag.String("live-change-trace", "", "BenchmarkLiveChange: write an execution trace of the changes (not the setup) to this file")
)

func benchLiveChange(b *testing.B, topo *topology.Topology, build *reference.Build) {
	s := startServersOf(b, build)
	for _, tx := range topo.Transactions {
		out := s.run("ovsdb-client", "transact", s.NBRemote(), string(tx))
		if _, err := reference.TransactResults(s.NBRemote(), []byte(out)); err != nil {
			b.Fatal(err)
		}
	}
	var flows, engine atomic.Int64
	runNorthd(b, s, func(c *Config) {
		c.SerialChanges = true // as the northd command with the databases outside
		c.OnStep = func(st StepStats) {
			flows.Add(int64(st.FlowsAdded + st.FlowsRemoved))
			engine.Add(int64(st.Engine))
		}
	})
	s.run("ovn-nbctl", "--timeout=600", "--wait=sb", "sync")
	// The cold start's last writes (the ports' up) come back after the
	// first sync returns.
	s.settle()
	changes := 0
	var pairs, steps []time.Duration
	if *liveChangeMemProfile != "" {
		writeAllocsProfile(b, *liveChangeMemProfile+".base")
		defer writeAllocsProfile(b, *liveChangeMemProfile)
	}
	if *liveChangeCPUProfile != "" {
		defer startCPUProfile(b, *liveChangeCPUProfile)()
	}
	if *liveChangeTrace != "" {
		defer startRecording(b, *liveChangeTrace, trace.Start, trace.Stop)()
	}
	sh := startShell(b, s)
	cputime.BenchChanges(b, "change", func() (int, int) {
		before, cpu, step := flows.Load(), cputime.Process(), engine.Load()
		p := topo.SparePort(changes / 2)
		sh.run(b, "ovn-nbctl", "--wait=sb", "lsp-add", p.Switch, p.Name, "--", "lsp-set-addresses", p.Name, p.Addresses,
			"--", "lsp-set-port-security", p.Name, p.Addresses)
		sh.run(b, "ovn-nbctl", "--wait=sb", "lsp-del", p.Name)
		changes += 2
		pairs = append(pairs, cputime.Process()-cpu)
		steps = append(steps, time.Duration(engine.Load()-step))
		return int(flows.Load() - before), 2
	})
	b.ReportMetric(float64(median(pairs).Nanoseconds())/2, "median-cpu-ns/change")
	b.ReportMetric(float64(median(steps).Nanoseconds())/2, "median-step-ns/change")
}

// median is the median of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// writeAllocsProfile writes the allocations profile so far to path.
func writeAllocsProfile(b *testing.B, path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// shell is a shell the benchmark runs its ovn-nbctl commands in, one
// after the other: the benchmark's process then neither forks a child per
// command nor waits for one in a blocking system call, during which Go's
// sysmon thread wakes every 20 µs to see whether to retake the waiting
// goroutine's processor (that polling and the forks, not the northd, were
// ~1 ms of the CPU per change measured).
type shell struct {
	s   *servers
	in  io.WriteCloser
	out *bufio.Reader
}

// startShell starts a shell in s's environment; it ends with the benchmark.
func startShell(b *testing.B, s *servers) *shell {
	cmd := s.Command(context.Background(), "sh")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	return &shell{s: s, in: in, out: bufio.NewReader(out)}
}

// run runs prog (a tool of the servers' build, as servers.run finds it)
// in the shell and waits for it to succeed.
func (sh *shell) run(b *testing.B, prog string, args ...string) {
	args = append([]string{sh.s.Command(context.Background(), prog).Path}, args...)
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = reference.ShellQuote(a)
	}
	if _, err := fmt.Fprintf(sh.in, "%s; echo \"exit $?\"\n", strings.Join(quoted, " ")); err != nil {
		b.Fatal(err)
	}
	for {
		line, err := sh.out.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if status, ok := strings.CutPrefix(line, "exit "); ok {
			if status != "0\n" {
				b.Fatalf("%s: exit status %s", strings.Join(args, " "), status)
			}
			return
		}
	}
}
