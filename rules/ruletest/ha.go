package ruletest

import (
	"slices"

	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// haChanges are random NB changes of the rows the HA chassis group outputs
// read beside the topology: gateway routers, gateway chassis, HA chassis groups and their chassis, and which router ports and
// external switch ports refer to them; and which SB chassis are remote
// and which router ports request one (transit routers). Group names may be those of router
// ports, whose gateway chassis make groups of their name.
var haChanges = map[string]Change{
	// gatewayRouter: a router whose port to a new switch is a
	// distributed gateway port, as in most topologies that use them.
	"gatewayRouter": func(t *rapid.T, s *State) {
		topologyChanges["addRouter"](t, s)
		topologyChanges["addSwitch"](t, s)
		lr, ls := s.IDs(nb.LogicalRouterTable), s.IDs(nb.LogicalSwitchTable)
		lrID, lsID := lr[len(lr)-1], ls[len(ls)-1]
		id := s.UUID()
		lrp := &nb.LogicalRouterPort{UUID: id, Name: "rp" + id[len(id)-3:], MAC: genMAC.Draw(t, "mac"),
			Networks: []string{"172.16.0.1/24"}, GatewayChassis: []string{"gc-a", "gc-b"}}
		if rapid.Bool().Draw(t, "group") {
			g := "hg-a"
			lrp.HaChassisGroup = &g
		}
		s.Set(t, nb.LogicalRouterPortTable, id, lrp)
		r := *s.rows[nb.LogicalRouterTable][lrID].(*nb.LogicalRouter)
		r.Ports = append(slices.Clone(r.Ports), id)
		s.Set(t, nb.LogicalRouterTable, lrID, &r)
		lspID := s.UUID()
		s.Set(t, nb.LogicalSwitchPortTable, lspID, &nb.LogicalSwitchPort{UUID: lspID, Name: "rsp" + lspID[len(lspID)-3:],
			Type: "router", Options: map[string]string{"router-port": lrp.Name}})
		sw := *s.rows[nb.LogicalSwitchTable][lsID].(*nb.LogicalSwitch)
		sw.Ports = append(slices.Clone(sw.Ports), lspID)
		s.Set(t, nb.LogicalSwitchTable, lsID, &sw)
	},
	"setGatewayChassis": func(t *rapid.T, s *State) {
		id := rapid.SampledFrom([]string{"gc-a", "gc-b", "gc-c"}).Draw(t, "gc")
		if rapid.IntRange(0, 3).Draw(t, "delete") == 0 {
			s.Set(t, nb.GatewayChassisTable, id, nil)
			return
		}
		s.Set(t, nb.GatewayChassisTable, id, &nb.GatewayChassis{UUID: id, Name: id,
			ChassisName: rapid.SampledFrom([]string{"gw1", "gw2"}).Draw(t, "chassis"), Priority: rapid.IntRange(1, 2).Draw(t, "prio")})
	},
	"setHAChassis": func(t *rapid.T, s *State) {
		id := rapid.SampledFrom([]string{"hc-a", "hc-b", "hc-c"}).Draw(t, "hc")
		if rapid.IntRange(0, 3).Draw(t, "delete") == 0 {
			s.Set(t, nb.HAChassisTable, id, nil)
			return
		}
		s.Set(t, nb.HAChassisTable, id, &nb.HAChassis{UUID: id,
			ChassisName: rapid.SampledFrom([]string{"gw1", "gw2"}).Draw(t, "chassis"), Priority: rapid.IntRange(1, 2).Draw(t, "prio")})
	},
	"setHAGroup": func(t *rapid.T, s *State) {
		id := rapid.SampledFrom([]string{"hg-a", "hg-b"}).Draw(t, "hg")
		if rapid.IntRange(0, 3).Draw(t, "delete") == 0 {
			s.Set(t, nb.HAChassisGroupTable, id, nil)
			return
		}
		names := []string{"g1", "g2"}
		for _, u := range s.IDs(nb.LogicalRouterPortTable) {
			names = append(names, s.rows[nb.LogicalRouterPortTable][u].(*nb.LogicalRouterPort).Name)
		}
		s.Set(t, nb.HAChassisGroupTable, id, &nb.HAChassisGroup{UUID: id, Name: rapid.SampledFrom(names).Draw(t, "name"),
			HaChassis: rapid.SliceOfDistinct(rapid.SampledFrom([]string{"hc-a", "hc-b", "hc-c"}), func(s string) string { return s }).Draw(t, "chassis")})
	},
	"setRouterPortGateway": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalRouterPortTable, "lrp")
		if id == "" {
			return
		}
		updateRouterPort(t, s, id, func(lrp *nb.LogicalRouterPort) {
			lrp.GatewayChassis = rapid.SliceOfDistinct(rapid.SampledFrom([]string{"gc-a", "gc-b", "gc-c"}), func(s string) string { return s }).Draw(t, "gcs")
			lrp.HaChassisGroup = nil
			if g := rapid.SampledFrom([]string{"", "hg-a", "hg-b"}).Draw(t, "hg"); g != "" {
				lrp.HaChassisGroup = &g
			}
		})
	},
	// setRemoteChassis makes an SB chassis remote (other_config:is-remote),
	// a gateway chassis among them, or not.
	"setRemoteChassis": func(t *rapid.T, s *State) {
		name := rapid.SampledFrom([]string{"gw1", "gw2", "rc1"}).Draw(t, "chassis")
		s.SetRemoteChassis(name, !s.remote[name])
	},
	// requestChassis makes a router port request a chassis, which when
	// remote makes it a transit router's remote port, or none.
	"requestChassis": setRouterPortOption("requested-chassis", "gw1", "rc1"),
	"setExternal": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalSwitchPortTable, "lsp")
		if id == "" {
			return
		}
		lsp := *s.rows[nb.LogicalSwitchPortTable][id].(*nb.LogicalSwitchPort)
		if lsp.Type == "router" {
			return
		}
		lsp.Type = rapid.SampledFrom([]string{"", "external"}).Draw(t, "type")
		lsp.HaChassisGroup = nil
		if g := rapid.SampledFrom([]string{"", "hg-a", "hg-b"}).Draw(t, "hg"); g != "" {
			lsp.HaChassisGroup = &g
		}
		s.Set(t, nb.LogicalSwitchPortTable, id, &lsp)
	},
}

// HASetup makes the rows the HA changes refer to, so that groups of
// several chassis are common from the start: three gateway chassis, three
// HA chassis and a group of two of them.
func HASetup(t *rapid.T, s *State) {
	for i, id := range []string{"a", "b", "c"} {
		s.Set(t, nb.GatewayChassisTable, "gc-"+id, &nb.GatewayChassis{UUID: "gc-" + id, Name: "gc-" + id, ChassisName: "gw" + id, Priority: i})
		s.Set(t, nb.HAChassisTable, "hc-"+id, &nb.HAChassis{UUID: "hc-" + id, ChassisName: "gw" + id, Priority: i})
	}
	s.Set(t, nb.HAChassisGroupTable, "hg-a", &nb.HAChassisGroup{UUID: "hg-a", Name: "g1", HaChassis: []string{"hc-a", "hc-b"}})
}
