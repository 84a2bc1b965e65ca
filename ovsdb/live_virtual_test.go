package ovsdb

import (
	"testing"

	"github.com/northlog/northlog/internal/reference"
)

// virtualHelpers are shell functions for virtualSteps: SB rows by name,
// and a port binding claimed as ovn-controller claims a virtual port.
const virtualHelpers = `pb() { ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=$1; }
ch() { ovn-sbctl --bare --columns=_uuid find Chassis name=$1; }
claim() { ovn-sbctl set Port_Binding $(pb $1) virtual_parent=$2 chassis=$(ch $3); }
`

// virtualSteps are run in turn on the reference and on northlog: NB
// changes and Port_Binding virtual_parent and chassis set as ovn-controller
// sets them when a parent claims a virtual port.
var virtualSteps = []string{
	`ovn-sbctl chassis-add hv1 geneve 192.0.2.1
ovn-nbctl lr-add lr0 -- lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24 fd00::1/64
ovn-nbctl lrp-add lr0 lrp1 00:00:00:00:ff:02 20.0.0.1/24
ovn-nbctl ls-add sw0 -- lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
ovn-nbctl ls-add sw1 -- lsp-add sw1 sw1-lr0 -- lsp-set-type sw1-lr0 router -- lsp-set-addresses sw1-lr0 router -- lsp-set-options sw1-lr0 router-port=lrp1
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:21 10.0.0.21" "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw0 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.0.12"
ovn-nbctl lsp-add sw0 vm3 -- lsp-add sw1 vm4 -- lsp-set-addresses vm4 "00:00:00:00:00:04 20.0.0.14"
ovn-nbctl lsp-add sw0 vip -- lsp-set-type vip virtual -- lsp-set-options vip virtual-ip=10.0.0.100 virtual-parents=vm1,vm2
ovn-nbctl lsp-add sw0 vip6 -- lsp-set-type vip6 virtual -- lsp-set-options vip6 virtual-ip=fd00::100 virtual-parents=vm1,vm2
ovn-nbctl lsp-add sw0 vipw -- lsp-set-type vipw virtual -- lsp-set-options vipw virtual-ip=20.0.0.100 virtual-parents=vm4`,
	// Claimed: the parent's first MAC; no chassis yet: the zero MAC.
	`claim vip vm1 hv1
claim vip6 vm2 hv1
ovn-sbctl clear Port_Binding $(pb vip6) chassis`,
	// The chassis comes; a parent on another switch, whose router ports
	// hold the IP.
	`ovn-sbctl set Port_Binding $(pb vip6) chassis=$(ch hv1)
claim vipw vm4 hv1`,
	// Another parent; a parent without addresses, one that is no port.
	`claim vip vm2 hv1
claim vip6 vm3 hv1
claim vipw nothing hv1`,
	// The parent's addresses change; a claim goes; a parent port goes.
	`ovn-nbctl lsp-set-addresses vm2 "00:00:00:00:00:12 10.0.0.12"
ovn-sbctl clear Port_Binding $(pb vip6) virtual_parent
ovn-nbctl lsp-del vm4`,
}

// TestLiveVirtualParent: a virtual port's virtual IP resolves on the
// routers as the reference resolves it after each step of virtualSteps.
func TestLiveVirtualParent(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReference(t)
	for i, step := range virtualSteps {
		applyBoth(t, ref, s, virtualHelpers+step)
		if r := reference.Compare(dumpFlows(t, ref.SBRemote()), dumpFlows(t, s.SBRemote())); !r.Equal() {
			t.Fatalf("step %d: flows differ from the reference's:\n%s", i, r)
		}
	}
}
