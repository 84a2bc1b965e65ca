package relations

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// LSP is a logical switch port on the switch that lists it, with its
// addresses and port security as northd reads them (join_logical_ports).
// Ports with the same addresses and port_security share one Addrs, so
// tuples made from the same row compare equal.
type LSP struct {
	Switch string // NB _uuid of the switch
	Port   *nb.LogicalSwitchPort
	Addrs  *LSPAddresses
}

// LSPAddresses is what northd reads from a switch port's addresses and
// port_security columns.
type LSPAddresses struct {
	// Static are the "MAC [IP...]" entries of addresses that northd could
	// read, in column order (op->lsp_addrs up to n_lsp_non_router_addrs):
	// "unknown", "router" and the dynamic forms are not among them, nor
	// entries without a leading MAC.
	Static []LPortAddresses
	// PortSecurity are the port_security entries northd could read
	// (op->ps_addrs).
	PortSecurity []LPortAddresses
	// HasUnknown is an "unknown" entry in addresses (op->has_unknown), or
	// in 26.03 a port of type "switch", behind which addresses are unknown
	// (SwitchPeerPorts).
	HasUnknown bool
}

// Name is the port's name, its key in every flow.
func (p LSP) Name() string { return p.Port.Name }

// LSPsOfType are the switch ports of type t, from one split of LSPs by
// type (as PortsOnSwitchesOfType).
func (n *NB) LSPsOfType(t string) engine.Rel[LSP] {
	if n.lspsByType == nil {
		n.lspsByType = engine.SplitBy(n.LSPs, func(p LSP) string { return p.Port.Type })
	}
	return n.lspsByType.Of(t)
}

// LSPsByName is LSPs arranged by port name, one arrangement for the rules
// that look a port up by name.
func (n *NB) LSPsByName() engine.Index[string, LSP] { return arranged(&n.lspsByName, n.LSPs, LSP.Name) }

// NonRouterLSPsByName are the switch ports of every type but "router" (a
// router port's own binding stands for those), by name: one arrangement
// for their queue ids and their Port_Binding rows.
func (n *NB) NonRouterLSPsByName() engine.Index[string, LSP] {
	if n.nonRouterLSPsByName == (engine.Index[string, LSP]{}) {
		n.nonRouterLSPsByName = engine.IndexBy(engine.Filter(n.LSPs, func(p LSP) bool { return p.Port.Type != LSPTypeRouter }), LSP.Name)
	}
	return n.nonRouterLSPsByName
}

// Enabled reports whether the port's enabled column is not false
// (lsp_is_enabled).
func (p LSP) Enabled() bool { return p.Port.Enabled == nil || *p.Port.Enabled }

// HasQoS reports whether the port has QoS options (port_has_qos_params),
// which give its binding a qdisc_queue_id (derived_queues.go).
func (p LSP) HasQoS() bool {
	o := p.Port.Options
	_, maxRate := o["qos_max_rate"]
	_, minRate := o["qos_min_rate"]
	_, burst := o["qos_burst"]
	return maxRate || minRate || burst
}

// Port types northd treats apart (the Logical_Switch_Port type column).
const (
	LSPTypeVIF       = ""
	LSPTypeRouter    = "router"
	LSPTypeLocalnet  = "localnet"
	LSPTypeLocalport = "localport"
	LSPTypeExternal  = "external"
	LSPTypeVirtual   = "virtual"
	LSPTypeVTEP      = "vtep"
	LSPTypeSwitch    = "switch"
	LSPTypeRemote    = "remote"
)

// SwitchPeerPorts: 26.03 has switch ports of type "switch", patch ports to
// a port of the same type on another switch (their peer columns name each
// other). Addresses do not cross them, so the switch expects unknown ones
// behind such a port.
func SwitchPeerPorts(r schema.Release) bool { return r >= schema.OVN2603 }

