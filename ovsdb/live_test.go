package ovsdb

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb/sbwriter"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// liveNorthd is a Northd running in the background of a test.
type liveNorthd struct {
	*Northd
	cancel context.CancelFunc
	done   chan struct{}
}

// runNorthd starts a live northd on s, with its configuration changed by
// opts; it stops when the test ends.
func runNorthd(t testing.TB, s *servers, opts ...func(*Config)) *liveNorthd {
	t.Helper()
	level := slog.LevelWarn
	if testing.Verbose() {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, cancel := context.WithCancel(context.Background())
	cfg := Config{NBRemote: s.NBRemote(), SBRemote: s.SBRemote(), Logger: log, MaxBackoff: 200 * time.Millisecond}
	for _, o := range opts {
		o(&cfg)
	}
	l := &liveNorthd{
		Northd: NewNorthd(cfg),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go func() {
		defer close(l.done)
		_ = l.Run(ctx)
	}()
	t.Cleanup(l.stop)
	return l
}

// stop stops the northd and waits for it.
func (l *liveNorthd) stop() {
	l.cancel()
	<-l.done
}

// sbRows reads the SB's Datapath_Binding, Port_Binding (with its HA
// chassis group) and Multicast_Group rows as sorted lines that name datapaths and ports
// instead of giving row UUIDs; with keys, tunnel keys are included. The
// NB _uuid in a datapath's external_ids is left out: two NBs built by the
// same script have different ones.
func sbRows(t testing.TB, remote string, keys bool) []string {
	t.Helper()
	rows := readSB(t, remote)
	dpName := map[string]string{}
	for u, m := range rows[sb.DatapathBindingTable] {
		dpName[u] = m.(*sb.DatapathBinding).ExternalIDs["name"]
	}
	pbName := map[string]string{}
	for u, m := range rows[sb.PortBindingTable] {
		pbName[u] = m.(*sb.PortBinding).LogicalPort
	}
	key := func(k int) string {
		if keys {
			return fmt.Sprint(k)
		}
		return "-"
	}
	var lines []string
	for _, m := range rows[sb.DatapathBindingTable] {
		dp := m.(*sb.DatapathBinding)
		ids := maps.Clone(dp.ExternalIDs)
		for _, k := range []string{"logical-switch", "logical-router"} {
			if _, ok := ids[k]; ok {
				ids[k] = "*"
			}
		}
		lines = append(lines, fmt.Sprintf("Datapath_Binding|%s|%s|%v", dp.ExternalIDs["name"], key(dp.TunnelKey), sortedMap(ids)))
	}
	// An HA chassis group as its name and its chassis names and priorities.
	haGroup := func(u *string) string {
		if u == nil {
			return "[]"
		}
		g, ok := rows[sb.HAChassisGroupTable][*u].(*sb.HAChassisGroup)
		if !ok {
			return "[]"
		}
		var cs []string
		for _, hc := range g.HaChassis {
			if c, ok := rows[sb.HAChassisTable][hc].(*sb.HAChassis); ok {
				cs = append(cs, fmt.Sprintf("%s:%d", c.ExternalIDs["chassis-name"], c.Priority))
			}
		}
		slices.Sort(cs)
		return fmt.Sprintf("%s%v", g.Name, cs)
	}
	for _, m := range rows[sb.PortBindingTable] {
		pb := m.(*sb.PortBinding)
		lines = append(lines, fmt.Sprintf("Port_Binding|%s|%s|%s|type=%q|options=%v|mac=%q|ps=%q|parent=%v|tag=%v|ids=%v|nat=%q|up=%v|ha=%s",
			dpName[pb.Datapath], pb.LogicalPort, key(pb.TunnelKey), pb.Type, sortedMap(pb.Options),
			slices.Sorted(slices.Values(pb.MAC)), slices.Sorted(slices.Values(pb.PortSecurity)),
			deref(pb.ParentPort), deref(pb.Tag), sortedMap(pb.ExternalIDs),
			slices.Sorted(slices.Values(pb.NatAddresses)), deref(pb.Up), haGroup(pb.HaChassisGroup)))
	}
	for _, m := range rows[sb.MulticastGroupTable] {
		mc := m.(*sb.MulticastGroup)
		var ports []string
		for _, p := range mc.Ports {
			ports = append(ports, pbName[p])
		}
		slices.Sort(ports)
		lines = append(lines, fmt.Sprintf("Multicast_Group|%s|%s|%d|%v", dpName[mc.Datapath], mc.Name, mc.TunnelKey, ports))
	}
	slices.Sort(lines)
	return lines
}

func sortedMap(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s=%q ", k, m[k])
	}
	return b.String()
}

func deref[T any](p *T) any {
	if p == nil {
		return "[]"
	}
	return *p
}

// readSB reads the tables the live northd monitors.
func readSB(t testing.TB, remote string) map[string]map[string]any {
	sbSchema := sb.Schema()
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := sb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire.Dial(ctx, remote, m.Name(), m, wire.Options{Tables: sbwriter.Tables, NotMonitored: sbwriter.NotMonitored, Schema: &sbSchema})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bs, err := c.Take()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, b := range bs {
		for _, ch := range b.Changes {
			if out[ch.Table] == nil {
				out[ch.Table] = map[string]any{}
			}
			out[ch.Table][ch.UUID] = ch.New
		}
	}
	return out
}

// flowUUIDs is the set of Logical_Flow row UUIDs in the SB.
func flowUUIDs(t testing.TB, remote string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for u := range readSB(t, remote)[sb.LogicalFlowTable] {
		out[u] = true
	}
	return out
}

func dumpFlows(t testing.TB, remote string) []string {
	t.Helper()
	return sbFlows(t, dumpSB(t, remote))
}

// setTables are the SB tables of named sets, load balancers and service
// monitors that northd writes besides flows, datapaths and ports.
var setTables = []string{sb.AddressSetTable, sb.PortGroupTable, sb.LoadBalancerTable, sb.ServiceMonitorTable}

// dumpSetRows is the canonical dump of the setTables rows of the SB at remote.
func dumpSetRows(t testing.TB, remote string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lines, err := reference.DumpRows(ctx, remote, setTables...)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// aclMeterName matches the ACL UUID in the name of an ACL's private copy
// of a fair meter, which differs between two NBs built alike.
var aclMeterName = regexp.MustCompile(`__[0-9a-f]{8}-[0-9a-f-]{27}"`)

// dumpOtherRows is the canonical dump of the sbwriter.OtherTables rows of the
// SB at remote, ACL UUIDs in meter names written "*".
func dumpOtherRows(t testing.TB, remote string) []string {
	t.Helper()
	return ownedRows(t, dumpSB(t, remote), sbwriter.OtherTables)
}

// offlineFlows computes the flows of the NB file of s offline, for the
// chassis features of its SB.
func offlineFlows(t testing.TB, s *servers) []string {
	t.Helper()
	return offlineOf(t, s).Canonical()
}

// offlineOf is northlog's offline computation from s's NB file and the
// chassis features of its SB.
func offlineOf(t testing.TB, s *servers) *Offline {
	t.Helper()
	o, err := ComputeWithFeatures(s.File("nb"), chassisFeatures(t, s.SBRemote()))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// resetNB deletes every NB row but NB_Global's and sets NB_Global's
// options (and ipsec off), leaving an NB as `ovn-nbctl init` and northd
// made it.
func (s *servers) resetNB(options map[string]string) {
	s.t.Helper()
	// Switches, routers and port groups first: their ports and ACLs, which
	// are not root rows, may refer to other root rows (HA_Chassis_Group,
	// Sample_Collector through an ACL's Sample...).
	first := []string{nb.LogicalSwitchTable, nb.LogicalRouterTable, nb.PortGroupTable}
	var rest []string
	// The server's tables: the models have every release's.
	var schema lovsdb.DatabaseSchema
	if err := json.Unmarshal([]byte(s.run("ovsdb-client", "get-schema", s.NBRemote())), &schema); err != nil {
		s.t.Fatal(err)
	}
	for _, table := range slices.Sorted(maps.Keys(schema.Tables)) {
		if schema.Tables[table].IsRoot && table != nb.NBGlobalTable && !slices.Contains(first, table) {
			rest = append(rest, table)
		}
	}
	var pairs [][2]string
	for _, k := range slices.Sorted(maps.Keys(options)) {
		pairs = append(pairs, [2]string{k, options[k]})
	}
	setOptions := map[string]any{"op": "update", "table": nb.NBGlobalTable, "where": []any{},
		"row": map[string]any{"options": []any{"map", pairs}, "ipsec": false}}
	for _, tables := range [][]string{first, rest} {
		ops := []any{"OVN_Northbound"}
		for _, table := range tables {
			ops = append(ops, map[string]any{"op": "delete", "table": table, "where": []any{}})
		}
		req, err := json.Marshal(append(ops, setOptions))
		if err != nil {
			s.t.Fatal(err)
		}
		if out := s.run("ovsdb-client", "transact", s.NBRemote(), string(req)); strings.Contains(out, `"error"`) {
			s.t.Fatalf("NB reset failed: %s", out)
		}
	}
}

// nbOptions reads NB_Global's options from the NB at remote.
func nbOptions(t testing.TB, remote string) map[string]string {
	nbSchema := nb.Schema()
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := nb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire.Dial(ctx, remote, m.Name(), m, wire.Options{Tables: []string{nb.NBGlobalTable}, Schema: &nbSchema})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bs, _ := c.Take()
	for _, ch := range bs[0].Changes {
		return ch.New.(*nb.NBGlobal).Options
	}
	t.Fatal("no NB_Global")
	return nil
}

// TestLiveScenarios runs every scenario of the differential tests through
// the live path, one after the other on the same servers and northd: the
// NB is emptied between scenarios, then the scenario's commands run one by
// one while the northd follows. After `ovn-nbctl --wait=sb sync` the SB's
// flows must be the ones northlog computes offline from the same NB file;
// the rows of ownedTables must be the reference's in every scenario; and,
// for the scenarios whose offline flows are the reference's, the
// reference's flows with every column northd writes (FlowColumns, but
// stage-hint) and the rows of datapathTables (tunnel keys aside); and
// each flow's stage-hint one that 23.03 would write (liveHintDiffs).
func TestLiveScenarios(t *testing.T) {
	t.Parallel()
	b := startBeside(t)
	ref, s := b.ref, b.live
	green := 0
	for _, sc := range b.scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			want := b.run(t, sc.Script)
			refSB, liveSB := dumpSB(t, ref.SBRemote()), dumpSB(t, s.SBRemote())
			o := offlineOf(t, s)
			got, offline := sbFlows(t, liveSB), o.Canonical()
			if r := reference.Compare(offline, got); !r.Equal() {
				t.Fatalf("%s\nlive SB differs from northlog offline:\n%s", sc.Description, r)
			}
			if r := reference.Compare(ownedRows(t, refSB, ownedTables), ownedRows(t, liveSB, ownedTables)); !r.Equal() {
				t.Errorf("%s rows differ from the reference's (- reference, + northlog):\n%s", strings.Join(ownedTables, ", "),
					rowDiff(r))
			}
			if !reference.Compare(want, offline).Equal() {
				t.Skipf("rules do not reproduce the reference yet")
			}
			green++
			if r := reference.Compare(want, got); !r.Equal() {
				t.Fatalf("live SB differs from the reference:\n%s", r)
			}
			if r := reference.Compare(flowColumns(t, refSB), flowColumns(t, liveSB)); !r.Equal() {
				t.Errorf("Logical_Flow columns differ from the reference's:\n%s", r)
			}
			if diffs := liveHintDiffs(t, ref, s, refSB, liveSB, o); len(diffs) > 0 {
				t.Errorf("%d flows' stage-hint differs from the reference's:\n%s", len(diffs), strings.Join(diffs, "\n"))
			}
			if r := reference.Compare(ownedRows(t, refSB, datapathTables), ownedRows(t, liveSB, datapathTables)); !r.Equal() {
				t.Errorf("%s rows differ from the reference's (- reference, + northlog):\n%s", strings.Join(datapathTables, ", "),
					rowDiff(r))
			}
		})
	}
	t.Logf("%d of %d scenarios compared with the reference", green, len(b.scenarios))
}

