package ovsdb

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/cputime"
	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// lsp is a switch port to add, with a fixed _uuid: northd visits the
// ports of a switch in _uuid order, which decides who gets which address
// when several need one in the same run.
type lsp struct{ name, uuid, addresses string }

// addPorts is a script that adds ports to switch sw in one transaction,
// with ovsdb-client's insert with "uuid".
func addPorts(sw string, ports ...lsp) string {
	var ops, refs []string
	for _, p := range ports {
		ops = append(ops, fmt.Sprintf(`{"op":"insert","table":"Logical_Switch_Port","uuid":"%s","row":{"name":"%s","addresses":"%s"}}`, p.uuid, p.name, p.addresses))
		refs = append(refs, fmt.Sprintf(`["uuid","%s"]`, p.uuid))
	}
	ops = append(ops, fmt.Sprintf(`{"op":"mutate","table":"Logical_Switch","where":[["name","==","%s"]],"mutations":[["ports","insert",["set",[%s]]]]}`,
		sw, strings.Join(refs, ",")))
	return fmt.Sprintf("ovsdb-client transact \"$OVN_NB_DB\" '[\"OVN_Northbound\",%s]' >/dev/null", strings.Join(ops, ","))
}

// uuidN is a fixed _uuid ending in n.
func uuidN(n int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", n) }

// dynamicAddresses lists every switch port's name and dynamic_addresses.
func dynamicAddresses(s *servers) []string {
	s.t.Helper()
	out := s.run("ovn-nbctl", "--format=csv", "--no-headings", "--columns=name,dynamic_addresses", "list", "Logical_Switch_Port")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	slices.Sort(lines)
	return lines
}

// TestLiveIPAM applies the same NB changes to two NB/SB pairs, one served
// by the real ovn-northd and one by northlog's live northd, and checks
// after each that both wrote the same dynamic_addresses and the same
// logical flows.
func TestLiveIPAM(t *testing.T) {
	t.Parallel()
	ref := startServers(t)
	ref.start("northd")
	s := startServers(t)
	runNorthd(t, s)
	steps := []struct{ name, script string }{
		{"options", `ovn-nbctl set NB_Global . options:mac_prefix=0a:11:22 options:svc_monitor_mac="0a:11:22:ff:ff:fe"`},
		{"switch", `ovn-nbctl ls-add sw0 -- set Logical_Switch sw0 other_config:subnet=10.0.0.0/24 other_config:exclude_ips="10.0.0.2 10.0.0.5..10.0.0.7" other_config:ipv6_prefix=fd00::`},
		{"dynamic", addPorts("sw0", lsp{"p1", uuidN(900), "dynamic"})},
		{"mac dynamic", addPorts("sw0", lsp{"p2", uuidN(300), "0a:11:22:00:00:99 dynamic"})},
		{"dynamic ip", addPorts("sw0", lsp{"p3", uuidN(700), "dynamic 10.0.0.50"})},
		{"dynamic ipv6", addPorts("sw0", lsp{"p4", uuidN(500), "dynamic fd00::44"})},
		{"static conflict", `ovn-nbctl lsp-add sw0 s1 -- set Logical_Switch_Port s1 addresses='"0a:00:00:00:01:01 10.0.0.3"'`},
		{"one transaction", addPorts("sw0", lsp{"q-a", uuidN(9), "dynamic"}, lsp{"q-b", uuidN(3), "dynamic"},
			lsp{"q-c", uuidN(7), "dynamic"}, lsp{"q-d", uuidN(1), "dynamic"})},
		{"request changed", `ovn-nbctl lsp-set-addresses p1 "dynamic 10.0.0.60" -- lsp-set-addresses p3 dynamic`},
		{"mac request changed", `ovn-nbctl lsp-set-addresses p2 "0a:11:22:00:00:98 dynamic"`},
		{"router peer", `ovn-nbctl lr-add lr0 -- lrp-add lr0 lrp0 0a:11:22:00:00:10 10.0.0.9/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0`},
		{"exclude changed", `ovn-nbctl set Logical_Switch sw0 other_config:exclude_ips="10.0.0.8..10.0.0.12"`},
		{"subnet changed", `ovn-nbctl set Logical_Switch sw0 other_config:subnet=10.0.1.0/28`},
		{"subnet exhausted", addPorts("sw0", lsp{"x1", uuidN(11), "dynamic"}, lsp{"x2", uuidN(12), "dynamic"},
			lsp{"x3", uuidN(13), "dynamic"}, lsp{"x4", uuidN(14), "dynamic"}, lsp{"x5", uuidN(15), "dynamic"},
			lsp{"x6", uuidN(16), "dynamic"}, lsp{"x7", uuidN(17), "dynamic"})},
		{"hand-set dynamic_addresses", `ovn-nbctl set Logical_Switch_Port s1 dynamic_addresses='"0a:00:00:00:09:09 10.0.1.9"'`},
		{"mac_only switch", `ovn-nbctl ls-add sw1 -- set Logical_Switch sw1 other_config:mac_only=true
` + addPorts("sw1", lsp{"m1", uuidN(21), "dynamic"}, lsp{"m2", uuidN(22), "dynamic 192.168.0.5"})},
		{"subnet removed", `ovn-nbctl remove Logical_Switch sw0 other_config subnet`},
		{"ports deleted", `ovn-nbctl lsp-del p1 -- lsp-del q-b -- lsp-del m1`},
		{"ipam removed", `ovn-nbctl remove Logical_Switch sw0 other_config ipv6_prefix -- remove Logical_Switch sw1 other_config mac_only`},
	}
	for _, st := range steps {
		ref.t, s.t = t, t
		ref.script(st.script)
		s.script(st.script)
		// A second sync: northd runs again after writing
		// dynamic_addresses.
		for range 2 {
			ref.sync()
			s.sync()
		}
		want, got := dynamicAddresses(ref), dynamicAddresses(s)
		if !slices.Equal(want, got) {
			t.Fatalf("%s: dynamic_addresses differ\nref:\n%s\nnorthlog:\n%s", st.name, strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
		if r := reference.Compare(dumpFlows(t, ref.SBRemote()), dumpFlows(t, s.SBRemote())); !r.Equal() {
			t.Fatalf("%s: flows differ from the reference:\n%s", st.name, r)
		}
		t.Logf("%s: %d ports agree", st.name, len(got))
	}
}

var (
	ipamPerf        = flag.Bool("ipam-perf", false, "run TestLiveIPAMPerf: northd CPU per lsp-add of a dynamic port on switches of 1k and 10k dynamic ports")
	ipamPerfProfile = flag.String("ipam-perf-cpuprofile", "", "with -ipam-perf, write a CPU profile of the changes on the 10k-port switch to this file")
)

// TestLiveIPAMPerf measures the live northd's CPU time (the test process's,
// whose other goroutines wait) per `ovn-nbctl --wait=sb lsp-add` of a
// dynamic port on a switch that has 1k, then 10k, dynamic ports.
//
//	go test ./ovsdb -run LiveIPAMPerf -ipam-perf -v
func TestLiveIPAMPerf(t *testing.T) {
	if !*ipamPerf {
		t.Skip("run with -ipam-perf")
	}
	const changes = 20
	per := map[int]time.Duration{}
	for _, n := range []int{1000, 10000} {
		s := startServers(t)
		s.run("ovn-nbctl", "ls-add", "sw0", "--", "set", "Logical_Switch", "sw0", "other_config:subnet=10.0.0.0/16", "other_config:ipv6_prefix=fd00::")
		addPortsDirect(t, s, "sw0", n)
		runNorthd(t, s)
		// The cold start of a 10k-port switch takes longer than sync's
		// timeout.
		for range 2 {
			s.run("ovn-nbctl", "--timeout=900", "--wait=sb", "sync")
		}
		stop := func() {}
		if n == 10000 && *ipamPerfProfile != "" {
			stop = startCPUProfile(t, *ipamPerfProfile)
		}
		start := cputime.Process()
		for i := range changes {
			p := fmt.Sprintf("new%d", i)
			s.run("ovn-nbctl", "--wait=sb", "lsp-add", "sw0", p, "--", "lsp-set-addresses", p, "dynamic")
		}
		per[n] = (cputime.Process() - start) / changes
		stop()
		if got := dynamicAddresses(s); len(got) != n+changes || strings.HasSuffix(got[0], ",[]") {
			t.Fatalf("%d ports, first %q", len(got), got[0])
		}
	}
	t.Logf("northd CPU per --wait=sb lsp-add of a dynamic port: 1k ports %v, 10k ports %v, ratio %.2f",
		per[1000].Round(time.Microsecond), per[10000].Round(time.Microsecond), float64(per[10000])/float64(per[1000]))
}

// startCPUProfile writes a CPU profile to path until the returned function
// is called.
func startCPUProfile(t testing.TB, path string) func() {
	return startRecording(t, path, pprof.StartCPUProfile, pprof.StopCPUProfile)
}

// startRecording creates path and starts a recording into it (a CPU
// profile, an execution trace) with start; the function it returns stops
// it and closes the file.
func startRecording(t testing.TB, path string, start func(io.Writer) error, stop func()) func() {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := start(f); err != nil {
		t.Fatal(err)
	}
	return func() {
		stop()
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}
}

// addPortsDirect adds n ports asking for "dynamic" to switch sw in one
// transaction, faster than ovn-nbctl, which checks each port against all.
func addPortsDirect(t *testing.T, s *servers, sw string, n int) {
	nbSchema := nb.Schema()
	ctx := t.Context()
	m, err := nb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire.Dial(ctx, s.NBRemote(), m.Name(), m, wire.Options{Tables: []string{nb.LogicalSwitchTable}, Schema: &nbSchema})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var ops []lovsdb.Operation
	var refs []any
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		ops = append(ops, lovsdb.Operation{Op: lovsdb.OperationInsert, Table: nb.LogicalSwitchPortTable, UUIDName: "p" + fmt.Sprint(i),
			Row: lovsdb.Row{"name": name, "addresses": wire.StrSet([]string{"dynamic"})}})
		refs = append(refs, lovsdb.UUID{GoUUID: "p" + fmt.Sprint(i)})
	}
	ops = append(ops, lovsdb.Operation{Op: lovsdb.OperationMutate, Table: nb.LogicalSwitchTable,
		Where:     []lovsdb.Condition{{Column: "name", Function: lovsdb.ConditionEqual, Value: sw}},
		Mutations: []lovsdb.Mutation{{Column: "ports", Mutator: lovsdb.MutateOperationInsert, Value: lovsdb.OvsSet{GoSet: refs}}}})
	if err := c.Transact(ctx, ops); err != nil {
		t.Fatal(err)
	}
}
