// Package embedded runs in-process OVN Northbound and Southbound OVSDB
// servers on unix sockets, so that northlog works with no database set up:
// Go libovsdb clients and the stock tools (ovn-nbctl, ovn-sbctl, ovn-trace,
// ovsdb-client) reach them like a standalone ovsdb-server.
//
// The data lives in memory, in the servers' own form (datum.go, store.go):
// the transactions' operations are parsed from the request's JSON straight
// into rows and run by the server itself (txn.go), which keeps referential
// integrity, garbage collection (refs.go), indexes and column constraints
// as ovsdb-server does; and in OVSDB standalone database files in the state
// directory, which stock ovsdb-tool and ovsdb-server read too. The file's
// records, the monitor updates and the replies are written from the rows.
// This package speaks the protocol: JSON-RPC framing, transact, monitor,
// monitor_cond (one request or an array of them per table), monitor_cond_since,
// monitor_cond_change, monitor_cancel, the _Server database, lock, steal,
// unlock, echo, get_schema, list_dbs, get_server_id, set_db_change_aware.
// libovsdb's own server package is not used: it rejects the OVS IDL's array
// monitor requests, has no _Server database, and sends monitor updates as
// requests that wait for an answer, which OVS clients never give.
//
// The schemas are those of a release northlog reproduces
// (relations/schema), compiled in.
package embedded

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"

	"github.com/northlog/northlog/relations/schema"
)

// maxSocketPath is the longest unix socket path Linux accepts.
const maxSocketPath = 107

// Servers is a running pair of embedded NB and SB servers.
type Servers struct {
	dir       string
	nb, sb    *server
	stopCtx   func() bool
	closeOnce sync.Once
}

// Start serves an OVN Northbound database on DIR/nb.sock and a Southbound one
// on DIR/sb.sock, of release's schemas, until ctx ends or Close is called. Their data lives in
// DIR/nb.db and DIR/sb.db, OVSDB standalone database files: Start loads them
// when they exist and each commit is appended. It creates dir if needed and
// replaces stale sockets, but fails if another server answers on them.
func Start(ctx context.Context, dir string, release schema.Release, logger *slog.Logger) (*Servers, error) {
	if logger == nil {
		logger = slog.Default()
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &Servers{dir: dir}
	for _, d := range []struct {
		srv    **server
		name   string
		schema []byte
		socket string
		file   string
	}{
		{&s.nb, "OVN_Northbound", release.NB(), "nb.sock", "nb.db"},
		{&s.sb, "OVN_Southbound", release.SB(), "sb.sock", "sb.db"},
	} {
		// Listen first: a server already running on the directory owns
		// its files.
		ln, err := listenUnix(filepath.Join(dir, d.socket))
		if err != nil {
			s.Close()
			return nil, err
		}
		srv, err := newServer(logger.With("db", d.name), d.schema, filepath.Join(dir, d.file))
		if err != nil {
			ln.Close()
			s.Close()
			return nil, err
		}
		srv.serve(ln)
		*d.srv = srv
		logger.Debug("embedded ovsdb server listening", "db", d.name, "socket", ln.Addr().String())
	}
	s.stopCtx = context.AfterFunc(ctx, func() { s.Close() })
	return s, nil
}

// listenUnix listens on a unix socket at path, removing a socket file left
// by a server that is gone.
func listenUnix(path string) (net.Listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is longer than %d bytes; use a shorter state directory", path, maxSocketPath)
	}
	if _, err := os.Lstat(path); err == nil {
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return nil, fmt.Errorf("%s: another server is listening there", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	return net.Listen("unix", path)
}

// NBRemote is the Northbound database's address in OVS remote syntax
// ("unix:DIR/nb.sock"), for OVN_NB_DB or a libovsdb endpoint.
func (s *Servers) NBRemote() string { return "unix:" + filepath.Join(s.dir, "nb.sock") }

// SBRemote is the Southbound database's address ("unix:DIR/sb.sock"), for
// OVN_SB_DB or a libovsdb endpoint.
func (s *Servers) SBRemote() string { return "unix:" + filepath.Join(s.dir, "sb.sock") }

// Close stops both servers and disconnects their clients; closing the
// listeners removes the sockets. The database files stay. Calling it again
// does nothing.
func (s *Servers) Close() {
	s.closeOnce.Do(func() {
		if s.stopCtx != nil {
			s.stopCtx()
		}
		for _, srv := range []*server{s.nb, s.sb} {
			if srv != nil {
				srv.close()
			}
		}
	})
}
