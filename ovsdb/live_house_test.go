package ovsdb

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
)

// houseRowTables are the tables of sbwriter/house.go.
var houseRowTables = []string{sb.StaticMACBindingTable, sb.MACBindingTable, sb.IGMPGroupTable, sb.FDBTable}

// houseRows is the canonical dump of the housekeeping tables of the SB at
// remote, and the UUIDs of their rows.
func houseRows(t testing.TB, remote string) (lines []string, uuids map[string]bool) {
	t.Helper()
	d := dumpSB(t, remote)
	var err error
	if lines, err = d.Rows(sb.StaticMACBindingTable, sb.MACBindingTable, sb.IGMPGroupTable); err != nil {
		t.Fatal(err)
	}
	rows := readSB(t, remote)
	uuids = map[string]bool{}
	for _, table := range houseRowTables {
		for u := range rows[table] {
			uuids[u] = true
		}
	}
	// FDB rows name their datapath and port by tunnel key, which the
	// line gives as names.
	dps, ports := map[int]string{}, map[[2]int]string{}
	for _, m := range rows[sb.DatapathBindingTable] {
		dp := m.(*sb.DatapathBinding)
		dps[dp.TunnelKey] = dp.ExternalIDs["name"]
	}
	for _, m := range rows[sb.PortBindingTable] {
		pb := m.(*sb.PortBinding)
		if dp, ok := rows[sb.DatapathBindingTable][pb.Datapath].(*sb.DatapathBinding); ok {
			ports[[2]int{dp.TunnelKey, pb.TunnelKey}] = pb.LogicalPort
		}
	}
	name := func(s string, ok bool, key int) string {
		if ok {
			return s
		}
		return fmt.Sprint(key)
	}
	for _, m := range rows[sb.FDBTable] {
		f := m.(*sb.FDB)
		dp, dpOK := dps[f.DpKey]
		port, portOK := ports[[2]int{f.DpKey, f.PortKey}]
		lines = append(lines, fmt.Sprintf("FDB|dp=%s|mac=%q|port=%s", name(dp, dpOK, f.DpKey), f.MAC, name(port, portOK, f.PortKey)))
	}
	slices.Sort(lines)
	return lines, uuids
}

