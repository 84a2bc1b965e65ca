package reference

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Dir is a directory holding a private NB and SB database pair and the
// daemons started on it: the databases nb.db and sb.db, served on the unix
// sockets nb.sock and sb.sock, and for each daemon NAME its log NAME.log and
// its ovs-appctl socket NAME.ctl. Instance runs in one; tests and the bench
// that need the servers without a northd, or that stop and restart them,
// use one directly.
type Dir string

// NBRemote is the OVSDB remote of the NB server, unix:DIR/nb.sock.
func (d Dir) NBRemote() string { return "unix:" + d.path("nb.sock") }

// SBRemote is the OVSDB remote of the SB server, unix:DIR/sb.sock.
func (d Dir) SBRemote() string { return "unix:" + d.path("sb.sock") }

// File is the database file of db, "nb" or "sb".
func (d Dir) File(db string) string { return d.path(db + ".db") }

func (d Dir) path(name string) string { return filepath.Join(string(d), name) }

// Env is this process's environment plus what points the OVN tools at the
// directory: OVN_NB_DB, OVN_SB_DB, and the run and log directories; with
// Home, its programs first in PATH.
func (d Dir) Env() []string {
	env := os.Environ()
	if Home != "" {
		// The last of duplicate variables is the one used.
		env = append(env, "PATH="+filepath.Join(Home, "bin")+":"+os.Getenv("PATH"))
	}
	return append(env,
		"OVS_RUNDIR="+string(d), "OVN_RUNDIR="+string(d), "OVS_LOGDIR="+string(d), "OVN_LOGDIR="+string(d),
		"OVN_NB_DB="+d.NBRemote(), "OVN_SB_DB="+d.SBRemote())
}

// Command prepares program (a reference tool's name, or a path) to run in
// the directory with its environment (Env).
func (d Dir) Command(ctx context.Context, program string, args ...string) *exec.Cmd {
	if p := tool(program); p != "" {
		program = p
	}
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir, cmd.Env = string(d), d.Env()
	return cmd
}

// StartDaemon starts an OVS daemon, program, in the foreground as NAME:
// logging to DIR/NAME.log only and answering ovs-appctl on DIR/NAME.ctl.
func (d Dir) StartDaemon(program, name string, args ...string) (*Daemon, error) {
	log := d.path(name + ".log")
	return StartDaemon(DaemonSpec{
		Name: program + " (" + d.path(name) + ")",
		Argv: append([]string{program, "--no-chdir", "-vconsole:off", "--log-file=" + log,
			"--unixctl=" + d.path(name+".ctl")}, args...),
		Dir: string(d), Env: d.Env(), Log: log,
	})
}

// CreateDB creates the empty database db, "nb" or "sb", from the installed
// schema. It fails if the file exists.
func (d Dir) CreateDB(ctx context.Context, db string) error {
	schema, ok := map[string]string{"nb": nbSchema, "sb": sbSchema}[db]
	if !ok {
		return fmt.Errorf("no database %q (nb or sb)", db)
	}
	if out, err := d.Command(ctx, "ovsdb-tool", "create", d.File(db), schema).CombinedOutput(); err != nil {
		return fmt.Errorf("ovsdb-tool create %s: %w: %s", d.File(db), err, out)
	}
	return nil
}

// StartServer serves the database file of db ("nb" or "sb") with
// ovsdb-server on its socket, and whatever else args (more ovsdb-server
// options) say, and returns once the server listens on the socket.
func (d Dir) StartServer(ctx context.Context, db string, args ...string) (*Daemon, error) {
	return d.serve(ctx, db, d.File(db), args...)
}

// serve serves file with ovsdb-server as daemon name, on the socket
// DIR/name.sock, and returns once it listens.
func (d Dir) serve(ctx context.Context, name, file string, args ...string) (*Daemon, error) {
	sock := d.path(name + ".sock")
	s, err := d.StartDaemon("ovsdb-server", name, append([]string{"--remote=punix:" + sock, file}, args...)...)
	if err != nil {
		return nil, err
	}
	if err := s.WaitListening(ctx, sock); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// StartNorthd starts the reference ovn-northd on the directory's NB and SB
// as "northd".
func (d Dir) StartNorthd() (*Daemon, error) {
	return d.StartDaemon("ovn-northd", "northd", "--ovnnb-db="+d.NBRemote(), "--ovnsb-db="+d.SBRemote())
}

// dbNames are the database names of the schemas CreateDB and
// CreateCluster use.
var dbNames = map[string]string{"nb": "OVN_Northbound", "sb": "OVN_Southbound"}

// MemberFile is the database file of member i (from 1) of db's cluster.
func (d Dir) MemberFile(db string, i int) string { return d.path(fmt.Sprintf("%s%d.db", db, i)) }

// MemberRemote is the OVSDB remote of member i of db's cluster,
// unix:DIR/dbI.sock.
func (d Dir) MemberRemote(db string, i int) string {
	return "unix:" + d.path(fmt.Sprintf("%s%d.sock", db, i))
}

// CreateCluster creates db ("nb" or "sb") as a Raft cluster of n members
// from the installed schema, as ovsdb-tool create-cluster and join-cluster
// do: member i's file is MemberFile, its Raft channel the unix socket
// DIR/dbI.raft. Members join once served (StartMember), the first one
// first.
func (d Dir) CreateCluster(ctx context.Context, db string, n int) error {
	schema, ok := map[string]string{"nb": nbSchema, "sb": sbSchema}[db]
	if !ok {
		return fmt.Errorf("no database %q (nb or sb)", db)
	}
	raft := func(i int) string { return "unix:" + d.path(fmt.Sprintf("%s%d.raft", db, i)) }
	for i := 1; i <= n; i++ {
		args := []string{"create-cluster", d.MemberFile(db, i), schema, raft(i)}
		if i > 1 {
			args = []string{"join-cluster", d.MemberFile(db, i), dbNames[db], raft(i), raft(1)}
		}
		if out, err := d.Command(ctx, "ovsdb-tool", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ovsdb-tool %s: %w: %s", args[0], err, out)
		}
	}
	return nil
}

// StartMember serves member i of db's cluster on its socket (MemberRemote)
// as daemon dbI and returns once it listens.
func (d Dir) StartMember(ctx context.Context, db string, i int) (*Daemon, error) {
	return d.serve(ctx, fmt.Sprintf("%s%d", db, i), d.MemberFile(db, i))
}
