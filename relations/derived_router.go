package relations

import (
	"fmt"
	"net/netip"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// RouterConfig is a logical router that northd makes a datapath of (one
// whose enabled column is not false), with the router options the router
// rules read. Being a value, an update to columns no rule reads here (ports,
// static_routes, nat...) leaves it unchanged.
type RouterConfig struct {
	UUID string
	Name string
	// LearnFromARPRequest is options:always_learn_from_arp_request (default
	// true): learn MAC bindings from every ARP request, not only from those
	// for the router's own addresses.
	LearnFromARPRequest bool
	// DynamicNeighRouters is options:dynamic_neigh_routers: the router
	// learns its neighbour routers' MACs instead of having them resolved
	// statically.
	DynamicNeighRouters bool
	// Gateway is options:chassis being present (od->is_gw_router): an L3
	// gateway router bound to one chassis.
	Gateway bool
	// McastRelay is options:mcast_relay: IP multicast is routed between
	// the router's ports.
	McastRelay bool
	// NATOrLB is true when the router lists NAT rules or load balancers,
	// or sets options:dnat_force_snat_ip or lb_force_snat_ip: some of its
	// own addresses may then be SNAT or load balancer addresses, which
	// northd treats apart.
	NATOrLB bool
}

// LRP is a logical router port that northd makes a port of: listed by an
// enabled router, with a MAC it can read (join_logical_ports). Net is the
// port's MAC and networks as northd reads them (op->lrp_networks): networks
// it cannot read are left out (Step reports them) and the IPv6 link-local
// address derived from the MAC comes last. Equal mac and networks share one
// Net, so tuples made from the same row compare equal.
type LRP struct {
	Router string // NB _uuid of the router
	Port   *nb.LogicalRouterPort
	Net    *LPortAddresses
	// OnGateway is true when the router is an L3 gateway router
	// (RouterConfig.Gateway).
	OnGateway bool
}

// DGP reports whether the port is a distributed gateway port (northd's
// is_l3dgw_port): it names gateway chassis or an HA chassis group, on a
// router that is not an L3 gateway router (northd logs that configuration
// as bad and ignores the gateway settings). Its chassisredirect port is
// "cr-" + Name.
func (p LRP) DGP() bool {
	return !p.OnGateway && (len(p.Port.GatewayChassis) > 0 || p.Port.HaChassisGroup != nil)
}

// Name is the port's name, its key in every flow.
func (p LRP) Name() string { return p.Port.Name }

// Enabled reports whether the port's enabled column is not false.
func (p LRP) Enabled() bool { return p.Port.Enabled == nil || *p.Port.Enabled }

// LRPSwitchPeer is a router port connected to a logical switch: a switch
// port of type "router" whose options:router-port names it. Each is the
// other's peer (op->peer), and the switch port is one of the switch's
// router ports (od->router_ports).
type LRPSwitchPeer struct {
	LRP    LRP
	Switch string // NB _uuid of the switch
	LSP    *nb.LogicalSwitchPort
}

// LRPRouterPeer is a router port whose peer column names another router
// port: a direct router-to-router link, seen from LRP's side.
type LRPRouterPeer struct {
	LRP  LRP
	Peer LRP
}

// LRPGatewayMTU is a router port with options:gateway_mtu above zero
// (northd.c build_gateway_mtu_flow): IP packets routed out of it larger than
// MTU get an ICMP "fragmentation needed" or "packet too big" error.
// CheckLen is the length check_pkt_larger() compares with: MTU plus the
// Ethernet header, with a VLAN tag when the switch the port is connected to
// has a localnet port that requests one (a valid one in 26.03).
type LRPGatewayMTU struct {
	LRP      LRP
	MTU      int
	CheckLen int
}

// Ethernet header lengths without and with an 802.1Q tag.
const (
	ethHeaderLen     = 14
	vlanEthHeaderLen = 18
)

func deriveRouterConfigs(n *NB) engine.Rel[RouterConfig] {
	enabled := engine.Filter(n.Routers.Rows, func(lr *nb.LogicalRouter) bool {
		return lr.Enabled == nil || *lr.Enabled
	})
	return engine.Map(enabled, func(lr *nb.LogicalRouter) RouterConfig {
		_, gateway := lr.Options["chassis"]
		return RouterConfig{
			UUID:                lr.UUID,
			Name:                lr.Name,
			LearnFromARPRequest: SmapBool(lr.Options, "always_learn_from_arp_request", true),
			DynamicNeighRouters: SmapBool(lr.Options, "dynamic_neigh_routers", false),
			Gateway:             gateway,
			McastRelay:          SmapBool(lr.Options, "mcast_relay", false),
			NATOrLB:             natOrLB(lr),
		}
	})
}

func natOrLB(lr *nb.LogicalRouter) bool {
	_, dnat := lr.Options["dnat_force_snat_ip"]
	_, lb := lr.Options["lb_force_snat_ip"]
	return dnat || lb || len(lr.Nat) > 0 || len(lr.LoadBalancer) > 0 || len(lr.LoadBalancerGroup) > 0
}

// lrpNetKey identifies what ParseLRPNetworks reads: the mac and the
// networks, each quoted so that no two lists share a key.
type lrpNetKey struct{ mac, networks string }

func lrpNetKeyOf(p *nb.LogicalRouterPort) lrpNetKey {
	quoted := make([]string, len(p.Networks))
	for i, n := range setOrder(p.Networks) {
		quoted[i] = strconv.Quote(n)
	}
	return lrpNetKey{p.MAC, strings.Join(quoted, ",")}
}

// setOrder is a string set column in the order northd sees it: OVSDB
// keeps sets sorted, and northd reads them in that order.
func setOrder(set []string) []string {
	if slices.IsSorted(set) {
		return set
	}
	return slices.Sorted(slices.Values(set))
}

// routerGateway is whether a router is an L3 gateway router.
type routerGateway struct {
	router  string
	gateway bool
}

// lrpRow is a port on an enabled router, before its networks are read.
type lrpRow struct {
	RouterPort
	gateway bool
}

func deriveLRPs(n *NB, routers engine.Rel[RouterConfig]) engine.Rel[LRP] {
	// Only the gateway flag of the router goes into the port tuples: other
	// option changes cancel out here.
	gateway := engine.Map(routers, func(r RouterConfig) routerGateway { return routerGateway{r.UUID, r.Gateway} })
	onEnabled := engine.Join(
		engine.IndexBy(n.PortsOnRouters, func(rp RouterPort) string { return rp.Router }),
		engine.IndexBy(gateway, func(g routerGateway) string { return g.router }),
		func(_ string, rp RouterPort, g routerGateway) lrpRow { return lrpRow{rp, g.gateway} })
	// northd logs the networks it cannot read, and those of address
	// 0.0.0.0 at another level, and keeps the port: report them without
	// touching the port.
	networkErrors := func(r lrpRow) (zero, unreadable error) {
		rp := r.RouterPort
		if _, err := ParseLRPNetworks(rp.Port.MAC, setOrder(rp.Port.Networks)); err != nil && !Ignored(err) {
			return splitNetworkErrors(err)
		}
		return nil, nil
	}
	engine.Report(onEnabled, "router port networks", func(r lrpRow) error {
		_, err := networkErrors(r)
		return err
	})
	engine.Report(onEnabled, "router port network 0.0.0.0", func(r lrpRow) error {
		err, _ := networkErrors(r)
		return err
	})
	nets := newInterner[lrpNetKey, LPortAddresses]()
	return engine.TryMap(onEnabled, "router port mac", func(r lrpRow) (LRP, error) {
		rp := r.RouterPort
		a, err := ParseLRPNetworks(rp.Port.MAC, setOrder(rp.Port.Networks))
		if Ignored(err) {
			return LRP{}, err
		}
		return LRP{Router: rp.Router, Port: rp.Port, Net: nets.get(lrpNetKeyOf(rp.Port), a), OnGateway: r.gateway}, nil
	})
}

func lrpByName(p LRP) string { return p.Port.Name }

// deriveLRPSwitchPeers pairs the switch ports of type "router" with the
// router ports their options:router-port name. From 26.03 (peersMustAgree)
// a router port whose own peer column is set takes no switch port: northd
// logs the switch port's bad configuration and leaves it unpeered.
func deriveLRPSwitchPeers(n *NB, lrps engine.Index[string, LRP]) engine.Rel[LRPSwitchPeer] {
	routerLSPs := engine.Filter(n.PortsOnSwitchesOfType(LSPTypeRouter), func(sp SwitchPort) bool {
		_, ok := sp.Port.Options["router-port"]
		return ok
	})
	refuses := func(p LRP) bool { return p.Port.Peer != nil && peersMustAgree(n.Release) }
	pairs := engine.Join(
		engine.IndexBy(routerLSPs, func(sp SwitchPort) string { return sp.Port.Options["router-port"] }),
		lrps,
		func(_ string, sp SwitchPort, p LRP) LRPSwitchPeer {
			return LRPSwitchPeer{LRP: p, Switch: sp.Switch, LSP: sp.Port}
		})
	n.Diagnose(engine.Map(engine.Filter(pairs, func(p LRPSwitchPeer) bool { return refuses(p.LRP) }), func(p LRPSwitchPeer) Diagnostic {
		return Warning(fmt.Sprintf("Bad configuration: The peer of the switch port '%s' (LRP peer: '%s') has its own peer configuration: '%s'",
			p.LSP.Name, p.LRP.Name(), *p.LRP.Port.Peer))
	}))
	return engine.Filter(pairs, func(p LRPSwitchPeer) bool { return !refuses(p.LRP) })
}

// peersMustAgree: 26.03 peers a switch port of type "router" only with a
// router port that names no peer of its own, and two router ports only
// when each names the other; 23.03 peers any router port a switch port or
// another router port names.
func peersMustAgree(r schema.Release) bool { return r >= schema.OVN2603 }

func deriveLRPRouterPeers(n *NB, byName engine.Index[string, LRP]) engine.Rel[LRPRouterPeer] {
	withPeer := engine.Filter(n.LRPs, func(p LRP) bool { return p.Port.Peer != nil })
	return engine.JoinFlatMap(
		engine.IndexBy(withPeer, func(p LRP) string { return *p.Port.Peer }),
		byName,
		func(_ string, p, peer LRP) []LRPRouterPeer {
			if peersMustAgree(n.Release) && (peer.Port.Peer == nil || *peer.Port.Peer != p.Port.Name) {
				return nil
			}
			return []LRPRouterPeer{{LRP: p, Peer: peer}}
		})
}

// diagnoseSwitchPortPeers logs the router ports whose peer names a
// switch port, which northd leaves unpeered: a switch port names its
// router port in options:router-port, not the other way.
func diagnoseSwitchPortPeers(n *NB) {
	withPeer := engine.Filter(n.LRPs, func(p LRP) bool { return p.Port.Peer != nil })
	n.Diagnose(engine.Map(engine.SemiJoin(
		engine.IndexBy(withPeer, func(p LRP) string { return *p.Port.Peer }),
		n.PortsOnSwitchesByName()),
		func(p LRP) Diagnostic {
			return Warning(fmt.Sprintf("Bad configuration: The peer of router port %s is a switch port", p.Port.Name))
		}))
}

func lrpByUUID(p LRP) string { return p.Port.UUID }

// onlyValidTagsAddVLANHeader: 26.03 counts a VLAN header for a localnet
// port's tag_request only when it is a valid tag (non-zero, or with a
// parent_name); 23.03 for any tag_request, 0 included.
func onlyValidTagsAddVLANHeader(r schema.Release) bool { return r >= schema.OVN2603 }

func deriveLRPGatewayMTUs(n *NB) engine.Rel[LRPGatewayMTU] {
	withMTU := engine.Filter(n.LRPs, func(p LRP) bool { return SmapInt(p.Port.Options, "gateway_mtu", 0) > 0 })
	taggedLocalnet := engine.Filter(n.PortsOnSwitchesOfType(LSPTypeLocalnet), func(sp SwitchPort) bool {
		tag := sp.Port.TagRequest
		if tag == nil {
			return false
		}
		return !onlyValidTagsAddVLANHeader(n.Release) || *tag != 0 || sp.Port.ParentName != nil && *sp.Port.ParentName != ""
	})
	// (router port, switch) pairs, as values.
	type portSwitch struct{ port, sw string }
	peerSwitch := engine.Map(n.LRPSwitchPeers, func(sp LRPSwitchPeer) portSwitch { return portSwitch{sp.LRP.Port.UUID, sp.Switch} })
	tagged := engine.SemiJoin(
		engine.IndexBy(peerSwitch, func(ps portSwitch) string { return ps.sw }),
		engine.IndexBy(taggedLocalnet, func(sp SwitchPort) string { return sp.Switch }))
	byPort := engine.IndexBy(withMTU, lrpByUUID)
	taggedIdx := engine.IndexBy(tagged, func(ps portSwitch) string { return ps.port })
	mtu := func(hdr int) func(p LRP) LRPGatewayMTU {
		return func(p LRP) LRPGatewayMTU {
			m := SmapInt(p.Port.Options, "gateway_mtu", 0)
			return LRPGatewayMTU{LRP: p, MTU: m, CheckLen: m + hdr}
		}
	}
	return engine.Union(
		engine.Map(engine.SemiJoin(byPort, taggedIdx), mtu(vlanEthHeaderLen)),
		engine.Map(engine.AntiJoin(byPort, taggedIdx), mtu(ethHeaderLen)))
}

// interner hands out one shared *V per key for as long as anything holds
// it, so that a value parsed again from the same input (as when a tuple is
// retracted) is the very pointer an arrangement stored when it was
// inserted. Entries go away with their last holder.
type interner[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]weak.Pointer[V]
}

