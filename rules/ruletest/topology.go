package ruletest

import (
	"fmt"
	"slices"

	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

var (
	genMAC = rapid.Custom(func(t *rapid.T) string {
		return fmt.Sprintf("00:00:00:00:%02x:%02x", rapid.IntRange(0, 3).Draw(t, "m1"), rapid.IntRange(0, 255).Draw(t, "m2"))
	})
	genIPv4 = rapid.Custom(func(t *rapid.T) string {
		return fmt.Sprintf("10.0.%d.%d", rapid.IntRange(0, 3).Draw(t, "n"), rapid.IntRange(1, 254).Draw(t, "h"))
	})
	// genAddresses draws Logical_Switch_Port.addresses shapes, malformed ones included.
	genAddresses = rapid.Custom(func(t *rapid.T) []string {
		var out []string
		for range rapid.IntRange(0, 2).Draw(t, "n") {
			switch rapid.IntRange(0, 6).Draw(t, "shape") {
			case 0:
				out = append(out, genMAC.Draw(t, "mac"))
			case 1:
				out = append(out, genMAC.Draw(t, "mac")+" "+genIPv4.Draw(t, "ip"))
			case 2:
				out = append(out, genMAC.Draw(t, "mac")+" "+genIPv4.Draw(t, "ip")+" fd00::"+fmt.Sprint(rapid.IntRange(1, 9).Draw(t, "h6")))
			case 3:
				out = append(out, "unknown")
			case 4:
				out = append(out, "router")
			case 5:
				out = append(out, "dynamic")
			case 6:
				out = append(out, "00:00:zz "+genIPv4.Draw(t, "ip"))
			}
		}
		return out
	})
)

// topologyChanges add and delete switches, their ports, routers and
// router ports, and rewrite port addresses.
var topologyChanges = map[string]Change{
	"addSwitch": func(t *rapid.T, s *State) {
		id := s.UUID()
		ls := &nb.LogicalSwitch{UUID: id, Name: "ls" + id[len(id)-3:]}
		if rapid.Bool().Draw(t, "passthru") {
			ls.OtherConfig = map[string]string{"vlan-passthru": "true"}
		}
		s.Set(t, nb.LogicalSwitchTable, id, ls)
	},
	// A deleted switch's ports stay, unreferenced, as they do in a real NB
	// until garbage collected.
	"delSwitch": DeleteRow(nb.LogicalSwitchTable),
	"addPort": func(t *rapid.T, s *State) {
		lsID := s.Pick(t, nb.LogicalSwitchTable, "ls")
		if lsID == "" {
			return
		}
		id := s.UUID()
		lsp := &nb.LogicalSwitchPort{UUID: id, Name: "p" + id[len(id)-3:], Addresses: genAddresses.Draw(t, "addrs")}
		if rapid.Bool().Draw(t, "disabled") {
			f := false
			lsp.Enabled = &f
		}
		s.Set(t, nb.LogicalSwitchPortTable, id, lsp)
		Edit(t, s, nb.LogicalSwitchTable, lsID, func(ls *nb.LogicalSwitch) { ls.Ports = append(slices.Clone(ls.Ports), id) })
	},
	"delPort": DeleteListed(nb.LogicalSwitchPortTable, nb.LogicalSwitchTable, func(x *nb.LogicalSwitch) *[]string { return &x.Ports }),

	"setAddresses": func(t *rapid.T, s *State) {
		if id := s.Pick(t, nb.LogicalSwitchPortTable, "lsp"); id != "" {
			Edit(t, s, nb.LogicalSwitchPortTable, id, func(lsp *nb.LogicalSwitchPort) {
				lsp.Addresses = genAddresses.Draw(t, "addrs")
				lsp.PortSecurity = genAddresses.Draw(t, "ps")
			})
		}
	},
	"addRouter": func(t *rapid.T, s *State) {
		id := s.UUID()
		s.Set(t, nb.LogicalRouterTable, id, &nb.LogicalRouter{UUID: id, Name: "lr" + id[len(id)-3:]})
	},
	"addRouterPort": func(t *rapid.T, s *State) {
		lrID := s.Pick(t, nb.LogicalRouterTable, "lr")
		if lrID == "" {
			return
		}
		id := s.UUID()
		net := fmt.Sprintf("10.%d.0.1/24", rapid.IntRange(0, 3).Draw(t, "net"))
		s.Set(t, nb.LogicalRouterPortTable, id, &nb.LogicalRouterPort{UUID: id, Name: "rp" + id[len(id)-3:], MAC: genMAC.Draw(t, "mac"), Networks: []string{net}})
		Edit(t, s, nb.LogicalRouterTable, lrID, func(lr *nb.LogicalRouter) { lr.Ports = append(slices.Clone(lr.Ports), id) })
	},
	"delRouter": DeleteRow(nb.LogicalRouterTable),
}
