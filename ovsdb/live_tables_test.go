package ovsdb

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb/sbwriter"
	"github.com/northlog/northlog/relations/sb"
)

// otherRows is SB_Global's options and dumpOtherRows, sorted, and the
// UUIDs of the sbwriter.OtherTables rows.
func otherRows(t testing.TB, remote string) (lines []string, uuids map[string]bool) {
	t.Helper()
	rows := readSB(t, remote)
	uuids = map[string]bool{}
	for _, table := range sbwriter.OtherTables {
		for u := range rows[table] {
			uuids[u] = true
		}
	}
	for _, m := range rows[sb.SBGlobalTable] {
		lines = append(lines, "SB_Global|options="+sortedMap(m.(*sb.SBGlobal).Options))
	}
	return slices.Sorted(slices.Values(append(lines, dumpOtherRows(t, remote)...))), uuids
}

// TestLiveSBTables: SB_Global options, Meter/Meter_Band (NB meters and the
// ACL log fair meters), DNS, Chassis_Template_Var, Mirror, IP_Multicast
// (odd option values included), DHCP(v6)_Options and RBAC, written by northlog and by the real ovn-northd in turn on one SB.
// Whichever writes first, the other changes none of these rows when it
// takes over (same contents, same UUIDs): what northlog writes is what
// 23.03 writes, and northlog keeps what 23.03 wrote. Between take-overs
// the NB and the chassis change, and rows are tampered with.
func TestLiveSBTables(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	northlog, ovnNorthd := takeTurns(t, s)
	// check requires the SB's rows to be those before a take-over.
	check := func(what string, lines []string, uuids map[string]bool) {
		t.Helper()
		got, gotUUIDs := otherRows(t, s.SBRemote())
		if r := reference.Compare(lines, got); !r.Equal() {
			t.Fatalf("%s: rows changed (- before, + after):\n%s", what,
				rowDiff(r))
		}
		if !maps.Equal(uuids, gotUUIDs) {
			t.Errorf("%s: rows rewritten: %d UUIDs before, %d after, %d kept", what, len(uuids), len(gotUUIDs),
				len(slices.DeleteFunc(slices.Collect(maps.Keys(uuids)), func(u string) bool { return !gotUUIDs[u] })))
		}
	}

	northlog()
	s.script(`ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.1"
ovn-nbctl ls-add sw1 -- ls-add sw2
ovn-nbctl meter-add m1 drop 100 pktps
ovn-nbctl meter-add m2 drop 2000 kbps 300
ovn-nbctl --fair meter-add mfair drop 10 pktps
ovn-nbctl --log --meter=mfair --name=a1 acl-add sw0 to-lport 1000 tcp allow
ovn-nbctl --log --meter=mfair --name=a2 acl-add sw1 to-lport 1000 udp allow
ovn-nbctl --log --meter=m1 acl-add sw0 from-lport 1000 udp drop
d=$(ovn-nbctl create DNS records='"VM1.ovn.org"="10.0.0.4 AEF0::4" "vm2.ovn.org"="10.0.0.5"')
ovn-nbctl add Logical_Switch sw0 dns_records $d -- add Logical_Switch sw1 dns_records $d
ovn-nbctl create DNS records='"x.org"="10.0.0.9"'
ovn-nbctl create Chassis_Template_Var chassis=hv1 variables:VIP=10.0.0.10 variables:PORT=80
ovn-nbctl mirror-add mir1 gre 1 to-lport 192.0.2.10 -- mirror-add mir2 erspan 2 from-lport 192.0.2.11
ovn-nbctl set Logical_Switch sw0 other_config:mcast_snoop=true other_config:mcast_idle_timeout=5 other_config:mcast_query_interval=-1 other_config:mcast_eth_src=00:00:00:00:00:aa other_config:mcast_table_size=abc`)
	s.sync()
	lines, uuids := otherRows(t, s.SBRemote())
	ovnNorthd()
	check("ovn-northd after northlog", lines, uuids)

	s.script(`ovn-nbctl meter-del m2
ovn-nbctl --fair meter-add mfair2 drop 20 pktps 5
ovn-nbctl --log --meter=mfair2 acl-add sw2 to-lport 900 icmp4 allow
ovn-nbctl add Logical_Switch sw2 dns_records $(ovn-nbctl --bare --columns=_uuid find DNS records:x.org=10.0.0.9)
ovn-nbctl create Chassis_Template_Var chassis=hv2 variables:VIP=10.0.0.20
ovn-sbctl chassis-add hv1 geneve 192.0.2.1`)
	s.sync()
	lines, uuids = otherRows(t, s.SBRemote())
	if !strings.Contains(strings.Join(lines, "\n"), `lb_hairpin_use_ct_mark="false"`) {
		t.Fatalf("no lb_hairpin_use_ct_mark=false with a chassis that masks ct_label:\n%s", strings.Join(lines, "\n"))
	}
	l := northlog()
	check("northlog after ovn-northd", lines, uuids)
	// Only these tables' writes are checked here; TestLiveTakeOver and
	// TestLiveFeatures check the flows of chassis without a feature.
	got := l.Totals()
	for _, table := range append(sbwriter.OtherTables, sb.SBGlobalTable) {
		if n := got[table]; n[0]+n[2] != 0 || n[1] != 0 && table != sb.SBGlobalTable {
			t.Errorf("northlog's take-over wrote %s rows (+insert ~update -delete): %v", table, n)
		}
	}

	s.script(`ovn-nbctl set Meter_Band $(ovn-nbctl --bare --columns=bands find Meter name=m1) rate=55
ovn-nbctl --fair meter-add m3 drop 7 kbps -- set Meter m3 fair=false
ovn-nbctl remove Logical_Switch sw1 dns_records $(ovn-nbctl --bare --columns=_uuid find DNS records:x.org=10.0.0.9)
ovn-nbctl destroy Chassis_Template_Var $(ovn-nbctl --bare --columns=_uuid find Chassis_Template_Var chassis=hv2)
ovn-nbctl set Chassis_Template_Var $(ovn-nbctl --bare --columns=_uuid find Chassis_Template_Var chassis=hv1) variables:PORT=8080
ovn-nbctl ls-del sw2
ovn-nbctl remove Logical_Switch sw0 other_config mcast_eth_src -- set Logical_Switch sw1 other_config:mcast_idle_timeout=4294967311 other_config:mcast_query_max_response=-2
ovn-nbctl mirror-del mir2 -- set Mirror $(ovn-nbctl --bare --columns=_uuid find Mirror name=mir1) index=5
ovn-sbctl set Chassis hv1 other_config:ct-no-masked-label=true
ovn-sbctl destroy DHCP_Options $(ovn-sbctl --bare --columns=_uuid find DHCP_Options name=mtu)
ovn-sbctl set DHCP_Options $(ovn-sbctl --bare --columns=_uuid find DHCP_Options name=router) code=4
ovn-sbctl destroy RBAC_Permission $(ovn-sbctl --bare --columns=_uuid find RBAC_Permission table=FDB)
ovn-sbctl create RBAC_Role name=bogus
ovn-sbctl create Meter name=stray unit=kbps bands=@b -- --id=@b create Meter_Band action=drop rate=1
ovn-sbctl set Meter_Band $(ovn-sbctl --bare --columns=bands find Meter name=mfair) rate=99`)
	s.sync()
	lines, uuids = otherRows(t, s.SBRemote())
	for _, want := range []string{
		`Meter|bands=Meter_Band{action="drop" burst_size=0 rate=55}|name="m1"|unit="pktps"`,
		`Meter|bands=Meter_Band{action="drop" burst_size=0 rate=10}|name="mfair"|unit="pktps"`,
		`Mirror|external_ids={}|filter="to-lport"|index=5|name="mir1"|sink="192.0.2.10"|type="gre"`,
		`DHCP_Options|code=26|name="mtu"|type="uint16"`, `DHCP_Options|code=3|name="router"|type="ipv4"`,
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("no line %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	ovnNorthd()
	check("ovn-northd after northlog's changes", lines, uuids)
}

// takeTurns returns the hand-overs of the SB of s between northlog and the
// real ovn-northd (started first by whoever calls): each stops the other
// northd, starts its own and waits until it has written; northlog returns
// its northd.
func takeTurns(t *testing.T, s *servers) (northlog func() *liveNorthd, ovnNorthd func()) {
	var l *liveNorthd
	northlog = func() *liveNorthd {
		s.kill("northd")
		l = runNorthd(t, s)
		s.sync()
		return l
	}
	ovnNorthd = func() {
		l.stop()
		s.start("northd")
		s.sync()
	}
	return northlog, ovnNorthd
}
