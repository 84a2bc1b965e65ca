package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Instance is a running reference: a private NB and SB ovsdb-server pair on
// unix sockets and a real ovn-northd between them, all files in one
// directory. An Instance is not safe for concurrent use; parallel tests
// start one each.
type Instance struct {
	dir     Dir
	daemons []*Daemon
	// died is closed when any daemon exits, so a command waiting on northd
	// fails at once instead of hanging.
	died     chan struct{}
	diedOnce sync.Once
	// nbGlobal holds NB_Global's user-settable columns as they were after
	// start, which Reset restores.
	nbGlobal json.RawMessage
	// dirty is set once a scenario ran since start or the last Reset.
	dirty bool
}

// Start launches a 23.03 reference (see Build.Start).
func Start(t testing.TB) *Instance {
	t.Helper()
	return system.Start(t)
}

// Start launches a reference of the build in a fresh t.TempDir, stopped
// when the test ends. It skips or fails the test as Require does when the
// build is missing.
func (b *Build) Start(t testing.TB) *Instance {
	t.Helper()
	b.Require(t)
	r, err := b.Launch(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// Launch launches a 23.03 reference (see Build.Launch).
func Launch(ctx context.Context, dir string) (*Instance, error) {
	return system.Launch(ctx, dir)
}

// Launch creates empty NB and SB databases in dir from the build's
// schemas, starts their servers and the build's ovn-northd, and waits
// until northd has synced the SB once. The caller stops it with Close.
// ctx bounds the launch only, not the daemons' life.
func (b *Build) Launch(ctx context.Context, dir string) (*Instance, error) {
	if err := b.Available(); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// A unix socket path holds at most 107 bytes; OVS works around longer
	// ones but the readiness check below dials the socket directly.
	if sock := filepath.Join(dir, "nb.sock"); len(sock) > 107 {
		return nil, fmt.Errorf("reference: directory path too long for a unix socket: %s", sock)
	}
	r := &Instance{dir: Dir{Path: dir, Build: b}, died: make(chan struct{})}
	if err := r.launch(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Instance) launch(ctx context.Context) error {
	for _, db := range []string{"nb", "sb"} {
		if err := r.dir.CreateDB(ctx, db); err != nil {
			return fmt.Errorf("reference: %w", err)
		}
		if err := r.watch(r.dir.StartServer(ctx, db)); err != nil {
			return err
		}
	}
	if _, err := r.run(ctx, "ovn-nbctl", "init"); err != nil {
		return err
	}
	if err := r.watch(r.dir.StartNorthd()); err != nil {
		return err
	}
	if err := r.Sync(ctx); err != nil {
		return err
	}
	g, err := r.readNBGlobal(ctx)
	r.nbGlobal = g
	return err
}

// watch adds a daemon just started to the instance's, which Close stops
// and whose exit fails the commands run meanwhile.
func (r *Instance) watch(d *Daemon, err error) error {
	if err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	r.daemons = append(r.daemons, d)
	go func() {
		<-d.Done()
		r.diedOnce.Do(func() { close(r.died) })
	}()
	return nil
}

// Close stops ovn-northd and the servers (SIGTERM, then SIGKILL after 5 s)
// and waits for them to exit. The files stay in the directory. Calling it
// again does nothing.
func (r *Instance) Close() {
	for _, d := range slices.Backward(r.daemons) {
		d.Stop()
	}
	r.daemons = nil
}

// Alive reports whether every daemon of the instance is still running.
func (r *Instance) Alive() bool {
	select {
	case <-r.died:
		return false
	default:
		return true
	}
}

// Dir is the directory holding the databases, sockets and logs
// (nb.db, sb.db, nb.log, sb.log, northd.log).
func (r *Instance) Dir() string { return r.dir.Path }

// Build is the reference the instance runs.
func (r *Instance) Build() *Build { return r.dir.build() }

// NBRemote is the OVSDB remote of the NB server, unix:DIR/nb.sock.
func (r *Instance) NBRemote() string { return r.dir.NBRemote() }

// SBRemote is the OVSDB remote of the SB server, unix:DIR/sb.sock.
func (r *Instance) SBRemote() string { return r.dir.SBRemote() }

// NBFile is the NB database file, in OVSDB standalone format: a schema
// record, then one record per committed transaction (OVS 3.1 writes them as
// diffs, "_is_diff": true), until ovsdb-server compacts it into a snapshot.
// After Sync returns, every transaction that Sync waited for, including
// northd's own NB writes such as dynamic_addresses, is in the file: a
// standalone ovsdb-server writes and flushes each commit before it reports
// the commit to any client.
func (r *Instance) NBFile() string { return r.dir.File("nb") }

// Apply runs script, a scenario, with bash -euo pipefail and OVN_NB_DB and
// OVN_SB_DB pointing at this instance, then Syncs. A failing command fails
// Apply with its stderr.
func (r *Instance) Apply(ctx context.Context, script string) error {
	r.dirty = true
	if _, err := r.run(ctx, "bash", "-e", "-u", "-o", "pipefail", "-c", script); err != nil {
		return fmt.Errorf("reference: scenario failed: %w", err)
	}
	return r.Sync(ctx)
}

// Sync returns once ovn-northd has computed the SB from the current NB and
// committed it (ovn-nbctl --wait=sb sync).
func (r *Instance) Sync(ctx context.Context) error {
	_, err := r.run(ctx, "ovn-nbctl", "--wait=sb", "sync")
	return err
}

// NBSettled reports whether ovn-northd has stopped writing the NB: after a
// Sync, the NB file does not grow for quiet. A northd that changes the NB
// in every run, each change waking it for the next, never settles (23.03
// with a port listed by a switch with IPAM and, later in its walk, by one
// without: the first gives the port dynamic_addresses, the second clears
// them); its NB file then holds one of the values it alternates between.
func (r *Instance) NBSettled(ctx context.Context, quiet time.Duration) (bool, error) {
	if err := r.Sync(ctx); err != nil {
		return false, err
	}
	before, err := os.Stat(r.NBFile())
	if err != nil {
		return false, err
	}
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-time.After(quiet):
	}
	after, err := os.Stat(r.NBFile())
	if err != nil {
		return false, err
	}
	return after.Size() == before.Size(), nil
}

// Flows is the canonical dump of the SB's logical flows (see DumpFlows).
func (r *Instance) Flows(ctx context.Context) ([]string, error) {
	d, err := r.Build().DumpSB(ctx, r.SBRemote())
	if err != nil {
		return nil, err
	}
	return d.Flows()
}

// Run gives the reference flows of one scenario: Reset when an earlier
// scenario ran on this instance, Apply, then Flows. NBFile then holds the NB
// the flows were computed from.
func (r *Instance) Run(ctx context.Context, script string) ([]string, error) {
	if r.dirty {
		if err := r.Reset(ctx); err != nil {
			return nil, err
		}
	}
	if err := r.Apply(ctx, script); err != nil {
		return nil, err
	}
	return r.Flows(ctx)
}

// controllerTables are the SB root tables that ovn-controller (or a scenario
// using ovn-sbctl in its place) writes and northd does not own; Reset empties
// them. Northd deletes its own SB rows once the NB is empty.
var controllerTables = []string{"Chassis", "Chassis_Private", "MAC_Binding", "FDB", "Controller_Event", "IGMP_Group"}

// Reset brings the instance back to its state after Launch without
// restarting anything: every row of the NB root tables except NB_Global is
// deleted (the other tables' rows go with them, being referenced only from
// those), NB_Global's settable columns are restored, the SB rows northd does
// not own are deleted, northd has forgotten the deleted chassis' features,
// and it has synced. NB and SB UUIDs and tunnel
// keys differ from a fresh start; the NB file keeps the earlier transactions
// before the reset.
func (r *Instance) Reset(ctx context.Context) error {
	s, err := r.Build().nbInfo()
	if err != nil {
		return err
	}
	nbOps := []any{"OVN_Northbound"}
	for _, t := range s.tables {
		if t != "NB_Global" {
			nbOps = append(nbOps, map[string]any{"op": "delete", "table": t, "where": []any{}})
		}
	}
	nbOps = append(nbOps, map[string]any{"op": "update", "table": "NB_Global", "where": []any{}, "row": r.nbGlobal})
	sbOps := []any{"OVN_Southbound"}
	for _, t := range controllerTables {
		sbOps = append(sbOps, map[string]any{"op": "delete", "table": t, "where": []any{}})
	}
	if _, err := r.transact(ctx, r.NBRemote(), nbOps); err != nil {
		return err
	}
	deleted, err := r.transact(ctx, r.SBRemote(), sbOps)
	if err != nil {
		return err
	}
	if err := r.Sync(ctx); err != nil {
		return err
	}
	if rowsDeleted(deleted[0]) > 0 { // controllerTables[0], Chassis
		if err := r.forgetChassisFeatures(ctx); err != nil {
			return err
		}
	}
	r.dirty = false
	return nil
}

// forgetChassisFeatures makes northd assume every chassis feature again,
// as it does at start with no chassis. 26.03's northd recomputes its
// features when a chassis goes by clearing those a chassis lacks from the
// ones it had (en-global-config.c en_global_config_run), so a feature an
// earlier scenario's chassis lacked would stay off; with NB_Global
// options:ignore_chassis_features it sets them all, and restoring NB_Global
// recomputes them from those.
func (r *Instance) forgetChassisFeatures(ctx context.Context) error {
	ignore := map[string]any{"op": "mutate", "table": "NB_Global", "where": []any{},
		"mutations": []any{[]any{"options", "insert", []any{"map", []any{[]any{"ignore_chassis_features", "true"}}}}}}
	restore := map[string]any{"op": "update", "table": "NB_Global", "where": []any{}, "row": r.nbGlobal}
	for _, op := range []any{ignore, restore} {
		if _, err := r.transact(ctx, r.NBRemote(), []any{"OVN_Northbound", op}); err != nil {
			return err
		}
		if err := r.Sync(ctx); err != nil {
			return err
		}
	}
	return nil
}

// rowsDeleted is the count of a delete operation's result.
func rowsDeleted(result json.RawMessage) int {
	var res struct{ Count int }
	if json.Unmarshal(result, &res) != nil {
		return 0
	}
	return res.Count
}

// readNBGlobal reads NB_Global's settable columns as an OVSDB row object.
func (r *Instance) readNBGlobal(ctx context.Context) (json.RawMessage, error) {
	s, err := r.Build().nbInfo()
	if err != nil {
		return nil, err
	}
	res, err := r.transact(ctx, r.NBRemote(), []any{"OVN_Northbound",
		map[string]any{"op": "select", "table": "NB_Global", "where": []any{}, "columns": s.globalSettable}})
	if err != nil {
		return nil, err
	}
	var sel struct{ Rows []json.RawMessage }
	if err := json.Unmarshal(res[0], &sel); err != nil || len(sel.Rows) != 1 {
		return nil, fmt.Errorf("reference: want one NB_Global row, got %s (%v)", res[0], err)
	}
	return sel.Rows[0], nil
}

// transact runs one OVSDB transaction through ovsdb-client and returns the
// per-operation results, failing if any operation failed.
func (r *Instance) transact(ctx context.Context, remote string, ops []any) ([]json.RawMessage, error) {
	req, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	out, err := r.run(ctx, "ovsdb-client", "transact", remote, string(req))
	if err != nil {
		return nil, err
	}
	res, err := TransactResults(remote, out)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	return res, nil
}

// TransactResults reads the output of `ovsdb-client transact REMOTE ...`:
// the per-operation results, or an error naming the first operation that
// failed.
func TransactResults(remote string, out []byte) ([]json.RawMessage, error) {
	var res []json.RawMessage
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("transact on %s: %w", remote, err)
	}
	for _, x := range res {
		var e struct{ Error, Details string }
		if json.Unmarshal(x, &e) == nil && e.Error != "" {
			return nil, fmt.Errorf("transact on %s: %s: %s", remote, e.Error, e.Details)
		}
	}
	return res, nil
}

// run runs program to completion with the instance's environment and
// returns its stdout. If a daemon exits meanwhile, the command is stopped
// and the error names the daemon and quotes its log.
func (r *Instance) run(ctx context.Context, program string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-r.died:
			cancel()
		case <-ctx.Done():
		}
	}()
	cmd := r.dir.Command(ctx, program, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		select {
		case <-r.died:
			return nil, r.deathError()
		default:
		}
		return nil, fmt.Errorf("reference: %s %s: %w: %s", program, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// deathError describes the daemons that have exited, with their last log
// lines.
func (r *Instance) deathError() error {
	var errs []error
	for _, d := range r.daemons {
		if d.Exited() {
			errs = append(errs, fmt.Errorf("reference: %w", d.DeathError()))
		}
	}
	return errors.Join(errs...)
}

// logTail returns the last n lines of the file at path.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// schemaInfo is what Reset needs to know of the NB schema.
type schemaInfo struct {
	tables         []string // every table, sorted
	globalSettable []string // NB_Global columns other than the cfg handshake
}

// readNBSchema reads what Reset needs of the build's NB schema (nbInfo
// reads it once).
func (b *Build) readNBSchema() (schemaInfo, error) {
	nbSchema, err := b.schemaFile("nb")
	if err != nil {
		return schemaInfo{}, err
	}
	text, err := os.ReadFile(nbSchema)
	if err != nil {
		return schemaInfo{}, err
	}
	var s struct {
		Tables map[string]struct {
			Columns map[string]json.RawMessage `json:"columns"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(text, &s); err != nil {
		return schemaInfo{}, fmt.Errorf("reference: %s: %w", nbSchema, err)
	}
	var info schemaInfo
	// Reset deletes the rows of every table, not only of root tables: a
	// root row (HA_Chassis_Group) may be referenced by a non-root one
	// (Logical_Switch_Port) that garbage collection would remove only
	// after the delete is refused.
	for name := range s.Tables {
		info.tables = append(info.tables, name)
	}
	// nb_cfg, sb_cfg, hv_cfg and their timestamps are the --wait
	// handshake's counters; they only grow.
	for col := range s.Tables["NB_Global"].Columns {
		if !strings.HasSuffix(col, "_cfg") && !strings.HasSuffix(col, "_cfg_timestamp") {
			info.globalSettable = append(info.globalSettable, col)
		}
	}
	slices.Sort(info.tables)
	slices.Sort(info.globalSettable)
	return info, nil
}
