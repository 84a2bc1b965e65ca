package ovsdb

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// start2603 starts servers of 26.03.2's build for a test of northlog
// beside the reference 26.03.2.
func start2603(t *testing.T) *servers {
	t.Helper()
	return startServersOf(t, reference.BuildOf(schema.OVN2603))
}

// rowsBesideFlows are the SB's rows but the logical flows' (Logical_Flow
// and Logical_DP_Group), one line each, "TABLE|UUID|COLUMNS" with every
// column but _version, sorted: two dumps are equal when no such row was
// inserted, deleted or changed.
func rowsBesideFlows(t testing.TB, s *servers) []string {
	t.Helper()
	var lines []string
	for dump := range strings.SplitSeq(strings.TrimSpace(s.run("ovsdb-client", "-f", "json", "dump", s.SBRemote())), "\n") {
		var table struct {
			Caption  string   `json:"caption"`
			Headings []string `json:"headings"`
			Data     [][]json.RawMessage
		}
		if err := json.Unmarshal([]byte(dump), &table); err != nil {
			t.Fatal(err)
		}
		name, _, _ := strings.Cut(table.Caption, " ")
		if name == "Logical_Flow" || name == "Logical_DP_Group" {
			continue
		}
		for _, r := range table.Data {
			row := map[string]json.RawMessage{}
			for i, h := range table.Headings {
				row[h] = r[i]
			}
			uuid := string(row["_uuid"])
			delete(row, "_uuid")
			delete(row, "_version")
			if name == "SB_Global" {
				delete(row, "nb_cfg") // the handshake's
			}
			var cols []string
			for _, c := range slices.Sorted(maps.Keys(row)) {
				cols = append(cols, c+"="+string(row[c]))
			}
			lines = append(lines, fmt.Sprintf("%s|%s|%s", name, uuid, strings.Join(cols, " ")))
		}
	}
	slices.Sort(lines)
	return lines
}

// steps2603 are the NB states whose SB rows besides flows northlog and
// 26.03.2's ovn-northd write alike, each built on the one before.
var steps2603 = []struct{ name, script string }{
	{"empty NB", "true"},
	{"switch with ports", `ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.1"
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "00:00:00:00:00:02 10.0.0.2" -- lsp-set-port-security p2 "00:00:00:00:00:02 10.0.0.2"`},
	{"second switch, port deleted", `ovn-nbctl ls-add sw1 -- lsp-add sw1 q1 -- lsp-set-addresses q1 unknown
ovn-nbctl lsp-del p1 -- set Logical_Switch sw1 other_config:requested-tnl-key=77`},
	{"router", `ovn-nbctl lr-add lr0 -- lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.254/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0`},
	{"acl, port group, address set", `ovn-nbctl pg-add pg0 p2 -- acl-add pg0 to-lport 1000 'outport == @pg0 && ip4' allow-related
ovn-nbctl create Address_Set name=as0 addresses=10.0.0.7 -- acl-add sw1 from-lport 900 'ip4.src == $as0' drop`},
	{"dns", `d=$(ovn-nbctl create DNS records='"vm1.ovn.org"="10.0.0.4"' options:ovn-owned=true)
ovn-nbctl add Logical_Switch sw0 dns_records $d -- add Logical_Switch sw1 dns_records $d
ovn-nbctl set Logical_Router lr0 options:disable_garp_rarp=true`},
	{"datapath limits", `ovn-nbctl set Logical_Switch sw0 other_config:ct-zone-limit=1000 other_config:fdb_age_threshold=60
ovn-nbctl set Logical_Switch sw1 other_config:ct-zone-limit=0 other_config:fdb_age_threshold=x
ovn-nbctl set Logical_Router lr0 options:ct-zone-limit=5000000000`},
	{"template variable", `ovn-nbctl create Chassis_Template_Var chassis=hv1 variables:vip=10.0.0.10`},
	// A new row is the NB row's by UUID (persist_uuid), and an old one
	// changes in place.
	{"second template variable", `ovn-nbctl create Chassis_Template_Var chassis=hv2 variables:vip=10.0.0.20
ovn-nbctl set Chassis_Template_Var $(ovn-nbctl --bare --columns=_uuid find Chassis_Template_Var chassis=hv1) variables:port=80`},
	{"static MAC bindings", `ovn-nbctl lrp-add lr0 lrp1 00:00:00:00:ff:02 10.0.1.254/24
ovn-nbctl static-mac-binding-add lrp0 10.0.0.10 00:00:00:00:00:10 -- static-mac-binding-add lrp0 10.0.0.11 00:00:00:00:00:11`},
	// Likewise a Static_MAC_Binding row (persist_uuid), whose port and IP
	// change in place; one of a port that is no router port's is deleted.
	{"static MAC bindings changed", `ovn-nbctl static-mac-binding-add lrp1 10.0.1.12 00:00:00:00:00:12
m=$(ovn-nbctl --bare --columns=_uuid find Static_MAC_Binding ip=10.0.0.11)
ovn-nbctl set Static_MAC_Binding $m logical_port=lrp1 ip=10.0.1.11
ovn-nbctl set Static_MAC_Binding $(ovn-nbctl --bare --columns=_uuid find Static_MAC_Binding ip=10.0.0.10) logical_port=p2`},
	// RBAC rows of another client's stay; the ovn-controller role gets
	// exactly its own permissions back (check_and_update_rbac).
	{"RBAC role tampered", `ovn-sbctl create RBAC_Role name=custom-role
ovn-sbctl remove RBAC_Role ovn-controller permissions Chassis`},
	{"RBAC permission added", `ovn-sbctl --id=@p create RBAC_Permission table=Load_Balancer -- set RBAC_Role ovn-controller permissions:Load_Balancer=@p
ovn-sbctl create RBAC_Role name=ops -- remove RBAC_Permission $(ovn-sbctl --bare --columns=_uuid find RBAC_Permission table=Encap) update ip`},
}

// TestLive2603TakeTurns: on 26.03's schemas, northlog follows the NB's
// schema version to 26.03, and it and 26.03.2's ovn-northd write each
// step of steps2603 in turn: whichever takes over the SB the other wrote
// changes no row besides the flows' (Logical_Flow and Logical_DP_Group,
// whose 26.03 rules are not all there yet), UUIDs included. A step the
// reference writes is taken from its full recompute: 26.03.2's
// incremental processing leaves out the multicast groups of a switch
// created with its ports in one transaction, which a recompute adds.
func TestLive2603TakeTurns(t *testing.T) {
	s := start2603(t)
	s.start("northd")
	var l *liveNorthd
	for i, step := range steps2603 {
		s.script(step.script)
		s.sync()
		if i%2 == 1 {
			// northlog wrote the step; ovn-northd takes over.
			if r, ok := l.Release(); !ok || r != schema.OVN2603 {
				t.Fatalf("%s: northlog reproduces %v (known %v), not 26.03", step.name, r, ok)
			}
			mine := rowsBesideFlows(t, s)
			l.stop()
			s.start("northd")
			s.sync()
			if r := reference.Compare(mine, rowsBesideFlows(t, s)); !r.Equal() {
				t.Errorf("%s: ovn-northd's take-over changed northlog's rows (- northlog, + ovn-northd):\n%s", step.name, rowDiff(r))
			}
			continue
		}
		s.run("ovn-appctl", "-t", s.ctl("northd"), "inc-engine/recompute")
		s.sync()
		before := rowsBesideFlows(t, s)
		if len(before) < 50 {
			t.Fatalf("%s: %d SB rows besides flows; a northd writes more", step.name, len(before))
		}
		s.kill("northd")
		l = runNorthd(t, s)
		s.sync()
		if r := reference.Compare(before, rowsBesideFlows(t, s)); !r.Equal() {
			t.Errorf("%s: northlog's take-over changed rows (- before, + after):\n%s", step.name, rowDiff(r))
		}
	}
}

// takeOverPending2603 lists the scenarios whose rows besides the flows
// northlog does not write as 26.03.2 does yet (its reasons, by table, in
// the comments): their differences are logged, every other scenario's
// fail the test, and a listed scenario that matches must leave the list.
const takeOverPending2603 = "testdata/takeover-pending-26.03.txt"

