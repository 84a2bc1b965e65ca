package embedded

import (
	"fmt"
	"github.com/northlog/northlog/relations/schema"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations/sb"
)

// refServers is a pair of stock ovsdb-servers.
type refServers struct{ dir string }

func (r refServers) NBRemote() string { return "unix:" + filepath.Join(r.dir, "nb.sock") }
func (r refServers) SBRemote() string { return "unix:" + filepath.Join(r.dir, "sb.sock") }

// daemon runs a stock daemon in the foreground for the rest of the test.
func daemon(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OVS_RUNDIR="+dir, "OVN_RUNDIR="+dir, "OVS_LOGDIR="+dir, "OVN_LOGDIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
}

// startRefServers runs stock ovsdb-servers with empty NB and SB databases
// made from the newest release's schemas, which the Go client fits.
func startRefServers(t *testing.T) refServers {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []struct {
		name   string
		schema []byte
	}{{"nb", schema.Newest.NB()}, {"sb", schema.Newest.SB()}} {
		schemaFile := filepath.Join(dir, d.name+".ovsschema")
		if err := os.WriteFile(schemaFile, d.schema, 0o644); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(dir, d.name+".db")
		if out, err := exec.Command("ovsdb-tool", "create", db, schemaFile).CombinedOutput(); err != nil {
			t.Fatalf("ovsdb-tool create: %v\n%s", err, out)
		}
		daemon(t, dir, "ovsdb-server", "--no-chdir", "--remote=punix:"+filepath.Join(dir, d.name+".sock"),
			"--unixctl="+filepath.Join(dir, d.name+".ctl"), "--log-file="+filepath.Join(dir, d.name+".log"), db)
	}
	ref := refServers{dir}
	for _, sock := range []string{"nb.sock", "sb.sock"} {
		eventually(t, "ovsdb-server socket "+sock, func() bool {
			_, err := os.Stat(filepath.Join(dir, sock))
			return err == nil
		})
	}
	return ref
}

// startNorthd runs the stock ovn-northd on a pair of databases.
func startNorthd(t *testing.T, dbs remotes) {
	t.Helper()
	dir := t.TempDir()
	daemon(t, dir, "ovn-northd", "--no-chdir", "--ovnnb-db="+dbs.NBRemote(), "--ovnsb-db="+dbs.SBRemote(),
		"--unixctl="+filepath.Join(dir, "northd.ctl"), "--log-file="+filepath.Join(dir, "northd.log"))
}

// canonicalFlows is the SB's logical flows, one line each, sorted:
// DATAPATH|PIPELINE|TABLE|PRIORITY|MATCH|ACTIONS, with datapaths named by
// their external_ids:name and datapath groups expanded.
func canonicalFlows(t *testing.T, remote string) []string {
	t.Helper()
	g := goClient(t, sb.FullDatabaseModel, remote)
	names := map[string]string{}
	for _, dp := range rows[sb.DatapathBinding](t, g) {
		names[dp.UUID] = dp.ExternalIDs["name"]
	}
	groups := map[string][]string{}
	for _, grp := range rows[sb.LogicalDPGroup](t, g) {
		groups[grp.UUID] = grp.Datapaths
	}
	var lines []string
	for _, f := range rows[sb.LogicalFlow](t, g) {
		var dps []string
		if f.LogicalDatapath != nil {
			dps = append(dps, *f.LogicalDatapath)
		}
		if f.LogicalDpGroup != nil {
			dps = append(dps, groups[*f.LogicalDpGroup]...)
		}
		for _, dp := range dps {
			lines = append(lines, strings.Join([]string{names[dp], f.Pipeline, fmt.Sprint(f.TableID), fmt.Sprint(f.Priority), f.Match, f.Actions}, "|"))
		}
	}
	slices.Sort(lines)
	return lines
}