// ownedTables are the SB tables northd writes whose rows do not follow
// from the flows: named sets, load balancers, service monitors, meters,
// DNS, template variables, mirrors, multicast settings, and the fixed
// DHCP option and RBAC rows.
var ownedTables = append(slices.Clone(setTables), sbwriter.OtherTables...)

// datapathTables are the SB tables northd writes for the NB's switches,
// routers and their ports, whose rows follow the flows' datapaths and
// ports, and SB_Global.
var datapathTables = []string{sb.SBGlobalTable, sb.DatapathBindingTable, sb.PortBindingTable, sb.MulticastGroupTable,
	sb.HAChassisGroupTable, sb.HAChassisTable, sb.GatewayChassisTable, sb.BFDTable, sb.StaticMACBindingTable}

// hintKeys are the Logical_Flow external_ids keys that flowColumns leaves
// to liveHintDiffs: stage-hint, the NB row behind a flow, which two
// northds may choose differently and both be right.
var hintKeys = []string{"stage-hint"}

// liveHintDiffs describes the flows of the live SB whose stage-hint is
// not one 23.03 would have written (reference.CompareLiveHints), the hints
// of either side read as the NB rows they name (hintedRows): the two NBs
// hold the same rows under _uuids of their own.
func liveHintDiffs(t testing.TB, ref *reference.Instance, live *servers, refSB, liveSB *reference.SBDump, o *Offline) []string {
	t.Helper()
	refHints, err := refSB.FlowHints()
	if err != nil {
		t.Fatal(err)
	}
	liveHints, err := liveSB.FlowHints()
	if err != nil {
		t.Fatal(err)
	}
	refRows, liveRows := hintedRows(t, ref.NBFile()), hintedRows(t, live.File("nb"))
	rowsOf := func(hints map[string]string, rows map[string]string) map[string]string {
		out := make(map[string]string, len(hints))
		for l, h := range hints {
			out[l] = cmp.Or(rows[h], h)
		}
		return out
	}
	possible := o.StageHints()
	for _, hs := range possible {
		for i, h := range hs {
			hs[i] = cmp.Or(liveRows[h], h)
		}
	}
	return reference.CompareLiveHints(o.Stages, rowsOf(refHints, refRows), rowsOf(liveHints, liveRows), possible)
}

