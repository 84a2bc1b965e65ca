//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of /proc/PID/stat's CPU times on Linux.
const clockTick = 10 * time.Millisecond

// cpuTotal is the user plus system CPU time of process pid and its exited
// threads, from /proc/PID/stat (10 ms resolution).
func cpuTotal(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces; the fields after it are fixed.
	_, rest, ok := bytes.Cut(b, []byte(") "))
	f := strings.Fields(string(rest))
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// cpuFine is the CPU time of pid's live threads in nanoseconds, the sum of
// /proc/PID/task/*/schedstat; per-change costs of a few milliseconds need
// this resolution.
func cpuFine(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no /proc/%d/task/*/schedstat (kernel without CONFIG_SCHED_INFO?)", pid)
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread exited meanwhile
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, fmt.Errorf("%s: unexpected format", t)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", t, err)
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}

// peakRSS is pid's peak resident set size (VmHWM) in bytes.
func peakRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/%d/status: VmHWM: %w", pid, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmHWM", pid)
}

// waitIdle returns once the processes pids together used less than 2 ms of
// CPU over the last 200 ms: the work a change set off (northd's trailing
// recomputes, the servers' commits) is over, and the next measurement
// starts from a quiet system.
func waitIdle(ctx context.Context, pids ...int) error {
	const poll, window, quiet = 25 * time.Millisecond, 8, 2 * time.Millisecond
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var hist []time.Duration
	for {
		var sum time.Duration
		for _, pid := range pids {
			c, err := cpuFine(pid)
			if err != nil {
				return err
			}
			sum += c
		}
		hist = append(hist, sum)
		if n := len(hist); n > window && hist[n-1]-hist[n-1-window] < quiet {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("processes %v never went idle: %w", pids, ctx.Err())
		case <-time.After(poll):
		}
	}
}