// SwitchMcast is a switch's IP multicast configuration as its L2 lookup
// flows read it (northd.c struct mcast_switch_info). One tuple per switch.
type SwitchMcast struct {
	Switch string // NB _uuid of the switch
	// Snoop is other_config:mcast_snoop: IGMP/MLD snooping is on.
	Snoop bool
	// FloodUnregistered is other_config:mcast_flood_unregistered:
	// unregistered IP multicast is flooded like other multicast.
	FloodUnregistered bool
	// FloodRelay: a router port of the switch connects to a router with
	// options:mcast_relay, so IP multicast goes to _MC_mrouter_flood too.
	FloodRelay bool
	// FloodStatic: an enabled port of the switch has options:mcast_flood,
	// so IP multicast goes to _MC_static too.
	FloodStatic bool
	// ARPsToPortsOnly is other_config:broadcast-arps-to-all-routers=false:
	// ARP requests and neighbour solicitations are not flooded to the
	// routers (26.03).
	ARPsToPortsOnly bool
}

// lspAddrKey identifies what a switch port's LSPAddresses are read from:
// its addresses and port_security, each entry quoted so that no two lists
// share a key, and whether unknown addresses come with its type.
type lspAddrKey struct {
	addresses, portSecurity string
	unknownByType           bool
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ",")
}

// readLSPAddresses reads a switch port's addresses and port_security as
// join_logical_ports does. Entries northd cannot read at all are skipped,
// entries with unreadable trailing text keep what was read; both are
// reported in the returned error.
func readLSPAddresses(p *nb.LogicalSwitchPort) (LSPAddresses, error) {
	var a LSPAddresses
	var errs []error
	for _, s := range p.Addresses {
		switch {
		case s == "unknown":
			a.HasUnknown = true
			continue
		case IsSpecialAddress(s):
			continue
		}
		parsed, err := ParseLSPAddresses(s)
		if err != nil {
			errs = append(errs, err)
		}
		if !Ignored(err) {
			a.Static = append(a.Static, parsed)
		}
	}
	for _, s := range p.PortSecurity {
		parsed, err := ParseLSPAddresses(s)
		if ae, ok := err.(*AddressError); ok {
			ae.Field = "port_security"
		}
		if err != nil {
			errs = append(errs, err)
		}
		if !Ignored(err) {
			a.PortSecurity = append(a.PortSecurity, parsed)
		}
	}
	if len(errs) > 0 {
		return a, fmt.Errorf("logical switch port %q: %w", p.Name, errors.Join(errs...))
	}
	return a, nil
}

// unknownByType: a port of type "switch" has unknown addresses whatever
// its addresses column says (SwitchPeerPorts).
func unknownByType(r schema.Release, p *nb.LogicalSwitchPort) bool {
	return p.Type == LSPTypeSwitch && SwitchPeerPorts(r)
}

func deriveLSPs(n *NB) engine.Rel[LSP] {
	// northd logs the entries it cannot read and keeps the port: report
	// them without touching the port.
	engine.Report(n.PortsOnSwitches, "switch port addresses", func(sp SwitchPort) error {
		_, err := readLSPAddresses(sp.Port)
		return err
	})
	addrs := newInterner[lspAddrKey, LSPAddresses]()
	return engine.Map(n.PortsOnSwitches, func(sp SwitchPort) LSP {
		byType := unknownByType(n.Release, sp.Port)
		k := lspAddrKey{quoteList(sp.Port.Addresses), quoteList(sp.Port.PortSecurity), byType}
		// A port's delete finds its addresses still interned.
		return LSP{Switch: sp.Switch, Port: sp.Port, Addrs: addrs.getOr(k, func() LSPAddresses {
			a, _ := readLSPAddresses(sp.Port)
			a.HasUnknown = a.HasUnknown || byType
			return a
		})}
	})
}

func lspSwitch(p LSP) string { return p.Switch }