// houseSteps are run in turn on the reference and on northlog. $SB_DP
// names an SB datapath row by its NB name.
var houseSteps = []string{
	// Static MAC bindings of router ports are written; those of a switch
	// port or of no port are not.
	`ovn-nbctl lr-add lr0 -- lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24 -- lrp-add lr0 lrp1 00:00:00:00:ff:02 10.0.1.1/24
ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2 -- ls-add sw1 -- lsp-add sw1 p3
ovn-nbctl static-mac-binding-add lrp0 10.0.0.5 00:00:00:00:00:05
ovn-nbctl static-mac-binding-add lrp1 10.0.1.5 00:00:00:00:01:05
ovn-nbctl create Static_MAC_Binding logical_port=p1 ip=10.0.0.6 mac='"00:00:00:00:00:06"'
ovn-nbctl create Static_MAC_Binding logical_port=lrp9 ip=10.0.9.6 mac='"00:00:00:00:09:06"' override_dynamic_mac=true`,
	// SB rows tampered with: a stray row goes, a switch port's row with
	// an NB row stays as it is, a router port's row gets its NB mac back
	// but keeps the datapath it was moved to. The port lrp9 appears.
	`ovn-sbctl set Static_MAC_Binding $(ovn-sbctl --bare --columns=_uuid find Static_MAC_Binding ip=10.0.0.5) mac=x override_dynamic_mac=true datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=sw0)
ovn-sbctl create Static_MAC_Binding logical_port=p1 ip=10.0.0.6 mac=y override_dynamic_mac=true datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=sw0)
ovn-sbctl create Static_MAC_Binding logical_port=zz ip=1.1.1.1 mac=z override_dynamic_mac=false datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=lr0)
ovn-nbctl lrp-add lr0 lrp9 00:00:00:00:ff:09 10.0.9.1/24`,
	// NB changes: a mac, an override, a binding deleted; a router port
	// deleted keeps its binding, a new one on a new router is written.
	`ovn-nbctl static-mac-binding-del lrp1 10.0.1.5
ovn-nbctl set Static_MAC_Binding $(ovn-nbctl --bare --columns=_uuid find Static_MAC_Binding ip=10.0.9.6) mac='"00:00:00:00:09:07"' override_dynamic_mac=false
ovn-nbctl set Static_MAC_Binding $(ovn-nbctl --bare --columns=_uuid find Static_MAC_Binding ip=10.0.0.6) mac='"00:00:00:00:00:16"'
ovn-nbctl lrp-del lrp0 -- lr-add lr1 -- lrp-add lr1 lrp10 00:00:00:00:ff:10 10.1.0.1/24
ovn-nbctl static-mac-binding-add lrp10 10.1.0.5 00:00:00:00:10:05
ovn-nbctl static-mac-binding-add lrp1 10.0.1.7 00:00:00:00:01:07`,
	// A router port moves to another router: its binding keeps its
	// datapath, and takes the NB's new mac.
	`ovn-nbctl lrp-del lrp10 -- lrp-add lr0 lrp10 00:00:00:00:ff:10 10.1.0.1/24
ovn-nbctl set Static_MAC_Binding $(ovn-nbctl --bare --columns=_uuid find Static_MAC_Binding ip=10.1.0.5) mac='"00:00:00:00:10:06"'`,
	// Rows ovn-controller writes: those of no chassis, no datapath, no
	// such datapath key or port key go at once; the MAC binding of a
	// port that does not exist stays.
	`ovn-sbctl chassis-add hv1 geneve 192.0.2.1 -- chassis-add hv2 geneve 192.0.2.2
dp() { ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=$1; }
dpkey() { ovn-sbctl --bare --columns=tunnel_key find Datapath_Binding external_ids:name=$1; }
pb() { ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=$1; }
pk() { ovn-sbctl --bare --columns=tunnel_key find Port_Binding logical_port=$1; }
ch() { ovn-sbctl --bare --columns=_uuid find Chassis name=$1; }
ovn-sbctl create MAC_Binding logical_port=lrp9 ip=10.0.9.8 mac='"00:00:00:00:09:08"' datapath=$(dp lr0)
ovn-sbctl create MAC_Binding logical_port=gone ip=10.0.9.9 mac='"00:00:00:00:09:09"' datapath=$(dp lr0)
ovn-sbctl create MAC_Binding logical_port=lrp1 ip=10.0.1.9 mac='"00:00:00:00:01:09"' datapath=$(dp lr0)
ovn-sbctl create FDB mac='"00:00:00:00:00:a1"' dp_key=$(dpkey sw0) port_key=$(pk p1)
ovn-sbctl create FDB mac='"00:00:00:00:00:a2"' dp_key=$(dpkey sw0) port_key=$(pk p2)
ovn-sbctl create FDB mac='"00:00:00:00:00:a3"' dp_key=$(dpkey sw1) port_key=$(pk p3)
ovn-sbctl create FDB mac='"00:00:00:00:00:a4"' dp_key=$(dpkey sw0) port_key=999
ovn-sbctl create FDB mac='"00:00:00:00:00:a5"' dp_key=9999 port_key=1
ovn-sbctl create IGMP_Group address=239.0.0.1 datapath=$(dp sw0) chassis=$(ch hv1) ports=$(pb p1)
ovn-sbctl create IGMP_Group address=239.0.0.2 datapath=$(dp sw1) chassis=$(ch hv2)
ovn-sbctl create IGMP_Group address=239.0.0.3 datapath=$(dp sw1) chassis=$(ch hv1)
ovn-sbctl create IGMP_Group address=239.0.0.4 datapath=$(dp sw1)
ovn-sbctl create IGMP_Group address=239.0.0.5 chassis=$(ch hv1)`,
	// A port deleted: MAC bindings of every port that does not exist go,
	// and the port's FDB rows.
	`ovn-nbctl lsp-del p2`,
	// A switch and a router port deleted: the switch's FDB and IGMP rows
	// go, and the port's MAC binding.
	`ovn-nbctl ls-del sw1 -- lrp-del lrp1`,
	// A chassis deleted: its IGMP groups go.
	`ovn-sbctl chassis-del hv1`,
}

