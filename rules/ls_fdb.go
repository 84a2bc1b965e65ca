package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
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
// with "unknown" among its addresses and no port security (but one that
// opts out, vifsOptOutOfFDB), or such a localnet port with
// options:localnet_learn_fdb, or a port of type "switch" without port
// security (relations.SwitchPeerPorts), or, in the egress pipeline, such a
// remote port (remotePortsLearnFDB). Traffic to a learnt MAC then goes to
// that port instead of _MC_unknown (ls_in_l2_lkup's get_fdb).
func SwitchFDBPortFlows(nb *relations.NB) engine.Rel[Flow] {
	learning := engine.Filter(nb.LSPs, func(p relations.LSP) bool {
		if !p.Addrs.HasUnknown || len(p.Addrs.PortSecurity) > 0 {
			return false
		}
		switch p.Port.Type {
		case relations.LSPTypeVIF:
			return !vifsOptOutOfFDB(nb.Release) || relations.SmapBool(p.Port.Options, "lsp_learn_fdb", true)
		case relations.LSPTypeRemote:
			return remotePortsLearnFDB(nb.Release)
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
		lookup, put := LSInLookupFDB, LSInPutFDB
		if p.Port.Type == relations.LSPTypeRemote {
			lookup, put = LSOutLookupFDB, LSOutPutFDB
		}
		return []Flow{
			dp.flow(lookup, 100, in, flag+"reg0[11] = lookup_fdb(inport, eth.src); next;"),
			dp.flow(put, 100, in+" && reg0[11] == 0", "put_fdb(inport, eth.src); next;"),
		}
	}))
}

// vifsOptOutOfFDB: from 26.03 a VIF whose options:lsp_learn_fdb is false
// learns no MACs (a network function's port, lsp_can_learn_mac); 23.03
// has no such option.
func vifsOptOutOfFDB(rel schema.Release) bool { return rel >= schema.OVN2603 }

// remotePortsLearnFDB: from 26.03 a remote port (type "remote") learns
// the MACs behind it, in the egress pipeline; 23.03's do not.
func remotePortsLearnFDB(rel schema.Release) bool { return rel >= schema.OVN2603 }

// localnetFlagged: 26.03 flags what comes in from a localnet port
// (flags.localnet) in ls_in_lookup_fdb, for the ARP/ND responder
// (localReplies).
func localnetFlagged(nb *relations.NB) bool { return localReplies(nb) }
