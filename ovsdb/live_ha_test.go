package ovsdb

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb/sbwriter"
)

// haRows is the canonical dump of the SB's HA_Chassis_Group and HA_Chassis
// rows and of each Port_Binding's ha_chassis_group and gateway_chassis,
// sorted, and the UUIDs of the HA rows.
func haRows(t testing.TB, remote string) (lines []string, uuids map[string]bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lines, err := reference.DumpRows(ctx, remote, sbwriter.HATables...)
	if err != nil {
		t.Fatal(err)
	}
	pbs, err := reference.DumpRows(ctx, remote, "Port_Binding")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range pbs {
		var port, group, gw string
		for f := range strings.SplitSeq(l, "|") {
			switch {
			case strings.HasPrefix(f, "logical_port="):
				port = f
			case strings.HasPrefix(f, "ha_chassis_group="):
				group = f
			case strings.HasPrefix(f, "gateway_chassis="):
				gw = f
			}
		}
		lines = append(lines, "Port_Binding|"+port+"|"+group+"|"+gw)
	}
	uuids = map[string]bool{}
	rows := readSB(t, remote)
	for _, table := range sbwriter.HATables {
		for u := range rows[table] {
			uuids[u] = true
		}
	}
	return slices.Sorted(slices.Values(lines)), uuids
}