// TestLiveHousekeeping: the SB rows 23.03 writes or prunes besides flows,
// datapaths and ports (sbwriter/house.go) are the reference's after each step of
// houseSteps, NB changes and SB rows written behind northd's back alike.
// Then the real ovn-northd takes the SB over and changes none of them
// (same contents, same UUIDs), and northlog takes it back writing none.
func TestLiveHousekeeping(t *testing.T) {
	t.Parallel()
	ref, s, l := startWithReference(t)
	for i, step := range houseSteps {
		applyBoth(t, ref, s, step)
		want, _ := houseRows(t, ref.SBRemote())
		if got, _ := houseRows(t, s.SBRemote()); !slices.Equal(want, got) {
			r := reference.Compare(want, got)
			t.Fatalf("step %d: rows differ from the reference's (- reference, + northlog):\n%s", i,
				rowDiff(r))
		}
	}
	lines, uuids := houseRows(t, s.SBRemote())
	l.stop()
	s.start("northd")
	s.sync()
	if got, gotUUIDs := houseRows(t, s.SBRemote()); !slices.Equal(lines, got) || !maps.Equal(uuids, gotUUIDs) {
		t.Errorf("ovn-northd changed the rows northlog wrote:\n%s", reference.Compare(lines, got))
	}
	s.kill("northd")
	l = runNorthd(t, s)
	s.sync()
	l.stop()
	for _, table := range houseRowTables {
		if n := l.Totals()[table]; n != [3]int{} {
			t.Errorf("northlog's take-over wrote %s rows (+insert ~update -delete): %v", table, n)
		}
	}
}

// vxlanSteps are run in turn on the reference and on northlog: requested
// tunnel keys, new datapaths and ports before, during and after VXLAN
// mode.
var vxlanSteps = []string{
	`ovn-nbctl ls-add swA -- set Logical_Switch swA other_config:requested-tnl-key=5000
ovn-nbctl lsp-add swA pA -- lsp-set-options pA requested-tnl-key=3000`,
	// A chassis with a VXLAN encap: max_tunid is lowered, keys given
	// stay; new ones are allocated below the VXLAN limits.
	`ovn-sbctl chassis-add hv1 vxlan 192.0.2.1
ovn-nbctl ls-add swB -- lsp-add swB pB -- lsp-add swA pA2`,
	// Requested keys above the limits are refused, others honoured.
	`ovn-nbctl ls-add swC -- set Logical_Switch swC other_config:requested-tnl-key=5001
ovn-nbctl lsp-add swC pC -- lsp-set-options pC requested-tnl-key=2500
ovn-nbctl lsp-add swC pC2 -- lsp-set-options pC2 requested-tnl-key=7
ovn-nbctl lr-add lrD -- set Logical_Router lrD options:requested-tnl-key=4000`,
	// A geneve chassis changes nothing; without the VXLAN one, the
	// refused keys are given.
	`ovn-sbctl chassis-add hv2 geneve 192.0.2.2`,
	`ovn-sbctl chassis-del hv1`,
}

// TestLiveVXLAN: with a chassis that has a VXLAN encapsulation, tunnel
// keys, NB_Global's max_tunid and SB_Global's options are the reference's
// after each step of vxlanSteps.
func TestLiveVXLAN(t *testing.T) {
	t.Parallel()
	compareKeySteps(t, reference.BuildOf(schema.OVN2303), vxlanSteps)
}