func newInterner[K comparable, V any]() *interner[K, V] {
	return &interner[K, V]{m: map[K]weak.Pointer[V]{}}
}

// get returns the shared pointer for k, storing v as its value if there is
// none. v must be what k always yields.
func (in *interner[K, V]) get(k K, v V) *V {
	return in.getOr(k, func() V { return v })
}

// getOr is get for a value that costs work to make: build is called only
// when k has none.
func (in *interner[K, V]) getOr(k K, build func() V) *V {
	in.mu.Lock()
	defer in.mu.Unlock()
	if p := in.m[k].Value(); p != nil {
		return p
	}
	v := build()
	p := &v
	w := weak.Make(p)
	in.m[k] = w
	runtime.AddCleanup(p, func(k K) {
		in.mu.Lock()
		defer in.mu.Unlock()
		if in.m[k] == w {
			delete(in.m, k)
		}
	}, k)
	return p
}

// TransitPort is a router port whose options:requested-chassis names a
// remote chassis (RemoteChassisNames), on a router that is not a gateway
// router: the remote port of a transit router, which 26.03 binds to that
// chassis (Port_Binding type "remote").
type TransitPort struct {
	LRP     LRP
	Chassis string // the requested chassis
}

// TransitRouterPorts: 26.03 reads a router port's requested-chassis.
func TransitRouterPorts(r schema.Release) bool { return r >= schema.OVN2603 }

