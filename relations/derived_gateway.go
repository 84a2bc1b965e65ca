package relations

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/schema"
)

// DGP is a distributed gateway port (northd's l3dgw port, LRP.DGP): a
// router port with gateway chassis or an HA chassis group on a router that
// is not an L3 gateway router. northd gives it a chassisredirect port,
// CRName, bound to the gateway chassis; traffic through the port is
// centralized there.
type DGP struct {
	LRP LRP
	// VTEP is true when the port's peer switch has VTEP ports
	// (l3dgw_port_has_associated_vtep_lports): traffic to the VTEP
	// gateway then goes out in a distributed manner and only returning
	// traffic is centralized.
	VTEP bool
}

// Name is the port's name.
func (d DGP) Name() string { return d.LRP.Name() }

// CRName is the name of the port's chassisredirect port
// (ovn_chassis_redirect_name).
func (d DGP) CRName() string { return "cr-" + d.LRP.Name() }

// RouterGateway is what the router flows read of where an enabled router's
// traffic is centralized: one tuple per router that northd makes a
// datapath of.
type RouterGateway struct {
	Router string
	// Gateway is options:chassis being set (od->is_gw_router).
	Gateway bool
	// DGPs is the number of distributed gateway ports (od->n_l3dgw_ports)
	// and FirstDGP the name of the first in the router's ports column
	// order, _uuid order (od->l3dgw_ports[0]); "" when there is none.
	DGPs     int
	FirstDGP string
	// RedirectBridged is a port with options:redirect-type=bridged
	// (od->redirect_bridged, compared without case).
	RedirectBridged bool
}

// NATCapable reports whether NAT rules apply on the router: it is a
// gateway router or has distributed gateway ports.
func (g RouterGateway) NATCapable() bool { return g.Gateway || g.DGPs > 0 }

// lrpUUID keys router ports by row.
func lrpUUID(p LRP) string { return p.Port.UUID }

// deriveDGPs computes the distributed gateway ports, and reports the ports
// with gateway chassis on L3 gateway routers, whose gateway settings northd
// logs as a bad configuration and ignores.
func deriveDGPs(n *NB) engine.Rel[DGP] {
	engine.Report(engine.Filter(n.LRPs, func(p LRP) bool {
		return p.OnGateway && (len(p.Port.GatewayChassis) > 0 || p.Port.HaChassisGroup != nil)
	}), "gateway router port", func(p LRP) error {
		return fmt.Errorf("Bad configuration: distributed gateway port configured on port %s on L3 gateway router", p.Name())
	})
	vtepSwitches := engine.Distinct(engine.Map(n.PortsOnSwitchesOfType(LSPTypeVTEP), func(sp SwitchPort) string { return sp.Switch }))
	vtepPeers := engine.Map(engine.SemiJoin(
		engine.IndexBy(n.LRPSwitchPeers, func(p LRPSwitchPeer) string { return p.Switch }),
		engine.IndexBy(vtepSwitches, func(s string) string { return s })),
		func(p LRPSwitchPeer) string { return p.LRP.Port.UUID })
	dgps := engine.IndexBy(engine.Filter(n.LRPs, LRP.DGP), lrpUUID)
	vtep := engine.IndexBy(engine.Distinct(vtepPeers), func(s string) string { return s })
	return engine.Union(
		engine.Map(engine.SemiJoin(dgps, vtep), func(p LRP) DGP { return DGP{LRP: p, VTEP: true} }),
		engine.Map(engine.AntiJoin(dgps, vtep), func(p LRP) DGP { return DGP{LRP: p} }))
}

// gatewayMark is one fact about a router that RouterGateway gathers.
type gatewayMark struct {
	Router string
	Kind   uint8
	DGP    string // the port's _uuid and name, for gatewayDGP
	Name   string
}

const (
	gatewayExists uint8 = iota
	gatewayChassis
	gatewayDGP
	gatewayBridged
)

