package ovsdb

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var livePerf = flag.String("live-perf", "", "run TestLivePerf on SWITCHESxPORTS (e.g. 100x50): northlog and the real ovn-northd side by side")

// perfTopology is a switch per node with its pods, all switches on one
// router, as ovn-kubernetes lays out a cluster (without its load
// balancers and policies).
func perfTopology(switches, ports int) []string {
	args := []string{"lr-add", "lr0"}
	for i := range switches {
		sw := fmt.Sprintf("sw%d", i)
		args = append(args, "--", "ls-add", sw,
			"--", "lrp-add", "lr0", "lr0-"+sw, fmt.Sprintf("0a:00:00:%02x:%02x:01", i>>8, i&255), fmt.Sprintf("10.%d.%d.1/24", i>>8, i&255),
			"--", "lsp-add", sw, sw+"-lr0", "--", "lsp-set-type", sw+"-lr0", "router",
			"--", "lsp-set-addresses", sw+"-lr0", "router", "--", "lsp-set-options", sw+"-lr0", "router-port=lr0-"+sw)
		for j := range ports {
			p := fmt.Sprintf("%s-p%d", sw, j)
			args = append(args, "--", "lsp-add", sw, p, "--", "lsp-set-addresses", p,
				fmt.Sprintf("0a:01:%02x:%02x:00:%02x 10.%d.%d.%d", i>>8, i&255, j+2, i>>8, i&255, j+2))
		}
	}
	return args
}

// perfRun measures one northd on s: cold start until --wait=sb sync
// returns, then the wall time of --wait=sb lsp-add and lsp-del.
func perfRun(t *testing.T, s *servers, start func()) (cold time.Duration, add, del, client []time.Duration) {
	t0 := time.Now()
	start()
	s.run("ovn-nbctl", "--timeout=900", "--wait=sb", "sync")
	cold = time.Since(t0)
	for i := range 20 {
		p := fmt.Sprintf("perf%d", i)
		t1 := time.Now()
		s.run("ovn-nbctl", "--wait=sb", "lsp-add", "sw1", p, "--", "lsp-set-addresses", p, fmt.Sprintf("0a:02:00:00:00:%02x 10.0.1.%d", i+2, i+200))
		add = append(add, time.Since(t1))
		t2 := time.Now()
		s.run("ovn-nbctl", "--wait=sb", "lsp-del", p)
		del = append(del, time.Since(t2))
		t3 := time.Now()
		s.run("ovn-nbctl", "lsp-add", "sw2", p, "--", "lsp-set-addresses", p, fmt.Sprintf("0a:02:00:00:01:%02x 10.0.2.%d", i+2, i+200))
		client = append(client, time.Since(t3))
	}
	return cold, add, del, client
}

// perfPortGroup puts every port of the topology in one port group, then
// measures the wall time of --wait=sb adding one more port to it.
func perfPortGroup(s *servers, switches, ports int) (add []time.Duration) {
	args := []string{"pg-add", "pgall"}
	for i := range switches {
		for j := range ports {
			args = append(args, fmt.Sprintf("sw%d-p%d", i, j))
		}
	}
	s.run("ovn-nbctl", append([]string{"--wait=sb"}, args...)...)
	for i := range 10 {
		p := fmt.Sprintf("pgperf%d", i)
		s.run("ovn-nbctl", "--wait=sb", "lsp-add", "sw3", p, "--", "lsp-set-addresses", p, fmt.Sprintf("0a:03:00:00:00:%02x 10.0.3.%d", i+2, i+200))
		u := strings.TrimSpace(s.run("ovn-nbctl", "--bare", "--columns=_uuid", "find", "Logical_Switch_Port", "name="+p))
		t0 := time.Now()
		s.run("ovn-nbctl", "--wait=sb", "add", "Port_Group", "pgall", "ports", u)
		add = append(add, time.Since(t0))
	}
	return add
}

func median(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}