// TestLive2603TakeOverScenarios: for each differential scenario, northlog
// taking over an SB that 26.03.2's ovn-northd wrote changes no row
// besides the flows'. The reference starts afresh on each scenario's NB:
// its incremental processing asserts (lflow-mgr.c "dp_bitmap_len") on
// some NBs that the previous scenario's reset leaves it to process.
// Scenarios not there yet are listed in takeOverPending2603.
func TestLive2603TakeOverScenarios(t *testing.T) {
	scenarios, err := reference.LoadScenariosFor("../rules/testdata/scenarios", schema.OVN2603)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := reference.ReadList(takeOverPending2603)
	if err != nil {
		t.Fatal(err)
	}
	s := start2603(t)
	s.start("northd")
	s.sync()
	options := nbOptions(t, s.NBRemote())
	s.kill("northd")
	kept := 0
	tables := map[string]int{}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			s.t = t
			s.resetNB(options)
			s.resetChassis()
			// Started before the script, which may wait for the SB; a
			// recompute then fills what 26.03.2's incremental processing
			// leaves out (_MC_flood of a switch made with its ports).
			s.start("northd")
			s.script(sc.Script)
			s.sync()
			s.run("ovn-appctl", "-t", s.ctl("northd"), "inc-engine/recompute")
			s.sync()
			before := rowsBesideFlows(t, s)
			s.kill("northd")
			l := runNorthd(t, s)
			s.sync()
			l.stop()
			r := reference.Compare(before, rowsBesideFlows(t, s))
			_, isPending := pending[sc.Name]
			switch {
			case r.Equal() && isPending:
				t.Errorf("%s now keeps every row: remove it from %s", sc.Name, takeOverPending2603)
				return
			case r.Equal():
				kept++
				return
			}
			seen := map[string]bool{}
			for _, line := range slices.Concat(r.MissingLines, r.ExtraLines) {
				table, _, _ := strings.Cut(line, "|")
				seen[table] = true
			}
			for table := range seen {
				tables[table]++
			}
			report := t.Errorf
			if isPending {
				report = t.Logf
			}
			report("northlog's take-over changed rows (- before, + after):\n%s", rowDiff(r))
		})
	}
	t.Logf("%d of %d scenarios kept; scenarios changing each table: %v", kept, len(scenarios), tables)
}

// TestLive2603RequestedPortKeys: tunnel keys are 26.03.2's after each step
// of requestedKeySteps, then of ports requesting the key of a port that
// requests it too, which 26.03 gives the port that holds it. The other
// gets it once a port that requested a key is deleted (ovn-northd.at
// "port requested-tnl-key -- conflict resolved on deletion"), not when
// the holder stops requesting it or a port that requested none is.
// Then a router and a switch requesting datapath keys, and the router
// another (which of two datapaths requesting one key gets it varies from
// one 26.03.2 run to the next).
func TestLive2603RequestedPortKeys(t *testing.T) {
	t.Parallel()
	compareKeySteps(t, reference.BuildOf(schema.OVN2603), append(slices.Clone(requestedKeySteps),
		`ovn-nbctl lsp-add ls0 lsp04 -- lsp-set-options lsp04 requested-tnl-key=3`,
		`ovn-nbctl lsp-del lsp03`,
		`ovn-nbctl lsp-add ls0 lsp05 -- lsp-set-options lsp05 requested-tnl-key=2`,
		`ovn-nbctl remove logical-switch-port lsp00 options requested-tnl-key`,
		`ovn-nbctl lsp-del lsp01`,
		`ovn-nbctl lsp-del lsp04`,
		`ovn-nbctl lr-add lr0 -- set Logical_Router lr0 options:requested-tnl-key=4000 -- ls-add ls1 -- set Logical_Switch ls1 other_config:requested-tnl-key=4001`,
		`ovn-nbctl set Logical_Router lr0 options:requested-tnl-key=4002`))
}

// TestLive2603HARefChassis: from 26.03, a port's additional chassis are
// ref_chassis of the HA chassis groups of the routers its switch reaches,
// as the chassis it is bound to is. northlog and 26.03.2's ovn-northd
// write in turn, each after an additional chassis comes or goes; the other
// changes no HA row when it takes over, and the rows name both chassis.
func TestLive2603HARefChassis(t *testing.T) {
	t.Parallel()
	s := start2603(t)
	northlog, ovnNorthd := takeTurns(t, s)
	check := func(what string) {
		t.Helper()
		lines, uuids := haRows(t, s.SBRemote())
		if what == "northlog" {
			ovnNorthd()
		} else {
			northlog()
		}
		got, gotUUIDs := haRows(t, s.SBRemote())
		if r := reference.Compare(lines, got); !r.Equal() || !maps.Equal(uuids, gotUUIDs) {
			t.Errorf("taking over from %s changed HA rows (- before, + after):\n%s", what, rowDiff(r))
		}
	}
	northlog()
	s.script(`ovn-sbctl chassis-add gw1 geneve 192.0.2.1 -- chassis-add gw2 geneve 192.0.2.2
ovn-sbctl chassis-add hv1 geneve 192.0.2.11 -- chassis-add hv2 geneve 192.0.2.12 -- chassis-add hv3 geneve 192.0.2.13
ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2
ovn-nbctl lr-add lr0 -- lrp-add lr0 lr0-sw0 00:00:00:00:00:01 10.0.0.1/24 -- lrp-add lr0 lr0-public 00:00:00:00:00:02 172.16.0.1/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0
ovn-nbctl lrp-set-gateway-chassis lr0-public gw1 20 -- lrp-set-gateway-chassis lr0-public gw2 10
ovn-nbctl --wait=sb sync
ovn-sbctl lsp-bind p1 hv1
ovn-sbctl set Port_Binding p1 additional_chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=hv2)
ovn-sbctl set Port_Binding p2 additional_chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=hv3)`)
	s.settle()
	lines, _ := haRows(t, s.SBRemote())
	if !slices.ContainsFunc(lines, func(l string) bool {
		return strings.Contains(l, `name="lr0-public"|ref_chassis=[chassis(hv1) chassis(hv2) chassis(hv3)]`)
	}) {
		t.Errorf("lr0-public's ref_chassis are not hv1, hv2 and hv3:\n%s", strings.Join(lines, "\n"))
	}
	check("northlog")
	s.script(`ovn-sbctl clear Port_Binding p2 additional_chassis`)
	s.settle()
	check("ovn-northd")
	s.script(`ovn-sbctl clear Port_Binding p1 additional_chassis`)
	s.settle()
	check("northlog")
}

// TestLive2603PortsUp: switch ports' up column is 26.03.2's after each
// step: true for ports of type "switch" peering with each other, for a
// port bound to a chassis the binding's up, true for one bound to a remote
// chassis (other_config is-remote), false once unbound.
func TestLive2603PortsUp(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	for _, step := range []string{
		`ovn-nbctl ls-add S1 -- lsp-add S1 S1-p1 -- lsp-set-type S1-p1 switch peer=S2-p2
ovn-nbctl ls-add S2 -- lsp-add S2 S2-p2 -- lsp-set-type S2-p2 switch peer=S1-p1
ovn-nbctl lsp-add S1 vm1 -- lsp-add S1 vm2 -- lsp-add S2 vm3
ovn-sbctl chassis-add hv1 geneve 192.0.2.1 -- chassis-add hv2 geneve 192.0.2.2 -- set Chassis hv2 other_config:is-remote=true`,
		`ovn-sbctl lsp-bind vm1 hv1 -- lsp-bind vm2 hv2`,
		`ovn-sbctl set Port_Binding vm1 up=true`,
		`ovn-sbctl lsp-bind vm3 hv1 -- set Port_Binding vm3 up=true -- lsp-unbind vm1`,
	} {
		applyBoth(t, ref, s, step)
		if err := ref.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
		s.sync()
		if want, got := portsUp(s, ref.NBRemote()), portsUp(s, s.NBRemote()); !slices.Equal(want, got) {
			t.Errorf("after %s\nswitch ports' up differ from the reference's (- reference, + northlog):\n%s", step, rowDiff(reference.Compare(want, got)))
		}
	}
}