// requestedKeySteps are run in turn on the reference and on northlog:
// ports added one by one (keys 1, 2, 3), then requested-tnl-key naming a
// free key, another port's key (which moves aside), and a new port
// requesting an existing port's key (ovn-northd.at "port
// requested-tnl-key"). Two ports requesting one key are left out: which
// one 23.03 grants it depends on hash order.
var requestedKeySteps = []string{
	`ovn-nbctl ls-add ls0`,
	`ovn-nbctl lsp-add ls0 lsp00`,
	`ovn-nbctl lsp-add ls0 lsp01`,
	`ovn-nbctl lsp-add ls0 lsp02`,
	`ovn-nbctl set logical-switch-port lsp00 options:requested-tnl-key=4`,
	`ovn-nbctl set logical-switch-port lsp00 options:requested-tnl-key=2`,
	`ovn-nbctl lsp-add ls0 lsp03 -- lsp-set-options lsp03 requested-tnl-key=3`,
}

// TestLiveRequestedPortKeys: tunnel keys are the reference's after each
// step of requestedKeySteps.
func TestLiveRequestedPortKeys(t *testing.T) {
	t.Parallel()
	compareKeySteps(t, reference.BuildOf(schema.OVN2303), requestedKeySteps)
}

// reuseKeySteps delete and re-create switches, routers and ports, one
// datapath or port per step (23.03 numbers those it creates in one run in
// its hash order), and in one transaction.
var reuseKeySteps = []string{
	`ovn-nbctl ls-add sw0`,
	`ovn-nbctl ls-add sw1`,
	`ovn-nbctl lr-add lr0`,
	`ovn-nbctl ls-del sw0`,
	`ovn-nbctl ls-add sw0`,
	`ovn-nbctl ls-del sw1`,
	`ovn-nbctl ls-add sw2`,
	`ovn-nbctl ls-add sw3`,
	`ovn-nbctl ls-del sw2 -- ls-del sw3 -- ls-add sw4`,
	`ovn-nbctl lsp-add sw0 p1`,
	`ovn-nbctl lsp-add sw0 p2`,
	`ovn-nbctl lsp-add sw0 p3`,
	`ovn-nbctl lsp-del p3`,
	`ovn-nbctl lsp-add sw0 p4`,
	`ovn-nbctl lsp-del p1`,
	`ovn-nbctl lsp-add sw0 p5`,
	`ovn-nbctl lsp-del p4 -- lsp-del p5`,
	`ovn-nbctl lsp-add sw0 p6`,
	`ovn-nbctl lsp-del p6 -- lsp-add sw0 p7`,
	`ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24`,
	`ovn-nbctl lrp-add lr0 lrp1 00:00:00:00:ff:02 10.0.1.1/24`,
	`ovn-nbctl lrp-del lrp1`,
	`ovn-nbctl lrp-add lr0 lrp2 00:00:00:00:ff:03 10.0.2.1/24`,
}

// TestLiveTunnelKeyReuse: after datapaths and ports are deleted and
// others created, the tunnel keys are the reference's: a new datapath gets
// the lowest free key, a new port the first after the highest of its
// datapath.
func TestLiveTunnelKeyReuse(t *testing.T) {
	t.Parallel()
	compareKeySteps(t, reference.BuildOf(schema.OVN2303), reuseKeySteps)
}

// compareKeySteps runs steps on build's reference and on northlog and
// compares, after each, the SB rows with their tunnel keys, SB_Global's
// options and NB_Global's max_tunid.
func compareKeySteps(t *testing.T, build *reference.Build, steps []string) {
	ref, s, _ := startWithReferenceOf(t, build)
	for i, step := range steps {
		applyBoth(t, ref, s, step)
		if want, got := nbOptions(t, ref.NBRemote())["max_tunid"], nbOptions(t, s.NBRemote())["max_tunid"]; want != got {
			t.Errorf("step %d: NB_Global max_tunid %q, want %q", i, got, want)
		}
		want := append(sbRows(t, ref.SBRemote(), true), sbGlobalOptions(t, ref.SBRemote()))
		got := append(sbRows(t, s.SBRemote(), true), sbGlobalOptions(t, s.SBRemote()))
		if r := reference.Compare(want, got); !r.Equal() {
			t.Fatalf("step %d: SB rows differ from the reference's (- reference, + northlog):\n%s", i,
				rowDiff(r))
		}
	}
}

