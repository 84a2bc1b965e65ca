package ovsdb

import (
	"strings"
	"sync"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/sb"
)

// TestLiveSetsIncremental: port group members added and removed, an
// address set edited, a VIP and a backend edited, a health check added,
// a load balancer moved between switches, a router's SNAT changed, a load
// balancer detached from a router; after each change the SB's
// Address_Set, Port_Group, Load_Balancer and Service_Monitor rows and its
// logical flows equal those ovn-northd writes for the same changes, and
// the named sets were changed by mutating one row each.
func TestLiveSetsIncremental(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var steps []StepStats
	ref, s, _ := startWithReference(t, func(c *Config) {
		c.OnStep = func(st StepStats) {
			mu.Lock()
			defer mu.Unlock()
			steps = append(steps, st)
		}
	})
	s.resetNB(optionsLike(t, s, ref))
	applyBoth(t, ref, s, `ovn-nbctl ls-add sw0 -- ls-add sw1 -- lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.254/24 -- lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
for i in $(seq 1 20); do ovn-nbctl lsp-add sw$((i % 2)) vm$i -- lsp-set-addresses vm$i "00:00:00:00:00:$(printf %02x $i) 10.0.$((i % 2)).$i"; done
ovn-nbctl pg-add pg0 vm1 vm2 vm3 vm4
ovn-nbctl create Address_Set name=as0 addresses='"1.1.1.1", "2.2.2.2"'
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.2:8080 tcp -- ls-lb-add sw0 lb0 -- lr-lb-add lr0 lb0`)
	for _, c := range []struct{ name, script, mutated string }{
		{"pg add", "ovn-nbctl pg-set-ports pg0 vm1 vm2 vm3 vm4 vm5", "Port_Group Address_Set"},
		{"pg remove", "ovn-nbctl pg-set-ports pg0 vm1 vm3 vm4 vm5", "Port_Group Address_Set"},
		{"as add", `ovn-nbctl add Address_Set as0 addresses '"3.3.3.3"'`, "Address_Set"},
		{"as remove", `ovn-nbctl remove Address_Set as0 addresses '"1.1.1.1"'`, "Address_Set"},
		{"pg rename", "ovn-nbctl set Port_Group pg0 name=pg1", ""},
		{"vip add", "ovn-nbctl lb-add lb0 10.0.0.101:80 10.0.0.4:8080,10.0.1.3:8080 tcp", "Address_Set"},
		{"backend edit", "ovn-nbctl --may-exist lb-add lb0 10.0.0.100:80 10.0.0.6:8080 tcp", ""},
		{"health check", `ovn-nbctl set Load_Balancer lb0 ip_port_mappings:10.0.0.6=vm6:10.0.0.254 -- --id=@hc create Load_Balancer_Health_Check vip="10.0.0.100\:80" options:interval=5 -- add Load_Balancer lb0 health_check @hc`, ""},
		{"lb on sw1", "ovn-nbctl ls-lb-add sw1 lb0", ""},
		{"lb off sw0", "ovn-nbctl ls-lb-del sw0 lb0", ""},
		{"router snat", "ovn-nbctl set Logical_Router lr0 options:lb_force_snat_ip=10.0.0.254", ""},
		{"lb off lr0", "ovn-nbctl lr-lb-del lr0 lb0", ""},
		{"pg delete", "ovn-nbctl pg-del pg1", ""},
	} {
		mu.Lock()
		steps = nil
		mu.Unlock()
		applyBoth(t, ref, s, c.script)
		if r := reference.Compare(dumpSetRows(t, ref.SBRemote()), dumpSetRows(t, s.SBRemote())); !r.Equal() {
			t.Fatalf("%s: rows differ from the reference's (- reference, + northlog):\n%s", c.name,
				rowDiff(r))
		}
		if r := reference.Compare(dumpFlows(t, ref.SBRemote()), dumpFlows(t, s.SBRemote())); !r.Equal() {
			t.Fatalf("%s: flows differ from the reference's:\n%s", c.name, r)
		}
		if c.mutated == "" {
			continue
		}
		// The named sets were changed in place: no row of them inserted
		// or deleted, one row of each table updated.
		mu.Lock()
		written := Totals{}
		for _, st := range steps {
			for table, n := range st.SB {
				tot := written[table]
				written[table] = [3]int{tot[0] + n[0], tot[1] + n[1], tot[2] + n[2]}
			}
		}
		mu.Unlock()
		for _, table := range []string{sb.AddressSetTable, sb.PortGroupTable} {
			want := [3]int{}
			if strings.Contains(c.mutated, table) {
				want = [3]int{0, 1, 0}
			}
			if written[table] != want {
				t.Errorf("%s: %s rows written (+insert ~update -delete) %v, want %v", c.name, table, written[table], want)
			}
		}
	}
}
