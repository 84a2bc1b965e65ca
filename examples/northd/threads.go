package main

import (
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"

	"github.com/northlog/northlog/internal/unixctl"
	"github.com/northlog/northlog/ovsdb"
)

// ovn-northd's thread count: --n-threads and the parallel-build commands
// set how many goroutines the northd's large steps (a cold start's) run
// on, with ovn-northd's texts and log lines.

// maxThreads is ovn-northd's OVN_MAX_SUPPORTED_THREADS.
const maxThreads = 256

// setThreads reads --n-threads as ovn-northd does: strtoul into an int,
// then clamped to 1..maxThreads with a warning, and a line for any other
// count than 1, each as the option is read.
func (s *settings) setThreads(v string, _ bool) error {
	n := int(int32(strtoul(v)))
	if n < 1 || n > maxThreads {
		n = min(max(n, 1), maxThreads)
		s.optionLog = append(s.optionLog, logLine{slog.LevelWarn,
			fmt.Sprintf("Setting n_threads to %d as --n-threads option was set to : [%s]", n, v)})
	}
	if n != 1 {
		s.optionLog = append(s.optionLog, logLine{slog.LevelInfo, fmt.Sprintf("Using %d threads", n)})
	}
	s.nThreads = n
	return nil
}

// logLine is a line to log once logging is set up.
type logLine struct {
	level slog.Level
	msg   string
}

// threadPool is ovn-northd's worker pool as its size is set, read and
// logged (lib/ovn-parallel-hmap.c's ovn_update_worker_pool): resizing it
// sets the northd's threads. There is a pool when size is more than 1.
type threadPool struct {
	mu   sync.Mutex
	size int
	d    *ovsdb.Northd
	log  *slog.Logger // the ovn_parallel_hmap module
}

func newThreadPool(d *ovsdb.Northd, log *slog.Logger) *threadPool {
	return &threadPool{size: 1, d: d, log: log}
}

// resize makes n the pool's size: at the start (--n-threads), by
// parallel-build/set-n-threads, and 0 at the exit.
func (p *threadPool) resize(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n == p.size {
		return
	}
	was := p.size
	p.size = n
	p.log.Info(fmt.Sprintf("Setting thread count to %d", n))
	switch {
	case n > 1 && was <= 1:
		p.log.Info(fmt.Sprintf("Creating new pool with size %d", n))
	case n > 1:
		p.log.Info(fmt.Sprintf("Changing size of existing pool to %d", n))
	case was > 1:
		p.log.Info("Deleting existing pool")
	}
	p.d.SetThreads(n)
}

// register adds the parallel-build commands to ctl.
func (p *threadPool) register(ctl *unixctl.Server) {
	ctl.Register("parallel-build/set-n-threads", "N_THREADS", 1, 1, func(args []string) (string, error) {
		n := atoi(args[0])
		if n < 1 || n > maxThreads {
			return "", fmt.Errorf("invalid n_threads: %d\n", n)
		}
		p.resize(n)
		return "", nil
	})
	ctl.Register("parallel-build/get-n-threads", "", 0, 0, func([]string) (string, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return fmt.Sprintf("%d\n", p.size), nil
	})
}

// atoi is C's atoi: strtol's long, as an int.
func atoi(s string) int {
	neg, mag, over := cDigits(s)
	var n int64
	switch {
	case neg && (over || mag > 1<<63):
		n = math.MinInt64
	case neg:
		n = -int64(mag)
	case over || mag > math.MaxInt64:
		n = math.MaxInt64
	default:
		n = int64(mag)
	}
	return int(int32(n))
}

// strtoul is C's strtoul, base 10: a '-' negates the value as unsigned.
func strtoul(s string) uint64 {
	neg, mag, over := cDigits(s)
	switch {
	case over:
		return math.MaxUint64
	case neg:
		return -mag
	}
	return mag
}

// cDigits reads a number as C's strtol and strtoul do in base 10: white
// space, a sign, then digits (none is 0); over says their value does not
// fit 64 bits.
func cDigits(s string) (neg bool, mag uint64, over bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	for ; s != "" && s[0] >= '0' && s[0] <= '9'; s = s[1:] {
		d := uint64(s[0] - '0')
		if mag > (math.MaxUint64-d)/10 {
			over = true
		}
		mag = mag*10 + d
	}
	return neg, mag, over
}
