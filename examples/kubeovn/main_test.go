package main

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
)

// TestAfterLBIncremental: ls_in_after_lb's flows, kept incrementally while
// switches and ports come and go, equal a recompute at every step, with
// minimal deltas.
func TestAfterLBIncremental(t *testing.T) {
	stages, err := Stages(schema.OVN2303)
	if err != nil {
		t.Fatal(err)
	}
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Changes(ruletest.Topology, ruletest.SwitchPorts),
		Program: func() *rules.Program { return rules.NewWith(stages, AfterLBFlows) },
	})
}

// TestStagesRefusedIn2603: 26.03's switch ingress pipeline is full.
func TestStagesRefusedIn2603(t *testing.T) {
	if _, err := Stages(schema.OVN2603); err == nil || !strings.Contains(err.Error(), "runs at most 34 logical tables") {
		t.Fatalf("placing ls_in_after_lb in 26.03: %v", err)
	}
}

// TestLiveTrace runs the northd against real NB and SB ovsdb-servers and
// traces, with the real ovn-trace, a packet from one pod to a load
// balancer's VIP sent to a MAC no port has: ls_in_lb DNATs it to the
// backend pod, ls_in_after_lb sets that pod's MAC, and L2 lookup delivers
// it. The SB's flows are numbered by the placed table (each stage-name at
// its table) and every next(pipeline=..., table=N) names a table the
// datapath has.
func TestLiveTrace(t *testing.T) {
	reference.Require(t)
	dir, err := os.MkdirTemp("", "kubeovn") // socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := reference.Dir{Path: dir}
	for _, db := range []string{"nb", "sb"} {
		if err := d.CreateDB(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		server, err := d.StartServer(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(server.Stop)
	}
	nbctl := func(args ...string) {
		t.Helper()
		if out, err := d.Command(t.Context(), "ovn-nbctl", append([]string{"--timeout=30"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ovn-nbctl %v: %v: %s", args, err, out)
		}
	}
	nbctl("init")
	stages, err := Stages(schema.OVN2303)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	northd := ovsdb.NewNorthd(ovsdb.Config{NBRemote: d.NBRemote(), SBRemote: d.SBRemote(), MaxBackoff: 200 * time.Millisecond,
		Program: func() *rules.Program { return Program(stages) }})
	go func() { defer close(done); _ = northd.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	nbctl("ls-add", "ovn-default",
		"--", "lsp-add", "ovn-default", "client", "--", "lsp-set-addresses", "client", "0a:58:0a:10:00:14 10.16.0.20",
		"--", "lsp-add", "ovn-default", "web", "--", "lsp-set-addresses", "web", "0a:58:0a:10:00:0a 10.16.0.10",
		"--", "lb-add", "svc", "10.96.0.50:80", "10.16.0.10:8080", "tcp",
		"--", "ls-lb-add", "ovn-default", "svc",
		// A reject ACL's answer goes from the egress pipeline to
		// ls_in_l2_lkup, which the stage moved: next(pipeline=ingress,table=N).
		"--", "acl-add", "ovn-default", "to-lport", "1000", "tcp.dst == 9999", "reject")
	nbctl("--wait=sb", "sync")

	microflow := `inport == "client" && eth.src == 0a:58:0a:10:00:14 && eth.dst == 0a:58:0a:10:00:99 && ` +
		`ip4.src == 10.16.0.20 && ip4.dst == 10.96.0.50 && ip.ttl == 64 && tcp && tcp.src == 40000 && tcp.dst == 80`
	trace, err := reference.Trace(t.Context(), d.SBRemote(), "ovn-default", microflow, "--detailed", "--ct=new", "--ct=new", "--lb-dst=10.16.0.10:8080")
	if err != nil {
		t.Fatal(err)
	}
	afterLB := strconv.Itoa(stages.Table(LSInAfterLB))
	for _, want := range []string{
		"ingress(dp=\"ovn-default\", inport=\"client\")",
		afterLB + ". ls_in_after_lb: ip4.dst == 10.16.0.10, priority 100", // the DNATed packet passes the stage ...
		"eth.dst = 0a:58:0a:10:00:0a;",                                    // ... which sets the backend's MAC
		`/* output to "web"`,
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("the trace lacks %q:\n%s", want, trace)
		}
	}
	if strings.Contains(trace, "warning: ") {
		t.Errorf("ovn-trace warns:\n%s", trace)
	}
	checkTables(t, d.SBRemote(), stages)
}

var (
	stageName = regexp.MustCompile(`"stage-name"="([^"]+)"`)
	nextTable = regexp.MustCompile(`next\(pipeline=(ingress|egress), ?table=(\d+)\)`)
)

// checkTables reads the SB's logical flows: each is at its stage's table
// in stages, and each table a next(pipeline=..., table=N) names has flows
// on the datapath.
func checkTables(t *testing.T, sbRemote string, stages *rules.StageTable) {
	t.Helper()
	dump, err := reference.DumpSB(t.Context(), sbRemote)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := dump.FlowColumns()
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, l := range lines {
		f := strings.SplitN(l, "|", 4)
		name := stageName.FindStringSubmatch(l)
		s, ok := rules.StageNamed(name[1])
		if !ok || strconv.Itoa(stages.Table(s)) != f[2] {
			t.Errorf("stage %s at table %s: %s", name[1], f[2], l)
		}
		has[f[0]+"|"+f[1]+"|"+f[2]] = true
	}
	targets := 0
	for _, l := range lines {
		f := strings.SplitN(l, "|", 2)
		for _, m := range nextTable.FindAllStringSubmatch(l, -1) {
			targets++
			if !has[f[0]+"|"+m[1]+"|"+m[2]] {
				t.Errorf("%s names table %s of the %s pipeline, which has no flows: %s", m[0], m[2], m[1], l)
			}
		}
	}
	if targets == 0 {
		t.Errorf("no flow names a table")
	}
}
