package embedded

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/ovn-org/libovsdb/client"
	"github.com/ovn-org/libovsdb/model"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// requireTools skips the test when a stock OVN/OVS tool is missing, except in
// CI, which installs them.
func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed; CI must run: apt-get install -y ovn-central", tool)
			}
			t.Skipf("%s is not installed; to run this test: apt-get install -y ovn-central", tool)
		}
	}
}

// remotes are the addresses of an NB and an SB database.
type remotes interface {
	NBRemote() string
	SBRemote() string
}

// runTool runs a stock tool against the databases and returns its output,
// or an error when it does not exit 0 within 30 seconds.
func runTool(s remotes, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "OVN_NB_DB="+s.NBRemote(), "OVN_SB_DB="+s.SBRemote())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// tool is runTool for a command that must succeed.
func tool(t *testing.T, s remotes, name string, args ...string) string {
	t.Helper()
	out, err := runTool(s, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// goClient connects a libovsdb client that monitors every table.
func goClient(t *testing.T, dbModel func() (model.ClientDBModel, error), remote string) client.Client {
	t.Helper()
	m, err := dbModel()
	if err != nil {
		t.Fatal(err)
	}
	discard := logr.Discard()
	c, err := client.NewOVSDBClient(m, client.WithEndpoint(remote), client.WithLogger(&discard))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if _, err := c.MonitorAll(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// eventually waits until cond holds, or fails the test.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// rows lists a table from a libovsdb client's cache.
func rows[T any](t *testing.T, c client.Client) []T {
	t.Helper()
	var out []T
	if err := c.List(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// find is the row of a table whose key is name, if any.
func find[T any](t *testing.T, c client.Client, key func(T) string, name string) (T, bool) {
	t.Helper()
	for _, r := range rows[T](t, c) {
		if key(r) == name {
			return r, true
		}
	}
	var zero T
	return zero, false
}

// transact runs ops through a libovsdb client; they must all succeed.
func transact(t *testing.T, c client.Client, ops []ovsdb.Operation) []ovsdb.OperationResult {
	t.Helper()
	res, err := c.Transact(context.Background(), ops...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ovsdb.CheckOperationResults(res, ops); err != nil {
		t.Fatal(err)
	}
	return res
}

func mustContain(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
}

func lsName(r nb.LogicalSwitch) string      { return r.Name }
func lspName(r nb.LogicalSwitchPort) string { return r.Name }
func lrName(r nb.LogicalRouter) string      { return r.Name }
func lrpName(r nb.LogicalRouterPort) string { return r.Name }
func lbName(r nb.LoadBalancer) string       { return r.Name }
func aclMatch(r nb.ACL) string              { return r.Match }

func TestStockNBTools(t *testing.T) {
	requireTools(t, "ovn-nbctl", "ovsdb-client")
	s := startServersOf(t, schema.Newest)
	g := goClient(t, nb.FullDatabaseModel, s.NBRemote())

	tool(t, s, "ovn-nbctl", "ls-add", "sw0")
	eventually(t, "sw0 in the Go client", func() bool { _, ok := find(t, g, lsName, "sw0"); return ok })

	tool(t, s, "ovn-nbctl", "lsp-add", "sw0", "p1")
	tool(t, s, "ovn-nbctl", "lsp-set-addresses", "p1", "00:00:00:00:00:01 10.0.0.1")
	var p1 nb.LogicalSwitchPort
	eventually(t, "p1 with its address", func() bool {
		var ok bool
		p1, ok = find(t, g, lspName, "p1")
		return ok && slices.Equal(p1.Addresses, []string{"00:00:00:00:00:01 10.0.0.1"})
	})
	eventually(t, "sw0 owning p1", func() bool {
		sw, _ := find(t, g, lsName, "sw0")
		return slices.Equal(sw.Ports, []string{p1.UUID})
	})

	tool(t, s, "ovn-nbctl", "lr-add", "r0")
	tool(t, s, "ovn-nbctl", "lrp-add", "r0", "rp0", "00:00:00:00:00:ff", "10.0.0.254/24")
	tool(t, s, "ovn-nbctl", "lsp-add", "sw0", "sw0-rp0", "--", "lsp-set-type", "sw0-rp0", "router",
		"--", "lsp-set-addresses", "sw0-rp0", "router", "--", "lsp-set-options", "sw0-rp0", "router-port=rp0")
	tool(t, s, "ovn-nbctl", "acl-add", "sw0", "to-lport", "1000", "ip4 && tcp.dst == 80", "allow-related")
	tool(t, s, "ovn-nbctl", "lb-add", "lb0", "10.0.0.10:80", "10.0.0.1:80,10.0.0.2:80", "tcp")
	tool(t, s, "ovn-nbctl", "ls-lb-add", "sw0", "lb0")
	eventually(t, "router, ACL and load balancer", func() bool {
		r0, ok := find(t, g, lrName, "r0")
		rp0, _ := find(t, g, lrpName, "rp0")
		lb0, _ := find(t, g, lbName, "lb0")
		acl, aclOK := find(t, g, aclMatch, "ip4 && tcp.dst == 80")
		sw, _ := find(t, g, lsName, "sw0")
		return ok && slices.Equal(r0.Ports, []string{rp0.UUID}) &&
			slices.Equal(rp0.Networks, []string{"10.0.0.254/24"}) &&
			aclOK && acl.Action == "allow-related" && acl.Priority == 1000 &&
			lb0.Vips["10.0.0.10:80"] == "10.0.0.1:80,10.0.0.2:80" &&
			slices.Equal(sw.ACLs, []string{acl.UUID}) && slices.Equal(sw.LoadBalancer, []string{lb0.UUID}) &&
			len(sw.Ports) == 2
	})

	mustContain(t, "ovn-nbctl show", tool(t, s, "ovn-nbctl", "show"),
		"(sw0)", "port p1", `addresses: ["00:00:00:00:00:01 10.0.0.1"]`, "router-port: rp0",
		"(r0)", "port rp0", `networks: ["10.0.0.254/24"]`)
	mustContain(t, "ovn-nbctl list Logical_Switch", tool(t, s, "ovn-nbctl", "list", "Logical_Switch"),
		"name                : sw0", p1.UUID)
	mustContain(t, "ovn-nbctl acl-list", tool(t, s, "ovn-nbctl", "acl-list", "sw0"),
		"to-lport  1000 (ip4 && tcp.dst == 80) allow-related")
	mustContain(t, "ovn-nbctl lb-list", tool(t, s, "ovn-nbctl", "lb-list"), "10.0.0.10:80", "10.0.0.1:80,10.0.0.2:80")
	mustContain(t, "ovsdb-client dump", tool(t, s, "ovsdb-client", "dump", s.NBRemote(), "OVN_Northbound", "Logical_Switch_Port"),
		p1.UUID, `["00:00:00:00:00:01 10.0.0.1"]`, "sw0-rp0")

	// Go client writes reach the stock tools.
	sw0, _ := find(t, g, lsName, "sw0")
	ops, err := g.Create(&nb.LogicalSwitch{Name: "sw1"})
	if err != nil {
		t.Fatal(err)
	}
	sw0.OtherConfig = map[string]string{"from": "go"}
	upd, err := g.Where(&sw0).Update(&sw0, &sw0.OtherConfig)
	if err != nil {
		t.Fatal(err)
	}
	transact(t, g, append(ops, upd...))
	mustContain(t, "ovn-nbctl ls-list", tool(t, s, "ovn-nbctl", "ls-list"), "(sw0)", "(sw1)")
	if got := tool(t, s, "ovn-nbctl", "get", "Logical_Switch", "sw0", "other_config:from"); strings.TrimSpace(got) != "go" {
		t.Errorf("other_config:from = %q, want go", got)
	}

	// Map changes: one key added by nbctl, then the Go one removed.
	tool(t, s, "ovn-nbctl", "set", "Logical_Switch", "sw0", "other_config:mcast_snoop=true")
	tool(t, s, "ovn-nbctl", "remove", "Logical_Switch", "sw0", "other_config", "from")
	eventually(t, "other_config edits", func() bool {
		sw, _ := find(t, g, lsName, "sw0")
		return len(sw.OtherConfig) == 1 && sw.OtherConfig["mcast_snoop"] == "true"
	})

	// Deletes, and the garbage collection of rows nothing refers to.
	tool(t, s, "ovn-nbctl", "lsp-del", "p1")
	eventually(t, "p1 gone", func() bool {
		_, ok := find(t, g, lspName, "p1")
		sw, _ := find(t, g, lsName, "sw0")
		return !ok && len(sw.Ports) == 1
	})
	tool(t, s, "ovn-nbctl", "ls-del", "sw0")
	eventually(t, "sw0, its ports and ACLs gone", func() bool {
		_, ok := find(t, g, lsName, "sw0")
		return !ok && len(rows[nb.LogicalSwitchPort](t, g)) == 0 && len(rows[nb.ACL](t, g)) == 0
	})
	tool(t, s, "ovn-nbctl", "destroy", "Logical_Router", "r0")
	eventually(t, "r0 and rp0 gone", func() bool {
		return len(rows[nb.LogicalRouter](t, g)) == 0 && len(rows[nb.LogicalRouterPort](t, g)) == 0
	})
	if got := tool(t, s, "ovn-nbctl", "show"); strings.Contains(got, "sw0") || strings.Contains(got, "r0") {
		t.Errorf("ovn-nbctl show after deletes:\n%s", got)
	}
}

func TestStockSBTools(t *testing.T) {
	requireTools(t, "ovn-sbctl", "ovsdb-client")
	s := startServersOf(t, schema.Newest)
	g := goClient(t, sb.FullDatabaseModel, s.SBRemote())

	// What a northd writes, written by the Go client.
	dp := &sb.DatapathBinding{UUID: "dp", TunnelKey: 1, ExternalIDs: map[string]string{"name": "sw0"}}
	ops, err := g.Create(dp,
		&sb.LogicalFlow{LogicalDatapath: &dp.UUID, Pipeline: sb.LogicalFlowPipelineIngress, TableID: 0,
			Priority: 100, Match: "vlan.present", Actions: "drop;", ExternalIDs: map[string]string{"stage-name": "ls_in_check_port_sec"}})
	if err != nil {
		t.Fatal(err)
	}
	dpUUID := transact(t, g, ops)[0].UUID.GoUUID
	mustContain(t, "ovn-sbctl list Datapath_Binding", tool(t, s, "ovn-sbctl", "list", "Datapath_Binding"),
		dpUUID, "tunnel_key          : 1", `external_ids        : {name=sw0}`)
	mustContain(t, "ovn-sbctl lflow-list", tool(t, s, "ovn-sbctl", "lflow-list"),
		`Datapath: "sw0"`, "Pipeline: ingress", "priority=100", "match=(vlan.present)", "action=(drop;)")
	mustContain(t, "ovsdb-client dump", tool(t, s, "ovsdb-client", "dump", s.SBRemote(), "OVN_Southbound"),
		"Logical_Flow table", "vlan.present", dpUUID)

	tool(t, s, "ovn-sbctl", "chassis-add", "ch0", "geneve", "127.0.0.1")
	eventually(t, "ch0 and its encap in the Go client", func() bool {
		chs := rows[sb.Chassis](t, g)
		encaps := rows[sb.Encap](t, g)
		return len(chs) == 1 && chs[0].Name == "ch0" && len(encaps) == 1 && encaps[0].IP == "127.0.0.1" &&
			slices.Equal(chs[0].Encaps, []string{encaps[0].UUID})
	})
	mustContain(t, "ovn-sbctl show", tool(t, s, "ovn-sbctl", "show"), "Chassis ch0", "Encap geneve", `ip: "127.0.0.1"`)
	tool(t, s, "ovn-sbctl", "chassis-del", "ch0")
	eventually(t, "ch0 and its encap gone", func() bool {
		return len(rows[sb.Chassis](t, g)) == 0 && len(rows[sb.Encap](t, g)) == 0
	})
}

// TestStockNBToolsConcurrently runs ovn-nbctl commands in parallel, each
// connecting while the others commit: all must succeed.
func TestStockNBToolsConcurrently(t *testing.T) {
	requireTools(t, "ovn-nbctl")
	s := startServersOf(t, schema.Newest)
	tool(t, s, "ovn-nbctl", "ls-add", "sw0")
	var wg sync.WaitGroup
	for i := range 12 {
		port := fmt.Sprint("p", i)
		for _, args := range [][]string{
			{"lsp-add", "sw0", port, "--", "lsp-set-addresses", port, fmt.Sprintf("00:00:00:00:00:%02x", i)},
			{"set", "Logical_Switch", "sw0", fmt.Sprintf("external_ids:k%d=v", i)},
		} {
			wg.Go(func() {
				if _, err := runTool(s, "ovn-nbctl", args...); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	g := goClient(t, nb.FullDatabaseModel, s.NBRemote())
	sw, _ := find(t, g, lsName, "sw0")
	if len(sw.Ports) != 12 || len(sw.ExternalIDs) != 12 || len(rows[nb.LogicalSwitchPort](t, g)) != 12 {
		t.Errorf("after 12 parallel lsp-add and set: %d ports, %d external_ids, %d Logical_Switch_Port rows",
			len(sw.Ports), len(sw.ExternalIDs), len(rows[nb.LogicalSwitchPort](t, g)))
	}
}
