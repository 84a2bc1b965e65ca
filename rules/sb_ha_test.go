package rules

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// haChanges are random NB changes of the rows the HA chassis group outputs
// read: the topology (switches, routers, their ports and links), gateway
// chassis, HA chassis groups and their chassis, and which router ports and
// external switch ports refer to them. Group names may be those of router
// ports, whose gateway chassis make groups of their name.
var haChanges = map[string]nbChange{
	"addSwitch":       nbChanges["addSwitch"],
	"delSwitch":       nbChanges["delSwitch"],
	"addPort":         nbChanges["addPort"],
	"delPort":         nbChanges["delPort"],
	"addRouter":       nbChanges["addRouter"],
	"delRouter":       nbChanges["delRouter"],
	"addRouterPort":   nbChanges["addRouterPort"],
	"delRouterPort":   routerChanges["delRouterPort"],
	"connectSwitch":   routerChanges["connectSwitch"],
	"peerRouterPorts": routerChanges["peerRouterPorts"],
	// gatewayRouter: a router whose port to a new switch is a
	// distributed gateway port, as in most topologies that use them.
	"gatewayRouter": func(t *rapid.T, s *nbState, p *Program) {
		nbChanges["addRouter"](t, s, p)
		nbChanges["addSwitch"](t, s, p)
		lr, ls := s.ids(nb.LogicalRouterTable), s.ids(nb.LogicalSwitchTable)
		lrID, lsID := lr[len(lr)-1], ls[len(ls)-1]
		id := s.uuid()
		lrp := &nb.LogicalRouterPort{UUID: id, Name: "rp" + id[len(id)-3:], MAC: genMAC.Draw(t, "mac"),
			Networks: []string{"172.16.0.1/24"}, GatewayChassis: []string{"gc-a", "gc-b"}}
		if rapid.Bool().Draw(t, "group") {
			g := "hg-a"
			lrp.HaChassisGroup = &g
		}
		s.set(t, p, nb.LogicalRouterPortTable, id, lrp)
		r := *s.rows[nb.LogicalRouterTable][lrID].(*nb.LogicalRouter)
		r.Ports = append(slices.Clone(r.Ports), id)
		s.set(t, p, nb.LogicalRouterTable, lrID, &r)
		lspID := s.uuid()
		s.set(t, p, nb.LogicalSwitchPortTable, lspID, &nb.LogicalSwitchPort{UUID: lspID, Name: "rsp" + lspID[len(lspID)-3:],
			Type: "router", Options: map[string]string{"router-port": lrp.Name}})
		sw := *s.rows[nb.LogicalSwitchTable][lsID].(*nb.LogicalSwitch)
		sw.Ports = append(slices.Clone(sw.Ports), lspID)
		s.set(t, p, nb.LogicalSwitchTable, lsID, &sw)
	},
	"setGatewayChassis": func(t *rapid.T, s *nbState, p *Program) {
		id := rapid.SampledFrom([]string{"gc-a", "gc-b", "gc-c"}).Draw(t, "gc")
		if rapid.IntRange(0, 3).Draw(t, "delete") == 0 {
			s.set(t, p, nb.GatewayChassisTable, id, nil)
			return
		}
		s.set(t, p, nb.GatewayChassisTable, id, &nb.GatewayChassis{UUID: id, Name: id,
			ChassisName: rapid.SampledFrom([]string{"gw1", "gw2"}).Draw(t, "chassis"), Priority: rapid.IntRange(1, 2).Draw(t, "prio")})
	},
	"setHAChassis": func(t *rapid.T, s *nbState, p *Program) {
		id := rapid.SampledFrom([]string{"hc-a", "hc-b", "hc-c"}).Draw(t, "hc")
		if rapid.IntRange(0, 3).Draw(t, "delete") == 0 {
			s.set(t, p, nb.HAChassisTable, id, nil)
			return
		}
		s.set(t, p, nb.HAChassisTable, id, &nb.HAChassis{UUID: id,
			ChassisName: rapid.SampledFrom([]string{"gw1", "gw2"}).Draw(t, "chassis"), Priority: rapid.IntRange(1, 2).Draw(t, "prio")})
	},
	"setHAGroup": func(t *rapid.T, s *nbState, p *Program) {
		id := rapid.SampledFrom([]string{"hg-a", "hg-b"}).Draw(t, "hg")
		if rapid.IntRange(0, 3).Draw(t, "delete") == 0 {
			s.set(t, p, nb.HAChassisGroupTable, id, nil)
			return
		}
		names := []string{"g1", "g2"}
		for _, u := range s.ids(nb.LogicalRouterPortTable) {
			names = append(names, s.rows[nb.LogicalRouterPortTable][u].(*nb.LogicalRouterPort).Name)
		}
		s.set(t, p, nb.HAChassisGroupTable, id, &nb.HAChassisGroup{UUID: id, Name: rapid.SampledFrom(names).Draw(t, "name"),
			HaChassis: rapid.SliceOfDistinct(rapid.SampledFrom([]string{"hc-a", "hc-b", "hc-c"}), func(s string) string { return s }).Draw(t, "chassis")})
	},
	"setRouterPortGateway": func(t *rapid.T, s *nbState, p *Program) {
		id := pick(t, s, nb.LogicalRouterPortTable, "lrp")
		if id == "" {
			return
		}
		updateRouterPort(t, s, p, id, func(lrp *nb.LogicalRouterPort) {
			lrp.GatewayChassis = rapid.SliceOfDistinct(rapid.SampledFrom([]string{"gc-a", "gc-b", "gc-c"}), func(s string) string { return s }).Draw(t, "gcs")
			lrp.HaChassisGroup = nil
			if g := rapid.SampledFrom([]string{"", "hg-a", "hg-b"}).Draw(t, "hg"); g != "" {
				lrp.HaChassisGroup = &g
			}
		})
	},
	"setExternal": func(t *rapid.T, s *nbState, p *Program) {
		id := pick(t, s, nb.LogicalSwitchPortTable, "lsp")
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
		s.set(t, p, nb.LogicalSwitchPortTable, id, &lsp)
	},
}

