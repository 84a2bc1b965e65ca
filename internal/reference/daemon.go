package reference

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Daemon is a long-running process: an ovsdb-server, a northd. It gets
// SIGTERM if the program that started it dies without stopping it (on
// Linux).
type Daemon struct {
	name string // "ovsdb-server (nb)", ... for messages
	log  string // the file DeathError quotes
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // Wait's result, valid after done
}

// DaemonSpec says how to start a Daemon.
type DaemonSpec struct {
	Name string   // for messages
	Argv []string // the program (a 23.03 reference tool's name, or a path) and its arguments
	Dir  string   // working directory
	Env  []string // environment; nil is this process's
	// Output receives the process's stdout and stderr, appended; "" discards
	// them.
	Output string
	// Log is the file whose end DeathError quotes: the daemon's own log
	// file, else Output.
	Log string
}

// StartDaemon starts a daemon as spec says.
func StartDaemon(spec DaemonSpec) (*Daemon, error) {
	d := &Daemon{name: spec.Name, log: spec.Log, done: make(chan struct{})}
	if d.log == "" {
		d.log = spec.Output
	}
	prog := spec.Argv[0]
	if p := system.tool(prog); p != "" {
		prog = p
	}
	d.cmd = exec.Command(prog, spec.Argv[1:]...)
	d.cmd.Dir, d.cmd.Env = spec.Dir, spec.Env
	var out *os.File
	if spec.Output != "" {
		var err error
		if out, err = os.OpenFile(spec.Output, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			return nil, err
		}
		d.cmd.Stdout, d.cmd.Stderr = out, out
	}
	dieWithParent(d.cmd)
	if err := d.cmd.Start(); err != nil {
		if out != nil {
			out.Close()
		}
		return nil, fmt.Errorf("start %s: %w", d.name, err)
	}
	go func() {
		d.err = d.cmd.Wait()
		if out != nil {
			out.Close()
		}
		close(d.done)
	}()
	return d, nil
}

// Pid is the process id.
func (d *Daemon) Pid() int { return d.cmd.Process.Pid }

// Done is closed once the process has exited.
func (d *Daemon) Done() <-chan struct{} { return d.done }

// Exited reports whether the process has exited.
func (d *Daemon) Exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM, then SIGKILL after 5 s, and waits for the exit.
func (d *Daemon) Stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(5 * time.Second):
		d.Kill()
	}
}

// Kill stops the process at once (SIGKILL), as a crash would, and waits for
// the exit.
func (d *Daemon) Kill() {
	_ = d.cmd.Process.Kill()
	<-d.done
}

// WaitListening returns once something accepts connections on the unix
// socket sock (the daemon, a server), or fails when the daemon exits first
// or after 30 s.
func (d *Daemon) WaitListening(ctx context.Context, sock string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			return c.Close()
		}
		select {
		case <-d.done:
			return d.DeathError()
		case <-ctx.Done():
			return fmt.Errorf("%s not listening on %s: %w", d.name, sock, ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// DeathError says that the daemon exited, how, and quotes the end of its
// log.
func (d *Daemon) DeathError() error {
	return fmt.Errorf("%s exited (%v); end of %s:\n%s", d.name, d.err, d.log, logTail(d.log, 10))
}
