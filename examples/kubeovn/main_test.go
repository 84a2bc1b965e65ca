package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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
// datapath has. Like the rest of the example, it uses only northlog's
// exported API and OVN's tools.
func TestLiveTrace(t *testing.T) {
	dir, err := os.MkdirTemp("", "kubeovn") // socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	nbRemote, sbRemote := startServers(t, dir)
	nbctl := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ovn-nbctl", append([]string{"--db=" + nbRemote, "--timeout=30"}, args...)...).CombinedOutput(); err != nil {
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
	northd := ovsdb.NewNorthd(ovsdb.Config{NBRemote: nbRemote, SBRemote: sbRemote, MaxBackoff: 200 * time.Millisecond,
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
	var trace, warnings bytes.Buffer
	cmd := exec.Command("ovn-trace", "--db="+sbRemote, "-vconsole:warn", "--detailed", "--ct=new", "--ct=new",
		"--lb-dst=10.16.0.10:8080", "ovn-default", microflow)
	cmd.Stdout, cmd.Stderr = &trace, &warnings
	if err := cmd.Run(); err != nil || warnings.Len() > 0 {
		t.Fatalf("ovn-trace: %v: %s", err, warnings.String())
	}
	afterLB := strconv.Itoa(stages.Table(LSInAfterLB))
	for _, want := range []string{
		"ingress(dp=\"ovn-default\", inport=\"client\")",
		afterLB + ". ls_in_after_lb: ip4.dst == 10.16.0.10, priority 100", // the DNATed packet passes the stage ...
		"eth.dst = 0a:58:0a:10:00:0a;",                                    // ... which sets the backend's MAC
		`/* output to "web"`,
	} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("the trace lacks %q:\n%s", want, trace.String())
		}
	}
	checkTables(t, sbRemote, stages)
}

// startServers runs ovsdb-server on fresh NB and SB databases of 23.03's
// schemas in dir and returns their remotes. Without OVS's and OVN's tools
// the test is skipped, or fails under CI=true, where they are installed.
func startServers(t *testing.T, dir string) (nbRemote, sbRemote string) {
	for _, tool := range []string{"ovsdb-tool", "ovsdb-server", "ovn-nbctl", "ovn-sbctl", "ovn-trace"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
	remote := func(db string, schema []byte) string {
		file, sock := filepath.Join(dir, db+".db"), filepath.Join(dir, db+".sock")
		if err := os.WriteFile(file+".schema", schema, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("ovsdb-tool", "create", file, file+".schema").CombinedOutput(); err != nil {
			t.Fatalf("ovsdb-tool create: %v: %s", err, out)
		}
		server := exec.Command("ovsdb-server", "--no-chdir", "-vconsole:off", "--log-file="+filepath.Join(dir, db+".log"),
			"--unixctl="+filepath.Join(dir, db+".ctl"), "--remote=punix:"+sock, file)
		if err := server.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(sock); err == nil {
				return "unix:" + sock
			} else if time.Since(start) > 10*time.Second {
				t.Fatalf("ovsdb-server does not listen on %s", sock)
			}
		}
	}
	return remote("nb", schema.OVN2303.NB()), remote("sb", schema.OVN2303.SB())
}

var (
	stageName = regexp.MustCompile(`stage-name=([a-z0-9_]+)`)
	nextTable = regexp.MustCompile(`next\(pipeline=(ingress|egress), ?table=(\d+)\)`)
)

// checkTables reads the SB's logical flows (of the one datapath): each is
// at its stage's table in stages, and each table a next(pipeline=...,
// table=N) names has flows.
func checkTables(t *testing.T, sbRemote string, stages *rules.StageTable) {
	t.Helper()
	out, err := exec.Command("ovn-sbctl", "--db="+sbRemote, "--format=csv", "--data=bare", "--no-headings",
		"--columns=pipeline,table_id,actions,external_ids", "list", "Logical_Flow").Output()
	if err != nil {
		t.Fatalf("ovn-sbctl list Logical_Flow: %v", err)
	}
	flows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, f := range flows {
		name := stageName.FindStringSubmatch(f[3])
		if name == nil {
			t.Fatalf("a flow without stage-name: %q", f)
		}
		if s, ok := rules.StageNamed(name[1]); !ok || strconv.Itoa(stages.Table(s)) != f[1] {
			t.Errorf("stage %s at table %s: %q", name[1], f[1], f)
		}
		has[f[0]+"|"+f[1]] = true
	}
	targets := 0
	for _, f := range flows {
		for _, m := range nextTable.FindAllStringSubmatch(f[2], -1) {
			targets++
			if !has[m[1]+"|"+m[2]] {
				t.Errorf("%s names table %s of the %s pipeline, which has no flows: %q", m[0], m[2], m[1], f)
			}
		}
	}
	if targets == 0 {
		t.Errorf("no flow names a table")
	}
}