// uuidText matches an _uuid in a row's columns.
var uuidText = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// hintedRows maps the stage-hint of each row of the NB file at path (the
// first 8 hex digits of its _uuid) to what the row is in any NB that the
// same commands built: its table and name, or, in a table whose rows have
// no name, its columns without the _uuids of the rows they refer to.
func hintedRows(t testing.TB, path string) map[string]string {
	t.Helper()
	c, err := LoadNB(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for table, m := range c.All() {
		v := reflect.ValueOf(m).Elem()
		var uuid, name string
		var cols []string
		for i := range v.NumField() {
			col, f := v.Type().Field(i).Tag.Get("ovsdb"), v.Field(i)
			switch {
			case col == "_uuid":
				uuid = f.String()
			case col == "name" && f.Kind() == reflect.String:
				name = f.String()
			case f.Kind() == reflect.Pointer && f.IsNil():
				cols = append(cols, col+"=[]")
			default:
				cols = append(cols, fmt.Sprintf("%s=%v", col, reflect.Indirect(f)))
			}
		}
		row := table + " " + strconv.Quote(name)
		if name == "" {
			row = table + " {" + uuidText.ReplaceAllString(strings.Join(cols, " "), "*") + "}"
		}
		out[uuid[:8]] = row
	}
	return out
}

// bfdDisc matches a BFD row's disc, which 23.03 picks at random.
var bfdDisc = regexp.MustCompile(`\|disc=\d+`)

// nbCfg matches SB_Global's nb_cfg, a count of NB changes, which differs
// between the reference's NB and the live one, reset between scenarios.
var nbCfg = regexp.MustCompile(`\|nb_cfg=\d+`)

// dumpSB reads the SB at remote in one transaction.
func dumpSB(t testing.TB, remote string) *reference.SBDump {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := reference.DumpSB(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sbFlows is the canonical dump of d's flows.
func sbFlows(t testing.TB, d *reference.SBDump) []string {
	t.Helper()
	lines, err := d.Flows()
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// flowColumns is d's flows with their other columns, hintKeys left out.
func flowColumns(t testing.TB, d *reference.SBDump) []string {
	t.Helper()
	lines, err := d.FlowColumns(hintKeys...)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// ownedRows is the canonical dump of d's rows of tables, with ACL UUIDs in
// meter names written "*", and SB_Global's nb_cfg and BFD's disc left out.
func ownedRows(t testing.TB, d *reference.SBDump, tables []string) []string {
	t.Helper()
	lines, err := d.Rows(tables...)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		lines[i] = bfdDisc.ReplaceAllString(nbCfg.ReplaceAllString(aclMeterName.ReplaceAllString(l, `__*"`), ""), "")
	}
	slices.Sort(lines)
	return lines
}

// beside is the reference and a live northd on servers of its own, side
// by side, and the differential tests' scenarios to run on both.
type beside struct {
	ref       *reference.Instance
	live      *servers
	scenarios []reference.Scenario
	// options are the NB_Global options that resetNB restores on live:
	// those of a fresh NB, with the reference's random mac_prefix,
	// svc_monitor_mac and (26.03) svc_monitor_mac_dst, which show in flows.
	options map[string]string
}

// startBeside starts the reference 23.03, and servers with a live northd
// beside it, and loads the scenarios of rules/testdata/scenarios.
func startBeside(t *testing.T) *beside {
	t.Helper()
	return startBesideOf(t, reference.BuildOf(schema.OVN2303))
}

// startBesideOf is startBeside with build's ovn-northd, and build's
// servers and schemas on both sides.
func startBesideOf(t *testing.T, build *reference.Build) *beside {
	t.Helper()
	b := &beside{}
	var err error
	if b.scenarios, err = reference.LoadScenariosFor("../rules/testdata/scenarios", build.Release()); err != nil {
		t.Fatal(err)
	}
	b.ref, b.live, _ = startWithReferenceOf(t, build)
	b.options = optionsLike(t, b.live, b.ref)
	return b
}

// optionsLike is the NB_Global options of live's fresh NB with the
// reference's random mac_prefix, svc_monitor_mac and (26.03)
// svc_monitor_mac_dst, which show in flows: what resetNB restores for the
// two SBs to be comparable.
func optionsLike(t testing.TB, live *servers, ref *reference.Instance) map[string]string {
	t.Helper()
	options := nbOptions(t, live.NBRemote())
	refOptions := nbOptions(t, ref.NBRemote())
	for _, k := range []string{"mac_prefix", "svc_monitor_mac", "svc_monitor_mac_dst"} {
		if v, ok := refOptions[k]; ok {
			options[k] = v
		}
	}
	return options
}

// run runs script on the reference and, meanwhile, on the live servers
// (their NB reset first), and returns the reference's flows once both have
// synced.
func (b *beside) run(t *testing.T, script string) []string {
	t.Helper()
	var want []string
	var refErr error
	refDone := make(chan struct{})
	go func() {
		defer close(refDone)
		want, refErr = b.ref.Run(t.Context(), script)
	}()
	b.live.t = t
	b.live.resetNB(b.options)
	b.live.resetChassis()
	// Synced before the script, as the reference's reset is: else the reset
	// and the script may come in one iteration, and a flow the two NBs both
	// give keeps its SB row and the stage-hint of the deleted NB row (both
	// northds find flows again by their text alone).
	b.live.sync()
	b.live.script(script)
	b.live.sync()
	<-refDone
	if refErr != nil {
		t.Fatal(refErr)
	}
	return want
}

// startWithReference starts a reference ovn-northd 23.03 on its own NB and
// SB, and live servers with northlog's northd (opts apply to its Config),
// synced once.
func startWithReference(t *testing.T, opts ...func(*Config)) (*reference.Instance, *servers, *liveNorthd) {
	t.Helper()
	return startWithReferenceOf(t, reference.BuildOf(schema.OVN2303), opts...)
}

// startWithReferenceOf is startWithReference with build's ovn-northd, and
// build's servers and schemas on both sides.
func startWithReferenceOf(t *testing.T, build *reference.Build, opts ...func(*Config)) (*reference.Instance, *servers, *liveNorthd) {
	t.Helper()
	ref := build.Start(t)
	s := startServersOf(t, build)
	l := runNorthd(t, s, opts...)
	s.sync()
	return ref, s, l
}

// applyBoth runs script on the reference and on the live servers s, and
// waits until both northds have written the SB.
func applyBoth(t testing.TB, ref *reference.Instance, s *servers, script string) {
	t.Helper()
	if err := ref.Apply(t.Context(), script); err != nil {
		t.Fatal(err)
	}
	s.script(script)
	s.sync()
}

// rowDiff lists a comparison's missing lines ("- ") then its extra lines
// ("+ "), one per line.
func rowDiff(r reference.Report) string {
	lines := make([]string, 0, len(r.MissingLines)+len(r.ExtraLines))
	for _, l := range r.MissingLines {
		lines = append(lines, "- "+l)
	}
	for _, l := range r.ExtraLines {
		lines = append(lines, "+ "+l)
	}
	return strings.Join(lines, "\n")
}

func TestLiveSmoke(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	runNorthd(t, s)
	s.script(`ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.1"
ovn-nbctl lr-add lr0 -- lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.254/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
ovn-nbctl ls-add sw1 -- lsp-add sw1 p2`)
	s.sync()
	got, want := dumpFlows(t, s.SBRemote()), offlineFlows(t, s)
	if r := reference.Compare(want, got); !r.Equal() {
		t.Fatalf("live differs from offline:\n%s", r)
	}
	t.Logf("%d flows; SB rows:\n%s", len(got), strings.Join(sbRows(t, s.SBRemote(), true), "\n"))
}

// TestLiveTakeOver: the real ovn-northd writes the SB for each scenario and
// is killed; northlog takes the SB over and must leave every Logical_Flow
// row (same UUIDs) and every other row it owns as it was, tunnel keys
// included, for the scenarios whose flows it reproduces. Then the real
// ovn-northd takes the SB back from northlog for the next scenario.
func TestLiveTakeOver(t *testing.T) {
	t.Parallel()
	scenarios, err := reference.LoadScenariosFor("../rules/testdata/scenarios", schema.OVN2303)
	if err != nil {
		t.Fatal(err)
	}
	s := startServers(t)
	s.start("northd")
	s.sync()
	options := nbOptions(t, s.NBRemote())
	taken := 0
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			s.t = t
			if s.procs["northd"] == nil {
				s.start("northd")
			}
			s.resetNB(options)
			s.resetChassis()
			s.script(sc.Script)
			s.sync()
			flows := dumpFlows(t, s.SBRemote())
			if !reference.Compare(flows, offlineFlows(t, s)).Equal() {
				t.Skip("rules do not reproduce the reference yet")
			}
			uuids, rows := flowUUIDs(t, s.SBRemote()), append(sbRows(t, s.SBRemote(), true), dumpSetRows(t, s.SBRemote())...)
			s.kill("northd")
			l := runNorthd(t, s)
			s.sync()
			l.stop()
			taken++
			if got := l.Totals(); len(got) > 1 || got[sb.SBGlobalTable] != [3]int{0, 1, 0} {
				t.Errorf("northlog wrote more than SB_Global's nb_cfg (+insert ~update -delete): %v", got)
			}
			if got := flowUUIDs(t, s.SBRemote()); !maps.Equal(got, uuids) {
				t.Errorf("Logical_Flow rows changed: %d before, %d after", len(uuids), len(got))
			}
			if r := reference.Compare(rows, append(sbRows(t, s.SBRemote(), true), dumpSetRows(t, s.SBRemote())...)); !r.Equal() {
				t.Errorf("SB rows changed:\n%s", rowDiff(r))
			}
		})
	}
	t.Logf("%d of %d scenarios taken over", taken, len(scenarios))
}

// TestLiveColdStartFill: a cold start that fills an SB without flows, its
// transaction written as it is made and the monitor of the empty tables
// paused around it (Northd.streamFill), leaves the SB and the switch
// ports' up as the reference does, inserts each flow once, and takes the
// next change incrementally against the rows that came back when the
// monitor resumed.
// fillScript is four switches of 150 ports on a router: a few thousand
// flows, more than fillMin, and more switch ports than portsWithGlobal, so
// that a cold start on it fills the SB with its monitor paused.
func fillScript() string {
	var lines []string
	lines = append(lines, "ovn-nbctl lr-add lr0")
	for sw := range 4 {
		cmd := fmt.Sprintf("ovn-nbctl ls-add sw%d -- lrp-add lr0 lrp%d 00:00:00:00:ff:%02x 10.%d.255.254/16"+
			" -- lsp-add sw%d sw%d-lr0 -- lsp-set-type sw%d-lr0 router -- lsp-set-addresses sw%d-lr0 router"+
			" -- lsp-set-options sw%d-lr0 router-port=lrp%d", sw, sw, sw, sw, sw, sw, sw, sw, sw, sw)
		for p := range 150 {
			port, addr := fmt.Sprintf("sw%d-p%d", sw, p), fmt.Sprintf("0a:00:00:%02x:00:%02x 10.%d.0.%d", sw, p, sw, p+1)
			cmd += fmt.Sprintf(" -- lsp-add sw%d %s -- lsp-set-addresses %s %q -- lsp-set-port-security %s %q", sw, port, port, addr, port, addr)
		}
		lines = append(lines, cmd)
	}
	return strings.Join(lines, "\n")
}

func TestLiveColdStartFill(t *testing.T) {
	t.Parallel()
	ref := reference.Start(t)
	s := startServers(t)
	script := fillScript()
	if err := ref.Apply(t.Context(), script); err != nil {
		t.Fatal(err)
	}
	s.script(script)
	var logs logBuffer
	l := runNorthd(t, s, withLog(&logs))
	s.sync()
	if !strings.Contains(logs.String(), "filling an SB without flows") {
		t.Fatalf("the cold start paused no SB monitor; log:\n%s", logs.String())
	}
	check := func(when string) {
		t.Helper()
		want, err := ref.Flows(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if r := reference.Compare(want, dumpFlows(t, s.SBRemote())); !r.Equal() {
			t.Fatalf("%s: SB flows differ from the reference's:\n%s", when, r)
		}
		if r := reference.Compare(sbRows(t, ref.SBRemote(), false), sbRows(t, s.SBRemote(), false)); !r.Equal() {
			t.Fatalf("%s: SB rows differ from the reference's (- reference, + northlog):\n%s", when, rowDiff(r))
		}
		if want, got := portsUp(s, ref.NBRemote()), portsUp(s, s.NBRemote()); !slices.Equal(want, got) {
			t.Errorf("%s: switch ports' up differ from the reference's (- reference, + northlog):\n%s", when, rowDiff(reference.Compare(want, got)))
		}
		lf := l.Totals()[sb.LogicalFlowTable]
		if rows := len(flowUUIDs(t, s.SBRemote())); lf[0]-lf[2] != rows {
			t.Errorf("%s: %d Logical_Flow rows inserted and %d deleted for %d rows", when, lf[0], lf[2], rows)
		}
	}
	check("cold start")
	applyBoth(t, ref, s, "ovn-nbctl ls-del sw1")
	check("after ls-del")
}

// TestLiveExitDuringColdStart stops the northd while it fills an SB
// with its monitor paused, at several points of the write: ovn-northd
// exits without a warning, and so must northlog, whose transaction and
// monitor resumption are cut short by the cancelled context.
func TestLiveExitDuringColdStart(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	s.script(fillScript())
	for _, delay := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond} {
		s.run("ovsdb-client", "transact", s.SBRemote(), `["OVN_Southbound",{"op":"delete","table":"Logical_Flow","where":[]}]`)
		var logs logBuffer
		l := runNorthd(t, s, withLog(&logs))
		waitFor(t, "the fill to start", func() bool { return strings.Contains(logs.String(), "filling an SB without flows") })
		time.Sleep(delay)
		l.stop()
		for line := range strings.Lines(logs.String()) {
			if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
				t.Errorf("stopped %v into the fill, northlog logged:\n%s", delay, line)
			}
		}
	}
}

