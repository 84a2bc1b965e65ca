package ovsdb

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

// traceCase is a packet traced with ovn-trace through a scenario.
type traceCase struct {
	name      string
	datapath  string
	microflow string
	// opts are ovn-trace's --ct (one per conntrack action the packet
	// crosses) and --lb-dst options.
	opts []string
	// delivered is the port the reference delivers the packet to,
	// output("PORT") in --minimal output; "" when it delivers it nowhere
	// (dropped, or held for an ARP reply).
	delivered string
	// shows are texts the reference's --summary output contains: the
	// actions that make the verdict.
	shows []string
}

// ipv4 is the microflow of an IPv4 packet entering by port inport, with
// l4 its transport part ("tcp && tcp.src == 1 && tcp.dst == 2").
func ipv4(inport, ethSrc, ethDst, ipSrc, ipDst, l4 string) string {
	return fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && %s`,
		inport, ethSrc, ethDst, ipSrc, ipDst, l4)
}

func tcpTo(port int) string { return fmt.Sprintf("tcp && tcp.src == 40000 && tcp.dst == %d", port) }

// ctStates gives the conntrack state every ct action of a trace reports:
// n --ct options.
func ctStates(flags string, n int) []string {
	return slices.Repeat([]string{"--ct=" + flags}, n)
}

// traceScenarios are the scenarios of rules/testdata/scenarios traced by
// TestLiveTrace, with their packets.
var traceScenarios = []struct {
	scenario string
	cases    []traceCase
}{
	{"lss_kubeovn_sg", func() []traceCase {
		client := func(l4 string) string {
			return ipv4("vm-client", "0a:58:0a:10:00:14", "0a:58:0a:10:00:0a", "10.16.0.20", "10.16.0.10", l4)
		}
		return []traceCase{
			{name: "tcp22-permitted", datapath: "ovn-default", microflow: client(tcpTo(22)), opts: ctStates("new", 2),
				delivered: "vm-web", shows: []string{"ct_commit"}},
			{name: "icmp-dropped", datapath: "ovn-default", microflow: client("icmp4 && icmp4.type == 8"), opts: ctStates("new", 2)},
			{name: "tcp80-deny-all", datapath: "ovn-default", microflow: client(tcpTo(80)), opts: ctStates("new", 2)},
			{name: "tcp22-reply", datapath: "ovn-default",
				microflow: ipv4("vm-web", "0a:58:0a:10:00:0a", "0a:58:0a:10:00:14", "10.16.0.10", "10.16.0.20", "tcp && tcp.src == 22 && tcp.dst == 40000"),
				opts:      ctStates("est,rpl", 2), delivered: "vm-client"},
			{name: "deny-all-egress", datapath: "ovn-default",
				microflow: ipv4("vm-denied", "0a:58:0a:10:00:1e", "0a:58:0a:10:00:14", "10.16.0.30", "10.16.0.20", tcpTo(22)),
				opts:      ctStates("new", 2)},
		}
	}()},
	{"lb_kubeovn_fullnat", []traceCase{
		// ovn-trace 23.03 clears the logical flags when the packet moves
		// to the egress pipeline, so flags.force_snat_for_lb, which the
		// ct_lb_mark sets, does not reach lr_out_snat's ct_snat(10.0.0.1)
		// in a trace (ovn-controller keeps the flags): the trace shows
		// force_snat on the ct_lb_mark; the SNAT flow itself is checked
		// by the flow-level differential test.
		{name: "vip-to-backend", datapath: "ext",
			microflow: ipv4("client", "00:00:00:00:02:10", "00:00:00:00:02:01", "172.16.0.10", "172.16.0.100", tcpTo(80)),
			opts:      append(ctStates("new", 3), "--lb-dst=10.0.0.6:8080"), delivered: "backend2",
			shows: []string{`ct_lb_mark(backends=10.0.0.5:8080,10.0.0.6:8080; hash_fields="ip_src"; force_snat);`, "eth.dst = 00:00:00:00:02:06;"}},
		// The backend's reply goes to the router IP the connection was
		// SNATed to, which lr_in_unsnat un-SNATs (ovn-trace does not
		// follow the ct_snat further).
		{name: "reply-unsnat", datapath: "int",
			microflow: ipv4("backend2", "00:00:00:00:02:06", "00:00:00:00:02:02", "10.0.0.6", "10.0.0.1", "tcp && tcp.src == 8080 && tcp.dst == 40000"),
			opts:      ctStates("est,rpl", 2),
			shows:     []string{`ingress(dp="gw0", inport="gw0-int")`, "ct_snat;"}},
	}},
	{"lss_ovnk_cluster", func() []traceCase {
		fromB := func(ethDst, ipDst string, port int) string {
			return ipv4("ns2_client-b", "0a:58:0a:f4:00:06", ethDst, "10.244.0.6", ipDst, tcpTo(port))
		}
		toVIP := func(vip string) string {
			return ipv4("ns1_client-a", "0a:58:0a:f4:00:05", "0a:58:0a:f4:00:01", "10.244.0.5", vip, tcpTo(80))
		}
		return []traceCase{
			// A new connection: ls_in_lb's ct_lb_mark picks the
			// backend (the service has one: ovn-trace picks at random
			// among several when --lb-dst does not say), then the
			// policy admits the namespace's client on node2.
			{name: "vip-new", datapath: "node1", microflow: toVIP("10.96.0.60"), opts: ctStates("new", 3), delivered: "ns1_server",
				shows: []string{"ct_lb_mark(backends=10.244.1.5:8080);", `egress(dp="node2", inport="stor-node2", outport="ns1_server")`}},
			// An established connection: --lb-dst is the backend in
			// its conntrack entry, which ls_in_pre_stateful's
			// ct_lb_mark applies, after keeping the VIP in a register
			// (reg1 in 23.03, reg4 in 26.03).
			{name: "vip-established", datapath: "node1", microflow: toVIP("10.96.0.50"),
				opts: append(ctStates("est", 3), "--lb-dst=10.244.1.5:8080"), delivered: "ns1_server",
				shows: []string{" = 10.96.0.50;", `egress(dp="node2", inport="stor-node2", outport="ns1_server")`}},
			{name: "pg-ip4-permitted", datapath: "node1", microflow: fromB("0a:58:0a:f4:00:07", "10.244.0.7", 8080), opts: ctStates("new", 2),
				delivered: "ns1_server-2"},
			{name: "routed-permitted", datapath: "node1", microflow: fromB("0a:58:0a:f4:00:01", "10.244.1.5", 8080), opts: ctStates("new", 2),
				delivered: "ns1_server"},
			{name: "default-deny", datapath: "node1", microflow: fromB("0a:58:0a:f4:00:07", "10.244.0.7", 9090), opts: ctStates("new", 2)},
			// The gateway router's load balancer (from the group)
			// translates the VIP, then the router ARPs for its next hop,
			// the cluster router, which answers.
			{name: "gateway-router-vip", datapath: "ext_node1",
				microflow: ipv4("breth0_node1", "02:42:ac:12:00:99", "02:42:ac:12:00:02", "172.18.0.99", "10.96.0.50", tcpTo(80)),
				opts:      append(ctStates("new", 3), "--lb-dst=10.244.1.5:8080"),
				shows:     []string{"ct_lb_mark(backends=10.244.1.5:8080,10.244.0.7:8080; force_snat);", "reg0 = 100.64.0.1;", "arp.spa = 100.64.0.1;"}},
		}
	}()},
}

// TestLiveTrace runs scenarios on the reference of each release and on
// the live northd beside it, then traces packets through both SBs with
// that release's ovn-trace and requires the same outcome: the --minimal output (where the packet goes, conntrack and load
// balancing on the way, or its drop) and the --summary output (every action
// the packet meets), with tunnel keys and UUIDs normalised, and the same
// warnings from ovn-trace (a match that names an address set or port group
// the SB lacks is one). --detailed output is not compared: its stage names
// and northd.c lines come from Logical_Flow external_ids, annotations that
// say nothing of what the packet does. Each trace's verdict on the
// reference is checked too, so a packet that misses what it should exercise
// fails rather than agreeing by accident. A scenario whose flows the
// release's pending list (rules/testdata) says northlog does not reproduce
// yet is skipped.
func TestLiveTrace(t *testing.T) {
	t.Parallel()
	forEachReleaseBeside(t, func(t *testing.T, build *reference.Build, b *beside, pending map[string]string) {
		for _, ts := range traceScenarios {
			t.Run(ts.scenario, func(t *testing.T) {
				if _, ok := pending[ts.scenario]; ok {
					t.Skipf("%s's flows are pending for %s", ts.scenario, build.Release())
				}
				traceScenario(t, b, build, ts.scenario, ts.cases)
			})
		}
	})
}

// forEachReleaseBeside runs f, as a subtest named after each release,
// beside that release's reference (startBesideOf), with the differential
// tests' list of the scenarios whose flows northlog does not reproduce
// yet for it (pendingFlows). A release whose build is missing is skipped.
func forEachReleaseBeside(t *testing.T, f func(t *testing.T, build *reference.Build, b *beside, pending map[string]string)) {
	for _, r := range schema.Releases() {
		t.Run(r.String(), func(t *testing.T) {
			build := reference.BuildOf(r)
			build.Require(t)
			pending, err := reference.ReadList(pendingFlows[r])
			if err != nil {
				t.Fatal(err)
			}
			f(t, build, startBesideOf(t, build), pending)
		})
	}
}

// pendingFlows are the differential tests' lists of the scenarios whose
// flows northlog does not reproduce yet, by release.
var pendingFlows = map[schema.Release]string{
	schema.OVN2303: "../rules/testdata/pending.txt",
	schema.OVN2603: "../rules/testdata/pending-26.03.txt",
}

// traceScenario runs scenario beside the reference and traces cases
// through both SBs (TestLiveTrace).
func traceScenario(t *testing.T, b *beside, build *reference.Build, scenario string, cases []traceCase) {
	i := slices.IndexFunc(b.scenarios, func(sc reference.Scenario) bool { return sc.Name == scenario })
	if i < 0 {
		t.Fatalf("no scenario %s", scenario)
	}
	ref, s := b.ref, b.live
	want := b.run(t, b.scenarios[i].Script)
	// Traces through different flows would only restate the
	// flow-level differences.
	if r := reference.Compare(want, dumpFlows(t, s.SBRemote())); !r.Equal() {
		t.Fatalf("live SB flows differ from the reference:\n%s", r)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			refMinimal := compareTrace(t, build, ref.SBRemote(), s.SBRemote(), c, "--minimal")
			refSummary := compareTrace(t, build, ref.SBRemote(), s.SBRemote(), c, "--summary")
			if strings.Contains(refMinimal+refSummary, "warning: ") {
				t.Errorf("ovn-trace warns on the reference's SB:\n%s", refSummary)
			}
			delivered := strings.Contains(refMinimal, "output(")
			if c.delivered == "" && delivered || c.delivered != "" && !strings.Contains(refMinimal, fmt.Sprintf("output(%q);", c.delivered)) {
				t.Errorf("the reference does not deliver the packet to %q:\n%s", c.delivered, refMinimal)
			}
			for _, text := range c.shows {
				if !strings.Contains(refSummary, text) {
					t.Errorf("the reference's trace lacks %q:\n%s", text, refSummary)
				}
			}
		})
	}
}

// compareTrace traces c with build's ovn-trace through the SBs at refSB
// and liveSB in one output form, requires the same normalised output, and returns the reference's.
func compareTrace(t *testing.T, build *reference.Build, refSB, liveSB string, c traceCase, form string) string {
	t.Helper()
	opts := append([]string{form}, c.opts...)
	want, err := build.Trace(t.Context(), refSB, c.datapath, c.microflow, opts...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := build.Trace(t.Context(), liveSB, c.datapath, c.microflow, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("ovn-trace %s differs:\n--- reference\n%s--- northlog\n%s", strings.Join(opts, " "), want, got)
	}
	return want
}