// remoteBindingSteps are the steps of TestLive2603RemotePortBinding
// (ovn-northd.at "Remote port binding" and more), each built on the ones
// before.
var remoteBindingSteps = []string{
	`ovn-sbctl chassis-add remote-ch0 geneve 192.0.2.1 -- set Chassis remote-ch0 other_config:is-remote=true -- chassis-add local-ch0 geneve 192.0.2.2
ovn-nbctl ls-add sw0 -- lsp-add sw0 sw0-r1 -- lsp-set-type sw0-r1 remote -- lsp-add sw0 vm1 -- lsp-add sw0 vm2
ovn-nbctl lsp-set-options sw0-r1 requested-chassis=remote-ch0`,
	`ovn-nbctl remove Logical_Switch_Port sw0-r1 options requested-chassis`,
	`ovn-nbctl set Logical_Switch_Port sw0-r1 external_ids:x=1`,
	`ovn-nbctl lsp-set-options sw0-r1 requested-chassis=remote-ch0`,
	`ovn-nbctl lsp-set-options sw0-r1 requested-chassis=local-ch0`,
	`ovn-nbctl lsp-add sw0 vm3`,
	`ovn-nbctl lsp-set-options sw0-r1 requested-chassis=remote-ch0`,
	`ovn-nbctl lsp-set-type sw0-r1 ''`,
	`ovn-nbctl lsp-set-type sw0-r1 remote`,
	`ovn-sbctl lsp-bind vm1 remote-ch0`,
	`ovn-sbctl set Chassis local-ch0 other_config:foo=bar`,
	`ovn-nbctl lsp-set-options vm2 requested-chassis=local-ch0,remote-ch0`,
	`ovn-nbctl lsp-set-options vm2 requested-chassis=remote-ch0,local-ch0`,
	`ovn-nbctl lsp-set-type sw0-r1 router`,
}

// TestLive2603RemotePortBinding: after each of remoteBindingSteps, the
// switch ports' bindings (chassis, requested chassis, options) and up
// column are 26.03.2's: northd binds a remote port to the remote chassis
// it requests, notes it in options:is-remote-nb-bound, unbinds it when it
// no longer requests one, and unbinds other ports from remote chassis,
// each when it next syncs the port.
func TestLive2603RemotePortBinding(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	for _, step := range remoteBindingSteps {
		applyBoth(t, ref, s, step)
		if err := ref.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
		s.sync()
		want := slices.Concat(portChassis(s, ref.SBRemote()), portsUp(s, ref.NBRemote()))
		got := slices.Concat(portChassis(s, s.SBRemote()), portsUp(s, s.NBRemote()))
		if !slices.Equal(want, got) {
			t.Errorf("after %s\nports differ from the reference's (- reference, + northlog):\n%s", step, rowDiff(reference.Compare(want, got)))
		}
	}
}

// portChassis are the SB's port bindings' chassis, requested chassis
// (by name) and options, a line each, sorted.
func portChassis(s *servers, remote string) []string {
	s.t.Helper()
	names := strings.NewReplacer(strings.FieldsFunc(s.run("ovn-sbctl", "--db="+remote, "--format=csv", "--data=bare", "--no-headings",
		"--columns=_uuid,name", "list", "Chassis"), func(r rune) bool { return r == ',' || r == '\n' })...)
	var lines []string
	for l := range strings.Lines(s.run("ovn-sbctl", "--db="+remote, "--format=csv", "--data=bare", "--no-headings",
		"--columns=logical_port,chassis,requested_chassis,options", "list", "Port_Binding")) {
		lines = append(lines, names.Replace(strings.TrimSpace(l)))
	}
	slices.Sort(lines)
	return lines
}

// TestLive2603RouterIGMPGroups: an IGMP_Group row on a router's datapath
// is purged, as 26.03.2 does; one on a switch's stays.
func TestLive2603RouterIGMPGroups(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	script := `ovn-nbctl --wait=sb lr-add lr -- ls-add sw
ovn-sbctl chassis-add hv1 geneve 127.0.0.1
ovn-sbctl create IGMP_Group address=mrouters chassis_name=hv1 chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=hv1) datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=lr)
ovn-sbctl create IGMP_Group address=mrouters chassis_name=hv1 chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=hv1) datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=sw)
ovn-nbctl --wait=sb sync`
	applyBoth(t, ref, s, script)
	groups := func(remote string) []string {
		out := s.run("ovn-sbctl", "--db="+remote, "--bare", "--columns=datapath", "list", "IGMP_Group")
		var names []string
		for _, dp := range strings.Fields(out) {
			names = append(names, strings.TrimSpace(s.run("ovn-sbctl", "--db="+remote, "get", "Datapath_Binding", dp, "external_ids:name")))
		}
		return slices.Sorted(slices.Values(names))
	}
	want, got := groups(ref.SBRemote()), groups(s.SBRemote())
	if !slices.Equal(want, got) || len(want) != 1 {
		t.Errorf("IGMP_Group rows on %v, want the reference's %v (one, the switch's)", got, want)
	}
}

// nfSteps are run in turn on 26.03.2's ovn-northd and on northlog: a
// network function group of two health-checked functions reached through
// child ports, and the status ovn-controller gives their monitors.
var nfSteps = []string{
	`ovn-nbctl set NB_Global . options:svc_monitor_mac=0a:58:0a:f4:00:01 options:svc_monitor_mac_dst=0a:58:0a:f4:00:02 \
  options:svc_monitor_ip=169.254.100.1 options:svc_monitor_ip_dst=169.254.100.2
ovn-nbctl ls-add sw0 -- lsp-add sw0 sw0-p1 -- ls-add nf-sw
for i in 1 2 3 4; do
  ovn-nbctl lsp-add nf-sw nf-sw-p$i -- lsp-add sw0 child-$i nf-sw-p$i 100 \
    -- set logical_switch_port nf-sw-p$i options:is-nf=true options:receive_multicast=false
done
ovn-nbctl --wait=sb sync
for i in 1 2 3 4; do ovn-sbctl set Port_Binding $(ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=nf-sw-p$i) up=true; done
ovn-nbctl nf-add nf0 1 nf-sw-p1 nf-sw-p2 -- nf-add nf1 2 nf-sw-p3 nf-sw-p4
ovn-nbctl --id=@hc create Network_Function_Health_Check name=hc options:interval=5 options:timeout=1 \
  -- set Network_Function $(ovn-nbctl --bare --columns=_uuid find Network_Function name=nf0) health_check=@hc \
  -- set Network_Function $(ovn-nbctl --bare --columns=_uuid find Network_Function name=nf1) health_check=@hc
ovn-nbctl nfg-add nfg0 1 inline nf0 nf1 -- pg-add pg0 sw0-p1
ovn-nbctl acl-add pg0 from-lport 1001 "inport == @pg0 && ip4" allow-related nfg0
ovn-nbctl acl-add pg0 to-lport 1002 "outport == @pg0 && ip4" allow-related nfg0`,
	nfStatus("online", "offline"),
	// The active function stays while healthy.
	nfStatus("online", "online"),
	nfStatus("offline", "online"),
	nfStatus("online", "online"),
	// None healthy: fail-close, then fail-open.
	nfStatus("offline", "offline"),
	`ovn-nbctl set Network_Function_Group $(ovn-nbctl --bare --columns=_uuid find Network_Function_Group name=nfg0) fallback=fail-open`,
	// Back online: the first healthy function is active again.
	nfStatus("online", "online"),
}

// nfStatus sets the status of nf0's and nf1's monitors (on their outports).
func nfStatus(nf0, nf1 string) string {
	return fmt.Sprintf(`ovn-sbctl set Service_Monitor $(ovn-sbctl --bare --columns=_uuid find Service_Monitor logical_port=nf-sw-p2) status=%s
ovn-sbctl set Service_Monitor $(ovn-sbctl --bare --columns=_uuid find Service_Monitor logical_port=nf-sw-p4) status=%s`, nf0, nf1)
}