// TestStockNorthdSameFlows runs the stock ovn-northd on the embedded servers
// and on stock ovsdb-servers, feeds both the same NB changes with ovn-nbctl,
// and expects the same logical flows: the embedded servers serve a real
// northd (monitor_cond_since, the SB lock, nb_cfg through --wait=sb, weak
// references and datapath groups) the way ovsdb-server does.
func TestStockNorthdSameFlows(t *testing.T) {
	requireTools(t, "ovsdb-tool", "ovsdb-server", "ovn-northd", "ovn-nbctl")
	emb := startServersOf(t, schema.Newest)
	ref := startRefServers(t)
	script := [][]string{
		{"ls-add", "sw0"},
		{"lsp-add", "sw0", "p1", "--", "lsp-set-addresses", "p1", "00:00:00:00:00:01 10.0.0.1"},
		{"lsp-add", "sw0", "p2", "--", "lsp-set-addresses", "p2", "00:00:00:00:00:02 10.0.0.2",
			"--", "lsp-set-port-security", "p2", "00:00:00:00:00:02 10.0.0.2"},
		{"lr-add", "r0"},
		{"lrp-add", "r0", "rp0", "00:00:00:00:00:ff", "10.0.0.254/24"},
		{"lrp-add", "r0", "rp1", "00:00:00:00:01:ff", "192.168.0.1/24"},
		{"lsp-add", "sw0", "sw0-rp0", "--", "lsp-set-type", "sw0-rp0", "router", "--", "lsp-set-addresses", "sw0-rp0", "router",
			"--", "lsp-set-options", "sw0-rp0", "router-port=rp0"},
		{"ls-add", "sw1"},
		{"lsp-add", "sw1", "q1", "--", "lsp-set-addresses", "q1", "00:00:00:00:01:01 192.168.0.10"},
		{"acl-add", "sw0", "to-lport", "1000", "ip4 && tcp.dst == 80", "allow-related"},
		{"acl-add", "sw0", "from-lport", "900", "ip4", "drop"},
		{"lb-add", "lb0", "10.0.0.10:80", "10.0.0.1:80,10.0.0.2:80", "tcp"},
		{"ls-lb-add", "sw0", "lb0"},
		{"lr-nat-add", "r0", "snat", "192.168.0.1", "10.0.0.0/24"},
		{"lr-route-add", "r0", "0.0.0.0/0", "192.168.0.254"},
		{"pg-add", "pg0", "p1", "p2"},
		{"acl-add", "pg0", "to-lport", "1001", "outport == @pg0 && ip4.src == $pg0_ip4", "allow"},
		{"lsp-del", "p2"},
		{"ls-add", "sw2"},
		{"ls-del", "sw2"},
	}
	var flows [2][]string
	for i, dbs := range []remotes{emb, ref} {
		startNorthd(t, dbs)
		for _, cmd := range script {
			tool(t, dbs, "ovn-nbctl", cmd...)
		}
		tool(t, dbs, "ovn-nbctl", "--timeout=30", "--wait=sb", "sync")
		flows[i] = canonicalFlows(t, dbs.SBRemote())
	}
	if len(flows[1]) < 100 {
		t.Fatalf("stock northd wrote only %d flows on stock ovsdb-servers", len(flows[1]))
	}
	t.Logf("%d flows", len(flows[1]))
	if diff := cmp.Diff(flows[1], flows[0]); diff != "" {
		t.Errorf("flows on embedded servers (+) differ from those on ovsdb-server (-):\n%s", diff)
	}
}

// TestStockNorthdFollowsChanges checks that a stock northd keeps up with the
// embedded servers after its first computation: each NB change shows in the
// SB once ovn-nbctl --wait=sb returns.
func TestStockNorthdFollowsChanges(t *testing.T) {
	requireTools(t, "ovn-northd", "ovn-nbctl", "ovn-sbctl", "ovn-trace")
	s := startServers(t)
	startNorthd(t, s)
	wait := func(args ...string) {
		tool(t, s, "ovn-nbctl", append([]string{"--timeout=30", "--wait=sb"}, args...)...)
	}
	wait("ls-add", "sw0")
	wait("lsp-add", "sw0", "p1", "--", "lsp-set-addresses", "p1", "00:00:00:00:00:01 10.0.0.1")
	wait("lsp-add", "sw0", "p2", "--", "lsp-set-addresses", "p2", "00:00:00:00:00:02 10.0.0.2")
	out := tool(t, s, "ovn-sbctl", "lflow-list", "sw0")
	mustContain(t, "lflow-list", out, `inport == "p1"`, `eth.dst == 00:00:00:00:00:01`)
	mustContain(t, "ovn-trace", tool(t, s, "ovn-trace", "--minimal", "sw0",
		`inport == "p1" && eth.src == 00:00:00:00:00:01 && eth.dst == 00:00:00:00:00:02`), `output("p2");`)
	mustContain(t, "ovn-sbctl find Port_Binding", tool(t, s, "ovn-sbctl", "--columns=logical_port", "find", "Port_Binding"), "p1")
	wait("lsp-del", "p1")
	if out := tool(t, s, "ovn-sbctl", "lflow-list", "sw0"); strings.Contains(out, `"p1"`) {
		t.Errorf("flows of p1 remain after lsp-del:\n%s", out)
	}
	start := time.Now()
	wait("ls-del", "sw0")
	if out := tool(t, s, "ovn-sbctl", "list", "Datapath_Binding"); strings.TrimSpace(out) != "" {
		t.Errorf("Datapath_Binding after ls-del:\n%s", out)
	}
	t.Logf("ls-del round trip through northd: %v", time.Since(start))
}