// TestLiveHAChassisGroups: HA_Chassis_Group and HA_Chassis rows, their
// ref_chassis and the Port_Binding references to them, written by northlog
// and by the real ovn-northd in turn on one SB, as TestLiveSBTables does:
// whichever writes first, the other changes none of these rows when it
// takes over (same contents, same UUIDs). The groups come from gateway
// chassis and HA chassis groups of distributed gateway ports and from
// external switch ports; chassis come and go, ports are bound to them, and
// rows are tampered with between take-overs.
func TestLiveHAChassisGroups(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	northlog, ovnNorthd := takeTurns(t, s)
	check := func(what string, lines []string, uuids map[string]bool) {
		t.Helper()
		got, gotUUIDs := haRows(t, s.SBRemote())
		if r := reference.Compare(lines, got); !r.Equal() {
			t.Fatalf("%s: rows changed (- before, + after):\n%s", what,
				rowDiff(r))
		}
		if !maps.Equal(uuids, gotUUIDs) {
			t.Errorf("%s: rows rewritten: %d UUIDs before, %d after", what, len(uuids), len(gotUUIDs))
		}
	}
	// want requires lines among the rows.
	want := func(lines []string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !slices.Contains(lines, w) {
				t.Errorf("no line %s in:\n%s", w, strings.Join(lines, "\n"))
			}
		}
	}

	northlog()
	s.script(`ovn-sbctl chassis-add gw1 geneve 192.0.2.1 -- chassis-add gw2 geneve 192.0.2.2
ovn-sbctl chassis-add hv1 geneve 192.0.2.11 -- chassis-add hv2 geneve 192.0.2.12
ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2 -- ls-add public -- ls-add join -- ls-add sw1 -- lsp-add sw1 p3
ovn-nbctl lr-add lr0 -- lrp-add lr0 lr0-sw0 00:00:00:00:00:01 10.0.0.1/24 -- lrp-add lr0 lr0-public 00:00:00:00:00:02 172.16.0.1/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0
ovn-nbctl lsp-add public public-lr0 -- lsp-set-type public-lr0 router -- lsp-set-options public-lr0 router-port=lr0-public
ovn-nbctl lrp-set-gateway-chassis lr0-public gw1 20 -- lrp-set-gateway-chassis lr0-public gw2 10
ovn-nbctl lr-add lr1 -- lrp-add lr1 lr1-sw1 00:00:00:00:01:01 10.1.0.1/24 -- lrp-add lr1 lr1-join 00:00:00:00:01:02 100.64.0.2/24
ovn-nbctl lrp-add lr0 lr0-join 00:00:00:00:00:03 100.64.0.1/24
ovn-nbctl lsp-add sw1 sw1-lr1 -- lsp-set-type sw1-lr1 router -- lsp-set-options sw1-lr1 router-port=lr1-sw1
ovn-nbctl lsp-add join join-lr0 -- lsp-set-type join-lr0 router -- lsp-set-options join-lr0 router-port=lr0-join
ovn-nbctl lsp-add join join-lr1 -- lsp-set-type join-lr1 router -- lsp-set-options join-lr1 router-port=lr1-join
ovn-nbctl ha-chassis-group-add hg1 -- ha-chassis-group-add-chassis hg1 gw1 30 -- ha-chassis-group-add-chassis hg1 gw3 20
ovn-nbctl ha-chassis-group-add hg2 -- ha-chassis-group-add-chassis hg2 hv1 5
ovn-nbctl ha-chassis-group-add unused -- ha-chassis-group-add-chassis unused gw1 1
ovn-nbctl ha-chassis-group-add hg3 -- ha-chassis-group-add-chassis hg3 gw2 1 -- ha-chassis-group-add-chassis hg3 gw2 1
ovn-nbctl lrp-add lr1 lr1-ext 00:00:00:00:01:03 172.16.1.1/24 -- ls-add ext1 -- lsp-add ext1 ext1-lr1 -- lsp-set-type ext1-lr1 router -- lsp-set-options ext1-lr1 router-port=lr1-ext
ovn-nbctl set Logical_Router_Port lr1-ext ha_chassis_group=$(ovn-nbctl --bare --columns=_uuid find HA_Chassis_Group name=hg1)
ovn-nbctl lsp-add sw0 e1 -- lsp-set-type e1 external -- set Logical_Switch_Port e1 ha_chassis_group=$(ovn-nbctl --bare --columns=_uuid find HA_Chassis_Group name=hg2)
ovn-nbctl lsp-add sw1 e2 -- lsp-set-type e2 external -- set Logical_Switch_Port e2 ha_chassis_group=$(ovn-nbctl --bare --columns=_uuid find HA_Chassis_Group name=hg1)
ovn-nbctl lsp-add sw1 e3 -- lsp-set-type e3 external -- set Logical_Switch_Port e3 ha_chassis_group=$(ovn-nbctl --bare --columns=_uuid find HA_Chassis_Group name=hg3)
ovn-nbctl --wait=sb sync
ovn-sbctl lsp-bind p1 hv1 -- lsp-bind p3 hv2`)
	s.settle()
	lines, uuids := haRows(t, s.SBRemote())
	want(lines, `Port_Binding|logical_port="cr-lr0-public"|ha_chassis_group=HA_Chassis_Group{external_ids={} ha_chassis=[`+
		`HA_Chassis{chassis=chassis(gw1) external_ids={"chassis-name"="gw1"} priority=20} `+
		`HA_Chassis{chassis=chassis(gw2) external_ids={"chassis-name"="gw2"} priority=10}] name="lr0-public" ref_chassis=[chassis(hv1) chassis(hv2)]}|gateway_chassis=[]`,
		`Port_Binding|logical_port="e1"|ha_chassis_group=HA_Chassis_Group{external_ids={} ha_chassis=`+
			`HA_Chassis{chassis=chassis(hv1) external_ids={"chassis-name"="hv1"} priority=5} name="hg2" ref_chassis=[]}|gateway_chassis=[]`)
	ovnNorthd()
	check("ovn-northd after northlog", lines, uuids)

	s.script(`ovn-nbctl ha-chassis-group-remove-chassis hg1 gw3 -- ha-chassis-group-add-chassis hg1 gw2 25
ovn-sbctl chassis-add gw3 geneve 192.0.2.3
ovn-nbctl lrp-del-gateway-chassis lr0-public gw2
ovn-nbctl set Logical_Router_Port lr0-sw0 gateway_chassis=[] -- lrp-set-gateway-chassis lr0-join gw3 1 -- lrp-set-gateway-chassis lr0-join hv2 2
ovn-sbctl lsp-unbind p1 -- lsp-bind p2 gw3
ovn-nbctl lsp-set-type e2 ""`)
	s.settle()
	lines, uuids = haRows(t, s.SBRemote())
	l := northlog()
	check("northlog after ovn-northd", lines, uuids)
	got := l.Totals()
	for _, table := range sbwriter.HATables {
		if n := got[table]; n != [3]int{} {
			t.Errorf("northlog's take-over wrote %s rows (+insert ~update -delete): %v", table, n)
		}
	}

	s.script(`ovn-sbctl chassis-del gw1 -- lsp-bind p1 hv2
ovn-sbctl set HA_Chassis $(ovn-sbctl --bare --columns=ha_chassis find HA_Chassis_Group name=hg2) priority=99
ovn-sbctl create HA_Chassis_Group name=stray
ovn-sbctl set Port_Binding cr-lr0-join gateway_chassis=@g -- --id=@g create Gateway_Chassis name=legacy priority=1
ovn-nbctl clear Logical_Router_Port lr1-ext ha_chassis_group -- lrp-set-gateway-chassis lr1-ext hv1 7
ovn-nbctl lsp-set-type e2 external -- clear Logical_Switch_Port e3 ha_chassis_group
ovn-nbctl lrp-del lr0-public`)
	s.settle()
	lines, uuids = haRows(t, s.SBRemote())
	want(lines, `HA_Chassis_Group|external_ids={}|ha_chassis=HA_Chassis{chassis=chassis(hv1) external_ids={"chassis-name"="hv1"} priority=5}|name="hg2"|ref_chassis=[]`)
	for _, l := range lines {
		if strings.Contains(l, `"stray"`) || strings.Contains(l, `"lr0-public"`) || strings.Contains(l, `"hg3"`) || strings.Contains(l, `"legacy"`) {
			t.Errorf("row or reference not deleted: %s", l)
		}
	}
	ovnNorthd()
	check("ovn-northd after northlog's changes", lines, uuids)
}