// TestLive2603NetworkFunctionHealth: the network functions' Service_Monitor
// rows, status included, and the flows, which send traffic to the group's
// active function, are 26.03.2's after each step of nfSteps.
func TestLive2603NetworkFunctionHealth(t *testing.T) {
	t.Parallel()
	compareMonitorSteps(t, reference.BuildOf(schema.OVN2603), nfSteps, nil)
}

// TestLive2603ServiceMonitorStatus: the load balancers' Service_Monitor
// rows (26.03's type among their columns), status included, and the
// flows are 26.03.2's after each step of monitorSteps.
func TestLive2603ServiceMonitorStatus(t *testing.T) {
	t.Parallel()
	compareMonitorSteps(t, reference.BuildOf(schema.OVN2603), monitorSteps, nil)
}

// TestLive2603RemoteBackendMonitors: the Service_Monitor rows of load
// balancer backends in other availability zones (remote, options:az-name)
// and the flows are 26.03.2's after the scenario lb_remote_backends, once
// ovn-controller finds a remote backend down, once its mapping goes, and
// as the backends' ports are bound to chassis (chassis_name, not for the
// remote ones).
func TestLive2603RemoteBackendMonitors(t *testing.T) {
	t.Parallel()
	compareMonitorSteps(t, reference.BuildOf(schema.OVN2603), []string{
		scenario2603(t, "lb_remote_backends"),
		portMonitorStatus("10.0.0.8", "offline") + "\n" + portMonitorStatus("10.0.0.6", "online"),
		`ovn-nbctl remove Load_Balancer lb0 ip_port_mappings 10.0.0.8`,
		`ovn-sbctl chassis-add ch1 geneve 127.0.0.2 -- chassis-add ch2 geneve 127.0.0.3
ovn-sbctl set Port_Binding p1 chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=ch1)
ovn-sbctl set Port_Binding p2 chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=ch2)`,
		`ovn-sbctl set Port_Binding p1 chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=ch2)`,
		`ovn-nbctl set NB_Global . options:svc_monitor_mac=0a:58:0a:f4:00:02`,
	}, nil)
}

// portHealthSteps are run in turn on 26.03.2's ovn-northd and on
// northlog, after the scenario lsp_health_check: the status
// ovn-controller gives switch ports' monitors, with their ports up or
// not, then checks and ports going away.
var portHealthSteps = []string{
	`ovn-sbctl set Port_Binding $(ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=lport3) up=true`,
	portMonitorStatus("10.0.0.3", "online") + "\n" + portMonitorStatus("192.168.0.10", "online"),
	portMonitorStatus("10.0.0.3", "error"),
	`ovn-sbctl set Port_Binding $(ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=lport3) up=false`,
	portMonitorStatus("fd00::11", "offline"),
	`ovn-nbctl lsp-hc-del lport3`,
	`ovn-nbctl lsp-set-addresses lport1 "f0:00:0f:01:02:04 192.168.0.10"`,
	`ovn-nbctl lsp-del lport1`,
}

// portMonitorStatus sets the status of the Service_Monitor rows of ip.
func portMonitorStatus(ip, status string) string {
	return fmt.Sprintf(`for m in $(ovn-sbctl --bare --columns=_uuid find Service_Monitor ip=%q); do ovn-sbctl set Service_Monitor $m status=%s; done`,
		ip, status)
}

// TestLive2603SwitchPortHealth: the switch port health checks'
// Service_Monitor rows, status included, the flows and the checks' NB
// status, which follows their monitors', are 26.03.2's after the scenario
// lsp_health_check and each step of portHealthSteps.
func TestLive2603SwitchPortHealth(t *testing.T) {
	t.Parallel()
	checks := func(s *servers, remote string) []string {
		out := s.run("ovn-nbctl", "--db="+remote, "--format=csv", "--data=bare", "--no-headings",
			"--columns=address,protocol,port,src_ip,status", "list", nb.LogicalSwitchPortHealthCheckTable)
		return slices.Sorted(slices.Values(strings.Split(strings.TrimSpace(out), "\n")))
	}
	compareMonitorSteps(t, reference.BuildOf(schema.OVN2603),
		append([]string{scenario2603(t, "lsp_health_check")}, portHealthSteps...), checks)
}

// TestLive2603HostingChassis: a distributed gateway port's NB
// status:hosting-chassis is 26.03.2's after each step: the chassis its
// chassisredirect port is bound to, removed once unbound.
func TestLive2603HostingChassis(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	status := func(remote string) []string {
		out := s.run("ovn-nbctl", "--db="+remote, "--format=csv", "--data=bare", "--no-headings", "--columns=name,status", "list", "Logical_Router_Port")
		return slices.Sorted(slices.Values(strings.Fields(out)))
	}
	for _, step := range []string{
		`ovn-sbctl chassis-add ch1 geneve 127.0.0.2 -- chassis-add ch2 geneve 127.0.0.3
ovn-nbctl lr-add lr1 -- lrp-add lr1 lrp1 00:00:00:00:00:01 10.0.0.1/24 -- lrp-add lr1 lrp2 00:00:00:00:00:02 10.0.1.1/24
ovn-nbctl ls-add ls1 -- lsp-add-router-port ls1 lsp1 lrp1 -- lrp-set-gateway-chassis lrp1 ch1`,
		`ovn-sbctl set Port_Binding cr-lrp1 chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=ch1)`,
		`ovn-sbctl set Port_Binding cr-lrp1 chassis=$(ovn-sbctl --bare --columns=_uuid find Chassis name=ch2)`,
		`ovn-sbctl clear Port_Binding cr-lrp1 chassis`,
	} {
		applyBoth(t, ref, s, step)
		if err := ref.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
		s.sync()
		if want, got := status(ref.NBRemote()), status(s.NBRemote()); !slices.Equal(want, got) {
			t.Errorf("after %s\nrouter ports' status %q, want the reference's %q", step, got, want)
		}
	}
}

// TestLive2603DynamicRouting: on the scenario lr_dynamic_routing, then as
// ports and routes come and go and switches join an EVPN domain, the
// Advertised_Route, Advertised_MAC_Binding and Port_Binding rows (dynamic
// routing options) northlog writes are 26.03.2's.
func TestLive2603DynamicRouting(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	tables := []string{sb.AdvertisedRouteTable, sb.AdvertisedMACBindingTable, sb.PortBindingTable}
	for _, step := range []struct{ name, script string }{
		{"scenario", scenario2603(t, "lr_dynamic_routing")},
		{"port and route deleted", `ovn-nbctl lsp-del vm1 -- lsp-del vm3 -- lr-route-del r0 fd0a::/64
ovn-nbctl lsp-add ls2 vm4 -- lsp-set-addresses vm4 "00:00:00:00:00:41 10.0.2.41"`},
		{"redistribution changed", `ovn-nbctl set Logical_Router_Port r0-ls1 options:dynamic-routing-redistribute=connected-as-host
ovn-nbctl remove Logical_Router_Port r0-ls2 options dynamic-routing-redistribute -- set Logical_Router r1 options:dynamic-routing-redistribute=connected`},
		{"EVPN domain", `ovn-nbctl set Logical_Switch ls2 other_config:dynamic-routing-vni=100 other_config:dynamic-routing-redistribute=fdb,ip
ovn-nbctl set Logical_Switch ls1 other_config:dynamic-routing-vni=100 other_config:dynamic-routing-redistribute=fdb
ovn-nbctl set Logical_Switch ls-ext other_config:dynamic-routing-vni=16777216 other_config:dynamic-routing-redistribute=ip`},
		{"switch port moved", `ovn-nbctl lsp-del vm2 -- lsp-add ls1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:21 10.0.2.21"
ovn-nbctl set Logical_Switch ls1 other_config:dynamic-routing-redistribute=ip -- lsp-add ls2 vm5 -- lsp-set-addresses vm5 "00:00:00:00:00:51 fd02::51 fe80::51"`},
		{"dynamic routing off", `ovn-nbctl remove Logical_Router r0 options dynamic-routing -- lr-del r1`},
	} {
		applyBoth(t, ref, s, step.script)
		want, got := ownedRows(t, dumpSB(t, ref.SBRemote()), tables), ownedRows(t, dumpSB(t, s.SBRemote()), tables)
		if r := reference.Compare(want, got); !r.Equal() {
			t.Errorf("%s: rows differ from the reference's (- reference, + northlog):\n%s", step.name, rowDiff(r))
		}
		if step.name == "scenario" && !slices.ContainsFunc(want, func(l string) bool { return strings.HasPrefix(l, sb.AdvertisedRouteTable) }) ||
			step.name == "EVPN domain" && !slices.ContainsFunc(want, func(l string) bool { return strings.HasPrefix(l, sb.AdvertisedMACBindingTable) }) {
			t.Fatalf("%s: the reference advertises no route or no MAC binding", step.name)
		}
	}
}