// sbGlobalOptions is SB_Global's options but the random MACs, as a line.
func sbGlobalOptions(t testing.TB, remote string) string {
	t.Helper()
	for _, m := range readSB(t, remote)[sb.SBGlobalTable] {
		options := maps.Clone(m.(*sb.SBGlobal).Options)
		delete(options, "mac_prefix")
		delete(options, "svc_monitor_mac")
		delete(options, "svc_monitor_mac_dst")
		return "SB_Global|options=" + sortedMap(options)
	}
	return "no SB_Global"
}

// monitorSteps are run in turn on the reference and on northlog: the
// status ovn-controller gives a service monitor, and its port's up.
var monitorSteps = []string{
	`ovn-nbctl set NB_Global . options:svc_monitor_mac=0a:58:0a:f4:00:01
ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80,10.0.0.6:80 tcp -- ls-lb-add sw0 lb0
ovn-nbctl set Load_Balancer lb0 ip_port_mappings:10.0.0.5=p1:10.0.0.2 ip_port_mappings:10.0.0.6=p2:10.0.0.2
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="10.0.0.100\:80" -- add Load_Balancer lb0 health_check @hc`,
	// Online with the port down is offline; with the port up, online.
	`ovn-sbctl set Port_Binding $(ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=p2) up=true
for ip in 10.0.0.5 10.0.0.6; do ovn-sbctl set Service_Monitor $(ovn-sbctl --bare --columns=_uuid find Service_Monitor ip=$ip) status=online; done`,
	// Other statuses stay.
	`ovn-sbctl set Service_Monitor $(ovn-sbctl --bare --columns=_uuid find Service_Monitor ip=10.0.0.6) status=error
ovn-sbctl set Service_Monitor $(ovn-sbctl --bare --columns=_uuid find Service_Monitor ip=10.0.0.5) status=error`,
	// The port goes down while its monitor is online (26.03 leaves the
	// monitor online, until the next step).
	`ovn-sbctl set Service_Monitor $(ovn-sbctl --bare --columns=_uuid find Service_Monitor ip=10.0.0.6) status=online
ovn-sbctl set Port_Binding $(ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=p2) up=false`,
	// Another monitor changes.
	`ovn-sbctl set Service_Monitor $(ovn-sbctl --bare --columns=_uuid find Service_Monitor ip=10.0.0.5) status=offline`,
}

// TestLiveServiceMonitorStatus: Service_Monitor rows, status included,
// and the logical flows, whose load balancers leave out the backends of
// monitors that are down, are the reference's after each step of
// monitorSteps.
func TestLiveServiceMonitorStatus(t *testing.T) {
	t.Parallel()
	compareMonitorSteps(t, reference.BuildOf(schema.OVN2303), monitorSteps, nil)
}

// compareMonitorSteps runs steps in turn on build's ovn-northd and on
// northlog and after each requires the same Service_Monitor rows, status
// included, the same logical flows and, when nbRows is given, the same
// lines of nbRows(s, NB remote) (s runs the tools).
func compareMonitorSteps(t *testing.T, build *reference.Build, steps []string, nbRows func(s *servers, remote string) []string) {
	ref, s, _ := startWithReferenceOf(t, build)
	rows := func(remote string) []string {
		lines, err := reference.DumpRows(t.Context(), remote, sb.ServiceMonitorTable)
		if err != nil {
			t.Fatal(err)
		}
		return lines
	}
	for i, step := range steps {
		applyBoth(t, ref, s, step)
		if r := reference.Compare(rows(ref.SBRemote()), rows(s.SBRemote())); !r.Equal() {
			t.Fatalf("step %d: Service_Monitor rows differ from the reference's (- reference, + northlog):\n%s", i,
				rowDiff(r))
		}
		if r := reference.Compare(dumpFlows(t, ref.SBRemote()), dumpFlows(t, s.SBRemote())); !r.Equal() {
			t.Fatalf("step %d: flows differ from the reference's:\n%s", i, r)
		}
		if nbRows == nil {
			continue
		}
		if err := ref.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
		s.sync()
		if r := reference.Compare(nbRows(s, ref.NBRemote()), nbRows(s, s.NBRemote())); !r.Equal() {
			t.Fatalf("step %d: NB rows differ from the reference's (- reference, + northlog):\n%s", i, rowDiff(r))
		}
	}
}

