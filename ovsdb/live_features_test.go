package ovsdb

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
)

// chassisFeatures is what the Chassis rows of the SB at remote support.
func chassisFeatures(t testing.TB, remote string) relations.Features {
	t.Helper()
	rows := readSB(t, remote)[sb.ChassisTable]
	return relations.FeaturesOf(func(yield func(map[string]string) bool) {
		for _, m := range rows {
			if !yield(m.(*sb.Chassis).OtherConfig) {
				return
			}
		}
	})
}

// resetChassis deletes the SB rows that ovn-controllers (or scenarios'
// ovn-sbctl) write, as reference.Instance.Reset does.
func (s *servers) resetChassis() {
	s.t.Helper()
	ops := []any{"OVN_Southbound"}
	for _, table := range []string{sb.ChassisTable, sb.ChassisPrivateTable} {
		ops = append(ops, map[string]any{"op": "delete", "table": table, "where": []any{}})
	}
	req, err := json.Marshal(ops)
	if err != nil {
		s.t.Fatal(err)
	}
	if out := s.run("ovsdb-client", "transact", s.SBRemote(), string(req)); strings.Contains(out, `"error"`) {
		s.t.Fatalf("SB chassis reset failed: %s", out)
	}
}

// TestLiveFeatures: chassis come, change their features and go while the
// NB stays; after each step the live SB's flows (and SB_Global's
// lb_hairpin_use_ct_mark) are the reference's, the live northd having
// followed the SB Chassis rows alone. (ECMP routes, whose flows also
// follow the features, are left out: the two NBs' route UUIDs, which
// order ECMP members, differ; the differential scenarios cover them.)
func TestLiveFeatures(t *testing.T) {
	t.Parallel()
	b := startBeside(t)
	ref, s := b.ref, b.live
	b.run(t, `ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl acl-add sw0 to-lport 1002 "outport == \"vm1\" && ip4 && tcp.dst == 22" allow-related
ovn-nbctl acl-add sw0 from-lport 1001 "ip4.src == 10.9.0.0/16" drop
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv1
ovn-nbctl lrp-add gw gw-ext1 00:00:00:00:e1:01 172.16.1.1/24
ovn-nbctl lrp-add gw gw-in 00:00:00:00:e2:01 10.0.0.1/24
ovn-nbctl lr-nat-add gw snat 172.16.1.100 10.0.0.0/24
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.11:8080 tcp -- ls-lb-add sw0 lb0 -- lr-lb-add gw lb0
ovn-nbctl lb-add lb1 172.16.1.50 10.0.0.11 -- set Load_Balancer lb1 options:skip_snat=true -- lr-lb-add gw lb1`)
	// lbHairpin is SB_Global options:lb_hairpin_use_ct_mark ("" unset).
	lbHairpin := func(remote string) string {
		for _, m := range readSB(t, remote)[sb.SBGlobalTable] {
			return m.(*sb.SBGlobal).Options["lb_hairpin_use_ct_mark"]
		}
		return ""
	}
	// The steps go through the four combinations of the two features.
	shapes := map[string]bool{}
	for _, step := range []struct{ name, script string }{
		{"new chassis", `ovn-sbctl chassis-add hv1 geneve 192.0.2.1 -- set Chassis hv1 other_config:ct-no-masked-label=true other_config:ovn-ct-lb-related=true`},
		{"old chassis", `ovn-sbctl chassis-add hv2 geneve 192.0.2.2`},
		{"ct_mark", `ovn-sbctl set Chassis hv2 other_config:ct-no-masked-label=true`},
		{"related", `ovn-sbctl set Chassis hv2 other_config:ovn-ct-lb-related=true`},
		{"remote old chassis", `ovn-sbctl chassis-add hv3 geneve 192.0.2.3 -- set Chassis hv3 other_config:is-remote=true`},
		{"no longer remote", `ovn-sbctl remove Chassis hv3 other_config is-remote`},
		{"chassis gone", `ovn-sbctl chassis-del hv3`},
		{"old chassis again", `ovn-sbctl remove Chassis hv2 other_config ct-no-masked-label`},
		{"all gone", `ovn-sbctl chassis-del hv1 -- chassis-del hv2`},
	} {
		applyBoth(t, ref, s, step.script)
		want, err := ref.Flows(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		shapes[strings.Join(want, "\n")] = true
		waitSB(t, s, want)
		if got, want := lbHairpin(s.SBRemote()), lbHairpin(ref.SBRemote()); got != want {
			t.Errorf("%s: lb_hairpin_use_ct_mark %q, reference %q", step.name, got, want)
		}
	}
	if len(shapes) != 4 {
		t.Errorf("the steps gave %d sets of reference flows, want 4", len(shapes))
	}
}