// TestLive2603NATLBRedistribution: on the scenario
// lr_nat_lb_redistribution, then as a distributed NAT rule's logical port,
// a NAT rule and a load balancer go, a router with NAT starts routing
// dynamically and another stops, the Advertised_Route rows northlog
// writes are 26.03.2's. 26.03.2 keeps advertising a deleted load
// balancer's VIP until it recomputes, which the NB_Global option set
// after the deletion makes it do.
func TestLive2603NATLBRedistribution(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	tables := []string{sb.AdvertisedRouteTable}
	for _, step := range []struct{ name, script string }{
		{"scenario", scenario2603(t, "lr_nat_lb_redistribution")},
		{"port, NAT rule and load balancer deleted", `ovn-nbctl lsp-del vm -- lr-nat-del lr-guest0 dnat_and_snat 172.16.2.10 -- lb-del lb1
ovn-nbctl --wait=sb set NB_Global . options:ignore_lsp_down=false`},
		{"dynamic routing moved", `ovn-nbctl remove Logical_Router lr0 options dynamic-routing -- set Logical_Router lr2 options:dynamic-routing=true`},
	} {
		applyBoth(t, ref, s, step.script)
		want, got := ownedRows(t, dumpSB(t, ref.SBRemote()), tables), ownedRows(t, dumpSB(t, s.SBRemote()), tables)
		if r := reference.Compare(want, got); !r.Equal() {
			t.Errorf("%s: rows differ from the reference's (- reference, + northlog):\n%s", step.name, rowDiff(r))
		}
		if len(want) == 0 {
			t.Fatalf("%s: the reference advertises no route", step.name)
		}
	}
}

// vxlanOptionSteps2603 are run in turn on 26.03.2 and on northlog: VXLAN
// mode from a chassis's encapsulation, turned off and on again by
// NB_Global options:vxlan_mode, and a switch in interconnection VXLAN mode
// (other_config:ic-vxlan_mode), which lowers max_tunid to 1023 whatever
// the mode (ovn-northd.at "check VXLAN mode disabling", "check VXLAN encap
// in IC-mode"). No switch requests a key: 26.03.2 judges a requested key
// by the VXLAN mode of when it last processed the switch, not again when
// the mode changes. A switch's change is followed by one of NB_Global:
// 26.03.2 copies the new max_tunid to SB_Global's options only then. The
// switch's change waits for the SB: when 26.03.2 takes both changes in one
// iteration, SB_Global keeps the old max_tunid (a race under load).
var vxlanOptionSteps2603 = []string{
	`ovn-sbctl chassis-add hv1 vxlan 192.0.2.1
ovn-nbctl --wait=sb ls-add swA
ovn-nbctl --wait=sb ls-add swB
ovn-nbctl lsp-add swA pA`,
	`ovn-nbctl set NB_Global . options:vxlan_mode=false`,
	`ovn-nbctl --wait=sb set Logical_Switch swA other_config:ic-vxlan_mode=true -- ls-add swC
ovn-nbctl --wait=sb set NB_Global . options:ic-step=1`,
	`ovn-nbctl --wait=sb remove Logical_Switch swA other_config ic-vxlan_mode -- ls-add swD
ovn-nbctl --wait=sb set NB_Global . options:ic-step=2`,
	`ovn-nbctl set NB_Global . options:vxlan_mode=true -- ls-add swE`,
}

// TestLive2603VXLANOptions: tunnel keys, NB_Global's max_tunid and
// SB_Global's options are 26.03.2's after each of vxlanOptionSteps2603.
func TestLive2603VXLANOptions(t *testing.T) {
	t.Parallel()
	compareKeySteps(t, reference.BuildOf(schema.OVN2603), vxlanOptionSteps2603)
}

// TestLive2603LearnedRoutes: the live northd reads the SB Learned_Route
// rows as they come and go and routes by them as 26.03.2 does, on the
// scenario lr_learned_routes, then as routes are withdrawn and learnt
// again, their port changes networks and goes, and their router stops
// routing dynamically; the Learned_Route rows northd deletes with their
// port, or once their router learns no more, are 26.03.2's.
func TestLive2603LearnedRoutes(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	learned := `ovn-sbctl destroy Learned_Route $(ovn-sbctl --bare --columns=_uuid find Learned_Route ip_prefix='"%s"')`
	for _, step := range []struct{ name, script string }{
		{"scenario", scenario2603(t, "lr_learned_routes")},
		{"routes withdrawn", fmt.Sprintf(learned, "10.100.0.0/24") + "\n" + fmt.Sprintf(learned, "fd00:100::/48") + "\novn-nbctl --wait=sb sync"},
		{"port networks changed", `ovn-nbctl --wait=sb set Logical_Router_Port r0-up2 networks=203.0.113.1/24`},
		{"port deleted", `ovn-nbctl --wait=sb lrp-del r0-up2`},
		{"dynamic routing off", `ovn-nbctl --wait=sb remove Logical_Router r0 options dynamic-routing`},
	} {
		applyBoth(t, ref, s, step.script)
		refSB, liveSB := dumpSB(t, ref.SBRemote()), dumpSB(t, s.SBRemote())
		if r := reference.Compare(sbFlows(t, refSB), sbFlows(t, liveSB)); !r.Equal() {
			t.Errorf("%s: flows differ from the reference's:\n%s", step.name, r)
		}
		want, got := ownedRows(t, refSB, []string{sb.LearnedRouteTable}), ownedRows(t, liveSB, []string{sb.LearnedRouteTable})
		if r := reference.Compare(want, got); !r.Equal() {
			t.Errorf("%s: Learned_Route rows differ from the reference's (- reference, + northlog):\n%s", step.name, rowDiff(r))
		}
		if step.name == "port deleted" && len(want) == 0 {
			t.Fatalf("%s: the reference keeps no learnt route", step.name)
		}
	}
}