// switchesOf computes the distinct switches of the ports that keep says yes to.
func switchesOf(ports engine.Rel[LSP], keep func(LSP) bool) engine.Rel[string] {
	return engine.Distinct(engine.Map(engine.Filter(ports, keep), lspSwitch))
}

// deriveSwitchesWithUnknown computes od->has_unknown: the switches with an
// enabled, non-external port that has "unknown" among its addresses
// (23.03's build_lswitch_ip_unicast_lookup), or in 26.03 with any such
// port (unknownOfAnyPort).
func deriveSwitchesWithUnknown(r schema.Release, lsps engine.Rel[LSP]) engine.Rel[string] {
	return switchesOf(lsps, func(p LSP) bool {
		return p.Addrs.HasUnknown && (unknownOfAnyPort(r) || p.Enabled() && p.Port.Type != LSPTypeExternal)
	})
}

// unknownOfAnyPort: 26.03 sets has_unknown while it parses each port's
// addresses (parse_lsp_addrs), whether the port is enabled or external.
func unknownOfAnyPort(r schema.Release) bool { return r >= schema.OVN2603 }

// deriveSwitchesOnlyRouterPorts computes the switches all of whose ports are
// router ports connected to a router port (od->n_router_ports ==
// od->nbs->n_ports): ARP requests for a router's addresses then go to the
// router alone, without flooding.
func deriveSwitchesOnlyRouterPorts(n *NB) engine.Rel[string] {
	// The number of ports is the length of the switch's ports column:
	// counting port tuples would cost a pass over all of a switch's ports
	// for every port added.
	nPorts := n.SwitchPortsLength
	nRouterPorts := engine.Count(engine.IndexBy(n.LRPSwitchPeers, func(p LRPSwitchPeer) string { return p.Switch }))
	byKey := func(kv engine.KV[string, int]) string { return kv.Key }
	both := engine.Join(engine.IndexBy(nPorts, byKey), engine.IndexBy(nRouterPorts, byKey),
		func(sw string, all, routers engine.KV[string, int]) engine.KV[string, bool] {
			return engine.KV[string, bool]{Key: sw, Value: all.Value == routers.Value}
		})
	return engine.Map(engine.Filter(both, func(kv engine.KV[string, bool]) bool { return kv.Value }),
		func(kv engine.KV[string, bool]) string { return kv.Key })
}

// mcastMark is one fact about a switch that SwitchMcast gathers.
type mcastMark struct {
	Switch string
	Kind   uint8
}

const (
	mcastExists uint8 = iota
	mcastSnoop
	mcastFloodUnregistered
	mcastFloodRelay
	mcastFloodStatic
	mcastARPsToPortsOnly
)