func deriveRouterGateways(n *NB, dgps engine.Rel[DGP]) engine.Rel[RouterGateway] {
	own := engine.FlatMap(n.RouterConfigs, func(r RouterConfig) []gatewayMark {
		ms := []gatewayMark{{Router: r.UUID, Kind: gatewayExists}}
		if r.Gateway {
			ms = append(ms, gatewayMark{Router: r.UUID, Kind: gatewayChassis})
		}
		return ms
	})
	ports := engine.Map(dgps, func(d DGP) gatewayMark {
		return gatewayMark{Router: d.LRP.Router, Kind: gatewayDGP, DGP: d.LRP.Port.UUID, Name: d.Name()}
	})
	bridged := engine.Map(engine.Filter(n.LRPs, func(p LRP) bool {
		return strings.EqualFold(p.Port.Options["redirect-type"], "bridged")
	}), func(p LRP) gatewayMark { return gatewayMark{Router: p.Router, Kind: gatewayBridged, DGP: p.Port.UUID} })
	return engine.GroupBy(engine.IndexBy(engine.Union(own, ports, bridged), func(m gatewayMark) string { return m.Router }),
		func(router string, ms []gatewayMark) []RouterGateway {
			g := RouterGateway{Router: router}
			exists := false
			var first gatewayMark
			for _, m := range ms {
				switch m.Kind {
				case gatewayExists:
					exists = true
				case gatewayChassis:
					g.Gateway = true
				case gatewayBridged:
					g.RedirectBridged = true
				case gatewayDGP:
					if g.DGPs == 0 || m.DGP < first.DGP {
						first = m
					}
					g.DGPs++
				}
			}
			if !exists {
				return nil
			}
			g.FirstDGP = first.Name
			return []RouterGateway{g}
		})
}

// firstDGPFor picks, among a router's distributed gateway ports, the first
// in _uuid order that keep accepts.
func firstDGPFor(dgps []DGP, keep func(DGP) bool) (DGP, bool) {
	slices.SortFunc(dgps, func(a, b DGP) int { return cmp.Compare(a.LRP.Port.UUID, b.LRP.Port.UUID) })
	for _, d := range dgps {
		if keep(d) {
			return d, true
		}
	}
	return DGP{}, false
}

// deriveGatewayRelations computes the gateway and NAT relations of n; the
// router and switch relations must be computed first.
func (n *NB) deriveGatewayRelations() {
	n.DGPs = deriveDGPs(n)
	n.RouterGateways = deriveRouterGateways(n, n.DGPs)
	n.PeerRedirects = derivePeerRedirects(n)
	n.deriveNATRelations()
}

// peersGetRedirectPorts: from 26.03 the switch port that peers with a
// distributed gateway port can have a chassisredirect port too.
func peersGetRedirectPorts(r schema.Release) bool { return r >= schema.OVN2603 }

// derivePeerRedirects computes the switch ports that northd gives a
// chassisredirect port, named after them (peer_needs_cr_port_creation):
// the peer of a distributed gateway port that is its router's only one,
// on a switch without localnet ports. Traffic to the gateway port's
// networks, and NAT over the overlay, are then centralized on its chassis.
func derivePeerRedirects(n *NB) engine.Rel[LRPSwitchPeer] {
	if !peersGetRedirectPorts(n.Release) {
		return engine.Filter(n.LRPSwitchPeers, func(LRPSwitchPeer) bool { return false })
	}
	onlyDGP := engine.Filter(n.RouterGateways, func(g RouterGateway) bool { return g.DGPs == 1 })
	peers := engine.SemiJoin(
		engine.IndexBy(engine.Filter(n.LRPSwitchPeers, func(p LRPSwitchPeer) bool { return p.LRP.DGP() }),
			func(p LRPSwitchPeer) string { return p.LRP.Router }),
		engine.IndexBy(onlyDGP, func(g RouterGateway) string { return g.Router }))
	return engine.AntiJoin(
		engine.IndexBy(peers, func(p LRPSwitchPeer) string { return p.Switch }),
		engine.IndexBy(n.SwitchesWithLocalnet, func(sw string) string { return sw }))
}