// TestLive2603ECMPNexthops: the ECMP_Nexthop rows northlog writes are
// 26.03.2's (port, datapath and MAC address included) as symmetric-reply
// routes come and go, through a router port, an IPv6 next hop written
// uncompressed and an output port, beside an ECMP route that is not
// symmetric and one whose next hop no port reaches; as MAC bindings of
// the next hops are learnt and change; as a port goes with its row in the
// transaction that deletes its binding; and as the monitoring is turned
// off and on again, when a row takes the MAC address already learnt.
func TestLive2603ECMPNexthops(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	mac := `ovn-sbctl create MAC_Binding datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=lr0) logical_port=%s ip='"%s"' mac='"%s"'`
	for _, step := range []struct{ name, script string }{
		{"routes", `ovn-nbctl --wait=sb lr-add lr0 -- lrp-add lr0 lr0-pub 00:00:20:20:12:13 192.168.0.1/24 -- lrp-add lr0 lr0-v6 00:00:20:20:12:14 2001:db8::1/64
ovn-nbctl set NB_Global . options:ecmp_nexthop_monitor_enable=true
` + fmt.Sprintf(mac, "lr0-pub", "192.168.0.20", "00:00:00:00:00:20") + `
ovn-nbctl --ecmp-symmetric-reply lr-route-add lr0 1.0.0.1 192.168.0.10 -- --ecmp-symmetric-reply lr-route-add lr0 1.0.0.1 192.168.0.20
ovn-nbctl --ecmp-symmetric-reply lr-route-add lr0 2001:db8:5::/64 2001:db8:0:0::a -- --ecmp lr-route-add lr0 3.0.0.0/24 192.168.0.30
ovn-nbctl --ecmp-symmetric-reply lr-route-add lr0 4.0.0.0/24 192.168.0.40 lr0-pub -- --ecmp-symmetric-reply lr-route-add lr0 5.0.0.0/24 192.168.1.50`},
		{"MAC bindings learnt", fmt.Sprintf(mac, "lr0-pub", "192.168.0.10", "00:00:00:00:00:10") + "\n" +
			fmt.Sprintf(mac, "lr0-v6", "2001:db8::a", "00:00:00:00:00:0a") + "\n" +
			`ovn-sbctl set MAC_Binding $(ovn-sbctl --bare --columns=_uuid find MAC_Binding ip=192.168.0.20) mac='"00:00:00:00:20:20"'
ovn-nbctl --wait=sb sync`},
		{"route deleted", `ovn-nbctl lr-route-del lr0 1.0.0.1 192.168.0.20`},
		{"port deleted", `ovn-nbctl lrp-del lr0-v6`},
		{"monitoring off", `ovn-nbctl set NB_Global . options:ecmp_nexthop_monitor_enable=false`},
		{"monitoring on", `ovn-nbctl set NB_Global . options:ecmp_nexthop_monitor_enable=true`},
	} {
		applyBoth(t, ref, s, step.script)
		want, got := ownedRows(t, dumpSB(t, ref.SBRemote()), []string{sb.ECMPNexthopTable}), ownedRows(t, dumpSB(t, s.SBRemote()), []string{sb.ECMPNexthopTable})
		if r := reference.Compare(want, got); !r.Equal() {
			t.Errorf("%s: ECMP_Nexthop rows differ from the reference's (- reference, + northlog):\n%s", step.name, rowDiff(r))
		}
		if (len(want) == 0) != (step.name == "monitoring off") {
			t.Fatalf("%s: the reference has %d ECMP_Nexthop rows", step.name, len(want))
		}
	}
}

// scenario2603 is the script of the differential scenario name.
func scenario2603(t *testing.T, name string) string {
	t.Helper()
	scenarios, err := reference.LoadScenariosFor("../rules/testdata/scenarios", schema.OVN2603)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(scenarios, func(sc reference.Scenario) bool { return sc.Name == name })
	if i < 0 {
		t.Fatalf("no scenario %s", name)
	}
	return scenarios[i].Script
}

// TestLive2603ACLIDs: on the scenario acl_persist_established, then as
// ACLs stop and start persisting established connections, northlog's
// ACL_ID rows are 26.03.2's (the lowest ids free, kept while their ACL
// persists), and its flows hold each ACL's id where the offline flows
// name that ACL (rules.ACLIDRef).
func TestLive2603ACLIDs(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	acl := func(match string) string {
		return fmt.Sprintf(`$(ovn-nbctl --bare --columns=_uuid find ACL 'match="%s"')`, match)
	}
	for _, step := range []struct{ name, script string }{
		{"scenario", scenario2603(t, "acl_persist_established")},
		{"option removed", `ovn-nbctl --wait=sb remove ACL ` + acl("udp") + ` options persist-established`},
		{"ACL persisting", `ovn-nbctl --wait=sb set ACL $(ovn-nbctl --bare --columns=_uuid find ACL match=ip6 action=allow-related) options:persist-established=true`},
		{"ACL deleted", `ovn-nbctl --wait=sb acl-del sw0 to-lport 1000 "tcp.dst == 80"`},
		{"action changed", `ovn-nbctl --wait=sb set ACL ` + acl("icmp4") + ` action=allow`},
		{"two persisting", `ovn-nbctl --wait=sb set ACL ` + acl("udp") + ` options:persist-established=true
ovn-nbctl --wait=sb set ACL ` + acl("icmp4") + ` action=allow-related`},
	} {
		applyBoth(t, ref, s, step.script)
		if err := ref.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
		refSB, liveSB := dumpSB(t, ref.SBRemote()), dumpSB(t, s.SBRemote())
		want, got := ownedRows(t, refSB, []string{sb.ACLIDTable}), ownedRows(t, liveSB, []string{sb.ACLIDTable})
		if len(want) == 0 {
			t.Fatalf("%s: the reference has no ACL_ID row", step.name)
		}
		if r := reference.Compare(want, got); !r.Equal() {
			t.Errorf("%s: ACL_ID rows differ from the reference's (- reference, + northlog):\n%s", step.name, rowDiff(r))
		}
		if r := reference.Compare(offlineOf(t, s).Canonical(), sbFlows(t, liveSB)); !r.Equal() {
			t.Errorf("%s: live SB differs from northlog offline:\n%s", step.name, r)
		}
	}
}

// flowColumnScenarios2603 are the differential scenarios whose flows carry
// the Logical_Flow columns besides the canonical ones: flow_desc (debug
// drops, sampled drops), tags (acl_ct_translation, in_out_port) and
// controller_meter (CoPP, ACL meters, the stateless DNAT of a rejecting
// VIP).
var flowColumnScenarios2603 = []string{"debug_drop", "sampling_app_drop", "acl_sampling", "acl_ct_translation",
	"acl_fair_meter_unlogged", "copp_router", "copp_switch", "lb_stateless_nat"}

// TestLive2603FlowColumns: on flowColumnScenarios2603, the live northd's
// Logical_Flow rows have 26.03.2's flow_desc, tags, controller_meter and
// external_ids (stage-hint aside: hintKeys), flow for flow. The flows
// themselves are the differential tests' concern: here the two NBs' rows
// have UUIDs of their own, which some flows show (trigger_event's
// load_balancer, ACL meter names) or are ordered by (sample actions).
func TestLive2603FlowColumns(t *testing.T) {
	t.Parallel()
	b := startBesideOf(t, reference.BuildOf(schema.OVN2603))
	descs := 0
	for _, name := range flowColumnScenarios2603 {
		t.Run(name, func(t *testing.T) {
			b.run(t, scenario2603(t, name))
			refSB, liveSB := dumpSB(t, b.ref.SBRemote()), dumpSB(t, b.live.SBRemote())
			want := flowColumns(t, refSB)
			for _, l := range want {
				if !strings.HasSuffix(l, "|flow_desc=[]") {
					descs++
				}
			}
			if changed := changedFlowColumns(want, flowColumns(t, liveSB)); len(changed) > 0 {
				t.Errorf("%d flows' other columns differ from the reference's (- reference, + northlog):\n%s", len(changed)/2,
					strings.Join(changed, "\n"))
			}
		})
	}
	if descs == 0 {
		t.Errorf("no reference flow has a flow_desc: %v compare nothing of it", flowColumnScenarios2603)
	}
}