// portsUp lists the NB's switch ports with their up column, sorted, as
// "name,up" lines.
func portsUp(s *servers, remote string) []string {
	s.t.Helper()
	out := s.run("ovn-nbctl", "--db="+remote, "--format=csv", "--data=bare", "--no-headings", "--columns=name,up", "list", "Logical_Switch_Port")
	return slices.Sorted(slices.Values(strings.Fields(out)))
}

// liveSnapshot is what the SB holds after a sync: canonical flows, and the
// other rows northd owns with their tunnel keys.
type liveSnapshot struct{ flows, rows []string }

func snapshot(t testing.TB, s *servers) liveSnapshot {
	t.Helper()
	return liveSnapshot{dumpFlows(t, s.SBRemote()), sbRows(t, s.SBRemote(), true)}
}

// checkSB requires the SB's flows to be the offline ones and its rows to
// keep the tunnel keys they had in prev.
func checkSB(t testing.TB, s *servers, prev liveSnapshot) liveSnapshot {
	t.Helper()
	now := snapshot(t, s)
	if r := reference.Compare(offlineFlows(t, s), now.flows); !r.Equal() {
		t.Fatalf("SB flows differ from northlog offline:\n%s", r)
	}
	// A datapath or port still there has the same tunnel key.
	keys := func(lines []string) map[string]string {
		m := map[string]string{}
		for _, l := range lines {
			switch f := strings.Split(l, "|"); f[0] {
			case "Datapath_Binding":
				m[f[1]] = f[2]
			case "Port_Binding":
				m[f[1]+"|"+f[2]] = f[3]
			}
		}
		return m
	}
	old := keys(prev.rows)
	for name, key := range keys(now.rows) {
		if o, ok := old[name]; ok && o != key {
			t.Errorf("%s: tunnel key %s, was %s", name, key, o)
		}
	}
	return now
}

