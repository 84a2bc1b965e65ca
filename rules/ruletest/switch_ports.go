package ruletest

import (
	"fmt"
	"slices"

	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// genOptions draws a map with some of keys set to one of values.
func genOptions(t *rapid.T, keys []string, values ...string) map[string]string {
	m := map[string]string{}
	for _, k := range keys {
		if rapid.Bool().Draw(t, "set "+k) {
			m[k] = rapid.SampledFrom(values).Draw(t, k)
		}
	}
	return m
}

// boolPtr draws an optional boolean column: unset, true or false.
func boolPtr(t *rapid.T, label string) *bool {
	switch rapid.IntRange(0, 2).Draw(t, label) {
	case 0:
		return nil
	case 1:
		v := true
		return &v
	}
	v := false
	return &v
}

// switchPortChanges reach the facts the switch port rules read: port
// types and options, router links, NAT rules, gateway ports, switch and
// global options, dynamic addresses, forwarding groups.
var switchPortChanges = map[string]Change{
	"setPortType": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalSwitchPortTable, nb.LogicalSwitchPortTable)
		if id == "" {
			return
		}
		lsp := *s.rows[nb.LogicalSwitchPortTable][id].(*nb.LogicalSwitchPort)
		lsp.Type = rapid.SampledFrom([]string{"", "", "localnet", "localport", "vtep", "external", "virtual", "router", "switch"}).Draw(t, "type")
		lsp.Options = genOptions(t, []string{"localnet_learn_fdb", "mcast_flood"}, "true", "false")
		lsp.Up = boolPtr(t, "up")
		lsp.Enabled = boolPtr(t, "enabled")
		if rapid.Bool().Draw(t, "dynamic") {
			d := genMAC.Draw(t, "dmac") + " " + genIPv4.Draw(t, "dip")
			lsp.DynamicAddresses = &d
		}
		s.Set(t, nb.LogicalSwitchPortTable, id, &lsp)
	},
	// northd's own write of up, which the program reads apart from the row.
	"setPortUp": func(t *rapid.T, s *State) {
		if id := s.Pick(t, nb.LogicalSwitchPortTable, nb.LogicalSwitchPortTable); id != "" {
			up := boolPtr(t, "up")
			Edit(t, s, nb.LogicalSwitchPortTable, id, func(lsp *nb.LogicalSwitchPort) { lsp.Up = up })
		}
	},
	// A pair of ports of type "switch" patching two switches (or one to
	// itself), whose peer columns name each other, or, now and then, a
	// third port or none.
	"linkSwitches": func(t *rapid.T, s *State) {
		a, b := s.Pick(t, nb.LogicalSwitchTable, "switch a"), s.Pick(t, nb.LogicalSwitchTable, "switch b")
		if a == "" {
			return
		}
		idA, idB := s.UUID(), s.UUID()
		nameA, nameB := "sl"+idA[len(idA)-3:], "sl"+idB[len(idB)-3:]
		peerOfB := rapid.SampledFrom([]string{nameA, nameA, "", "other"}).Draw(t, "peer of b")
		for _, p := range []struct{ id, sw, name, peer string }{{idA, a, nameA, nameB}, {idB, b, nameB, peerOfB}} {
			lsp := &nb.LogicalSwitchPort{
				UUID: p.id, Name: p.name, Type: "switch",
				Addresses:    rapid.SampledFrom([][]string{{}, {}, {genMAC.Draw(t, "mac") + " " + genIPv4.Draw(t, "ip")}, {"unknown"}}).Draw(t, "addrs"),
				PortSecurity: rapid.SampledFrom([][]string{{}, {}, {genMAC.Draw(t, "ps mac")}}).Draw(t, "port security"),
				Enabled:      boolPtr(t, "enabled"),
			}
			if p.peer != "" {
				lsp.Peer = &p.peer
			}
			s.Set(t, nb.LogicalSwitchPortTable, p.id, lsp)
			Edit(t, s, nb.LogicalSwitchTable, p.sw, func(ls *nb.LogicalSwitch) { ls.Ports = append(slices.Clone(ls.Ports), p.id) })
		}
	},
	// A switch port's peer column names another port, or nothing.
	"setPortPeer": func(t *rapid.T, s *State) {
		id, other := s.Pick(t, nb.LogicalSwitchPortTable, "port"), s.Pick(t, nb.LogicalSwitchPortTable, "peer")
		if id == "" {
			return
		}
		peer := maybePortName(t, s, other, "set")
		Edit(t, s, nb.LogicalSwitchPortTable, id, func(lsp *nb.LogicalSwitchPort) { lsp.Peer = peer })
	},
	"linkRouterPort": func(t *rapid.T, s *State) {
		lsID, lrpID := s.Pick(t, nb.LogicalSwitchTable, nb.LogicalSwitchTable), s.Pick(t, nb.LogicalRouterPortTable, nb.LogicalRouterPortTable)
		if lsID == "" || lrpID == "" {
			return
		}
		lrp := s.rows[nb.LogicalRouterPortTable][lrpID].(*nb.LogicalRouterPort)
		id := s.UUID()
		lsp := &nb.LogicalSwitchPort{
			UUID: id, Name: "rl" + id[len(id)-3:], Type: "router",
			Addresses: rapid.SampledFrom([][]string{{"router"}, {}, {"router", "unknown"}, {genMAC.Draw(t, "mac")}}).Draw(t, "addrs"),
			Options:   genOptions(t, []string{"arp_proxy"}, "169.254.0.1", "169.254.0.1 169.254.0.2", "fd00::1"),
			Enabled:   boolPtr(t, "enabled"),
		}
		lsp.Options["router-port"] = lrp.Name
		s.Set(t, nb.LogicalSwitchPortTable, id, lsp)
		Edit(t, s, nb.LogicalSwitchTable, lsID, func(ls *nb.LogicalSwitch) { ls.Ports = append(slices.Clone(ls.Ports), id) })
	},
	"setRouterPort": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterPortTable, nb.LogicalRouterPortTable)
		if id == "" {
			return
		}
		lrp := *s.rows[nb.LogicalRouterPortTable][id].(*nb.LogicalRouterPort)
		lrp.Enabled = boolPtr(t, "enabled")
		lrp.Options = genOptions(t, []string{"reside-on-redirect-chassis"}, "true")
		lrp.GatewayChassis = nil
		if rapid.Bool().Draw(t, "gateway") {
			lrp.GatewayChassis = []string{"00000000-0000-0000-0000-00000000gw00"}
		}
		s.Set(t, nb.LogicalRouterPortTable, id, &lrp)
	},
	"setRouterOptions": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterTable, nb.LogicalRouterTable)
		if id == "" {
			return
		}
		lr := *s.rows[nb.LogicalRouterTable][id].(*nb.LogicalRouter)
		lr.Options = genOptions(t, []string{"mcast_relay"}, "true", "false")
		lr.Enabled = boolPtr(t, "enabled")
		s.Set(t, nb.LogicalRouterTable, id, &lr)
	},
	"addNAT": func(t *rapid.T, s *State) {
		lrID := s.Pick(t, nb.LogicalRouterTable, nb.LogicalRouterTable)
		if lrID == "" {
			return
		}
		id := s.UUID()
		nat := &nb.NAT{
			UUID:       id,
			Type:       rapid.SampledFrom([]string{nb.NATTypeDNAT, nb.NATTypeSNAT, nb.NATTypeDNATAndSNAT}).Draw(t, "type"),
			ExternalIP: rapid.SampledFrom([]string{"10.0.0.100", "10.1.0.100", "172.16.0.1", "fd00::100", "bad", "10.0.0.1 10.0.0.2"}).Draw(t, "ext"),
			LogicalIP:  genIPv4.Draw(t, "logical"),
		}
		if rapid.Bool().Draw(t, "mac") {
			mac := genMAC.Draw(t, "extmac")
			nat.ExternalMAC = &mac
			port := "p" + fmt.Sprint(rapid.IntRange(0, 9).Draw(t, "lport"))
			nat.LogicalPort = &port
		}
		s.Set(t, nb.NATTable, id, nat)
		Edit(t, s, nb.LogicalRouterTable, lrID, func(lr *nb.LogicalRouter) { lr.Nat = append(slices.Clone(lr.Nat), id) })
	},
	"setSwitchConfig": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalSwitchTable, nb.LogicalSwitchTable)
		if id == "" {
			return
		}
		ls := *s.rows[nb.LogicalSwitchTable][id].(*nb.LogicalSwitch)
		ls.OtherConfig = genOptions(t, []string{"mcast_snoop", "mcast_flood_unregistered", "vlan-passthru", "mac_only", "enable-stateless-acl-with-lb"}, "true", "false")
		if rapid.Bool().Draw(t, "subnet") {
			ls.OtherConfig["subnet"] = rapid.SampledFrom([]string{"10.0.0.0/24", "10.0.0.0/32", "bad"}).Draw(t, "cidr")
		}
		s.Set(t, nb.LogicalSwitchTable, id, &ls)
	},
	"setGlobal": func(t *rapid.T, s *State) {
		const id = "00000000-0000-0000-0000-0000000000gl"
		s.Set(t, nb.NBGlobalTable, id, &nb.NBGlobal{UUID: id, Options: genOptions(t, []string{"ignore_lsp_down"}, "true", "false")})
	},
	"addForwardingGroup": func(t *rapid.T, s *State) {
		lsID := s.Pick(t, nb.LogicalSwitchTable, nb.LogicalSwitchTable)
		if lsID == "" {
			return
		}
		id := s.UUID()
		s.Set(t, nb.ForwardingGroupTable, id, &nb.ForwardingGroup{
			UUID: id, Name: "fg" + id[len(id)-3:], Vip: genIPv4.Draw(t, "vip"), Vmac: genMAC.Draw(t, "vmac"),
			ChildPort: rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"p1", "p2", "p3"}), 0, 3, rapid.ID[string]).Draw(t, "children"),
			Liveness:  rapid.Bool().Draw(t, "liveness"),
		})
		Edit(t, s, nb.LogicalSwitchTable, lsID, func(ls *nb.LogicalSwitch) { ls.ForwardingGroups = append(slices.Clone(ls.ForwardingGroups), id) })
	},
}
