package ruletest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// listAlsoOn adds id to the set column of the row of table that pick
// draws, as ovn-nbctl add does.
func listAlsoOn[M any](t *rapid.T, s *State, table, id string, column func(*M) *[]string) {
	ownerID := s.Pick(t, table, table)
	if ownerID == "" {
		return
	}
	owner := *s.rows[table][ownerID].(*M)
	col := column(&owner)
	if slices.Contains(*col, id) {
		return
	}
	*col = append(slices.Clone(*col), id)
	s.Set(t, table, ownerID, &owner)
}

// switchPorts and routerPorts are the port columns of a switch and a router.
func switchPorts(ls *nb.LogicalSwitch) *[]string { return &ls.Ports }
func routerPorts(lr *nb.LogicalRouter) *[]string { return &lr.Ports }

// duplicatePortChanges make port names claimed twice (a switch port listed
// by a second switch, a router port listed by a second router, a router
// port named like a switch port) and add datapaths whose _uuid hashes to
// varied buckets, so that which claim northd binds changes with the
// datapath count. Two more make a port virtual, with parents among the
// existing port names, and claim or release a port as ovn-controller does
// (the SB Port_Binding virtual_parent).
var duplicatePortChanges = map[string]Change{
	"listPortTwice": func(t *rapid.T, s *State) {
		if id := s.Pick(t, nb.LogicalSwitchPortTable, nb.LogicalSwitchPortTable); id != "" {
			listAlsoOn(t, s, nb.LogicalSwitchTable, id, switchPorts)
		}
	},
	"listRouterPortTwice": func(t *rapid.T, s *State) {
		if id := s.Pick(t, nb.LogicalRouterPortTable, nb.LogicalRouterPortTable); id != "" {
			listAlsoOn(t, s, nb.LogicalRouterTable, id, routerPorts)
		}
	},
	"addNamesakeRouterPort": func(t *rapid.T, s *State) {
		lspID := s.Pick(t, nb.LogicalSwitchPortTable, nb.LogicalSwitchPortTable)
		if lspID == "" {
			return
		}
		name := s.rows[nb.LogicalSwitchPortTable][lspID].(*nb.LogicalSwitchPort).Name
		id := s.UUID()
		s.Set(t, nb.LogicalRouterPortTable, id, &nb.LogicalRouterPort{
			UUID: id, Name: name, MAC: genMAC.Draw(t, "mac"),
			Networks: []string{fmt.Sprintf("10.%d.0.1/24", rapid.IntRange(0, 3).Draw(t, "net"))},
		})
		listAlsoOn(t, s, nb.LogicalRouterTable, id, routerPorts)
	},
	"setVirtualPort": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalSwitchPortTable, nb.LogicalSwitchPortTable)
		if id == "" {
			return
		}
		var parents []string
		for range rapid.IntRange(0, 3).Draw(t, "parents") {
			if pid := s.Pick(t, nb.LogicalSwitchPortTable, nb.LogicalSwitchPortTable); pid != "" {
				parents = append(parents, s.rows[nb.LogicalSwitchPortTable][pid].(*nb.LogicalSwitchPort).Name)
			}
		}
		lsp := *s.rows[nb.LogicalSwitchPortTable][id].(*nb.LogicalSwitchPort)
		lsp.Type = "virtual"
		lsp.Options = map[string]string{
			"virtual-ip":      rapid.SampledFrom([]string{"10.0.0.100", "fd00::100", "10.0.0.300"}).Draw(t, "vip"),
			"virtual-parents": strings.Join(parents, ","),
		}
		s.Set(t, nb.LogicalSwitchPortTable, id, &lsp)
	},
	"toggleVirtualParent": func(t *rapid.T, s *State) {
		id := s.Pick(t, nb.LogicalSwitchPortTable, "virtual port")
		if id == "" {
			return
		}
		// Mostly one of the port's virtual-parents, as ovn-controller
		// claims; else any port, or a name no port has.
		lsp := s.rows[nb.LogicalSwitchPortTable][id].(*nb.LogicalSwitchPort)
		parent := "gone"
		if parents := strings.Split(lsp.Options["virtual-parents"], ","); parents[0] != "" && rapid.IntRange(0, 3).Draw(t, "listed parent") > 0 {
			parent = rapid.SampledFrom(parents).Draw(t, "parent")
		} else if pid := s.Pick(t, nb.LogicalSwitchPortTable, "parent"); pid != "" && rapid.Bool().Draw(t, "parent exists") {
			parent = s.rows[nb.LogicalSwitchPortTable][pid].(*nb.LogicalSwitchPort).Name
		}
		v := relations.VirtualParent{Port: lsp.Name, Parent: parent}
		s.SetVirtualParent(v, !s.HasVirtualParent(v))
	},
	// A switch whose _uuid starts with a drawn hash, listing an existing
	// port: the new datapath may change the bucket mask and so which
	// claim of every contested name wins.
	"addHashedSwitch": func(t *rapid.T, s *State) {
		id := fmt.Sprintf("%08x", rapid.Uint32Range(0, 15).Draw(t, "hash")) + s.UUID()[8:]
		ls := &nb.LogicalSwitch{UUID: id, Name: "ls" + id[len(id)-3:]}
		if lspID := s.Pick(t, nb.LogicalSwitchPortTable, nb.LogicalSwitchPortTable); lspID != "" {
			ls.Ports = []string{lspID}
		}
		s.Set(t, nb.LogicalSwitchTable, id, ls)
	},
}