// agingSteps are run in turn on the reference and on northlog. $now is
// the wall clock in milliseconds, as ovn-controller writes timestamps.
var agingSteps = []string{
	// No chassis: every chassis has the timestamp feature. Rows past
	// lr0's age go, the others stay: fresh (which sets the next run 10 s
	// later), from the future, on lr1 (whose age is unreadable).
	`ovn-nbctl lr-add lr0 -- set Logical_Router lr0 options:mac_binding_age_threshold=10 -- lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24
ovn-nbctl lr-add lr1 -- set Logical_Router lr1 options:mac_binding_age_threshold=x -- lrp-add lr1 lrp1 00:00:00:00:ff:02 10.0.1.1/24
ovn-nbctl --wait=sb sync
mb() { ovn-sbctl create MAC_Binding logical_port=$1 ip=$2 mac='"00:00:00:00:00:01"' timestamp=$3 datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=$4); }
now=$(date +%s%3N)
mb lrp0 10.0.0.2 $((now - 60000)) lr0
mb lrp0 10.0.0.3 $now lr0
mb lrp0 10.0.0.4 $((now + 3600000)) lr0
mb lrp1 10.0.1.2 $((now - 60000)) lr1`,
	// A chassis without the feature stops aging; with it, aging waits for
	// the next run all the same, as do rows added meanwhile and ages
	// lowered.
	`ovn-sbctl chassis-add hv1 geneve 192.0.2.1
now=$(date +%s%3N)
ovn-sbctl create MAC_Binding logical_port=lrp0 ip=10.0.0.5 mac='"00:00:00:00:00:01"' timestamp=$((now - 60000)) datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=lr0)`,
	`ovn-sbctl set Chassis hv1 other_config:mac-binding-timestamp=true`,
	`ovn-nbctl set Logical_Router lr0 options:mac_binding_age_threshold=2
now=$(date +%s%3N)
ovn-sbctl create MAC_Binding logical_port=lrp0 ip=10.0.0.6 mac='"00:00:00:00:00:01"' timestamp=$((now - 1000)) datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=lr0)`,
}

// untimedRows are the rows of an SB table with a timestamp column, which
// differs between two runs, one line each but the timestamp (the last
// column).
func untimedRows(t *testing.T, remote, table string) []string {
	t.Helper()
	lines, err := reference.DumpRows(t.Context(), remote, table)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		lines[i] = l[:strings.Index(l, "|timestamp=")]
	}
	return lines
}

// TestLiveMACBindingAging: MAC_Binding rows are the reference's after each
// step of agingSteps, and after the next run, due 10 s after the first
// step with no change to set it off, has deleted the rows past their age.
func TestLiveMACBindingAging(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReference(t)
	rows := func(remote string) []string { return untimedRows(t, remote, sb.MACBindingTable) }
	check := func(what string) {
		t.Helper()
		if r := reference.Compare(rows(ref.SBRemote()), rows(s.SBRemote())); !r.Equal() {
			t.Fatalf("%s: MAC_Binding rows differ from the reference's (- reference, + northlog):\n%s", what,
				rowDiff(r))
		}
	}
	for i, step := range agingSteps {
		applyBoth(t, ref, s, step)
		check(fmt.Sprintf("step %d", i))
	}
	if n := len(rows(s.SBRemote())); n != 5 {
		t.Fatalf("%d MAC bindings before the next run, want 5", n)
	}
	for deadline := time.Now().Add(20 * time.Second); len(rows(s.SBRemote())) != 2 || len(rows(ref.SBRemote())) != 2; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("MAC bindings not aged: %d rows, the reference %d", len(rows(s.SBRemote())), len(rows(ref.SBRemote())))
		}
	}
	check("after the next run")
}