// waitSB polls until the SB's flows are want, or fails after 10 s.
func waitSB(t testing.TB, s *servers, want []string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := dumpFlows(t, s.SBRemote())
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("SB not repaired:\n%s", reference.Compare(want, got))
		}
	}
}

// TestLiveFaults: northlog killed while NB changes stream in and started
// again; the SB server killed and restarted while the NB changes; a flow
// deleted, a stray flow inserted and a port binding changed behind
// northlog's back. Each ends with the SB holding exactly the flows
// computed offline and every surviving row its tunnel key.
func TestLiveFaults(t *testing.T) {
	t.Parallel()
	top := t
	s := startServers(t)
	l := runNorthd(t, s)
	s.script(reference.RandomTopology(7, reference.TopologyOptions{Switches: 6, PortsPerSwitch: 8, Routers: 2, RouterPorts: 4}))
	s.sync()
	snap := checkSB(t, s, snapshot(t, s))

	t.Run("kill", func(t *testing.T) {
		s.t = t
		var stream []string
		for i := range 30 {
			stream = append(stream, fmt.Sprintf("ovn-nbctl lsp-add sw1 extra%d -- lsp-set-addresses extra%d \"0a:00:00:01:00:%02x 10.1.99.%d\"", i, i, i, i+1))
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.script(strings.Join(stream, "\n"))
		}()
		time.Sleep(100 * time.Millisecond)
		l.stop()
		<-done
		l = runNorthd(top, s)
		s.sync()
		snap = checkSB(t, s, snap)
	})

	t.Run("sb-restart", func(t *testing.T) {
		s.t = t
		s.kill("sb")
		s.script("ovn-nbctl lsp-del extra3 -- lsp-add sw1 extra-new -- lsp-set-addresses extra-new \"0a:00:00:01:01:01 10.1.98.1\"")
		s.start("sb")
		s.sync()
		snap = checkSB(t, s, snap)
	})

	t.Run("nb-restart", func(t *testing.T) {
		s.t = t
		s.kill("nb")
		s.start("nb")
		s.script("ovn-nbctl lsp-del extra4")
		s.sync()
		snap = checkSB(t, s, snap)
	})

	t.Run("tamper", func(t *testing.T) {
		s.t = t
		rows := readSB(t, s.SBRemote())
		var victim string
		for u, f := range rows[sb.LogicalFlowTable] {
			if f.(*sb.LogicalFlow).LogicalDatapath != nil {
				victim = u
				break
			}
		}
		var dp, port string
		for u := range rows[sb.DatapathBindingTable] {
			dp = u
		}
		for _, p := range rows[sb.PortBindingTable] {
			port = p.(*sb.PortBinding).LogicalPort
		}
		s.run("ovn-sbctl", "destroy", "Logical_Flow", victim)
		s.run("ovn-sbctl", "create", "Logical_Flow", "logical_datapath="+dp, "pipeline=ingress",
			"table_id=3", "priority=1234", "match=\"stray\"", "actions=\"drop;\"")
		s.run("ovn-sbctl", "set", "Port_Binding", port, "options:stray=1", "mac=stray")
		waitSB(t, s, snap.flows)
		s.sync()
		snap = checkSB(t, s, snap)
		if r := reference.Compare(snap.rows, sbRows(t, s.SBRemote(), true)); !r.Equal() {
			t.Errorf("SB rows not repaired:\n%s", r)
		}
	})
}

