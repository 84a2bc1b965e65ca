package ruletest

import (
	"fmt"
	"slices"

	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

var (
	// genNATExternalIP draws a NAT external IP: in or out of the router
	// port networks the tests make, IPv6, or malformed.
	genNATExternalIP = rapid.Custom(func(t *rapid.T) string {
		switch rapid.IntRange(0, 6).Draw(t, "shape") {
		case 0:
			return fmt.Sprintf("fd00:%d::%d", rapid.IntRange(0, 3).Draw(t, "n"), rapid.IntRange(1, 3).Draw(t, "h"))
		case 1:
			return "172.16.0.1"
		case 2:
			return rapid.SampledFrom([]string{"10.0.0.1/24", "bad", "10.0.0.1 10.0.0.2"}).Draw(t, "bad")
		default:
			return fmt.Sprintf("10.%d.0.%d", rapid.IntRange(0, 3).Draw(t, "n"), rapid.IntRange(1, 3).Draw(t, "h"))
		}
	})
	genNATLogicalIP = rapid.SampledFrom([]string{"192.168.0.5", "192.168.0.0/24", "192.168.0.0/16", "fd99::5", "fd99::/64", "192.168.0.300"})
)

// natChanges add and remove NAT rules, change their options and the
// router settings they depend on, and move gateway chassis.
var natChanges = map[string]Change{
	"addNAT": func(t *rapid.T, s *State) {
		lrID := s.Pick(t, nb.LogicalRouterTable, "LogicalRouterTable")
		if lrID == "" {
			return
		}
		id := s.UUID()
		nat := &nb.NAT{UUID: id, Type: rapid.SampledFrom([]string{"snat", "dnat", "dnat_and_snat"}).Draw(t, "type"),
			ExternalIP: genNATExternalIP.Draw(t, "ext"), LogicalIP: genNATLogicalIP.Draw(t, "logical"), Options: map[string]string{}}
		if rapid.Bool().Draw(t, "distributed") {
			lport, mac := "vm1", rapid.SampledFrom([]string{"0a:00:00:00:00:01", "zz"}).Draw(t, "mac")
			nat.LogicalPort, nat.ExternalMAC = &lport, &mac
		}
		for _, k := range []string{"stateless", "add_route"} {
			if rapid.IntRange(0, 2).Draw(t, k) == 0 {
				nat.Options[k] = "true"
			}
		}
		if rapid.IntRange(0, 3).Draw(t, "range") == 0 {
			nat.ExternalPortRange = "1000-2000"
		}
		if asID := s.Pick(t, nb.AddressSetTable, "AddressSetTable"); asID != "" {
			switch rapid.IntRange(0, 3).Draw(t, "extips") {
			case 0:
				nat.AllowedExtIPs = &asID
			case 1:
				nat.ExemptedExtIPs = &asID
			}
		}
		if lrpID := s.Pick(t, nb.LogicalRouterPortTable, "LogicalRouterPortTable"); lrpID != "" && rapid.IntRange(0, 3).Draw(t, "gwport") == 0 {
			nat.GatewayPort = &lrpID
		}
		s.Set(t, nb.NATTable, id, nat)
		Edit(t, s, nb.LogicalRouterTable, lrID, func(lr *nb.LogicalRouter) { lr.Nat = append(slices.Clone(lr.Nat), id) })
	},
	"delNAT": DeleteListed(nb.NATTable, nb.LogicalRouterTable, func(x *nb.LogicalRouter) *[]string { return &x.Nat }),

	"setNATStateless": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.NATTable, "NATTable")
		if id == "" {
			return
		}
		nat := *s.rows[nb.NATTable][id].(*nb.NAT)
		nat.Options = ownOptions(nat.Options)
		nat.Options["stateless"] = fmt.Sprint(rapid.Bool().Draw(t, "stateless"))
		s.Set(t, nb.NATTable, id, &nat)
	},
	"addAddressSet": func(t *rapid.T, s *State) {
		id := s.UUID()
		s.Set(t, nb.AddressSetTable, id, &nb.AddressSet{UUID: id, Name: "as" + id[len(id)-3:], Addresses: []string{"1.1.1.1"}})
	},
	"renameAddressSet": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.AddressSetTable, "AddressSetTable")
		if id == "" {
			return
		}
		as := *s.rows[nb.AddressSetTable][id].(*nb.AddressSet)
		as.Name = rapid.SampledFrom([]string{"as_x", "as_y"}).Draw(t, "name")
		s.Set(t, nb.AddressSetTable, id, &as)
	},
	"moveGatewayChassis": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterPortTable, "LogicalRouterPortTable")
		if id == "" {
			return
		}
		updateRouterPort(t, s, id, func(lrp *nb.LogicalRouterPort) {
			lrp.GatewayChassis, lrp.HaChassisGroup = nil, nil
			switch rapid.IntRange(0, 3).Draw(t, "gw") {
			case 0:
				lrp.GatewayChassis = []string{rapid.SampledFrom([]string{"gc1", "gc2"}).Draw(t, "gc")}
			case 1:
				g := "hag"
				lrp.HaChassisGroup = &g
			}
			if rapid.IntRange(0, 3).Draw(t, "bridged") == 0 {
				lrp.Options["redirect-type"] = "bridged"
			}
		})
	},
	"setRouterNATOptions": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterTable, "LogicalRouterTable")
		if id == "" {
			return
		}
		Edit(t, s, nb.LogicalRouterTable, id, func(lr *nb.LogicalRouter) {
			lr.Options = ownOptions(lr.Options)
			delete(lr.Options, "chassis")
			if rapid.Bool().Draw(t, "chassis") {
				lr.Options["chassis"] = "hv1"
			}
			for _, k := range []string{"dnat_force_snat_ip", "lb_force_snat_ip"} {
				delete(lr.Options, k)
				if rapid.Bool().Draw(t, k) {
					lr.Options[k] = rapid.SampledFrom([]string{"10.0.0.1", "10.0.0.9 fd00::9", "router_ip", "bad"}).Draw(t, k+"-v")
				}
			}
			delete(lr.Options, "ct-commit-all")
			if rapid.Bool().Draw(t, "ct-commit-all") {
				lr.Options["ct-commit-all"] = "true"
			}
		})
	},
	"addVTEPPort": func(t *rapid.T, s *State) {
		lsID := s.Pick(t, nb.LogicalSwitchTable, "LogicalSwitchTable")
		if lsID == "" {
			return
		}
		id := s.UUID()
		typ := rapid.SampledFrom([]string{"vtep", "localnet", "virtual"}).Draw(t, "type")
		name := "p" + id[len(id)-3:]
		if typ == "virtual" {
			name = "vm1"
		}
		s.Set(t, nb.LogicalSwitchPortTable, id, &nb.LogicalSwitchPort{UUID: id, Name: name, Type: typ})
		ls := *s.rows[nb.LogicalSwitchTable][lsID].(*nb.LogicalSwitch)
		ls.Ports = append(slices.Clone(ls.Ports), id)
		s.Set(t, nb.LogicalSwitchTable, lsID, &ls)
	},
}
