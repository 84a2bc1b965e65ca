package rules

import (
	"cmp"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// AdvertisedMACBinding is an SB Advertised_MAC_Binding row, an IP
// neighbour that ovn-controller announces in a switch's EVPN domain
// (en-advertised-route-sync.c build_advertised_mac_binding): the switch
// (NB _uuid), the switch port behind which the address is, and the IP and
// MAC.
type AdvertisedMACBinding struct {
	Switch, Port, IP, MAC string
}

// CompareAdvertisedMACBindings orders the bindings by switch, port, IP and
// MAC.
func CompareAdvertisedMACBindings(a, b AdvertisedMACBinding) int {
	return cmp.Or(cmp.Compare(a.Switch, b.Switch), cmp.Compare(a.Port, b.Port),
		cmp.Compare(a.IP, b.IP), cmp.Compare(a.MAC, b.MAC))
}

// evpnIPSwitch reports whether a switch redistributes its IP neighbours
// through EVPN (evpn_ip_redistribution_enabled): it is in an EVPN domain
// and other_config:dynamic-routing-redistribute lists "ip".
func evpnIPSwitch(r schema.Release, ls *nb.LogicalSwitch) bool {
	return relations.HasEVPNVNI(r, ls.OtherConfig) &&
		slices.Contains(strings.Split(ls.OtherConfig["dynamic-routing-redistribute"], ","), "ip")
}

// SBAdvertisedMACBindings computes the IP neighbours the switches with
// EVPN IP redistribution advertise: on each router port, its peer's
// networks; on each VIF, the first entry of its addresses. IPv6
// link-local addresses are left out.
func SBAdvertisedMACBindings(n *relations.NB) engine.Rel[AdvertisedMACBinding] {
	switches := engine.IndexBy(engine.Filter(n.Switches.Rows, func(ls *nb.LogicalSwitch) bool {
		return evpnIPSwitch(n.Release, ls)
	}), func(ls *nb.LogicalSwitch) string { return ls.UUID })
	bindings := func(sw, port string, a *relations.LPortAddresses) []AdvertisedMACBinding {
		var out []AdvertisedMACBinding
		for _, ip := range a.IPv4 {
			out = append(out, AdvertisedMACBinding{sw, port, ip.AddrS, a.MAC.String()})
		}
		for _, ip := range a.IPv6 {
			if !isLinkLocal(ip.Addr) {
				out = append(out, AdvertisedMACBinding{sw, port, ip.AddrS, a.MAC.String()})
			}
		}
		return out
	}
	routerPorts := engine.JoinFlatMap(
		engine.IndexBy(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.Switch }), switches,
		func(sw string, p relations.LRPSwitchPeer, _ *nb.LogicalSwitch) []AdvertisedMACBinding {
			return bindings(sw, p.LSP.Name, p.LRP.Net)
		})
	vifs := engine.JoinFlatMap(
		engine.IndexBy(engine.Filter(n.LSPs, func(p relations.LSP) bool {
			return p.Port.Type == relations.LSPTypeVIF && len(p.Addrs.Static) > 0
		}), func(p relations.LSP) string { return p.Switch }), switches,
		func(sw string, p relations.LSP, _ *nb.LogicalSwitch) []AdvertisedMACBinding {
			return bindings(sw, p.Name(), &p.Addrs.Static[0])
		})
	return engine.Distinct(engine.Union(routerPorts, vifs))
}
