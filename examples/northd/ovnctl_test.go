package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
)

// ovnCtl is Debian's service script, which its systemd unit runs.
const ovnCtl = "/usr/share/ovn/scripts/ovn-ctl"

// dropIn is the built northd installed as ovn-northd first in PATH, with
// private OVN directories and its own NB and SB ovsdb-servers at the
// sockets ovn-ctl expects.
type dropIn struct {
	dir, run, logs string
	env            []string
}

func newDropIn(t *testing.T) *dropIn {
	t.Helper()
	reference.Require(t)
	if _, err := os.Stat(ovnCtl); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v; %s", ovnCtl, err, reference.InstallHint)
		}
		t.Skipf("%s: %v", ovnCtl, err)
	}
	dir := t.TempDir()
	d := &dropIn{dir: dir, run: filepath.Join(dir, "run"), logs: filepath.Join(dir, "log")}
	bin := filepath.Join(dir, "bin")
	for _, p := range []string{bin, d.run, d.logs, filepath.Join(dir, "db")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "ovn-northd"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	d.env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH")+":/usr/sbin:/sbin",
		"OVN_RUNDIR="+d.run, "OVS_RUNDIR="+d.run, "OVN_LOGDIR="+d.logs, "OVN_DBDIR="+filepath.Join(dir, "db"))
	for _, db := range []struct{ name, schema string }{{"ovnnb_db", "ovn-nb"}, {"ovnsb_db", "ovn-sb"}} {
		file := filepath.Join(dir, "db", db.name+".db")
		d.must(t, "ovsdb-tool", "create", file, "/usr/share/ovn/"+db.schema+".ovsschema")
		pid := filepath.Join(d.run, db.name+".pid")
		d.must(t, "ovsdb-server", "--detach", "--no-chdir", "--pidfile="+pid,
			"--unixctl="+filepath.Join(d.run, db.name+".ctl"), "--remote=punix:"+filepath.Join(d.run, db.name+".sock"), file)
		t.Cleanup(func() { d.kill(pid) })
	}
	d.must(t, "ovn-nbctl", "--db=unix:"+filepath.Join(d.run, "ovnnb_db.sock"), "init")
	return d
}

// kill stops the process a pidfile names, if it runs.
func (d *dropIn) kill(pidfile string) {
	b, err := os.ReadFile(pidfile)
	if err != nil {
		return
	}
	exec.Command("kill", strings.TrimSpace(string(b))).Run()
}

// cmd runs name with the drop-in's environment and returns its output.
func (d *dropIn) cmd(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Env = d.env
	out, err := c.CombinedOutput()
	return string(out), err
}

