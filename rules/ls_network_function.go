package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// SwitchMirrorDefaultFlows: 26.03's ls_in_mirror and ls_out_mirror,
// priority 0 (northd.c build_mirror_default_lflow): traffic no port
// mirror rule matches goes on unmirrored.
func SwitchMirrorDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		return []Flow{
			dp.flow(LSInMirror, 0, "1", "next;"),
			dp.flow(LSOutMirror, 0, "1", "next;"),
		}
	})
}

// SwitchNetworkFunctionDefaultFlows: 26.03's network function stages, the
// flows every switch has (northd.c build_network_function). Traffic that
// an ACL sends to a network function group (reg8[21], in the direction
// that opened the connection reg8[22]) with no active function is
// dropped; broadcast and multicast are never redirected (a loop through
// the function); the rest goes on. Where the release has the stages, a
// packet the egress stage sent back through a function (reg8[23]) is
// output at once from L2 lookup.
func SwitchNetworkFunctionDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	loopback := StagesFor(nb).Has(LSInNF)
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		var flows []Flow
		if loopback {
			flows = append(flows, dp.flow(LSInL2Lkup, 100, regNFLoopback+" == 1", "output;"))
		}
		for _, st := range [][2]Stage{{LSInPreNF, LSInNF}, {LSOutPreNF, LSOutNF}} {
			pre, nf := st[0], st[1]
			flows = append(flows,
				dp.flow(pre, 0, "1", "next;"),
				dp.flow(pre, 1, regNFEnabled+" == 1 && "+regNFOrigDir+" == 1", regNFGroupID+" = 0; next;"),
				dp.flow(nf, 100, regNFEnabled+" == 1 && eth.mcast", "next;"),
				dp.flow(nf, 0, "1", "next;"),
				dp.flow(nf, 1, regNFEnabled+" == 1", drop))
		}
		return flows
	})
}
