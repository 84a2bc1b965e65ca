package ovsdb

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/northlog/northlog/ovsdb/reference"
)

// servers is a private NB and SB ovsdb-server pair for the live northd's
// tests, with no northd of its own; the real ovn-northd can be started on
// it too. Each server can be killed and started again on its file.
type servers struct {
	t     testing.TB
	dir   string
	procs map[string]*exec.Cmd // "nb", "sb", "northd"
}

// startServers creates empty NB and SB databases in a temporary directory
// and serves them; everything stops when the test ends.
func startServers(t testing.TB) *servers {
	t.Helper()
	reference.Require(t)
	// Unix socket paths are short: t.TempDir's can be too long.
	dir, err := os.MkdirTemp("", "northlog-live")
	if err != nil {
		t.Fatal(err)
	}
	s := &servers{t: t, dir: dir, procs: map[string]*exec.Cmd{}}
	t.Cleanup(func() {
		for name := range s.procs {
			s.kill(name)
		}
		os.RemoveAll(dir)
	})
	for _, db := range []string{"nb", "sb"} {
		s.run("ovsdb-tool", "create", s.file(db), "/usr/share/ovn/ovn-"+db+".ovsschema")
		s.start(db)
	}
	s.run("ovn-nbctl", "init")
	return s
}

func (s *servers) file(db string) string { return filepath.Join(s.dir, db+".db") }

func (s *servers) NB() string { return "unix:" + filepath.Join(s.dir, "nb.sock") }
func (s *servers) SB() string { return "unix:" + filepath.Join(s.dir, "sb.sock") }

func (s *servers) env() []string {
	return append(os.Environ(), "OVN_NB_DB="+s.NB(), "OVN_SB_DB="+s.SB(),
		"OVS_RUNDIR="+s.dir, "OVN_RUNDIR="+s.dir, "OVS_LOGDIR="+s.dir, "OVN_LOGDIR="+s.dir)
}

// start starts the server of db ("nb" or "sb") on its file, or the real
// ovn-northd ("northd"), and waits until a server listens.
func (s *servers) start(name string) {
	s.t.Helper()
	args := []string{"--no-chdir", "-vconsole:off", "--log-file=" + filepath.Join(s.dir, name+".log"),
		"--unixctl=" + filepath.Join(s.dir, name+".ctl")}
	prog := "ovsdb-server"
	if name == "northd" {
		prog = "ovn-northd"
		args = append(args, "--ovnnb-db="+s.NB(), "--ovnsb-db="+s.SB())
	} else {
		args = append(args, "--remote=punix:"+filepath.Join(s.dir, name+".sock"), s.file(name))
	}
	cmd := exec.Command(tool(prog), args...)
	cmd.Env = s.env()
	cmd.Dir = s.dir
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.procs[name] = cmd
	if name == "northd" {
		return
	}
	sock := filepath.Join(s.dir, name+".sock")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s not listening on %s", name, sock)
		}
	}
}

// kill stops a process at once (SIGKILL) and waits for it.
func (s *servers) kill(name string) {
	cmd := s.procs[name]
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	delete(s.procs, name)
}

// run runs a program with the servers' environment and returns its
// output; it fails the test if the program fails.
func (s *servers) run(prog string, args ...string) string {
	s.t.Helper()
	out, err := s.try(prog, args...)
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

func (s *servers) try(prog string, args ...string) (string, error) {
	// A bound against hangs: ovn-nbctl's own --timeout is the real one.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool(prog), args...)
	cmd.Env = s.env()
	cmd.Dir = s.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", prog, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// script runs a scenario script.
func (s *servers) script(script string) {
	s.t.Helper()
	s.run("bash", "-euo", "pipefail", "-c", script)
}

// sync waits until the northd has computed the SB from the current NB.
func (s *servers) sync() {
	s.t.Helper()
	s.run("ovn-nbctl", "--timeout=30", "--wait=sb", "sync")
}

// tool finds a program on the PATH or in the sbin directories.
func tool(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return name
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
