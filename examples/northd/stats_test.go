package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

// statsSteps2603 are NB changes, each made on an NB that holds the ones
// before, after which the engine nodes of 26.03.2's ovn-northd
// recompute, compute or stay untouched as OVN's tests check them.
var statsSteps2603 = []struct{ name, script string }{
	{"switch added", `ovn-nbctl ls-add sw0`},
	{"port added", `ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.1"`},
	{"port addresses changed", `ovn-nbctl lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.11"`},
	{"switch option", `ovn-nbctl set logical_switch sw0 other_config:foo=bar`},
	{"switch FDB age threshold", `ovn-nbctl set logical_switch sw0 other_config:fdb_age_threshold=5`},
	{"switch requested tunnel key", `ovn-nbctl set logical_switch sw0 other_config:requested-tnl-key=123`},
	{"router port of the switch", `ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0`},
	{"load balancer added", `ovn-nbctl lb-add lb0 10.0.0.10:80 10.0.0.1:8080`},
	{"load balancer on the switch", `ovn-nbctl ls-lb-add sw0 lb0`},
	{"load balancer option", `ovn-nbctl set load_balancer lb0 options:foo=bar`},
	{"routable load balancer", `ovn-nbctl set load_balancer lb0 options:add_route=true`},
	{"routable load balancer's option", `ovn-nbctl set load_balancer lb0 options:foo=baz`},
	{"load balancer no longer routable", `ovn-nbctl set load_balancer lb0 options:add_route=false`},
	{"ACL added", `ovn-nbctl acl-add sw0 from-lport 1000 ip4 allow`},
	{"router added", `ovn-nbctl lr-add lr0`},
	{"router port added", `ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.254/24`},
	{"router zone limit", `ovn-nbctl set logical_router lr0 options:ct-zone-limit=10`},
	{"NAT added", `ovn-nbctl lr-nat-add lr0 snat 172.16.0.1 10.0.0.0/24`},
	{"static route added", `ovn-nbctl lr-route-add lr0 0.0.0.0/0 10.0.0.200`},
	{"BFD added", `ovn-nbctl create bfd logical_port=lrp0 dst_ip=10.0.0.200`},
	{"NB_Global option", `ovn-nbctl set NB_Global . options:foo=bar`},
	{"flow option", `ovn-nbctl set NB_Global . options:ignore_lsp_down=true`},
	{"port group added", `ovn-nbctl pg-add pg0 p1`},
	{"address set added", `ovn-nbctl create Address_Set name=as0 addresses=10.0.0.7`},
	{"address set changed", `ovn-nbctl add Address_Set as0 addresses 10.0.0.8`},
	{"port deleted", `ovn-nbctl lsp-del p1`},
	{"meter added", `ovn-nbctl meter-add m0 drop 10 pktps`},
	{"logged ACL", `ovn-nbctl --log --meter=m0 acl-add sw0 to-lport 900 ip6 drop`},
	{"port group ACL", `ovn-nbctl acl-add pg0 to-lport 800 'outport == @pg0' allow-related`},
	{"port with unknown address", `ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 unknown`},
	{"load balancer group", `g=$(ovn-nbctl create load_balancer_group name=lbg0) && ovn-nbctl add load_balancer_group $g load_balancer $(ovn-nbctl --bare --columns _uuid find load_balancer name=lb0)`},
	{"group on the router", `ovn-nbctl add logical_router lr0 load_balancer_group $(ovn-nbctl --bare --columns _uuid find load_balancer_group name=lbg0)`},
	{"grouped load balancer changed", `ovn-nbctl set load_balancer lb0 'vips:"10.0.0.20:90"="10.0.0.1:8080"'`},
	{"NAT changed", `ovn-nbctl set nat $(ovn-nbctl --bare --columns _uuid find nat type=snat) external_ip=172.16.0.2`},
	{"load balancer on the router", `ovn-nbctl lb-add lbv 172.16.0.140 10.0.0.20 -- lr-lb-add lr0 lbv`},
	{"NAT on a VIP", `ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.140 10.0.0.20`},
	{"NAT on a VIP deleted", `ovn-nbctl lr-nat-del lr0 dnat_and_snat 172.16.0.140`},
	// Behind northd's back (ovn-northd.at "NB to SB load balancer sync"):
	// the next change of the load balancer finds its group gone.
	{"SB load balancer's switch group cleared", `ovn-sbctl clear load_balancer $(ovn-sbctl --bare --columns _uuid find load_balancer name=lb0) ls_datapath_group`},
	{"load balancer option again", `ovn-nbctl set load_balancer lb0 options:foo=qux`},
	{"chassis added, and a remote one", `ovn-sbctl chassis-add hv1 geneve 127.0.0.1 -- chassis-add hv2 geneve 127.0.0.2 -- set chassis hv2 other_config:is-remote=true`},
	{"port bound", `ovn-sbctl lsp-bind p2 hv1`},
	{"chassis feature", `ovn-sbctl set chassis hv1 other_config:ct-no-masked-label=true`},
	{"SB_Global option", `ovn-sbctl set SB_Global . options:bar=foo`},
	{"encapsulation changed", `ovn-sbctl set encap $(ovn-sbctl --bare --columns encaps list chassis hv1) type=vxlan`},
	{"load balancer removed from the switch", `ovn-nbctl ls-lb-del sw0 lb0`},
	{"load balancer deleted", `ovn-nbctl lb-del lb0`},
	{"second switch with a port", `ovn-nbctl ls-add sw1 -- lsp-add sw1 q1`},
	{"switch deleted", `ovn-nbctl ls-del sw1`},
	{"second router", `ovn-nbctl lr-add lr1`},
	{"router deleted", `ovn-nbctl lr-del lr1`},
	{"disabled router", `ovn-nbctl lr-add lr2 -- set logical_router lr2 enabled=false`},
	{"load balancer on the disabled router", `ovn-nbctl lb-add lb4 10.0.0.40:4040 10.0.40.40:4050 -- lr-lb-add lr2 lb4`},
	{"empty load balancer group", `ovn-nbctl create load_balancer_group name=lbg1`},
	{"distributed load balancer", `ovn-nbctl lb-add lbd 10.0.0.50:80 10.0.0.1:8080 -- set load_balancer lbd options:distributed=true ip_port_mappings:10.0.0.1=p2`},
	{"distributed load balancer on the router", `ovn-nbctl lr-lb-add lr0 lbd`},
	{"distributed option spelled otherwise", `ovn-nbctl set load_balancer lbd options:distributed=TRUE`},
	{"load balancer no longer distributed", `ovn-nbctl set load_balancer lbd options:distributed=no`},
	{"host routes advertised", `ovn-nbctl set logical_router lr0 options:dynamic-routing=true -- set logical_router_port lrp0 options:dynamic-routing-redistribute=connected-as-host`},
	{"port on the host routes' switch", `ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 "00:00:00:00:00:03 10.0.0.3"`},
	{"switch without host routes", `ovn-nbctl ls-add sw3`},
	{"port on a switch without host routes", `ovn-nbctl lsp-add sw3 q3 -- lsp-set-addresses q3 "00:00:00:00:00:33 10.0.3.3"`},
	{"ECMP next hops monitored", `ovn-nbctl set NB_Global . options:ecmp_nexthop_monitor_enable=true -- --ecmp-symmetric-reply lr-route-add lr0 1.0.0.1 10.0.0.10`},
	{"next hop's MAC learnt", `ovn-sbctl create MAC_Binding datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=lr0) logical_port=lrp0 ip=10.0.0.10 mac='"00:00:00:00:00:10"'`},
	{"SB port binding changed", `ovn-sbctl set port_binding p2 external_ids:foo=bar`},
	{"EVPN switch with a port", `ovn-nbctl ls-add ls-evpn -- set logical_switch ls-evpn other_config:dynamic-routing-vni=10 -- lsp-add ls-evpn e1 -- lsp-set-addresses e1 "00:00:00:00:00:e1 10.0.1.1"`},
	{"stateless switch with a port", `ovn-nbctl ls-add ls-sl -- set logical_switch ls-sl other_config:enable-stateless-acl-with-lb=true -- lsp-add ls-sl s1 -- lsp-set-addresses s1 "00:00:00:00:00:f1 10.0.2.1"`},
	// The remote chassis hv2 has no say in the features
	// (build_chassis_features skips it): hv1 gaining one changes them.
	{"chassis feature beside a remote chassis", `ovn-sbctl set chassis hv1 other_config:fdb-timestamp=true`},
}