// deriveTransitPorts computes the transit routers' remote ports.
func deriveTransitPorts(n *NB) engine.Rel[TransitPort] {
	requesting := engine.Filter(n.LRPs, func(p LRP) bool {
		_, ok := p.Port.Options["requested-chassis"]
		return ok && !p.OnGateway && TransitRouterPorts(n.Release)
	})
	return engine.Join(
		engine.IndexBy(requesting, func(p LRP) string { return p.Port.Options["requested-chassis"] }),
		engine.IndexBy(n.RemoteChassisNames, func(name string) string { return name }),
		func(name string, p LRP, _ string) TransitPort { return TransitPort{LRP: p, Chassis: name} })
}

// deriveRouterRelations computes the router relations of n; the bound
// ports (deriveBoundPorts) must be computed first.
func (n *NB) deriveRouterRelations() {
	n.LRPsByName = engine.IndexBy(n.LRPs, lrpByName)
	n.LRPSwitchPeers = deriveLRPSwitchPeers(n, n.LRPsByName)
	n.LRPRouterPeers = deriveLRPRouterPeers(n, n.LRPsByName)
	diagnoseSwitchPortPeers(n)
	n.LRPGatewayMTUs = deriveLRPGatewayMTUs(n)
	n.TransitPorts = deriveTransitPorts(n)
	n.TransitRouters = engine.Distinct(engine.Map(n.TransitPorts, func(p TransitPort) string { return p.LRP.Router }))
	n.LRPRedistributes = deriveLRPRedistributes(n)
	n.LearnedRoutes = deriveLearnedRoutes(n)
	n.deriveRouteRelations()
	n.LearnedRouteSlots = deriveLearnedRouteSlots(n.LearnedRoutes, n.RouteSlots)
}

// ParseIPv4 reads s as a whole IPv4 address the way OVS's ip_parse does
// (inet_pton: four decimal octets, no leading zeros); the zero Addr when it
// cannot.
func ParseIPv4(s string) (netip.Addr, bool) {
	ip, ok := inetPton4(cString(s))
	if !ok {
		return netip.Addr{}, false
	}
	return netip.AddrFrom4(ip), true
}

// ParseIPv6 reads s as a whole IPv6 address the way OVS's ipv6_parse does
// (inet_pton); the zero Addr when it cannot.
func ParseIPv6(s string) (netip.Addr, bool) {
	ip, ok := inetPton6(cString(s))
	if !ok {
		return netip.Addr{}, false
	}
	return netip.AddrFrom16(ip), true
}
