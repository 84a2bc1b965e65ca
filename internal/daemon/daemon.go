// Package daemon does what Open vSwitch's daemon library does for its
// daemons' --pidfile, --overwrite-pidfile, --detach, --no-chdir and
// --user options.
//
// A pidfile holds the process id and is locked (fcntl, a write lock on the
// whole file) by the process it names for as long as it runs: ovs-appctl
// and ovn-ctl take a pidfile whose lock is not held as a dead daemon's.
//
// Detaching, as Go cannot fork, runs the program again in a new session
// with an environment marker; the parent waits until the child says it is
// ready (Ready: for the northd, once its first run is made) and
// exits 0, or exits 1 if the child ended first.
package daemon

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// detachedEnv marks the re-executed child of Detach; its value is the
// descriptor of the pipe Ready writes to, or "none" for a daemon that
// Monitor restarted. monitoredEnv marks the daemon Monitor runs.
const (
	detachedEnv  = "NORTHLOG_DAEMON_DETACHED"
	monitoredEnv = "NORTHLOG_DAEMON_MONITORED"
)

// Pidfile is a locked pidfile.
type Pidfile struct {
	path string
	f    *os.File
}

// CreatePidfile writes the process id to path and locks it. A pidfile
// locked by a live process is an error unless overwrite is set, as OVS's
// --overwrite-pidfile.
func CreatePidfile(path string, overwrite bool) (*Pidfile, error) {
	if !overwrite {
		if pid, err := LockedBy(path); err == nil && pid != os.Getpid() {
			return nil, fmt.Errorf("%s: already running as pid %d, aborting", path, pid)
		}
	}
	tmp := path + ".tmp"
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: create failed: %w", tmp, err)
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("%s: fcntl(F_SETLK) failed: %w", tmp, err)
	}
	if _, err := fmt.Fprintf(f, "%d\n", os.Getpid()); err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Pidfile{path: path, f: f}, nil
}

// Remove deletes the pidfile and drops its lock.
func (p *Pidfile) Remove() {
	os.Remove(p.path)
	p.f.Close()
}

// LockedBy returns the id of the process that holds the lock of the
// pidfile at path, which must be the one it names.
func LockedBy(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("%s: no process id: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return 0, fmt.Errorf("%s: fcntl: %w", path, err)
	}
	switch {
	case lk.Type == syscall.F_UNLCK:
		return 0, fmt.Errorf("%s: pid %d is not running", path, pid)
	case int(lk.Pid) != pid:
		return 0, fmt.Errorf("%s: locked by pid %d instead of %d", path, lk.Pid, pid)
	}
	return pid, nil
}

// Detached reports whether this process is the child Detach started.
func Detached() bool { return os.Getenv(detachedEnv) != "" }

// Detach runs this program again with the same arguments, detached from
// the terminal in a new session, and returns the child's exit status to
// use as this process's: 0 once it is Ready, 1 if it ended first. With
// chdir, the child works in "/" (OVS's default; --no-chdir keeps the
// directory). The child's output goes to the parent's until Ready.
func Detach(chdir bool) int {
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: pipe failed: %v\n", filepath.Base(os.Args[0]), err)
		return 1
	}
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), detachedEnv+"=3")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if chdir {
		cmd.Dir = "/"
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot start the daemon: %v\n", filepath.Base(os.Args[0]), err)
		return 1
	}
	w.Close()
	var b [1]byte
	if n, _ := r.Read(b[:]); n == 1 {
		return 0
	}
	err = cmd.Wait()
	fmt.Fprintf(os.Stderr, "%s: daemon child died before signaling startup (%v)\n", filepath.Base(os.Args[0]), err)
	return 1
}

// Ready tells the parent of a detached child that it has started, and
// sends the child's standard input and outputs to /dev/null. It does
// nothing in a process that did not detach.
func Ready() error {
	fd := os.Getenv(detachedEnv)
	if fd == "" {
		return nil
	}
	os.Unsetenv(detachedEnv)
	var err error
	if fd != "none" {
		n, aerr := strconv.Atoi(fd)
		if aerr != nil {
			return fmt.Errorf("%s=%q: %w", detachedEnv, fd, aerr)
		}
		p := os.NewFile(uintptr(n), "ready")
		_, err = p.Write([]byte{1})
		p.Close()
	}
	return errors.Join(err, toDevNull())
}

// toDevNull sends the standard input and outputs to /dev/null.
func toDevNull() error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	for _, std := range []int{0, 1, 2} {
		err = errors.Join(err, syscall.Dup3(int(null.Fd()), std, 0))
	}
	return err
}

// Monitored reports whether this process is the daemon Monitor runs.
func Monitored() bool { return os.Getenv(monitoredEnv) != "" }

// Monitor, in the child Detach started, runs the program again as the
// daemon proper and runs it again after it crashed, as OVS's --monitor:
// killed by a signal other than SIGTERM, SIGINT or SIGKILL, or ended by
// Go's runtime (exit status 2). It returns the daemon's exit status once
// it ends otherwise. The first daemon tells Detach's parent it is ready.
func Monitor() int {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	ready := os.Getenv(detachedEnv)
	for {
		cmd := exec.Command(exe, os.Args[1:]...)
		cmd.Env = append(os.Environ(), monitoredEnv+"=1", detachedEnv+"=none")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if ready != "" && ready != "none" {
			n, _ := strconv.Atoi(ready)
			cmd.ExtraFiles = []*os.File{os.NewFile(uintptr(n), "ready")}
			cmd.Env = append(cmd.Env, detachedEnv+"=3")
		}
		err := cmd.Start()
		if ready != "" {
			// The pipe and the outputs are the daemon's now.
			for _, f := range cmd.ExtraFiles {
				f.Close()
			}
			toDevNull()
			ready = ""
		}
		if err != nil {
			return 1
		}
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return 0
		}
		ws, _ := exit.Sys().(syscall.WaitStatus)
		crashed := ws.Signaled() && ws.Signal() != syscall.SIGTERM && ws.Signal() != syscall.SIGINT && ws.Signal() != syscall.SIGKILL ||
			ws.Exited() && ws.ExitStatus() == 2
		if !crashed {
			return exit.ExitCode()
		}
		time.Sleep(time.Second)
	}
}

// SwitchUser runs the process as spec, "USER[:GROUP]" (GROUP defaults to
// USER's primary group), with USER's supplementary groups, as OVS's
// --user.
func SwitchUser(spec string) error {
	name, group, _ := strings.Cut(spec, ":")
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("--user %s: %w", spec, err)
	}
	gid := u.Gid
	if group != "" {
		g, err := user.LookupGroup(group)
		if err != nil {
			return fmt.Errorf("--user %s: %w", spec, err)
		}
		gid = g.Gid
	}
	groups, err := u.GroupIds()
	if err != nil {
		return fmt.Errorf("--user %s: %w", spec, err)
	}
	ids := []int{}
	for _, s := range append(groups, gid) {
		if n, err := strconv.Atoi(s); err == nil {
			ids = append(ids, n)
		}
	}
	g, _ := strconv.Atoi(gid)
	uid, _ := strconv.Atoi(u.Uid)
	if err := syscall.Setgroups(ids); err != nil {
		return fmt.Errorf("--user %s: setgroups: %w", spec, err)
	}
	if err := syscall.Setgid(g); err != nil {
		return fmt.Errorf("--user %s: setgid: %w", spec, err)
	}
	if err := syscall.Setuid(uid); err != nil {
		return fmt.Errorf("--user %s: setuid: %w", spec, err)
	}
	return nil
}