// TestLivePerf loads the same topology into two NB/SB pairs, runs the real
// ovn-northd on one and northlog on the other, and reports cold start and
// per-change latency side by side.
//
//	go test ./ovsdb -run LivePerf -live-perf 100x50 -v
func TestLivePerf(t *testing.T) {
	if *livePerf == "" {
		t.Skip("run with -live-perf SWITCHESxPORTS")
	}
	var switches, ports int
	if _, err := fmt.Sscanf(*livePerf, "%dx%d", &switches, &ports); err != nil {
		t.Fatalf("-live-perf %q: %v", *livePerf, err)
	}
	topo := perfTopology(switches, ports)
	ref, ours := startServers(t), startServers(t)
	for _, s := range []*servers{ref, ours} {
		s.run("ovn-nbctl", topo...)
	}
	rc, ra, rd, rcl := perfRun(t, ref, func() { ref.start("northd") })
	var mu sync.Mutex
	var steps []StepStats
	oc, oa, od, ocl := perfRun(t, ours, func() {
		runNorthd(t, ours, func(c *Config) {
			c.OnStep = func(st StepStats) {
				mu.Lock()
				steps = append(steps, st)
				mu.Unlock()
			}
		})
	})
	rpg := perfPortGroup(ref, switches, ports)
	mu.Lock()
	n := len(steps)
	mu.Unlock()
	opg := perfPortGroup(ours, switches, ports)
	mu.Lock()
	// The steps of the port additions: each last of the three that its
	// ovn-nbctl calls cause (lsp-add, then the port group's change).
	var pgEngine, pgTxn []time.Duration
	var pgRows []string
	for _, st := range steps[n+1:] {
		if pg, ok := st.SB["Port_Group"]; ok && pg[0] == 0 && st.SB["Port_Binding"] == [3]int{} {
			pgEngine, pgTxn = append(pgEngine, st.Engine), append(pgTxn, st.SBTxn)
			pgRows = append(pgRows, fmt.Sprintf("Port_Group %v Address_Set %v", pg, st.SB["Address_Set"]))
		}
	}
	steps = steps[:n]
	var engine, txn []time.Duration
	for _, st := range steps[1:] {
		if st.SB != nil {
			engine, txn = append(engine, st.Engine), append(txn, st.SBTxn)
		}
	}
	mu.Unlock()
	flows := len(dumpFlows(t, ours.SB()))
	var b strings.Builder
	fmt.Fprintf(&b, "%d switches x %d ports, %d logical flows (per datapath)\n", switches, ports, flows)
	fmt.Fprintf(&b, "%-28s %12s %12s\n", "", "ovn-northd", "northlog")
	fmt.Fprintf(&b, "%-28s %12v %12v\n", "cold start to --wait=sb", rc.Round(time.Millisecond), oc.Round(time.Millisecond))
	fmt.Fprintf(&b, "%-28s %12v %12v\n", "--wait=sb lsp-add (median)", median(ra).Round(100*time.Microsecond), median(oa).Round(100*time.Microsecond))
	fmt.Fprintf(&b, "%-28s %12v %12v\n", "--wait=sb lsp-del (median)", median(rd).Round(100*time.Microsecond), median(od).Round(100*time.Microsecond))
	fmt.Fprintf(&b, "%-28s %12v %12v\n", "lsp-add, no wait (median)", median(rcl).Round(100*time.Microsecond), median(ocl).Round(100*time.Microsecond))
	fmt.Fprintf(&b, "northlog cold start: engine %v, SB transaction %v (%v rows)\n",
		steps[0].Engine.Round(time.Millisecond), steps[0].SBTxn.Round(time.Millisecond), steps[0].SB)
	if len(engine) > 0 {
		fmt.Fprintf(&b, "northlog per change: engine %v, SB transaction %v (medians of %d steps)\n",
			median(engine).Round(time.Microsecond), median(txn).Round(time.Microsecond), len(engine))
	}
	fmt.Fprintf(&b, "%-28s %12v %12v\n", "--wait=sb pg add port (median)", median(rpg).Round(100*time.Microsecond), median(opg).Round(100*time.Microsecond))
	if len(pgEngine) > 0 {
		fmt.Fprintf(&b, "northlog port group of %d ports, one port added: engine %v, SB transaction %v (medians of %d steps); SB rows (+insert ~update -delete) %s\n",
			switches*ports, median(pgEngine).Round(time.Microsecond), median(pgTxn).Round(time.Microsecond), len(pgEngine), pgRows[0])
	}
	t.Log("\n" + b.String())
}