// deriveSwitchMcast computes one SwitchMcast per switch
// (init_mcast_info_for_switch_datapath, join_logical_ports and
// build_mcast_groups).
func deriveSwitchMcast(n *NB, lsps engine.Rel[LSP]) engine.Rel[SwitchMcast] {
	own := engine.FlatMap(n.Switches.Rows, func(ls *nb.LogicalSwitch) []mcastMark {
		ms := []mcastMark{{ls.UUID, mcastExists}}
		if SmapBool(ls.OtherConfig, "mcast_snoop", false) {
			ms = append(ms, mcastMark{ls.UUID, mcastSnoop})
		}
		if SmapBool(ls.OtherConfig, "mcast_flood_unregistered", false) {
			ms = append(ms, mcastMark{ls.UUID, mcastFloodUnregistered})
		}
		if !SmapBool(ls.OtherConfig, "broadcast-arps-to-all-routers", true) {
			ms = append(ms, mcastMark{ls.UUID, mcastARPsToPortsOnly})
		}
		return ms
	})
	relay := engine.Join(
		engine.IndexBy(n.LRPSwitchPeers, func(p LRPSwitchPeer) string { return p.LRP.Router }),
		engine.IndexBy(engine.Filter(n.RouterConfigs, func(r RouterConfig) bool { return r.McastRelay }),
			func(r RouterConfig) string { return r.UUID }),
		func(_ string, p LRPSwitchPeer, _ RouterConfig) mcastMark { return mcastMark{p.Switch, mcastFloodRelay} })
	static := engine.Map(engine.Filter(lsps, func(p LSP) bool {
		return p.Enabled() && SmapBool(p.Port.Options, "mcast_flood", false)
	}), func(p LSP) mcastMark { return mcastMark{p.Switch, mcastFloodStatic} })
	marks := engine.Union(own, relay, static)
	return engine.GroupBy(
		engine.IndexBy(marks, func(m mcastMark) string { return m.Switch }),
		func(sw string, ms []mcastMark) []SwitchMcast {
			m := SwitchMcast{Switch: sw}
			exists := false
			for _, mark := range ms {
				switch mark.Kind {
				case mcastExists:
					exists = true
				case mcastSnoop:
					m.Snoop = true
				case mcastFloodUnregistered:
					m.FloodUnregistered = true
				case mcastFloodRelay:
					m.FloodRelay = true
				case mcastFloodStatic:
					m.FloodStatic = true
				case mcastARPsToPortsOnly:
					m.ARPsToPortsOnly = true
				}
			}
			if !exists {
				return nil
			}
			return []SwitchMcast{m}
		})
}

// LSPDynamic is a switch port's dynamic addresses as northd reads them
// (build_ipam): on a switch with IPAM, the dynamic_addresses northd
// allocated for the first dynamic entry of addresses ("dynamic", "MAC
// dynamic", ...) of a port not connected to a router. northd appends them to
// the port's addresses (op->lsp_addrs) for the ARP responder and DHCP.
type LSPDynamic struct {
	LSP   LSP
	Addrs *LPortAddresses
}

// hasIPAM reports whether a switch's other_config asks northd to allocate
// addresses (init_ipam_info): a readable IPv4 subnet that is not a host
// route, a readable /64 ipv6_prefix, or mac_only without either key.
func hasIPAM(config map[string]string) bool {
	c, _ := ParseIPAMConfig(config)
	return c.Enabled()
}

func deriveLSPDynamic(n *NB, lsps engine.Rel[LSP]) engine.Rel[LSPDynamic] {
	withDynamic := engine.Filter(lsps, func(p LSP) bool {
		return p.Port.DynamicAddresses != nil && slices.ContainsFunc(p.Port.Addresses, IsDynamicAddress)
	})
	ipam := engine.Map(engine.Filter(n.Switches.Rows, func(ls *nb.LogicalSwitch) bool { return hasIPAM(ls.OtherConfig) }),
		func(ls *nb.LogicalSwitch) string { return ls.UUID })
	onIPAM := engine.SemiJoin(engine.IndexBy(withDynamic, lspSwitch), engine.IndexBy(ipam, func(s string) string { return s }))
	// northd allocates nothing for ports connected to a router.
	unpeered := engine.AntiJoin(
		engine.IndexBy(onIPAM, func(p LSP) string { return p.Port.UUID }),
		engine.IndexBy(n.LRPSwitchPeers, func(p LRPSwitchPeer) string { return p.LSP.UUID }))
	addrs := newInterner[string, LPortAddresses]()
	return engine.TryMap(unpeered, "switch port dynamic_addresses", func(p LSP) (LSPDynamic, error) {
		a, err := ParseLSPAddresses(*p.Port.DynamicAddresses)
		if Ignored(err) {
			return LSPDynamic{}, fmt.Errorf("logical switch port %q: %w", p.Name(), err)
		}
		return LSPDynamic{LSP: p, Addrs: addrs.get(*p.Port.DynamicAddresses, a)}, nil
	})
}

// SwitchPeer is a port of type "switch" and the port of that type, on
// another switch or the same, that it patches to, by name.
type SwitchPeer struct {
	Port, Peer string
}

