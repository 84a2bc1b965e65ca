package ovsdb

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/ovsdb/reference"
	"github.com/northlog/northlog/relations/sb"
)

// houseRowTables are the tables of sb_house.go that the canonical dump
// compares as they are.
var houseRowTables = []string{sb.StaticMACBindingTable}

// houseRows is the canonical dump of the housekeeping tables of the SB at
// remote, and the UUIDs of their rows.
func houseRows(t testing.TB, remote string) (lines []string, uuids map[string]bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := reference.DumpSB(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	if lines, err = d.Rows(houseRowTables...); err != nil {
		t.Fatal(err)
	}
	uuids = map[string]bool{}
	for table, rows := range readSB(t, remote) {
		if slices.Contains(houseRowTables, table) {
			for u := range rows {
				uuids[u] = true
			}
		}
	}
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
}

// TestLiveHousekeeping: the SB rows 23.03 writes or prunes besides flows,
// datapaths and ports (sb_house.go) are the reference's after each step of
// houseSteps, NB changes and SB rows written behind northd's back alike.
// Then the real ovn-northd takes the SB over and changes none of them
// (same contents, same UUIDs), and northlog takes it back writing none.
func TestLiveHousekeeping(t *testing.T) {
	t.Parallel()
	ref := reference.Start(t)
	s := startServers(t)
	l := runNorthd(t, s)
	s.sync()
	for i, step := range houseSteps {
		if err := ref.Apply(t.Context(), step); err != nil {
			t.Fatal(err)
		}
		s.script(step)
		s.sync()
		want, _ := houseRows(t, ref.SBRemote())
		if got, _ := houseRows(t, s.SB()); !slices.Equal(want, got) {
			r := reference.Compare(want, got)
			t.Fatalf("step %d: rows differ from the reference's (- reference, + northlog):\n%s", i,
				strings.Join(append(prefixed("-", r.MissingLines), prefixed("+", r.ExtraLines)...), "\n"))
		}
	}
	lines, uuids := houseRows(t, s.SB())
	l.stop()
	s.start("northd")
	s.sync()
	if got, gotUUIDs := houseRows(t, s.SB()); !slices.Equal(lines, got) || !maps.Equal(uuids, gotUUIDs) {
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
