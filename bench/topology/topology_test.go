package topology

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

// parsed is a transaction's operations as generic JSON.
func parse(t *testing.T, tx json.RawMessage) []map[string]any {
	t.Helper()
	var params []any
	if err := json.Unmarshal(tx, &params); err != nil {
		t.Fatalf("transaction is not JSON: %v", err)
	}
	if len(params) < 2 || params[0] != "OVN_Northbound" {
		t.Fatalf("transaction does not start with the database name: %.100s", tx)
	}
	ops := make([]map[string]any, len(params)-1)
	for i, p := range params[1:] {
		ops[i] = p.(map[string]any)
	}
	return ops
}

// uuidRefs collects the UUIDs of every ["uuid", X] in v.
func uuidRefs(v any, into map[string]bool) {
	switch x := v.(type) {
	case []any:
		if len(x) == 2 && x[0] == "uuid" {
			into[x[1].(string)] = true
			return
		}
		for _, e := range x {
			uuidRefs(e, into)
		}
	case map[string]any:
		for _, e := range x {
			uuidRefs(e, into)
		}
	}
}

func sameJSON(a, b json.RawMessage) bool { return bytes.Equal(a, b) }

func TestGenerate(t *testing.T) {
	o := Small()
	top, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Generate(o)
	if !slices.EqualFunc(top.Transactions, again.Transactions, sameJSON) {
		t.Error("two runs with the same options differ")
	}
	o.Seed++
	other, _ := Generate(o)
	if slices.EqualFunc(top.Transactions, other.Transactions, sameJSON) {
		t.Error("another seed gives the same transactions")
	}

	inserted := map[string]bool{}
	names := map[string]bool{} // table/name, for the tables with a name index
	for i, tx := range top.Transactions {
		if len(tx) > MaxTransactionBytes {
			t.Errorf("transaction %d has %d bytes", i, len(tx))
		}
		ops := parse(t, tx)
		refs := map[string]bool{}
		for _, op := range ops {
			if op["op"] == "insert" {
				u := op["uuid"].(string)
				if inserted[u] {
					t.Errorf("UUID %s inserted twice", u)
				}
				inserted[u] = true
				if name, ok := op["row"].(map[string]any)["name"].(string); ok && op["table"] != "Logical_Switch" && op["table"] != "Logical_Router" && op["table"] != "Load_Balancer" {
					key := op["table"].(string) + "/" + name
					if names[key] {
						t.Errorf("two %s rows named %q", op["table"], name)
					}
					names[key] = true
				}
			}
			uuidRefs(op["row"], refs)
			uuidRefs(op["where"], refs)
			uuidRefs(op["mutations"], refs)
		}
		for u := range refs {
			if !inserted[u] {
				t.Errorf("transaction %d refers to %s, not inserted by then", i, u)
			}
		}
	}

	// 10 nodes: node switch (router port, management port, 10 pods), join
	// port, external switch (router port, localnet); plus the cluster
	// router's join port.
	want := map[string]int{
		"Logical_Switch_Port": 10*(2+10) + 10*3 + 1, "Logical_Switch": 10*2 + 1,
		"Logical_Router": 10 + 1, "Logical_Router_Port": 10*3 + 1, "Logical_Router_Static_Route": 10 * 3,
		"Logical_Router_Policy": 10 + 2, "NAT": 10, "Load_Balancer": 50, "Load_Balancer_Group": 1,
		"Address_Set": 5,
		// 20 policies, 2 default port groups, ingress default deny in 5
		// namespaces and egress in the 5 with an egress policy.
		"Port_Group": 20 + 2 + 5 + 5,
		// 2 ACLs per default port group, 1 or 2 per policy (every fourth),
		// 2 per default deny group, 1 per node.
		"ACL": 2*2 + 20 + 5 + 2*10 + 10,
	}
	for table, n := range want {
		if top.Rows[table] != n {
			t.Errorf("%s: %d rows, want %d", table, top.Rows[table], n)
		}
	}
	if len(top.NodeSwitches) != 10 || top.NodeSwitches[3] != "node3" {
		t.Errorf("node switches %v", top.NodeSwitches)
	}
	if p := top.SparePort(13); p != (Port{Switch: "node3", Name: "bench_spare-node3", Addresses: "0a:58:0a:80:03:fd 10.128.3.253"}) {
		t.Errorf("SparePort(13) = %+v", p)
	}
}

