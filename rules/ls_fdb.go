package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// SwitchFDBDefaultFlows: ls_in_lookup_fdb and ls_in_put_fdb (and 26.03's
// ls_out_lookup_fdb and ls_out_put_fdb), the flows every switch has
// (northd.c build_lswitch_learn_fdb_od): without a port that learns MACs,
// the stages pass. ls_in_l2_lkup looks a destination no other flow knows
// up in the FDB, and on a switch in an EVPN domain among the MACs
// ovn-controller learnt from the remote VTEPs too (remote_outport).
func SwitchFDBDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		lookup := "outport = get_fdb(eth.dst); next;"
		if sw.EVPN {
			lookup = "outport = get_fdb(eth.dst); remote_outport = get_remote_fdb(eth.dst); next;"
		}
		return []Flow{
			dp.flow(LSInL2Lkup, 0, "1", lookup),
			dp.flow(LSInLookupFDB, 0, "1", "next;"),
			dp.flow(LSInPutFDB, 0, "1", "next;"),
			dp.flow(LSOutLookupFDB, 0, "1", "next;"),
			dp.flow(LSOutPutFDB, 0, "1", "next;"),
		}
	})
}

// SwitchFDBPortFlows: ls_in_lookup_fdb and ls_in_put_fdb for the ports whose
// source MACs the switch learns (northd.c build_lswitch_learn_fdb_op): a VIF
// with "unknown" among its addresses and no port security, or such a
// localnet port with options:localnet_learn_fdb, or a port of type
// "switch" without port security (relations.SwitchPeerPorts). Traffic to a learnt MAC
// then goes to that port instead of _MC_unknown (ls_in_l2_lkup's get_fdb).
func SwitchFDBPortFlows(nb *relations.NB) engine.Rel[Flow] {
	learning := engine.Filter(nb.LSPs, func(p relations.LSP) bool {
		if !p.Addrs.HasUnknown || len(p.Addrs.PortSecurity) > 0 {
			return false
		}
		switch p.Port.Type {
		case relations.LSPTypeVIF:
			return true
		case relations.LSPTypeSwitch:
			return relations.SwitchPeerPorts(nb.Release)
		case relations.LSPTypeLocalnet:
			return relations.SmapBool(p.Port.Options, "localnet_learn_fdb", false)
		}
		return false
	})
	flagged := localnetFlagged(nb)
	fromLocalnet := engine.FlatMap(nb.LSPs, func(p relations.LSP) []Flow {
		if !flagged || p.Port.Type != relations.LSPTypeLocalnet {
			return nil
		}
		return []Flow{onPort{p.Switch, p.Name()}.from(p.Port.UUID).flow(LSInLookupFDB, 50, "inport == "+jsonKey(p.Name()), "flags.localnet = 1; next;")}
	})
	return engine.Union(fromLocalnet, engine.FlatMap(learning, func(p relations.LSP) []Flow {
		dp, in := onPort{p.Switch, p.Name()}.from(p.Port.UUID), "inport == "+jsonKey(p.Name())
		flag := ""
		if flagged && p.Port.Type == relations.LSPTypeLocalnet {
			flag = "flags.localnet = 1; "
		}
		return []Flow{
			dp.flow(LSInLookupFDB, 100, in, flag+"reg0[11] = lookup_fdb(inport, eth.src); next;"),
			dp.flow(LSInPutFDB, 100, in+" && reg0[11] == 0", "put_fdb(inport, eth.src); next;"),
		}
	}))
}

// localnetFlagged: 26.03 flags what comes in from a localnet port
// (flags.localnet) in ls_in_lookup_fdb, for the ARP/ND responder
// (localReplies).
func localnetFlagged(nb *relations.NB) bool { return localReplies(nb) }
