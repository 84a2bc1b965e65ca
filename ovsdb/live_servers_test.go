package ovsdb

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

// servers is a private NB and SB ovsdb-server pair for the live northd's
// tests, with no northd of its own; the real ovn-northd can be started on
// it too. Each server can be killed and started again on its file.
type servers struct {
	t testing.TB
	reference.Dir
	procs map[string]*reference.Daemon // "nb", "sb", "northd"
	// serverArgs are more ovsdb-server options for both servers.
	serverArgs []string
}

// startServers creates empty NB and SB databases in a temporary directory
// and serves them, with serverArgs; everything stops when the test ends.
func startServers(t testing.TB, serverArgs ...string) *servers {
	t.Helper()
	return startServersOf(t, reference.BuildOf(schema.OVN2303), serverArgs...)
}

// startServersOf is startServers with build b's servers, schemas and
// tools; it skips (fails in CI) when b is not installed.
func startServersOf(t testing.TB, b *reference.Build, serverArgs ...string) *servers {
	t.Helper()
	b.Require(t)
	// Unix socket paths are short: t.TempDir's can be too long.
	dir, err := os.MkdirTemp("", "northlog-live")
	if err != nil {
		t.Fatal(err)
	}
	s := &servers{t: t, Dir: reference.Dir{Path: dir, Build: b}, procs: map[string]*reference.Daemon{}, serverArgs: serverArgs}
	t.Cleanup(func() {
		for name := range s.procs {
			s.kill(name)
		}
		os.RemoveAll(dir)
	})
	for _, db := range []string{"nb", "sb"} {
		if err := s.CreateDB(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		s.start(db)
	}
	s.run("ovn-nbctl", "init")
	return s
}

// start starts the server of db ("nb" or "sb") on its file, and waits
// until it listens, or the real ovn-northd ("northd").
func (s *servers) start(name string) {
	s.t.Helper()
	var d *reference.Daemon
	var err error
	if name == "northd" {
		d, err = s.StartNorthd()
	} else {
		d, err = s.StartServer(context.Background(), name, s.serverArgs...)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	s.procs[name] = d
}

// kill stops a process at once (SIGKILL) and waits for it.
func (s *servers) kill(name string) {
	if d := s.procs[name]; d != nil {
		d.Kill()
		delete(s.procs, name)
	}
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
	cmd := s.Command(ctx, prog, args...)
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

// settle lets the northd follow SB changes a script made, which --wait=sb
// does not wait for: the second sync starts once the SB changes have
// reached the northd.
func (s *servers) settle() {
	s.t.Helper()
	s.sync()
	s.sync()
}

// sync waits until the northd has computed the SB from the current NB.
func (s *servers) sync() {
	s.t.Helper()
	s.run("ovn-nbctl", "--timeout=30", "--wait=sb", "sync")
}
