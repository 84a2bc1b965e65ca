package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// serverDatabase is a row of the _Server database's Database table: what
// the server says of one of its databases (ovsdb-server(5)).
type serverDatabase struct {
	Name      string `json:"name"`
	Model     string `json:"model"`
	Connected bool   `json:"connected"`
	Leader    bool   `json:"leader"`
	// Index is the Raft log index of the member's data: an integer, or
	// an empty set for a standalone server.
	Index json.RawMessage `json:"index"`
}

// serverMonitorID is the id of the _Server monitor, which comes in
// "update" notifications (the databases' own monitor comes in "update2").
const serverMonitorID = "_Server"

// ErrNotLeader is the cause of a connection refused or ended because the
// member is not, or no longer, the connected leader of its cluster: as
// OVN's northd does, only the leader is used, so that the OVSDB lock of
// one member decides for the whole cluster.
var ErrNotLeader = errors.New("not the cluster leader")

// usable tells whether a member serving db can be used: any standalone
// server; a clustered one only as the connected leader whose data is not
// older than what index has seen (nil: no memory), as ovsdb-cs's
// ovsdb_cs_check_server_db.
func (d serverDatabase) usable(index *ClusterIndex) error {
	if d.Model != "clustered" {
		return nil
	}
	if !d.Connected {
		return fmt.Errorf("%w: %s is not connected to its cluster", ErrNotLeader, d.Name)
	}
	if !d.Leader {
		return fmt.Errorf("%w: %s", ErrNotLeader, d.Name)
	}
	var n uint64
	if json.Unmarshal(d.Index, &n) != nil || index == nil || index.accept(n) {
		return nil
	}
	return fmt.Errorf("%w (index %d, %d seen): %s", ErrStale, n, index.min.Load(), d.Name)
}

// watchServer monitors the _Server row of the connection's database, as
// OVS's IDL does for a leader-only client: a member that is not the
// connected leader is refused, and the connection ends when it stops being
// it, or when its data is older than already seen. A server without _Server (older than OVS 2.9) is taken as
// standalone.
func (c *Conn) watchServer(ctx context.Context) error {
	req := map[string]any{"Database": map[string]any{"columns": []string{"name", "model", "connected", "leader", "index"}}}
	var rows []serverDatabase
	err := c.rpc.Call(ctx, "monitor", []any{"_Server", serverMonitorID, req}, func(result []byte) error {
		var err error
		rows, _, err = serverRows(result)
		return err
	})
	if err != nil {
		if strings.Contains(err.Error(), "unknown database") {
			return nil
		}
		return fmt.Errorf("monitor _Server: %w", err)
	}
	for _, d := range rows {
		if d.Name == c.dbName {
			return d.usable(c.opts.Index)
		}
	}
	return fmt.Errorf("server has no database %s", c.dbName)
}

// serverUpdate handles an "update" of the _Server monitor.
func (c *Conn) serverUpdate(params []byte) error {
	var ps []json.RawMessage
	if err := json.Unmarshal(params, &ps); err != nil || len(ps) != 2 {
		return c.fail(fmt.Errorf("%s: _Server update: bad parameters", c.remote))
	}
	rows, gone, err := serverRows(ps[1])
	if err != nil {
		return c.fail(fmt.Errorf("%s: _Server update: %w", c.remote, err))
	}
	if gone[c.dbName] {
		// The member left its cluster (cluster/leave) or closed the
		// database: another member is wanted at once.
		return c.fail(fmt.Errorf("%s: %w: the server no longer has %s", c.remote, ErrNotLeader, c.dbName))
	}
	for _, d := range rows {
		if d.Name == c.dbName {
			if err := d.usable(c.opts.Index); err != nil {
				return c.fail(fmt.Errorf("%s: %w", c.remote, err))
			}
		}
	}
	return nil
}

// serverRows reads a monitor (version 1) table-updates of _Server's
// Database table: the new rows, and the names of the databases deleted.
func serverRows(b []byte) (rows []serverDatabase, gone map[string]bool, err error) {
	var tu map[string]map[string]struct {
		Old *serverDatabase `json:"old"`
		New *serverDatabase `json:"new"`
	}
	if err := json.Unmarshal(b, &tu); err != nil {
		return nil, nil, err
	}
	gone = map[string]bool{}
	for _, ru := range tu["Database"] {
		switch {
		case ru.New != nil:
			rows = append(rows, *ru.New)
		case ru.Old != nil:
			gone[ru.Old.Name] = true
		}
	}
	return rows, gone, nil
}