// TestSBHAIncremental: after every step of random NB changes, the HA chassis
// group outputs maintained incrementally equal a full recompute, and the
// step's delta leads from the previous contents to the current ones.
func TestSBHAIncremental(t *testing.T) {
	names := slices.Sorted(maps.Keys(haChanges))
	rapid.Check(t, func(t *rapid.T) {
		s, p := newNBState(), New()
		// Rows the changes refer to, so that groups of several chassis
		// are common from the start.
		for i, id := range []string{"a", "b", "c"} {
			s.set(t, p, nb.GatewayChassisTable, "gc-"+id, &nb.GatewayChassis{UUID: "gc-" + id, Name: "gc-" + id, ChassisName: "gw" + id, Priority: i})
			s.set(t, p, nb.HAChassisTable, "hc-"+id, &nb.HAChassis{UUID: "hc-" + id, ChassisName: "gw" + id, Priority: i})
		}
		s.set(t, p, nb.HAChassisGroupTable, "hg-a", &nb.HAChassisGroup{UUID: "hg-a", Name: "g1", HaChassis: []string{"hc-a", "hc-b"}})
		var prevG []HAChassisGroup
		var prevP []HAGroupPort
		var prevR []HARefSwitch
		for range rapid.IntRange(1, 16).Draw(t, "steps") {
			for range rapid.IntRange(1, 4).Draw(t, "changes") {
				haChanges[rapid.SampledFrom(names).Draw(t, "change")](t, s, p)
			}
			p.Step()
			full := s.load(t)
			prevG = checkOutput(t, "HA_Chassis_Group", full.HAChassisGroups, p.HAChassisGroups, prevG)
			prevP = checkOutput(t, "Port_Binding ha_chassis_group", full.HAGroupPorts, p.HAGroupPorts, prevP)
			prevR = checkOutput(t, "ref_chassis switches", full.HARefSwitches, p.HARefSwitches, prevR)
		}
	})
}

// TestHAChassisListRoundTrip: a list of HA chassis decodes to itself,
// sorted, duplicates and odd names kept.
func TestHAChassisListRoundTrip(t *testing.T) {
	in := []HAChassis{{"gw2", 10}, {"gw 1\n|\"x\"", 5}, {"gw2", 10}, {"", 0}}
	l := haChassisListOf(in)
	want := []HAChassis{{"", 0}, {"gw 1\n|\"x\"", 5}, {"gw2", 10}, {"gw2", 10}}
	if d := cmp.Diff(want, l.Slice()); d != "" {
		t.Errorf("decoded list (-want +got):\n%s", d)
	}
	if l.Len() != 4 || HAChassisList("").Len() != 0 || HAChassisList("").Slice() != nil {
		t.Errorf("Len %d, empty list %d %v", l.Len(), HAChassisList("").Len(), HAChassisList("").Slice())
	}
}