func TestGenerateLimits(t *testing.T) {
	for name, o := range Presets {
		top, err := Generate(o())
		if err != nil {
			t.Errorf("preset %s: %v", name, err)
			continue
		}
		for i, tx := range top.Transactions {
			if len(tx) > MaxTransactionBytes {
				t.Errorf("preset %s: transaction %d has %d bytes", name, i, len(tx))
			}
		}
	}
	big := Options{Nodes: 1, PodsPerNode: 250, Namespaces: 1, LoadBalancers: 1, Backends: 250, Policies: 1, PolicyPods: 250, Seed: 1}
	if _, err := Generate(big); err != nil {
		t.Errorf("250 pods in one node, namespace and policy: %v", err)
	}
	for _, o := range []Options{
		{Nodes: 0, Namespaces: 1},
		{Nodes: 1, PodsPerNode: 251, Namespaces: 1},
		{Nodes: 1, Namespaces: 0},
		{Nodes: 1, PodsPerNode: 1, Namespaces: 1, LoadBalancers: 1, Backends: 0},
		{Nodes: 1, Namespaces: 1, Policies: -1},
	} {
		if _, err := Generate(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestFlags(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	opts := Flags(fs)
	if err := fs.Parse([]string{"-preset", "small", "-nodes", "3", "-seed", "7"}); err != nil {
		t.Fatal(err)
	}
	o, err := opts()
	want := Small()
	want.Nodes, want.Seed = 3, 7
	if err != nil || o != want {
		t.Errorf("got %+v, %v; want %+v", o, err, want)
	}
	fs = flag.NewFlagSet("test", flag.ContinueOnError)
	opts = Flags(fs)
	if err := fs.Parse([]string{"-preset", "enormous"}); err != nil {
		t.Fatal(err)
	}
	if _, err := opts(); err == nil {
		t.Error("unknown preset accepted")
	}
}

// TestLoadIntoOVNNorthd loads the small topology into a real NB with
// ovsdb-client and checks that ovn-northd 23.03 takes it without a warning
// and derives from it the flows the generator means: policy ACLs over
// address sets, load balancer VIPs on node switches and gateway routers,
// gateway SNAT and routes, and the cluster router's source routes and
// reroute policies.
func TestLoadIntoOVNNorthd(t *testing.T) {
	ref := reference.Start(t)
	flows := smallTopologyFlows(t, ref)
	dump := strings.Join(flows, "\n")
	for _, re := range []string{
		`node0\|egress\|4\|2001\|reg0\[7\] == 1 && \(ip4.src == \{\$as_ns\d_v4\} && outport == @np_ns0_p0\)\|`,
		`node\d\|egress\|4\|2001\|reg0\[7\] == 1 && \(ip4.src == \{\$as_ns\d_v4\} && tcp && tcp.dst == 8080 && outport == @np_ns1_p1\)\|`,
		`node\d\|ingress\|17\|2001\|reg0\[7\] == 1 && \(ip4.dst == \{\$as_ns\d_v4\} && inport == @np_ns0_p0\)\|`,
		`node\d\|egress\|4\|2000\|reg0\[9\] == 1 && \(outport == @ns0_ingressDefaultDeny\)\|/\* drop \*/`,
		`node3\|ingress\|12\|120\|ct.new && ip4.dst == 10.96.0.1 && tcp.dst == 443\|reg0\[1\] = 0; ct_lb_mark\(backends=[0-9.:,]+\);`,
		`GR_node3\|ingress\|7\|120\|ct.new && !ct.rel && ip4 && ip4.dst == 10.96.0.50 && tcp && tcp.dst == 80\|flags.force_snat_for_lb = 1; ct_lb_mark\(backends=[0-9.:,]+; force_snat\);`,
		`GR_node3\|egress\|3\|15\|ip && ip4.src == 10.128.0.0/14 && \(!ct.trk \|\| !ct.rpl\)\|ct_snat\(172.18.0.5\);`,
		`GR_node3\|ingress\|13\|1\|reg7 == 0 && ip4.dst == 0.0.0.0/0\|.*reg0 = 172.18.0.1; .*outport = "rtoe-GR_node3"`,
		`ovn_cluster_router\|ingress\|13\|72\|ip4.src == 10.128.3.0/24\|.*reg0 = 100.64.0.5; .*outport = "rtoj-ovn_cluster_router"`,
		`ovn_cluster_router\|ingress\|15\|1004\|inport == "rtos-node3" && ip4.dst == 172.18.0.5\|reg0 = 10.128.3.2; `,
		`node3\|ingress\|19\|50\|arp.tpa == 10.128.3.4 && arp.op == 1\|.*eth.src = 0a:58:0a:80:03:04;`,
		`ext_node3\|ingress\|25\|50\|eth.dst == 0a:58:ac:12:00:05\|outport = "etor-GR_node3"; output;`,
	} {
		if !regexp.MustCompile(`(?m)^` + re).MatchString(dump) {
			t.Errorf("no flow matches %s", re)
		}
	}
	noWarnings(t, ref)
	t.Logf("small topology: %d canonical flows", len(flows))
}

// smallTopologyFlows loads the small topology into ref's NB and returns
// the canonical flows its ovn-northd writes.
func smallTopologyFlows(t *testing.T, ref *reference.Instance) []string {
	t.Helper()
	top, err := Generate(Small())
	if err != nil {
		t.Fatal(err)
	}
	load(t, ref, top)
	if err := ref.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	flows, err := ref.Flows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return flows
}

// TestLoadInto2603 loads the small topology into a 26.03 NB (schema
// 7.18.0), as compare -release 26.03 does, and checks that ovn-northd
// 26.03.2 takes it without a warning. What the flows mean is checked on
// 23.03 (TestLoadIntoOVNNorthd); 26.03 numbers and renders them otherwise.
func TestLoadInto2603(t *testing.T) {
	ref := reference.BuildOf(schema.OVN2603).Start(t)
	flows := smallTopologyFlows(t, ref)
	if len(flows) == 0 {
		t.Error("ovn-northd 26.03.2 wrote no flows")
	}
	noWarnings(t, ref)
	t.Logf("small topology: %d canonical flows", len(flows))
}

// noWarnings fails t for every warning or error in ref's northd log.
func noWarnings(t *testing.T, ref *reference.Instance) {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(ref.Dir(), "northd.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(log), "\n") {
		// timeval warnings are about a slow machine, not the input.
		if (strings.Contains(l, "|WARN|") || strings.Contains(l, "|ERR|")) && !strings.Contains(l, "|timeval|") {
			t.Errorf("ovn-northd: %s", l)
		}
	}
}

// load applies top's transactions to ref's NB with the ovsdb-client of
// ref's build.
func load(t *testing.T, ref *reference.Instance, top *Topology) {
	t.Helper()
	client, err := ref.Build().Tool("ovsdb-client")
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range top.Transactions {
		out, err := exec.CommandContext(t.Context(), client, "transact", ref.NBRemote(), string(tx)).CombinedOutput()
		if err != nil || bytes.Contains(out, []byte(`"error"`)) {
			t.Fatalf("transaction %d: %v: %.2000s", i, err, out)
		}
	}
}

// TestLoadLargeGroup loads a load balancer group of more members than one
// mutation adds into a real NB: every load balancer must end up in it.
func TestLoadLargeGroup(t *testing.T) {
	ref := reference.Start(t)
	o := Small()
	o.LoadBalancers = 2*refsPerMutation + 1
	top, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	load(t, ref, top)
	out, err := exec.CommandContext(t.Context(), "ovn-nbctl", "--db="+ref.NBRemote(), "--bare", "get", "Load_Balancer_Group", lbGroup, "load_balancer").CombinedOutput()
	if err != nil {
		t.Fatalf("ovn-nbctl: %v: %s", err, out)
	}
	if n := len(strings.Fields(string(out))); n != o.LoadBalancers {
		t.Errorf("the group has %d load balancers, want %d", n, o.LoadBalancers)
	}
}