// TestLiveChassis: what northd reads from ovn-controller's rows. A port
// bound to a chassis is up; with port-up-notif, up follows the binding's
// up. options:requested-chassis names the Chassis row in requested_chassis.
// Requested tunnel keys are honoured. `ovn-nbctl --wait=hv` returns once
// every chassis has caught up with nb_cfg.
func TestLiveChassis(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	runNorthd(t, s)
	s.script(`ovn-nbctl ls-add sw0 -- set Logical_Switch sw0 other_config:requested-tnl-key=100
ovn-nbctl lsp-add sw0 p1 -- lsp-set-options p1 requested-chassis=hv1 requested-tnl-key=7
ovn-nbctl lsp-add sw0 p2
ovn-sbctl chassis-add hv1 geneve 192.0.2.1
ovn-sbctl chassis-add hv2 geneve 192.0.2.2 -- set Chassis hv2 other_config:port-up-notif=true
for hv in hv1 hv2; do ovn-sbctl create Chassis_Private name=$hv chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=$hv); done`)
	s.sync()
	rows := readSB(t, s.SBRemote())
	var hv1 string
	for u, ch := range rows[sb.ChassisTable] {
		if ch.(*sb.Chassis).Name == "hv1" {
			hv1 = u
		}
	}
	for _, m := range rows[sb.PortBindingTable] {
		if pb := m.(*sb.PortBinding); pb.LogicalPort == "p1" && (deref(pb.RequestedChassis) != hv1 || pb.TunnelKey != 7) {
			t.Errorf("p1: requested_chassis %v, tunnel key %d; want %s, 7", deref(pb.RequestedChassis), pb.TunnelKey, hv1)
		}
	}
	for _, m := range rows[sb.DatapathBindingTable] {
		if dp := m.(*sb.DatapathBinding); dp.TunnelKey != 100 {
			t.Errorf("sw0 tunnel key %d, want 100", dp.TunnelKey)
		}
	}
	up := func(port string) string {
		t.Helper()
		return strings.TrimSpace(s.run("ovn-nbctl", "get", "Logical_Switch_Port", port, "up"))
	}
	waitUp := func(port, want string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); up(port) != want; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: up is %s, want %s", port, up(port), want)
			}
		}
	}
	waitUp("p1", "false")
	s.run("ovn-sbctl", "lsp-bind", "p1", "hv1")
	waitUp("p1", "true")
	s.run("ovn-sbctl", "lsp-bind", "p2", "hv2")
	s.run("ovn-sbctl", "set", "Port_Binding", "p2", "up=false")
	s.sync()
	waitUp("p2", "false")
	s.run("ovn-sbctl", "set", "Port_Binding", "p2", "up=true")
	waitUp("p2", "true")

	// --wait=hv waits for both chassis' Chassis_Private nb_cfg.
	sbCfg := func() string { return strings.TrimSpace(s.run("ovn-sbctl", "get", "SB_Global", ".", "nb_cfg")) }
	before := sbCfg()
	done := make(chan error, 1)
	go func() {
		_, err := s.try("ovn-nbctl", "--timeout=20", "--wait=hv", "sync")
		done <- err
	}()
	var cfg string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if cfg = sbCfg(); cfg != before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("SB_Global nb_cfg not set")
		}
	}
	s.run("ovn-sbctl", "set", "Chassis_Private", "hv1", "nb_cfg="+cfg)
	select {
	case err := <-done:
		t.Fatalf("--wait=hv returned before hv2 caught up (%v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	s.run("ovn-sbctl", "set", "Chassis_Private", "hv2", "nb_cfg="+cfg)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestLiveGroupMembers: changes that move a port into or out of the fixed
// multicast groups, or replace its Port_Binding row (a type change to
// virtual, a new parent), leave the same SB rows as the reference after
// each step; the live northd mutates the groups by the members that
// changed.
func TestLiveGroupMembers(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReference(t)
	for _, step := range []string{
		`ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2 -- lsp-add sw0 p3 -- lsp-set-addresses p2 unknown`,
		`ovn-nbctl lsp-set-type p1 virtual -- lsp-set-options p1 virtual-ip=10.0.0.10 virtual-parents=p3`,
		`ovn-nbctl set Logical_Switch_Port p3 parent_name=p2 tag_request=5`,
		`ovn-nbctl lsp-set-enabled p2 disabled -- lsp-set-options p3 mcast_flood=true`,
		`ovn-nbctl lsp-set-enabled p2 enabled -- lsp-set-addresses p3 unknown`,
		`ovn-nbctl lsp-set-type p1 "" -- lsp-del p3 -- lsp-add sw0 p4`,
		`ovn-nbctl lsp-del p1 -- lsp-del p2 -- lsp-del p4`,
	} {
		applyBoth(t, ref, s, step)
		if r := reference.Compare(sbRows(t, ref.SBRemote(), false), sbRows(t, s.SBRemote(), false)); !r.Equal() {
			t.Fatalf("after %s\nSB rows differ from the reference's (- reference, + northlog):\n%s", step,
				rowDiff(r))
		}
	}
}

// TestLiveLSPUp: with options:ignore_lsp_down=false the ARP/ND responder
// answers for the switch ports that are up only. northd writes a port's up
// from its binding, and writes it back when someone else sets it; after
// each step (and the write-back's own step: a second sync), the flows are
// the reference's.
func TestLiveLSPUp(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReference(t)
	for _, step := range []string{
		`ovn-nbctl set NB_Global . options:ignore_lsp_down=false -- ls-add sw0 -- lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.1"
ovn-sbctl chassis-add hv1 geneve 192.0.2.1`,
		`ovn-sbctl lsp-bind p1 hv1`,
		`ovn-nbctl set Logical_Switch_Port p1 up=false`,
		`ovn-sbctl lsp-unbind p1`,
		`ovn-nbctl set Logical_Switch_Port p1 up=true`,
		`ovn-nbctl set NB_Global . options:ignore_lsp_down=true`,
	} {
		applyBoth(t, ref, s, step)
		if err := ref.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
		s.sync()
		if r := reference.Compare(dumpFlows(t, ref.SBRemote()), dumpFlows(t, s.SBRemote())); !r.Equal() {
			t.Fatalf("after %s\nflows differ from the reference's:\n%s", step, r)
		}
	}
}