// TestLive2603StatelessRejectMeter: a rejecting stateless-NAT VIP on a
// router with two distributed gateway ports and a CoPP, whose backends'
// monitors ovn-controller reports online, then offline, then one online
// again: after each step the flows and their controller_meter (the
// reject meter on the DNAT flows while no backend is up) are 26.03.2's.
func TestLive2603StatelessRejectMeter(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	steps := []string{
		`ovn-nbctl set NB_Global . options:svc_monitor_mac=0a:58:0a:f4:00:01
ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2
ovn-nbctl lr-add lr0 -- lrp-add lr0 lr0-sw0 00:00:00:00:ff:01 10.0.0.1/24 -- lsp-add-router-port sw0 sw0-lr0 lr0-sw0
ovn-nbctl lrp-add lr0 lr0-a 00:00:00:00:ff:02 172.16.1.1/24 -- lrp-set-gateway-chassis lr0-a hv1
ovn-nbctl lrp-add lr0 lr0-b 00:00:00:00:ff:03 172.16.2.1/24 -- lrp-set-gateway-chassis lr0-b hv2
ovn-nbctl lb-add lb0 30.0.0.1:80 10.0.0.5:80,10.0.0.6:80 tcp -- lr-lb-add lr0 lb0 -- ls-lb-add sw0 lb0
ovn-nbctl set Load_Balancer lb0 options:use_stateless_nat=true options:reject=true \
  ip_port_mappings:10.0.0.5=p1:10.0.0.2 ip_port_mappings:10.0.0.6=p2:10.0.0.2
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="30.0.0.1\:80" -- add Load_Balancer lb0 health_check @hc
ovn-nbctl meter-add mrej drop 10 pktps -- copp-add copp0 reject mrej -- lr-copp-add copp0 lr0
ovn-nbctl --wait=sb sync
for p in p1 p2; do ovn-sbctl set Port_Binding $p up=true; done`,
		portMonitorStatus("10.0.0.5", "online") + "\n" + portMonitorStatus("10.0.0.6", "online"),
		portMonitorStatus("10.0.0.5", "offline") + "\n" + portMonitorStatus("10.0.0.6", "offline"),
		portMonitorStatus("10.0.0.6", "online"),
	}
	for i, step := range steps {
		applyBoth(t, ref, s, step)
		refSB, liveSB := dumpSB(t, ref.SBRemote()), dumpSB(t, s.SBRemote())
		if r := reference.Compare(sbFlows(t, refSB), sbFlows(t, liveSB)); !r.Equal() {
			t.Fatalf("step %d: flows differ from the reference's:\n%s", i, r)
		}
		want := flowColumns(t, refSB)
		if changed := changedFlowColumns(want, flowColumns(t, liveSB)); len(changed) > 0 {
			t.Errorf("step %d: %d flows' other columns differ from the reference's (- reference, + northlog):\n%s", i, len(changed)/2,
				strings.Join(changed, "\n"))
		}
		metered := slices.ContainsFunc(want, func(l string) bool {
			return strings.Contains(l, "reg1[0..15] == 0|") && strings.Contains(l, `controller_meter="mrej"`)
		})
		if wantMetered := i == 2; metered != wantMetered {
			t.Errorf("step %d: the reference's stateless DNAT flows metered %t, want %t: the step does not test what it says", i, metered, wantMetered)
		}
	}
}

// changedFlowColumns lists, "- " from was then "+ " from is, the flows in
// both flowColumns dumps whose other columns (controller_meter,
// external_ids, tags, flow_desc) differ.
func changedFlowColumns(was, is []string) []string {
	byFlow := func(lines []string) map[string]string {
		m := map[string]string{}
		for _, l := range lines {
			i := strings.Index(l, "|controller_meter=")
			m[l[:i]] = l[i:]
		}
		return m
	}
	before, after := byFlow(was), byFlow(is)
	var changed []string
	for _, flow := range slices.Sorted(maps.Keys(before)) {
		if cols, ok := after[flow]; ok && cols != before[flow] {
			changed = append(changed, "- "+flow+before[flow], "+ "+flow+cols)
		}
	}
	return changed
}

// learnRoute2603 defines learn ROUTER PORT PREFIX NEXTHOP, which inserts
// an SB Learned_Route as ovn-controller would, and unlearn PREFIX
// NEXTHOP, which deletes it, for a step's script.
const learnRoute2603 = `learn() {
  ovn-sbctl create Learned_Route datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=$1) \
    logical_port=$(ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=$2) ip_prefix=\"$3\" nexthop=\"$4\"
}
unlearn() {
  ovn-sbctl destroy Learned_Route $(ovn-sbctl --bare --columns=_uuid find Learned_Route ip_prefix=\"$1\" nexthop=\"$2\")
}
`

// TestLive2603EVPN: on the scenario ls_evpn (two switches in one EVPN
// domain behind a router that routes dynamically, redistributing its
// connected and static routes), then as the router learns more routes
// (an ECMP member, an IPv6 prefix), some are withdrawn, switches leave and
// join the domain, a VIF on the switch that redistributes its IP
// neighbours gains and loses addresses and a static route goes, the live
// northd's flows and its Advertised_Route, Advertised_MAC_Binding,
// Learned_Route and Datapath_Binding rows are 26.03.2's after each step
// (ECMP members compared as labels: 26.03.2 numbers them in no fixed
// order). Each step first checks that the reference shows what it is
// about, so that no step passes for want of it. The reference recomputes
// after a member leaves an ECMP group: its incremental processing then
// numbers the members left from 0 (en-group-ecmp-route.c
// ecmp_group_update_ids), its full run from 1, as northlog does.
func TestLive2603EVPN(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	stages := rules.StagesOf(schema.OVN2603)
	tables := []string{sb.AdvertisedRouteTable, sb.AdvertisedMACBindingTable, sb.LearnedRouteTable, sb.DatapathBindingTable}
	for _, step := range []struct {
		name, script string
		// The reference's flows and rows hold each of shows and none of
		// hides.
		shows, hides []string
		recompute    bool
	}{
		{name: "scenario", script: scenario2603(t, "ls_evpn"),
			shows: []string{`ip_prefix="10.50.0.0/16"`, `ip_prefix="10.0.1.0/24"`, `ip_prefix="fd01::/64"`, `ip="10.0.1.11"`, `ip="fd01::11"`,
				`"dynamic-routing-redistribute"="fdb"`, "reg0 = 192.0.2.10;", "ip6.dst == fd00:100::/48"},
			hides: []string{`ip="10.0.2.23"`, `ip="10.0.3.34"`}},
		{name: "routes learnt", script: learnRoute2603 + `learn r0 r0-up 10.100.0.0/24 192.0.2.12
learn r0 r0-up fd00:101::/48 fd00:2::12
learn r0 r0-up 10.102.0.0/24 192.0.2.13
ovn-nbctl --wait=sb sync`, shows: []string{"ip4.dst == 10.102.0.0/24", "ip6.dst == fd00:101::/48", "reg0 = 192.0.2.12;", "reg0 = 192.0.2.10;"}},
		{name: "ECMP member and IPv6 prefix withdrawn", script: learnRoute2603 + `unlearn 10.100.0.0/24 192.0.2.10
unlearn fd00:100::/48 fd00:2::10
ovn-nbctl --wait=sb sync`, shows: []string{"reg0 = 192.0.2.11;", "reg0 = 192.0.2.12;"},
			hides: []string{"reg0 = 192.0.2.10;", "ip6.dst == fd00:100::/48"}, recompute: true},
		{name: "switch leaves the domain", script: `ovn-nbctl remove Logical_Switch ls2 other_config dynamic-routing-vni`,
			shows: []string{`"dynamic-routing-vni"="100"`}, hides: []string{`"dynamic-routing-redistribute"="fdb"`}},
		{name: "switch joins the domain", script: `ovn-nbctl set Logical_Switch ls3 other_config:dynamic-routing-vni=100`,
			shows: []string{`ip="10.0.3.34"`}},
		{name: "VIF gains addresses", script: `ovn-nbctl lsp-set-addresses vm1 "00:00:00:00:00:11 10.0.1.11 10.0.1.12 fd01::11"
ovn-nbctl lsp-add ls1 vm5 -- lsp-set-addresses vm5 "00:00:00:00:00:15 10.0.1.15"`,
			shows: []string{`ip="10.0.1.12"`, `ip="10.0.1.15"`}},
		{name: "VIF loses addresses", script: `ovn-nbctl lsp-set-addresses vm1 "00:00:00:00:00:11 fd01::11" -- lsp-set-addresses vm5 00:00:00:00:00:15`,
			shows: []string{`ip="fd01::11"`}, hides: []string{`ip="10.0.1.11"`, `ip="10.0.1.12"`, `ip="10.0.1.15"`}},
		{name: "static route removed", script: `ovn-nbctl lr-route-del r0 10.50.0.0/16`,
			shows: []string{`ip_prefix="0.0.0.0/0"`}, hides: []string{`ip_prefix="10.50.0.0/16"`}},
	} {
		applyBoth(t, ref, s, step.script)
		if step.recompute {
			if err := ref.Apply(t.Context(), "ovn-appctl -t "+filepath.Join(ref.Dir(), "northd.ctl")+" inc-engine/recompute"); err != nil {
				t.Fatal(err)
			}
		}
		refSB, liveSB := dumpSB(t, ref.SBRemote()), dumpSB(t, s.SBRemote())
		refFlows, refRows := sbFlows(t, refSB), ownedRows(t, refSB, tables)
		want := slices.Concat(refFlows, refRows)
		for _, text := range step.shows {
			if !slices.ContainsFunc(want, func(l string) bool { return strings.Contains(l, text) }) {
				t.Fatalf("%s: the reference shows no %s", step.name, text)
			}
		}
		for _, text := range step.hides {
			if slices.ContainsFunc(want, func(l string) bool { return strings.Contains(l, text) }) {
				t.Fatalf("%s: the reference still shows %s", step.name, text)
			}
		}
		if r := reference.CompareIn(stages, refFlows, sbFlows(t, liveSB)); !r.Equal() {
			t.Errorf("%s: flows differ from the reference's:\n%s", step.name, r)
		}
		if r := reference.Compare(refRows, ownedRows(t, liveSB, tables)); !r.Equal() {
			t.Errorf("%s: rows differ from the reference's (- reference, + northlog):\n%s", step.name, rowDiff(r))
		}
	}
}