// deriveSwitchPeers pairs the ports of type "switch" whose peer columns
// name each other (join_logical_ports). A peer that is not such a port,
// or that names another, leaves the port without one; northd logs why
// when the peer is a router port or a switch port naming another.
func deriveSwitchPeers(n *NB) engine.Rel[SwitchPeer] {
	switchPorts := engine.Filter(n.PortsOnSwitchesOfType(LSPTypeSwitch), func(SwitchPort) bool { return SwitchPeerPorts(n.Release) })
	byPeer := engine.IndexBy(engine.Filter(switchPorts, func(sp SwitchPort) bool { return sp.Port.Peer != nil }),
		func(sp SwitchPort) string { return *sp.Port.Peer })
	byName := engine.IndexBy(switchPorts, func(sp SwitchPort) string { return sp.Port.Name })
	routerPortNames := engine.Union(
		engine.Map(n.LRPs, func(p LRP) string { return p.Port.Name }),
		engine.Map(n.PortsOnSwitchesOfType(LSPTypeRouter), func(sp SwitchPort) string { return sp.Port.Name }))
	n.Diagnose(engine.Map(engine.SemiJoin(byPeer, engine.IndexBy(routerPortNames, func(name string) string { return name })),
		func(p SwitchPort) Diagnostic {
			return Warning(fmt.Sprintf("Bad configuration: The peer of switch port %s is a router port", p.Port.Name))
		}))
	n.Diagnose(engine.JoinFlatMap(byPeer, byName, func(_ string, p, peer SwitchPort) []Diagnostic {
		if peer.Port.Peer != nil && *peer.Port.Peer == p.Port.Name {
			return nil
		}
		return []Diagnostic{Warning(fmt.Sprintf("Bad configuration: '%s' is a switch port with peer '%s', but '%s' is a switch port with peer '%s'",
			p.Port.Name, peer.Port.Name, peer.Port.Name, printfString(peer.Port.Peer)))}
	}))
	return engine.JoinFlatMap(byPeer, byName, func(_ string, p, peer SwitchPort) []SwitchPeer {
		if peer.Port.Peer == nil || *peer.Port.Peer != p.Port.Name {
			return nil
		}
		return []SwitchPeer{{Port: p.Port.Name, Peer: peer.Port.Name}}
	})
}

// printfString is s as glibc's printf writes a string pointer: "(null)"
// for none.
func printfString(s *string) string {
	if s == nil {
		return "(null)"
	}
	return *s
}

// deriveCheckLSPIsUp holds one tuple when NB_Global options:ignore_lsp_down
// is false: ARP/ND responders then answer only for ports that are up.
func deriveCheckLSPIsUp(n *NB) engine.Rel[struct{}] {
	return engine.Map(engine.Filter(n.Global.Rows, func(g *nb.NBGlobal) bool {
		return !SmapBool(g.Options, "ignore_lsp_down", true)
	}), func(*nb.NBGlobal) struct{} { return struct{}{} })
}

// deriveSwitchRelations computes the switch relations of n; the router
// relations must be computed first.
func (n *NB) deriveSwitchRelations() {
	n.LSPs = deriveLSPs(n)
	n.SwitchesWithUnknown = deriveSwitchesWithUnknown(n.Release, n.LSPs)
	n.SwitchesWithLocalnet = engine.Distinct(engine.Map(n.LSPsOfType(LSPTypeLocalnet), lspSwitch))
	n.SwitchesOnlyRouterPorts = deriveSwitchesOnlyRouterPorts(n)
	n.SwitchMcast = deriveSwitchMcast(n, n.LSPs)
	n.CheckLSPIsUp = deriveCheckLSPIsUp(n)
	n.LSPDynamicAddrs = deriveLSPDynamic(n, n.LSPs)
	n.SwitchPeers = deriveSwitchPeers(n)
	n.QueueIDs = deriveQueueIDs(n)
	n.deriveIGMP()
}
