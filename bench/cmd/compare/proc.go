//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// daemon is one long-running process this program started.
type daemon struct {
	name string // "ovn-northd 23.03 northd", for messages
	log  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // Wait's result, valid after done
}

// startDaemon starts argv in dir with env, its output appended to logFile.
// The process gets SIGTERM if this program dies without stopping it.
func startDaemon(name, dir, logFile string, env []string, argv ...string) (*daemon, error) {
	out, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	d := &daemon{name: name, log: logFile, done: make(chan struct{})}
	d.cmd = exec.Command(argv[0], argv[1:]...)
	d.cmd.Dir, d.cmd.Env = dir, env
	d.cmd.Stdout, d.cmd.Stderr = out, out
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := d.cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		d.err = d.cmd.Wait()
		out.Close()
		close(d.done)
	}()
	return d, nil
}

func (d *daemon) pid() int { return d.cmd.Process.Pid }

// exited reports whether the process has exited.
func (d *daemon) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, then SIGKILL after 5 s, and waits for the exit.
func (d *daemon) stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(5 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.done
	}
}

// deathError says that d exited, with the end of its log.
func (d *daemon) deathError() error {
	b, _ := os.ReadFile(d.log)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return fmt.Errorf("%s exited (%v); end of %s:\n%s", d.name, d.err, d.log, strings.Join(lines[max(0, len(lines)-10):], "\n"))
}

// waitListening returns once something accepts connections on the unix
// socket sock, or fails when d exits first.
func waitListening(ctx context.Context, d *daemon, sock string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			return c.Close()
		}
		select {
		case <-d.done:
			return d.deathError()
		case <-ctx.Done():
			return fmt.Errorf("%s not listening on %s: %w", d.name, sock, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

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