// statsNorthd is an NB and SB pair served by 26.03.2's ovsdb-server with
// one northd on it, and the ovn-appctl that asks that northd.
type statsNorthd struct {
	name   string
	dir    reference.Dir
	appctl string
}

func (s statsNorthd) run(t *testing.T, program string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := s.dir.Command(ctx, program, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %s %s: %v\n%s", s.name, program, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s statsNorthd) ctl(t *testing.T, args ...string) string {
	t.Helper()
	return s.run(t, s.appctl, append([]string{"-t", filepath.Join(s.dir.Path, "northd.ctl")}, args...)...)
}

// step makes the change, waits for the SB, and waits once more so that
// the SB's own updates of the change have reached the northd too.
func (s statsNorthd) step(t *testing.T, script string) {
	t.Helper()
	s.run(t, "bash", "-e", "-u", "-o", "pipefail", "-c", script)
	s.run(t, "ovn-nbctl", "--wait=sb", "sync")
	s.run(t, "ovn-nbctl", "--wait=sb", "sync")
}

// nodeStates is show-stats' answer as what each node did: "recompute"
// (it recomputed, whatever else), "compute" (it computed only) or
// "untouched", in show-stats' order; the NB and SB table nodes, which
// count the engine's runs, are left out.
func nodeStates(t *testing.T, show string) []string {
	t.Helper()
	var out []string
	for block := range strings.SplitSeq(strings.TrimPrefix(show, "Node: "), "\nNode: ") {
		var name string
		var recompute, compute, cancel int
		if _, err := fmt.Sscanf(block, "%s\n- recompute: %d\n- compute: %d\n- cancel: %d", &name, &recompute, &compute, &cancel); err != nil {
			t.Fatalf("show-stats: %q: %v", block, err)
		}
		if strings.HasPrefix(name, "NB_") || strings.HasPrefix(name, "SB_") {
			continue
		}
		state := "untouched"
		switch {
		case recompute > 0:
			state = "recompute"
		case compute > 0:
			state = "compute"
		}
		out = append(out, name+" "+state)
	}
	return out
}

// startStats2603 starts 26.03.2's ovn-northd and this northd, each on
// its own 26.03.2 NB and SB, and waits until both have written their SB.
func startStats2603(t *testing.T) (want, got statsNorthd) {
	b := reference.BuildOf(schema.OVN2603)
	ref := b.Start(t)
	northd, err := b.Tool("ovn-northd")
	if err != nil {
		t.Fatal(err)
	}
	appctl := filepath.Join(filepath.Dir(northd), "ovn-appctl")
	want = statsNorthd{name: "reference", dir: reference.Dir{Path: ref.Dir(), Build: b}, appctl: appctl}

	got = statsNorthd{name: "northlog", dir: reference.Dir{Path: t.TempDir(), Build: b}, appctl: appctl}
	bin := filepath.Join(got.dir.Path, "northlog")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, db := range []string{"nb", "sb"} {
		if err := got.dir.CreateDB(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		s, err := got.dir.StartServer(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
	}
	got.run(t, "ovn-nbctl", "init")
	d, err := got.dir.StartDaemon(bin, "northd", "--ovnnb-db="+got.dir.NBRemote(), "--ovnsb-db="+got.dir.SBRemote())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	got.step(t, "true")
	want.step(t, "true")
	return want, got
}

// TestShowStats2603 makes the same NB changes beside 26.03.2's
// ovn-northd and beside this northd, each with its own 26.03.2 NB and SB,
// and expects show-stats to list the same nodes in the same order and,
// for each change, each node to have recomputed, computed or stayed
// untouched as the reference's did.
func TestShowStats2603(t *testing.T) {
	want, got := startStats2603(t)
	wantNodes, gotNodes := nodeStates(t, want.ctl(t, "inc-engine/show-stats")), nodeStates(t, got.ctl(t, "inc-engine/show-stats"))
	if strings.Join(nodeNames(gotNodes), " ") != strings.Join(nodeNames(wantNodes), " ") {
		t.Fatalf("show-stats lists\n%v\nwant\n%v", nodeNames(gotNodes), nodeNames(wantNodes))
	}
	for _, step := range statsSteps2603 {
		compareStep(t, want, got, step.name, func(n statsNorthd) { n.step(t, step.script) })
	}
	if one, all := got.ctl(t, "inc-engine/show-stats", "lflow"), got.ctl(t, "inc-engine/show-stats"); !strings.HasPrefix(one, "Node: lflow\n- recompute: ") || !strings.Contains(all, one) {
		t.Errorf("show-stats lflow: %q", one)
	}
	if got, want := got.ctl(t, "inc-engine/show-stats", "lflow", "bogus"), want.ctl(t, "inc-engine/show-stats", "lflow", "bogus"); got != want {
		t.Errorf("show-stats lflow bogus: %q, want %q", got, want)
	}
}

// compareStep clears both northds' counters, makes the change on each,
// and expects each node to have recomputed, computed or stayed untouched
// as the reference's did.
func compareStep(t *testing.T, want, got statsNorthd, name string, change func(statsNorthd)) {
	t.Helper()
	for _, n := range []statsNorthd{want, got} {
		n.ctl(t, "inc-engine/clear-stats")
		change(n)
	}
	w, g := nodeStates(t, want.ctl(t, "inc-engine/show-stats")), nodeStates(t, got.ctl(t, "inc-engine/show-stats"))
	for i := range w {
		if g[i] != w[i] {
			t.Errorf("%s: %s, want %s", name, g[i], w[i])
		}
	}
}

// pausedSteps2603 is how many of statsSteps2603 TestShowStatsPaused2603
// makes while the northds are paused, and resumedSteps2603 how many of
// those after it makes once they run again.
const pausedSteps2603, resumedSteps2603 = 20, 10

// TestShowStatsPaused2603: changes made to the NB and the SB while
// 26.03.2's ovn-northd and this northd are paused run neither's engine
// (show-stats stays at zero, the table nodes' count of runs included);
// once resumed, each node recomputes, computes or stays untouched as the
// reference's does, in the first iteration and in the changes after it,
// which find the rows changed while paused.
func TestShowStatsPaused2603(t *testing.T) {
	want, got := startStats2603(t)
	for _, n := range []statsNorthd{want, got} {
		n.ctl(t, "pause")
		n.ctl(t, "inc-engine/clear-stats")
		for _, step := range statsSteps2603[:pausedSteps2603] {
			n.run(t, "bash", "-e", "-u", "-o", "pipefail", "-c", step.script)
		}
		n.run(t, "ovn-sbctl", "set", "SB_Global", ".", "options:paused=true")
	}
	// Neither northd says when it has read a change while paused.
	time.Sleep(2 * time.Second)
	if w, g := want.ctl(t, "inc-engine/show-stats"), got.ctl(t, "inc-engine/show-stats"); g != w {
		t.Errorf("show-stats after changes while paused:\n%s\nwant\n%s", g, w)
	}
	compareStep(t, want, got, "resumed", func(n statsNorthd) {
		n.ctl(t, "resume")
		n.step(t, "true")
	})
	for _, step := range statsSteps2603[pausedSteps2603 : pausedSteps2603+resumedSteps2603] {
		compareStep(t, want, got, step.name, func(n statsNorthd) { n.step(t, step.script) })
	}
}

// nodeNames are the names of nodeStates' nodes.
func nodeNames(states []string) []string {
	out := make([]string, len(states))
	for i, s := range states {
		out[i], _, _ = strings.Cut(s, " ")
	}
	return out
}
