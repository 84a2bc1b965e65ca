package relations

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// readsDHCPRelay: 26.03 relays DHCP (DHCP_Relay, Logical_Router_Port
// dhcp_relay, Logical_Switch other_config:dhcp_relay_port); 23.03 has
// none of it.
func readsDHCPRelay(r schema.Release) bool { return r >= schema.OVN2603 }

// DHCPRelay is a router port peered with a switch port whose dhcp_relay
// names a DHCP_Relay row with servers northd reads (northd.c
// build_dhcp_relay_flows_for_lrouter_port, build_lswitch_dhcp_relay_flows):
// Server is the server's address as northd prints it, without the port
// the servers string may give (northd relays to port 67 whatever it says).
type DHCPRelay struct {
	Peer   LRPSwitchPeer
	Server string
}

// RelaySwitch is a switch with other_config:dhcp_relay_port: it answers
// no DHCP itself, and its VIFs' DHCP requests go to the router port peered
// with the switch port Port names.
type RelaySwitch struct {
	Switch string // NB _uuid
	Port   string
}

func deriveRelaySwitches(n *NB) engine.Rel[RelaySwitch] {
	return engine.FlatMap(n.Switches.Rows, func(ls *nb.LogicalSwitch) []RelaySwitch {
		port, ok := ls.OtherConfig["dhcp_relay_port"]
		if !ok || !readsDHCPRelay(n.Release) {
			return nil
		}
		return []RelaySwitch{{ls.UUID, port}}
	})
}

func deriveDHCPRelays(n *NB) engine.Rel[DHCPRelay] {
	type relaying struct {
		Peer    LRPSwitchPeer
		Servers string
	}
	withRelay := engine.Filter(n.LRPSwitchPeers, func(p LRPSwitchPeer) bool {
		return p.LRP.Port.DhcpRelay != nil && readsDHCPRelay(n.Release)
	})
	// A relay without servers relays nothing (26.03 dies of it on the
	// switch side).
	servers := engine.JoinFlatMap(engine.IndexBy(withRelay, func(p LRPSwitchPeer) string { return *p.LRP.Port.DhcpRelay }),
		n.DHCPRelayRows.ByUUID(),
		func(_ string, p LRPSwitchPeer, r *nb.DHCPRelay) []relaying {
			if r.Servers == nil {
				return nil
			}
			return []relaying{{p, *r.Servers}}
		})
	return engine.TryMap(servers, "DHCP relay servers", func(x relaying) (DHCPRelay, error) {
		a, err := parseLBAddress(x.Servers)
		if err != nil {
			return DHCPRelay{}, fmt.Errorf("%s: %w", x.Servers, err)
		}
		return DHCPRelay{x.Peer, a.IP}, nil
	})
}
