package ruletest

import (
	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// VirtualPortSetup makes a switch connected to a router port whose
// networks hold the virtual IPs setVirtualPort draws, with two ports and
// two virtual ports whose parents they are, so that the virtual port
// changes (duplicate-ports/setVirtualPort, toggleVirtualParent) often
// reach a virtual IP the router resolves.
func VirtualPortSetup(t *rapid.T, s *State) {
	s.Set(t, nb.LogicalRouterPortTable, "rp-v", &nb.LogicalRouterPort{UUID: "rp-v", Name: "rp-v", MAC: "00:00:00:00:ff:01",
		Networks: []string{"10.0.0.1/24", "fd00::1/64"}})
	s.Set(t, nb.LogicalRouterTable, "lr-v", &nb.LogicalRouter{UUID: "lr-v", Name: "lr-v", Ports: []string{"rp-v"}})
	ports := []*nb.LogicalSwitchPort{
		{UUID: "lsp-v", Name: "lsp-v", Type: "router", Addresses: []string{"router"}, Options: map[string]string{"router-port": "rp-v"}},
		{UUID: "vm1", Name: "vm1", Addresses: []string{"00:00:00:00:00:01 10.0.0.11"}},
		{UUID: "vm2", Name: "vm2", Addresses: []string{"00:00:00:00:00:02 10.0.0.12 fd00::12"}},
		{UUID: "vp", Name: "vp", Type: "virtual", Options: map[string]string{"virtual-ip": "10.0.0.100", "virtual-parents": "vm1,vm2"}},
		{UUID: "vp6", Name: "vp6", Type: "virtual", Options: map[string]string{"virtual-ip": "fd00::100", "virtual-parents": "vm2"}},
	}
	ids := make([]string, len(ports))
	for i, p := range ports {
		s.Set(t, nb.LogicalSwitchPortTable, p.UUID, p)
		ids[i] = p.UUID
	}
	s.Set(t, nb.LogicalSwitchTable, "ls-v", &nb.LogicalSwitch{UUID: "ls-v", Name: "ls-v", Ports: ids})
}