func (d *dropIn) must(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := d.cmd(t, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// appctl runs ovn-appctl -t ovn-northd, as an operator or a probe does.
func (d *dropIn) appctl(t *testing.T, args ...string) string {
	t.Helper()
	return d.must(t, "ovn-appctl", append([]string{"-t", "ovn-northd"}, args...)...)
}

func (d *dropIn) nbctl(t *testing.T, args ...string) string {
	t.Helper()
	return d.must(t, "ovn-nbctl", append([]string{"--db=unix:" + filepath.Join(d.run, "ovnnb_db.sock")}, args...)...)
}

// datapaths lists the SB's Datapath_Binding external_ids names.
func (d *dropIn) datapaths(t *testing.T) string {
	t.Helper()
	return d.must(t, "ovn-sbctl", "--db=unix:"+filepath.Join(d.run, "ovnsb_db.sock"), "--bare", "--columns=external_ids", "list", "Datapath_Binding")
}

// waitFor polls f until it holds, for up to 30 s.
func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !f(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestOVNCtl: Debian's ovn-ctl starts, checks and stops the drop-in as it
// does ovn-northd, and ovn-appctl drives it: status, pause (no SB write)
// and resume (the change written), a full recompute equal to the
// incremental state, logrotate's vlog/reopen, and a stop by "exit".
func TestOVNCtl(t *testing.T) {
	d := newDropIn(t)
	d.must(t, ovnCtl, "--ovn-manage-ovsdb=no", "start_northd")
	pidfile := filepath.Join(d.run, "ovn-northd.pid")
	if out := d.must(t, ovnCtl, "status_northd"); !strings.Contains(out, "ovn-northd is running with pid") {
		t.Errorf("status_northd: %s", out)
	}
	waitFor(t, "Status: active", func() bool { return d.appctl(t, "status") == "Status: active\n" })
	// The release follows the NB, 23.03's here.
	if got := d.appctl(t, "version"); !strings.HasPrefix(got, "ovn-northd 23.03.1\n") {
		t.Errorf("version: %q, want ovn-northd 23.03.1 first", got)
	}
	for _, cmd := range []string{"nb-connection-status", "sb-connection-status"} {
		if got := d.appctl(t, cmd); got != "connected\n" {
			t.Errorf("%s: %q, want connected", cmd, got)
		}
	}
	nb, sb := "unix:"+filepath.Join(d.run, "ovnnb_db.sock"), "unix:"+filepath.Join(d.run, "ovnsb_db.sock")
	if got, want := d.appctl(t, "connections"), "SB lock: held\nNB: connected to "+nb+" (1 connections made)\nSB: connected to "+sb+" (1 connections made)\n"; got != want {
		t.Errorf("connections:\n%s\nwant\n%s", got, want)
	}
	for _, cmd := range []string{"nb-cluster-state-reset", "sb-cluster-state-reset"} {
		if got := d.appctl(t, cmd); got != "" {
			t.Errorf("%s: %q, want nothing", cmd, got)
		}
	}

	d.nbctl(t, "--wait=sb", "ls-add", "sw0")
	d.appctl(t, "pause")
	if got := d.appctl(t, "is-paused"); got != "true\n" {
		t.Errorf("is-paused: %q", got)
	}
	if got := d.appctl(t, "status"); got != "Status: paused\n" {
		t.Errorf("status while paused: %q", got)
	}
	before := d.datapaths(t)
	d.nbctl(t, "ls-add", "sw1")
	time.Sleep(time.Second)
	if after := d.datapaths(t); after != before {
		t.Errorf("SB written while paused:\nbefore %s\nafter %s", before, after)
	}
	d.appctl(t, "resume")
	if got := d.appctl(t, "is-paused"); got != "false\n" {
		t.Errorf("is-paused after resume: %q", got)
	}
	d.nbctl(t, "--wait=sb", "sync")
	if after := d.datapaths(t); !strings.Contains(after, "name=sw1") {
		t.Errorf("sw1 not written after resume:\n%s", after)
	}

	d.appctl(t, "inc-engine/recompute")
	logFile := filepath.Join(d.logs, "ovn-northd.log")
	waitFor(t, "the recompute's log line", func() bool {
		b, _ := os.ReadFile(logFile)
		return strings.Contains(string(b), "|northd|INFO|recompute matches the incremental state")
	})
	if err := os.Rename(logFile, logFile+".1"); err != nil {
		t.Fatal(err)
	}
	d.appctl(t, "vlog/reopen")
	d.appctl(t, "inc-engine/recompute")
	waitFor(t, "a line in the reopened log", func() bool {
		b, _ := os.ReadFile(logFile)
		return strings.Contains(string(b), "recompute matches the incremental state")
	})

	out := d.must(t, ovnCtl, "stop_northd")
	if !strings.Contains(out, "Exiting ovn-northd") || strings.Contains(out, "Killing") {
		t.Errorf("stop_northd did not end by exit:\n%s", out)
	}
	if _, err := os.Stat(pidfile); !os.IsNotExist(err) {
		t.Errorf("pidfile left after stop: %v", err)
	}
	if out, _ := d.cmd(t, ovnCtl, "status_northd"); !strings.Contains(out, "ovn-northd is not running") {
		t.Errorf("status_northd after stop: %s", out)
	}
}

// TestDetachAfterFirstRun: ovn-northd --detach returns once its first run
// is made, as ovn-northd's first run follows its detach by milliseconds:
// the SB then holds the switch the NB had. When no run can be made (the
// SB unreachable, or paused by --dry-run) it returns at once, not after
// maxStartWait.
func TestDetachAfterFirstRun(t *testing.T) {
	d := newDropIn(t)
	d.nbctl(t, "ls-add", "sw0")
	nb, sb := "--ovnnb-db=unix:"+filepath.Join(d.run, "ovnnb_db.sock"), "--ovnsb-db=unix:"+filepath.Join(d.run, "ovnsb_db.sock")
	for _, c := range []struct {
		name     string
		args     []string
		datapath bool
	}{
		{"SB unreachable", []string{nb, "--ovnsb-db=unix:" + filepath.Join(d.run, "none.sock")}, false},
		{"paused", []string{nb, sb, "--dry-run"}, false},
		{"first run", []string{nb, sb}, true},
	} {
		pidfile := filepath.Join(d.run, strings.ReplaceAll(c.name, " ", "-")+".pid")
		start := time.Now()
		d.must(t, filepath.Join(d.dir, "bin", "ovn-northd"), append([]string{"--detach", "--no-chdir", "--pidfile=" + pidfile, "--log-file"}, c.args...)...)
		took := time.Since(start)
		if got := strings.Contains(d.datapaths(t), "name=sw0"); got != c.datapath {
			t.Errorf("%s: SB holds sw0 when --detach returns: %v, want %v", c.name, got, c.datapath)
		}
		if took >= maxStartWait {
			t.Errorf("%s: --detach took %v, the most it may wait", c.name, took)
		}
		d.kill(pidfile)
	}
}