// aging2603Setup has routers with 26.03's per-network MAC binding ages, v4
// and v6, a default and 0 (never) entries (lr0), a bad entry (lr1) and
// only 0 entries (lr2), a switch whose FDB rows age (sw0) and one whose
// rows do not (sw1), and a chassis with both timestamp features. mb and
// fdb insert rows as ovn-controller does; $now is the wall clock in ms.
const aging2603Setup = `ovn-nbctl lr-add lr0 -- set Logical_Router lr0 'options:mac_binding_age_threshold="10.0.1.0/24:1;10.0.0.0/16:0;fd00:1::/64:1;fd00::/16:0;2"' -- lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/16 fd00::1/16
ovn-nbctl lr-add lr1 -- set Logical_Router lr1 'options:mac_binding_age_threshold="1;10.0.0.0/8:x"' -- lrp-add lr1 lrp1 00:00:00:00:ff:02 10.1.0.1/16
ovn-nbctl lr-add lr2 -- set Logical_Router lr2 'options:mac_binding_age_threshold="10.2.0.0/16:0;0"' -- lrp-add lr2 lrp2 00:00:00:00:ff:03 10.2.0.1/16
ovn-nbctl ls-add sw0 -- set Logical_Switch sw0 other_config:fdb_age_threshold=1 -- lsp-add sw0 p0
ovn-nbctl ls-add sw1 -- lsp-add sw1 p1
ovn-nbctl --wait=sb sync
ovn-sbctl chassis-add hv1 geneve 192.0.2.1 -- set Chassis hv1 other_config:mac-binding-timestamp=true other_config:fdb-timestamp=true
`

// agingRowFuncs define mb PORT IP TIMESTAMP ROUTER and fdb MAC SWITCH
// PORT TIMESTAMP, and $now.
const agingRowFuncs = `mb() { ovn-sbctl create MAC_Binding logical_port=$1 ip='"'$2'"' mac='"00:00:00:00:00:01"' timestamp=$3 datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=$4); }
fdb() { ovn-sbctl create FDB mac='"'$1'"' dp_key=$(ovn-sbctl --bare --columns=tunnel_key find Datapath_Binding external_ids:name=$2) port_key=$(ovn-sbctl --bare --columns=tunnel_key find Port_Binding logical_port=$3) timestamp=$4; }
now=$(date +%s%3N)
`

// TestLive2603Aging: once past their thresholds, the MAC_Binding and FDB
// rows left are 26.03.2's: by the longest network holding a binding's IP,
// else the default, none for a 0 entry or a router with a bad entry; FDB
// rows by their switch's fdb_age_threshold. Then with fdb_removal_limit=1
// one stale FDB row of two goes at once, the other 5 s later, a chassis
// without the timestamp features notwithstanding, since NB_Global
// options:ignore_chassis_features assumes them.
func TestLive2603Aging(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	applyBoth(t, ref, s, aging2603Setup)
	applyBoth(t, ref, s, agingRowFuncs+`mb lrp0 10.0.1.5 $now lr0
mb lrp0 10.0.2.5 $now lr0
mb lrp0 11.0.0.5 $now lr0
mb lrp0 fd00:1::5 $now lr0
mb lrp0 fd00:2::5 $now lr0
mb lrp0 fd01::5 $now lr0
mb lrp1 10.1.0.5 $((now - 60000)) lr1
mb lrp2 10.2.0.5 $((now - 60000)) lr2
fdb 00:00:00:00:00:01 sw0 p0 $now
fdb 00:00:00:00:00:02 sw1 p1 $((now - 60000))`)
	count := func(remote, table string) int { return len(untimedRows(t, remote, table)) }
	settled := func(table string, want int) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); count(ref.SBRemote(), table) != want || count(s.SBRemote(), table) != want; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s not aged to %d rows: northlog has %d, the reference %d", table, want, count(s.SBRemote(), table), count(ref.SBRemote(), table))
			}
		}
		if r := reference.Compare(untimedRows(t, ref.SBRemote(), table), untimedRows(t, s.SBRemote(), table)); !r.Equal() {
			t.Fatalf("%s rows differ from the reference's (- reference, + northlog):\n%s", table, rowDiff(r))
		}
	}
	settled(sb.MACBindingTable, 4)
	settled(sb.FDBTable, 1)

	start := time.Now()
	applyBoth(t, ref, s, agingRowFuncs+`ovn-sbctl chassis-add hv2 geneve 192.0.2.2
ovn-nbctl --wait=sb set NB_Global . options:fdb_removal_limit=1 options:ignore_chassis_features=true
fdb 00:00:00:00:00:03 sw0 p0 $((now - 60000))
fdb 00:00:00:00:00:04 sw0 p0 $((now - 60000))`)
	if n, nRef := count(s.SBRemote(), sb.FDBTable), count(ref.SBRemote(), sb.FDBTable); n != 2 || nRef != 2 {
		t.Fatalf("%d FDB rows after removing one, the reference %d; want 2", n, nRef)
	}
	for count(s.SBRemote(), sb.FDBTable) == 2 && time.Since(start) < 15*time.Second {
		time.Sleep(100 * time.Millisecond)
	}
	if d := time.Since(start); d < 5*time.Second {
		t.Fatalf("the second stale FDB row went after %v, before the bulk removal delay", d)
	}
	settled(sb.FDBTable, 1)
}

// TestLive2603LoadBalancerSwitchColumn: 26.03 names a load balancer's
// switches in Load_Balancer's ls_datapath_group only when every local
// chassis has the ls-dpg-column feature or NB_Global
// options:ignore_chassis_features assumes it, else in datapath_group; the
// rows are the reference's as chassis and the option come and go.
func TestLive2603LoadBalancerSwitchColumn(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603))
	rows := func(remote string) []string {
		lines, err := reference.DumpRows(t.Context(), remote, sb.LoadBalancerTable)
		if err != nil {
			t.Fatal(err)
		}
		return lines
	}
	for _, step := range []struct{ what, script string }{
		{"no chassis", `ovn-nbctl ls-add sw0 -- lb-add lb0 10.0.0.10:80 10.0.0.2:80 -- ls-lb-add sw0 lb0
ovn-nbctl --wait=sb sync`},
		{"a chassis without the feature", `ovn-sbctl chassis-add hv1 geneve 192.0.2.1
ovn-nbctl --wait=sb sync`},
		{"features ignored", `ovn-nbctl --wait=sb set NB_Global . options:ignore_chassis_features=true`},
		{"features read again", `ovn-nbctl --wait=sb set NB_Global . options:ignore_chassis_features=false`},
		{"a remote chassis without it", `ovn-sbctl set Chassis hv1 other_config:ls-dpg-column=true
ovn-sbctl chassis-add hv2 geneve 192.0.2.2 -- set Chassis hv2 other_config:is-remote=true
ovn-nbctl --wait=sb sync`},
	} {
		applyBoth(t, ref, s, step.script)
		// Both sides are read again until they agree: under load the
		// reference's northd has been seen to write the last step's
		// column in an iteration after `--wait=sb sync` returned.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			r := reference.Compare(rows(ref.SBRemote()), rows(s.SBRemote()))
			if r.Equal() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: Load_Balancer rows differ from the reference's (- reference, + northlog):\n%s", step.what, rowDiff(r))
			}
		}
	}
}
