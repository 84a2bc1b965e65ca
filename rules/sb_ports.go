package rules

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// PortBinding is the part of one SB Port_Binding row that ovn-northd 23.03
// owns (northd.c join_logical_ports, ovn_port_update_sbrec): one per switch
// port, per router port and per chassisredirect port of a distributed
// gateway port. Columns ovn-controller writes (chassis, encap, up after
// creation, virtual_parent...) are not here, nor the tunnel key, which the
// SB writer allocates.
type PortBinding struct {
	Name     string // logical_port
	Datapath string // NB _uuid of the switch or router
	Type     string
	Options  Smap
	MAC      Strings
	// PortSecurity, ParentPort (empty for none) and Tag (0 for none) are
	// copied from a switch port; router ports have none.
	PortSecurity Strings
	ParentPort   string
	Tag          int
	ExternalIDs  Smap
	NATAddresses Strings
	// RequestedKey is options:requested-tnl-key, 0 when absent or invalid.
	RequestedKey int
	// MirrorPort is the sink of a serving port of type "mirror".
	MirrorPort string
	// RemoteChassis names the remote chassis (by name or hostname) a
	// transit router's remote port is bound to: its requested_chassis
	// and chassis (relations.TransitPort).
	RemoteChassis string
}

// MaxPortKey is the largest port tunnel key outside VXLAN mode (15 bits).
const MaxPortKey = 1<<15 - 1

// ComparePortBindings orders port bindings by name, then contents.
func ComparePortBindings(a, b PortBinding) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Datapath, b.Datapath),
		cmp.Compare(a.Type, b.Type), cmp.Compare(a.Options, b.Options), cmp.Compare(a.MAC, b.MAC),
		cmp.Compare(a.PortSecurity, b.PortSecurity), cmp.Compare(a.ParentPort, b.ParentPort),
		cmp.Compare(a.Tag, b.Tag), cmp.Compare(a.ExternalIDs, b.ExternalIDs),
		cmp.Compare(a.NATAddresses, b.NATAddresses), cmp.Compare(a.RequestedKey, b.RequestedKey),
		cmp.Compare(a.MirrorPort, b.MirrorPort), cmp.Compare(a.RemoteChassis, b.RemoteChassis))
}

// CompareBools orders false before true, for the comparers of rows
// with boolean columns (here and in the SB writer).
func CompareBools(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// knownLSPTypes are the switch port types northd copies to the SB
// (ovn_is_known_nb_lsp_type); "router" ports get their own.
var knownLSPTypes = []string{"", "l2gateway", "localnet", "localport", "router", "vtep", "external", "virtual", "remote"}

// SBPortBindings computes the Port_Binding rows of switch ports, router
// ports, chassisredirect ports and lport mirrors' serving ports.
func SBPortBindings(n *relations.NB) engine.Rel[PortBinding] {
	routers := routerPortFacts(n)
	return engine.Union(
		switchPortBindings(n),
		routerTypePortBindings(n, routers),
		routerPortBindings(n, routers),
		mirrorPortBindings(n))
}

// qosPort is a switch port with its binding's queue id, if it has one,
// and, for a QoS-given id in a release that shares queue ids
// (relations.SharesQueueIDs), the network_name of its switch's first
// localnet port; for a port of type "switch", its peer, if it has one.
type qosPort struct {
	LSP     relations.LSP
	Queue   relations.QueueID
	Network string
	Peer    string
}

// firstLocalnetPorts is each switch's first localnet port (northd's
// od->localnet_ports[0]): the first in the switch's ports column, in _uuid
// order, as northd reads it.
func firstLocalnetPorts(n *relations.NB) engine.Rel[engine.KV[string, relations.LSP]] {
	return engine.Min(engine.IndexBy(n.LSPsOfType(relations.LSPTypeLocalnet), func(p relations.LSP) string { return p.Switch }),
		func(a, b relations.LSP) int { return cmp.Compare(a.Port.UUID, b.Port.UUID) })
}

// withQueueIDs gives the ports, by name, their bindings' queue ids.
func withQueueIDs(n *relations.NB, byName engine.Index[string, relations.LSP]) engine.Rel[qosPort] {
	return engine.LeftJoin(byName, n.QueueIDsByPort(),
		func(_ string, p relations.LSP, q relations.QueueID) qosPort { return qosPort{LSP: p, Queue: q} },
		func(p relations.LSP) qosPort { return qosPort{LSP: p} })
}

// withQoSNetworks fills in the network of the ports with a QoS-given queue
// id: the network_name of the switch's first localnet port, if it has one.
func withQoSNetworks(n *relations.NB, ports engine.Rel[qosPort]) engine.Rel[qosPort] {
	networks := engine.IndexBy(engine.Filter(firstLocalnetPorts(n), func(kv engine.KV[string, relations.LSP]) bool {
		return kv.Value.Port.Options["network_name"] != ""
	}), func(kv engine.KV[string, relations.LSP]) string { return kv.Key })
	qos := engine.IndexBy(engine.Filter(ports, func(p qosPort) bool { return p.Queue.QoS }),
		func(p qosPort) string { return p.LSP.Switch })
	return engine.Union(
		engine.Filter(ports, func(p qosPort) bool { return !p.Queue.QoS }),
		engine.LeftJoin(qos, networks,
			func(_ string, p qosPort, ln engine.KV[string, relations.LSP]) qosPort {
				p.Network = ln.Value.Port.Options["network_name"]
				return p
			},
			func(p qosPort) qosPort { return p }))
}

// withSwitchPeers gives the ports of type "switch" their peers
// (relations.NB.SwitchPeers).
func withSwitchPeers(n *relations.NB, ports engine.Rel[qosPort]) engine.Rel[qosPort] {
	byName := engine.IndexBy(ports, func(p qosPort) string { return p.LSP.Name() })
	peers := engine.IndexBy(n.SwitchPeers, func(p relations.SwitchPeer) string { return p.Port })
	return engine.LeftJoin(byName, peers,
		func(_ string, p qosPort, peer relations.SwitchPeer) qosPort {
			p.Peer = peer.Peer
			return p
		},
		func(p qosPort) qosPort { return p })
}

// switchPortBindings: switch ports of every type but "router". Their
// options are the NB ones, plus the qdisc_queue_id northd gave a port for
// its QoS options (relations.NB.QueueIDs) with, where queue ids are
// shared, the physical network it names, and vlan-passthru=true on a
// switch that passes VLANs through. A port of type "switch" is a patch
// port whose options name its peer, once the two name each other.
func switchPortBindings(n *relations.NB) engine.Rel[PortBinding] {
	ports := withQueueIDs(n, n.NonRouterLSPsByName())
	if relations.SharesQueueIDs(n.Release) {
		ports = withQoSNetworks(n, ports)
	}
	if relations.SwitchPeerPorts(n.Release) {
		ports = withSwitchPeers(n, ports)
	}
	return engine.Join(
		engine.IndexBy(ports, func(qp qosPort) string { return qp.LSP.Switch }),
		engine.IndexBy(n.SwitchDatapaths, func(s relations.Switch) string { return s.UUID }),
		func(_ string, qp qosPort, sw relations.Switch) PortBinding {
			p := qp.LSP
			options := p.Port.Options
			if sw.VLANPassthru || qp.Queue.QoS || qp.Peer != "" {
				options = maps.Clone(options)
				if options == nil {
					options = map[string]string{}
				}
			}
			if qp.Queue.QoS {
				options["qdisc_queue_id"] = qp.Queue.ID
				if qp.Network != "" {
					options["qos_physical_network"] = qp.Network
				}
			}
			if sw.VLANPassthru {
				options["vlan-passthru"] = "true"
			}
			if qp.Peer != "" {
				options["peer"] = qp.Peer
			}
			pb := lspBinding(p.Switch, p.Port)
			pb.Options = SmapOf(options)
			// northd leaves the type of a port of unknown type alone (it
			// logs it); a new binding has the default, "".
			switch {
			case p.Port.Type == relations.LSPTypeSwitch && relations.SwitchPeerPorts(n.Release):
				pb.Type = "patch"
			case slices.Contains(knownLSPTypes, p.Port.Type):
				pb.Type = p.Port.Type
			}
			return pb
		})
}

// lspBinding is what every switch port's binding copies from the NB row.
func lspBinding(sw string, p *nb.LogicalSwitchPort) PortBinding {
	ids := p.ExternalIDs
	if name := ids["neutron:port_name"]; name != "" {
		ids = maps.Clone(ids)
		ids["name"] = name
	}
	pb := PortBinding{
		Name:         p.Name,
		Datapath:     sw,
		MAC:          StringsOf(p.Addresses...),
		PortSecurity: StringsOf(p.PortSecurity...),
		ExternalIDs:  SmapOf(ids),
		RequestedKey: requestedKey(p.Options, MaxPortKey),
	}
	if p.ParentName != nil {
		pb.ParentPort = *p.ParentName
	}
	if p.Tag != nil {
		pb.Tag = *p.Tag
	}
	return pb
}

// routerFacts is what the bindings of a router's ports and of the switch
// ports connected to them read from the router, as a value.
type routerFacts struct {
	Router string
	// Chassis is options:chassis (HasChassis: present), which makes the
	// router an L3 gateway router and its ports "l3gateway" ports.
	Chassis    string
	HasChassis bool
	// DGPs counts the distributed gateway ports (od->n_l3dgw_ports);
	// FirstDGP names the one 23.03 takes when it needs one: the first of
	// the router's ports, in NB UUID order there, which two NBs built alike
	// do not share, so the smallest name here.
	DGPs     int
	FirstDGP string
	// DistributedNAT: a dnat_and_snat rule with logical_port and
	// external_mac (od->has_distributed_nat).
	DistributedNAT bool
	// DistributedLB: the router lists a distributed load balancer
	// (has_distributed_lb).
	DistributedLB bool
	// Dynamic is the router's dynamic routing, as its ports' bindings
	// name it.
	Dynamic routerDynamicRouting
}

// routerDynamicRouting is what a router's options say of dynamic routing
// to its ports' bindings: options:dynamic-routing, the VRF name
// (HasVRFName: present) and the defaults of the two port options a
// port's binding carries.
type routerDynamicRouting struct {
	On                    bool
	VRFName               string
	HasVRFName            bool
	LocalOnly, NoLearning bool
}

// dynamicRoutingOf reads a router's dynamic routing options; none before
// 26.03.
func dynamicRoutingOf(rel schema.Release, lr *nb.LogicalRouter) routerDynamicRouting {
	if !relations.ReadsDynamicRouting(rel) {
		return routerDynamicRouting{}
	}
	vrf, hasVRF := lr.Options["dynamic-routing-vrf-name"]
	return routerDynamicRouting{
		On:         relations.SmapBool(lr.Options, "dynamic-routing", false),
		VRFName:    vrf,
		HasVRFName: hasVRF,
		LocalOnly:  relations.SmapBool(lr.Options, redistributeLocalOnly, false),
		NoLearning: relations.SmapBool(lr.Options, noLearning, false),
	}
}

// The router port options whose default is the router's option of the
// same name.
const (
	redistributeLocalOnly = "dynamic-routing-redistribute-local-only"
	noLearning            = "dynamic-routing-no-learning"
)

// dynamicRoutingOptions adds to a router port's binding options what
// ovn-controller's route exchange reads (sync_pb_for_lrp): on a router with
// dynamic routing, the port that is bound to a chassis (the chassisredirect
// port, or any port of a gateway router) gets dynamic-routing and its VRF
// settings, and every port whether it advertises local routes only and
// whether it learns none.
func dynamicRoutingOptions(p relations.LRP, d routerDynamicRouting, resident bool, options map[string]string) {
	if !d.On {
		return
	}
	if resident {
		options["dynamic-routing"] = "true"
		if relations.SmapBool(p.Port.Options, "dynamic-routing-maintain-vrf", false) {
			options["dynamic-routing-maintain-vrf"] = "true"
		}
		if d.HasVRFName {
			options["dynamic-routing-vrf-name"] = d.VRFName
		}
		if name, ok := p.Port.Options["dynamic-routing-port-name"]; ok {
			options["dynamic-routing-port-name"] = name
		}
	}
	if relations.SmapBool(p.Port.Options, redistributeLocalOnly, d.LocalOnly) {
		options[redistributeLocalOnly] = "true"
	}
	if relations.SmapBool(p.Port.Options, noLearning, d.NoLearning) {
		options[noLearning] = "true"
	}
}

// routerMark is one fact about a router that routerFacts gathers.
type routerMark struct {
	Router     string
	Chassis    string
	HasChassis bool
	Exists     bool
	DGP        string
	DistNAT    bool
	DistLB     bool
	Dynamic    routerDynamicRouting
}

// routerPortFacts computes one routerFacts per enabled router.
func routerPortFacts(n *relations.NB) engine.Index[string, routerFacts] {
	enabled := engine.Filter(n.Routers.Rows, func(lr *nb.LogicalRouter) bool { return lr.Enabled == nil || *lr.Enabled })
	own := engine.Map(enabled, func(lr *nb.LogicalRouter) routerMark {
		chassis, ok := lr.Options["chassis"]
		return routerMark{Router: lr.UUID, Chassis: chassis, HasChassis: ok, Exists: true, Dynamic: dynamicRoutingOf(n.Release, lr)}
	})
	dgps := engine.Map(engine.Filter(n.LRPs, relations.LRP.DGP), func(p relations.LRP) routerMark {
		return routerMark{Router: p.Router, DGP: p.Name()}
	})
	facts := engine.GroupBy(
		engine.IndexBy(engine.Union(own, dgps, distributedNATMarks(n), distributedLBMarks(n)), func(m routerMark) string { return m.Router }),
		func(router string, ms []routerMark) []routerFacts {
			f := routerFacts{Router: router}
			exists := false
			var dgpNames []string
			for _, m := range ms {
				switch {
				case m.Exists:
					exists = true
					f.Chassis, f.HasChassis, f.Dynamic = m.Chassis, m.HasChassis, m.Dynamic
				case m.DGP != "":
					dgpNames = append(dgpNames, m.DGP)
				case m.DistNAT:
					f.DistributedNAT = true
				case m.DistLB:
					f.DistributedLB = true
				}
			}
			if !exists {
				return nil
			}
			f.DGPs = len(dgpNames)
			if f.DGPs > 0 {
				f.FirstDGP = slices.Min(dgpNames)
			}
			return []routerFacts{f}
		})
	return engine.IndexBy(facts, func(f routerFacts) string { return f.Router })
}

// distributedLBMarks mark the routers with a distributed load balancer
// (lr_stateful has_distributed_lb).
func distributedLBMarks(n *relations.NB) engine.Rel[routerMark] {
	return engine.Map(n.RoutersWithDistributedLB, func(r string) routerMark { return routerMark{Router: r, DistLB: true} })
}

// distributedNATMarks mark the routers with a distributed NAT rule
// (has_distributed_nat): a dnat_and_snat rule with logical_port and
// external_mac, whose external IP 23.03 can read, or that passes every
// check of 26.03 (checksNATForRedirect).
func distributedNATMarks(n *relations.NB) engine.Rel[routerMark] {
	if checksNATForRedirect(n.Release) {
		return engine.Map(engine.Filter(n.NATRules, func(r relations.NATRule) bool { return r.DistributedConfig() }),
			func(r relations.NATRule) routerMark { return routerMark{Router: r.Router, DistNAT: true} })
	}
	refs := engine.SemiJoin(engine.IndexBy(n.Refs.RouterNATs, func(r relations.Ref) string { return r.Owner }),
		engine.IndexBy(n.RouterConfigs, func(r relations.RouterConfig) string { return r.UUID }))
	distributed := engine.Filter(n.NATs.Rows, func(nat *nb.NAT) bool {
		return nat.Type == nb.NATTypeDNATAndSNAT && nat.LogicalPort != nil && nat.ExternalMAC != nil &&
			validNATExternalIP(nat.ExternalIP)
	})
	return engine.Join(
		engine.IndexBy(refs, func(r relations.Ref) string { return r.Target }),
		engine.IndexBy(distributed, func(nat *nb.NAT) string { return nat.UUID }),
		func(_ string, r relations.Ref, _ *nb.NAT) routerMark {
			return routerMark{Router: r.Owner, DistNAT: true}
		})
}

// checksNATForRedirect: 26.03 counts a distributed NAT rule against
// always-redirect only when the rule passes every check
// (lr_nat_record_init: a readable external MAC and logical IP, a gateway
// port...); 23.03 when it reads the external IP.
func checksNATForRedirect(rel schema.Release) bool { return rel >= schema.OVN2603 }

// validNATExternalIP is whether northd reads a NAT rule's external_ip as a
// single address (init_nat_entries skips the rules it cannot read).
func validNATExternalIP(ip string) bool {
	a, err := relations.ParseIPAddresses(ip)
	return err == nil && len(a.IPv4)+len(a.IPv6) == 1
}

// routerTypeMark is one fact about a switch port of type "router".
type routerTypeMark struct {
	LSP relations.LSP
	// Peer (HasPeer) is the router port that options:router-port names,
	// with its router's facts.
	Peer    relations.LRP
	HasPeer bool
	Router  routerFacts
	// IsBase marks the port itself, IsLocalnet a switch with a localnet
	// port, Redirect a port of relations.NB.PeerRedirects.
	IsBase     bool
	IsLocalnet bool
	Redirect   bool
	// NATAddresses is a readable explicit options:nat-addresses.
	NATAddresses string
	// With options:nat-addresses=router, a NAT rule (HasNAT) or a load
	// balancer address (HasLBIP) of the router that Router names.
	NAT     relations.RouterNAT
	HasNAT  bool
	LBIP    relations.LBIP
	HasLBIP bool
}

// routerTypePortBindings: switch ports of type "router". They are patch
// ports (l3gateway ones when the peer router is a gateway router) whose
// options name the peer; their nat_addresses hold the router port's MAC and
// IPv4 addresses for gratuitous ARPs when the peer is a distributed gateway
// port (or its router's only one, with reside-on-redirect-chassis), or when
// the peer is on a gateway router and the switch has a localnet port.
// An explicit options:nat-addresses list comes first; "router" stands for
// the NAT and load balancer addresses of the peer's router (routerNATAddresses).
// A port of relations.NB.PeerRedirects has a chassisredirect port besides
// (switchRedirectBinding).
func routerTypePortBindings(n *relations.NB, routers engine.Index[string, routerFacts]) engine.Rel[PortBinding] {
	ports := n.LSPsOfType(relations.LSPTypeRouter)
	base := engine.Map(ports, func(p relations.LSP) routerTypeMark { return routerTypeMark{LSP: p, IsBase: true} })
	localnet := engine.SemiJoin(
		engine.IndexBy(ports, func(p relations.LSP) string { return p.Switch }),
		engine.IndexBy(n.SwitchesWithLocalnet, func(sw string) string { return sw }))
	localnetMarks := engine.Map(localnet, func(p relations.LSP) routerTypeMark { return routerTypeMark{LSP: p, IsLocalnet: true} })
	explicit := engine.Filter(ports, func(p relations.LSP) bool {
		v, ok := p.Port.Options["nat-addresses"]
		return ok && v != "router"
	})
	natMarks := engine.TryMap(explicit, "switch port nat-addresses", func(p relations.LSP) (routerTypeMark, error) {
		v := p.Port.Options["nat-addresses"]
		// Content after the addresses is kept, as 23.03 does.
		var addrErr *relations.AddressError
		if _, err := relations.ParseLSPAddresses(v); errors.As(err, &addrErr) && addrErr.Ignored {
			return routerTypeMark{}, fmt.Errorf("switch port %s: nat-addresses: %w", p.Port.Name, err)
		}
		return routerTypeMark{LSP: p, NATAddresses: v}, nil
	})
	peers := engine.Join(
		engine.IndexBy(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.LRP.Router }),
		routers,
		func(_ string, p relations.LRPSwitchPeer, f routerFacts) routerTypeMark {
			return routerTypeMark{LSP: relations.LSP{Switch: p.Switch, Port: p.LSP}, Peer: p.LRP, HasPeer: true, Router: f}
		})
	redirects := engine.Map(n.PeerRedirects, func(p relations.LRPSwitchPeer) routerTypeMark {
		return routerTypeMark{LSP: relations.LSP{Switch: p.Switch, Port: p.LSP}, Redirect: true}
	})
	return engine.GroupBy(
		engine.IndexBy(engine.Union(base, localnetMarks, natMarks, peers, routerModeMarks(n), redirects),
			func(m routerTypeMark) string { return m.LSP.Port.UUID }),
		func(_ string, ms []routerTypeMark) []PortBinding {
			var lsp *relations.LSP
			var peer *routerTypeMark
			var src garpSources
			localnet, redirect := false, false
			for i := range ms {
				switch m := &ms[i]; {
				case m.IsBase:
					lsp = &m.LSP
				case m.IsLocalnet:
					localnet = true
				case m.Redirect:
					redirect = true
				case m.NATAddresses != "":
					src.explicit = m.NATAddresses
				case m.HasNAT:
					src.nats = append(src.nats, m.NAT)
				case m.HasLBIP:
					src.lbIPs = append(src.lbIPs, m.LBIP)
				case m.HasPeer && (peer == nil || m.Peer.Name() < peer.Peer.Name()):
					peer = m
				}
			}
			if lsp == nil {
				return nil
			}
			pbs := []PortBinding{routerTypeBinding(n.Release, lsp, peer, localnet, src)}
			if redirect {
				pbs = append(pbs, switchRedirectBinding(lsp))
			}
			return pbs
		})
}

// switchRedirectBinding is the chassisredirect port of a switch port of
// relations.NB.PeerRedirects: the switch port's columns, options naming
// it as the distributed port, and no requested tunnel key (that is the
// switch port's).
func switchRedirectBinding(lsp *relations.LSP) PortBinding {
	cr := lspBinding(lsp.Switch, lsp.Port)
	cr.Name = chassisRedirectName(lsp.Port.Name)
	cr.Type = "chassisredirect"
	cr.Options = SmapOf(map[string]string{"distributed-port": lsp.Port.Name})
	cr.RequestedKey = 0
	return cr
}

// routerModeMarks: for the switch ports of type router with
// options:nat-addresses=router, the NAT rules and, unless
// options:exclude-lb-vips-from-garp, the load balancer addresses of the
// router their router-port names.
func routerModeMarks(n *relations.NB) engine.Rel[routerTypeMark] {
	routerMode := engine.IndexBy(engine.Filter(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) bool {
		return p.LSP.Type == relations.LSPTypeRouter && p.LSP.Options["nat-addresses"] == "router"
	}), func(p relations.LRPSwitchPeer) string { return p.LRP.Router })
	nats := engine.Join(routerMode, engine.IndexBy(n.RouterNATs, func(r relations.RouterNAT) string { return r.Router }),
		func(_ string, p relations.LRPSwitchPeer, r relations.RouterNAT) routerTypeMark {
			return routerTypeMark{LSP: relations.LSP{Switch: p.Switch, Port: p.LSP}, NAT: r, HasNAT: true}
		})
	withLBs := engine.Filter(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) bool {
		return p.LSP.Type == relations.LSPTypeRouter && p.LSP.Options["nat-addresses"] == "router" &&
			!relations.SmapBool(p.LSP.Options, "exclude-lb-vips-from-garp", false)
	})
	scopes := engine.Join(engine.IndexBy(withLBs, func(p relations.LRPSwitchPeer) string { return p.LRP.Router }),
		n.RouterLBScopesByRouter,
		func(_ string, p relations.LRPSwitchPeer, s relations.ScopeDatapath) engine.KV[string, relations.LRPSwitchPeer] {
			return engine.KV[string, relations.LRPSwitchPeer]{Key: s.Scope, Value: p}
		})
	lbIPs := engine.Join(engine.IndexBy(scopes, func(kv engine.KV[string, relations.LRPSwitchPeer]) string { return kv.Key }),
		n.ScopeLBIPs,
		func(_ string, kv engine.KV[string, relations.LRPSwitchPeer], ip relations.ScopedLBIP) routerTypeMark {
			p := kv.Value
			return routerTypeMark{LSP: relations.LSP{Switch: p.Switch, Port: p.LSP}, LBIP: ip.LBIP, HasLBIP: true}
		})
	return engine.Union(nats, lbIPs)
}

// garpSources is what a switch port of type router announces besides its
// peer's own addresses: an explicit options:nat-addresses list, or with
// nat-addresses=router its router's NAT rules and load balancer addresses.
type garpSources struct {
	explicit string
	nats     []relations.RouterNAT
	lbIPs    []relations.LBIP
}

// routerNATAddresses is northd.c get_nat_addresses of router port rp (not
// only the routable addresses): an entry per distributed NAT rule with a
// readable external MAC, and one with rp's MAC for the other rules'
// external IPv4 addresses (but rp's own) and the load balancer addresses,
// resident on rp's chassisredirect port when rp is a distributed gateway
// port. Rules that apply on another gateway port are left out. The rules
// come in _uuid order, as in the NB that 23.03 reads; the load balancer
// addresses, IPv4 then IPv6, in the order of 23.03's string sets filled in
// address order (the order it fills them in is the load balancers' hash
// order).
func routerNATAddresses(rp relations.LRP, r routerFacts, src garpSources) []string {
	nats := slices.Clone(src.nats)
	slices.SortFunc(nats, func(a, b relations.RouterNAT) int { return cmp.Compare(a.NAT.UUID, b.NAT.UUID) })
	var out []string
	central := []string{rp.Net.MAC.String()}
	for _, nat := range nats {
		if _, ok := relations.ParseIPv4Host(nat.NAT.ExternalIP); !ok ||
			!natOnGatewayPort(natOnDGP{NAT: nat, DGP: relations.DGP{LRP: rp}, DGPs: r.DGPs}) {
			continue
		}
		if r.DGPs > 0 && nat.DistributedConfig() {
			if mac, err := relations.ParseMAC(*nat.NAT.ExternalMAC); err == nil {
				out = append(out, fmt.Sprintf("%s %s is_chassis_resident(\"%s\")", mac, nat.NAT.ExternalIP, *nat.NAT.LogicalPort))
			}
			continue
		}
		if !slices.ContainsFunc(rp.Net.IPv4, func(a relations.IPv4NetAddr) bool { return a.AddrS == nat.NAT.ExternalIP }) {
			central = append(central, nat.NAT.ExternalIP)
		}
	}
	var v4, v6 []string
	for _, ip := range src.lbIPs {
		if ip.IPv6 {
			v6 = append(v6, ip.IP)
		} else {
			v4 = append(v4, ip.IP)
		}
	}
	slices.Sort(v4)
	slices.Sort(v6)
	central = append(append(central, relations.SsetOrder(v4)...), relations.SsetOrder(v6)...)
	if len(central) == 1 {
		return out
	}
	if rp.DGP() {
		central = append(central, "is_chassis_resident("+jsonKey(chassisRedirectName(rp.Name()))+")")
	}
	return append(out, strings.Join(central, " "))
}

// routerTypeBinding is the binding of a switch port of type router: a
// patch port to its peer whose nat_addresses lists the addresses the
// gateway chassis sends GARPs for, the router port's own among them unless
// the port excludes them (excludesRouterIPsFromGARP).
func routerTypeBinding(rel schema.Release, lsp *relations.LSP, peer *routerTypeMark, localnet bool, src garpSources) PortBinding {
	pb := lspBinding(lsp.Switch, lsp.Port)
	pb.Type = "patch"
	options := map[string]string{}
	if rp, ok := lsp.Port.Options["router-port"]; ok {
		options["peer"] = rp
	}
	if peer != nil && peer.Router.HasChassis {
		pb.Type = "l3gateway"
		options["l3gateway-chassis"] = peer.Router.Chassis
	}
	// ovn-controller gives the port a conntrack zone.
	if peer != nil && routerPortACLs(rel, lsp.Port, peer.Peer) {
		options["enable_router_port_acl"] = "true"
	}
	pb.Options = SmapOf(options)
	if peer == nil {
		return pb
	}
	rp, r := peer.Peer, peer.Router
	// The distributed gateway port whose chassis sends the GARPs.
	resident := ""
	if r.DGPs > 0 {
		dgp := r.FirstDGP
		if rp.DGP() {
			dgp = rp.Name()
		}
		resident = " is_chassis_resident(" + jsonKey(chassisRedirectName(dgp)) + ")"
	}
	var nats []string
	switch {
	case !r.HasChassis && r.DGPs == 0:
	case lsp.Port.Options["nat-addresses"] == "router":
		nats = routerNATAddresses(rp, r, src)
	case src.explicit != "":
		nats = append(nats, src.explicit+resident)
	}
	garp := false
	switch {
	case excludesRouterIPsFromGARP(rel) && relations.SmapBool(lsp.Port.Options, "exclude-router-ips-from-garp", false):
	case r.DGPs > 0:
		garp = rp.DGP() || relations.SmapBool(rp.Port.Options, "reside-on-redirect-chassis", false) && r.DGPs == 1
	case r.HasChassis && localnet:
		garp = true
	}
	if garp {
		parts := []string{rp.Net.MAC.String()}
		for _, a := range rp.Net.IPv4 {
			parts = append(parts, a.Addr.String())
		}
		nats = append(nats, strings.Join(parts, " ")+resident)
	}
	pb.NATAddresses = StringsOf(nats...)
	return pb
}

// excludesRouterIPsFromGARP: 26.03 reads a router-type switch port's
// options:exclude-router-ips-from-garp (should_add_router_port_garp).
func excludesRouterIPsFromGARP(rel schema.Release) bool { return rel >= schema.OVN2603 }

// chassisRedirectName is the name of a distributed gateway port's
// chassisredirect port (ovn_chassis_redirect_name).
func chassisRedirectName(port string) string { return "cr-" + port }

// lrpMark is one fact about a router port.
type lrpMark struct {
	LRP    relations.LRP
	Router routerFacts
	IsBase bool
	// Peer is the name of a peer: a switch port (PeerRank 0) or, through
	// the peer column, a router port (PeerRank 1).
	Peer     string
	PeerRank int
	// VTEPPeer: the switch the port connects to has a vtep port.
	VTEPPeer bool
	// RemoteChassis is the remote chassis of a transit router's port.
	RemoteChassis string
}

// routerPortBindings: router ports, patch ports (l3gateway ones on a
// gateway router, remote ones bound to their remote chassis on a transit
// router) naming their peer, and the chassisredirect port of each
// distributed gateway port. A port connected both to a switch port and,
// through its peer column, to a router port names the switch port.
func routerPortBindings(n *relations.NB, routers engine.Index[string, routerFacts]) engine.Rel[PortBinding] {
	base := engine.Join(
		engine.IndexBy(n.LRPs, func(p relations.LRP) string { return p.Router }),
		routers,
		func(_ string, p relations.LRP, f routerFacts) lrpMark {
			return lrpMark{LRP: p, Router: f, IsBase: true}
		})
	swPeers := engine.Map(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) lrpMark {
		return lrpMark{LRP: p.LRP, Peer: p.LSP.Name}
	})
	rtPeers := engine.Map(n.LRPRouterPeers, func(p relations.LRPRouterPeer) lrpMark {
		return lrpMark{LRP: p.LRP, Peer: p.Peer.Name(), PeerRank: 1}
	})
	vtepSwitches := switchesOfType(n, relations.LSPTypeVTEP)
	vtep := engine.Map(engine.SemiJoin(
		engine.IndexBy(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.Switch }),
		engine.IndexBy(vtepSwitches, func(sw string) string { return sw })),
		func(p relations.LRPSwitchPeer) lrpMark { return lrpMark{LRP: p.LRP, VTEPPeer: true} })
	transit := engine.Map(n.TransitPorts, func(p relations.TransitPort) lrpMark {
		return lrpMark{LRP: p.LRP, RemoteChassis: p.Chassis}
	})
	return engine.GroupBy(
		engine.IndexBy(engine.Union(base, swPeers, rtPeers, vtep, transit), func(m lrpMark) string { return m.LRP.Port.UUID }),
		func(_ string, ms []lrpMark) []PortBinding {
			var b *lrpMark
			peer, peerRank, vtepPeer, remote := "", 2, false, ""
			for i := range ms {
				switch m := &ms[i]; {
				case m.IsBase:
					b = m
				case m.VTEPPeer:
					vtepPeer = true
				case m.RemoteChassis != "":
					remote = m.RemoteChassis
				case m.PeerRank < peerRank || m.PeerRank == peerRank && m.Peer < peer:
					peer, peerRank = m.Peer, m.PeerRank
				}
			}
			if b == nil {
				return nil
			}
			pbs := lrpBindings(n.Release, b.LRP, b.Router, peer, vtepPeer)
			if remote != "" {
				pbs[0].Type, pbs[0].RemoteChassis = "remote", remote
			}
			return pbs
		})
}

// switchesOfType computes the switches with a port of type t.
func switchesOfType(n *relations.NB, t string) engine.Rel[string] {
	return engine.Distinct(engine.Map(n.LSPsOfType(t), func(p relations.LSP) string { return p.Switch }))
}

// lrpBindings is a router port's binding and, for a distributed gateway
// port, its chassisredirect port's.
func lrpBindings(rel schema.Release, p relations.LRP, r routerFacts, peer string, vtepPeer bool) []PortBinding {
	pb := PortBinding{
		Name:         p.Name(),
		Datapath:     p.Router,
		Type:         "patch",
		MAC:          StringsOf(lrpMACColumn(rel, p)),
		ExternalIDs:  SmapOf(p.Port.ExternalIDs),
		RequestedKey: requestedKey(p.Port.Options, MaxPortKey),
	}
	options := map[string]string{}
	if peer != "" {
		options["peer"] = peer
		gateway := p.Port.HaChassisGroup != nil || len(p.Port.GatewayChassis) > 0
		if gateway && (p.DGP() || !redirectOptionNeedsPort(rel)) {
			options["chassis-redirect-port"] = chassisRedirectName(p.Name())
		}
	}
	if r.HasChassis {
		pb.Type = "l3gateway"
		options["l3gateway-chassis"] = r.Chassis
	}
	dynamicRoutingOptions(p, r.Dynamic, r.HasChassis, options)
	if peer != "" && p.Port.Peer == nil {
		ipv6Options(rel, p, options)
	}
	pb.Options = SmapOf(options)
	if !p.DGP() {
		return []PortBinding{pb}
	}
	cr := pb
	cr.Name = chassisRedirectName(p.Name())
	cr.Type = "chassisredirect"
	cr.RequestedKey = 0
	crOptions := map[string]string{"distributed-port": p.Name()}
	alwaysRedirect := !r.DistributedNAT && !r.DistributedLB && !vtepPeer
	if rt, ok := p.Port.Options["redirect-type"]; ok {
		crOptions["redirect-type"] = rt
		if rt == "bridged" {
			alwaysRedirect = false
		}
	}
	if alwaysRedirect {
		crOptions["always-redirect"] = "true"
	}
	dynamicRoutingOptions(p, r.Dynamic, true, crOptions)
	cr.Options = SmapOf(crOptions)
	return []PortBinding{pb, cr}
}

// raPrefixesFromNB: 26.03's periodic router advertisements announce,
// after the port's own networks, the prefixes of its NB ipv6_prefix (the
// delegated ones northd copied there); 23.03's the SB binding's
// ipv6_ra_pd_list as ovn-controller wrote it, which the SB writer appends.
func raPrefixesFromNB(rel schema.Release) bool { return rel >= schema.OVN2603 }

// redirectOptionNeedsPort: 26.03 names a router port's
// chassis-redirect-port only when the port has one, as a distributed
// gateway port; 23.03 for any port with gateway chassis, on a gateway
// router too.
func redirectOptionNeedsPort(rel schema.Release) bool { return rel >= schema.OVN2603 }

// lrpMACColumn is a router port binding's mac column: 23.03's NB mac and
// networks as written; 26.03's the addresses it read
// (lrp_network_to_string): the MAC as it prints it, then each readable
// network, IPv4 before IPv6, without the link-local address it derives
// from the MAC.
func lrpMACColumn(rel schema.Release, p relations.LRP) string {
	if rel < schema.OVN2603 {
		return strings.Join(append([]string{p.Port.MAC}, p.Port.Networks...), " ")
	}
	parts := []string{p.Net.MAC.String()}
	for _, a := range p.Net.IPv4 {
		parts = append(parts, a.AddrS+"/"+strconv.Itoa(a.Plen))
	}
	for i, a := range p.Net.IPv6 {
		if i == len(p.Net.IPv6)-1 {
			break // the link-local address, always last
		}
		parts = append(parts, a.AddrS+"/"+strconv.Itoa(a.Plen))
	}
	return strings.Join(parts, " ")
}

// Router advertisement intervals (RFC 4861 6.2.1), in seconds, as 23.03
// bounds ipv6_ra_configs' max_interval and min_interval.
const (
	raMaxIntervalDefault = 600
	raMaxIntervalLow     = 4
	raMaxIntervalHigh    = 1800
	raMinIntervalLow     = 3
)

// ipv6Options adds to a router port's options what ovn-controller needs
// for prefix delegation and periodic router advertisements, for a port
// connected to a switch (northd.c ovn_update_ipv6_options, copy_ra_to_sb).
// A disabled port asks for no prefix. An unknown address_mode is logged by
// RouterPortNDRAFlows; here it only sends no advertisement.
func ipv6Options(rel schema.Release, p relations.LRP, options map[string]string) {
	enabled := p.Enabled()
	if enabled && relations.SmapBool(p.Port.Options, "prefix_delegation", false) {
		options["ipv6_prefix_delegation"] = "true"
	}
	if enabled && relations.SmapBool(p.Port.Options, "prefix", false) {
		options["ipv6_prefix"] = "true"
	}
	ra := p.Port.Ipv6RaConfigs
	mode := ra["address_mode"]
	if mode != "slaac" && mode != "dhcpv6_stateful" && mode != "dhcpv6_stateless" || !relations.SmapBool(ra, "send_periodic", false) {
		return
	}
	options["ipv6_ra_send_periodic"] = "true"
	options["ipv6_ra_address_mode"] = mode
	maxInterval := min(max(relations.SmapInt(ra, "max_interval", raMaxIntervalDefault), raMaxIntervalLow), raMaxIntervalHigh)
	options["ipv6_ra_max_interval"] = strconv.Itoa(maxInterval)
	minDefault := maxInterval * 3 / 4
	if maxInterval >= 9 {
		minDefault = maxInterval / 3
	}
	minInterval := max(min(relations.SmapInt(ra, "min_interval", minDefault), maxInterval*3/4), raMinIntervalLow)
	options["ipv6_ra_min_interval"] = strconv.Itoa(minInterval)
	// RFC 2460: 1280 is the smallest IPv6 MTU.
	if mtu := relations.SmapInt(ra, "mtu", 0); mtu >= 1280 {
		options["ipv6_ra_mtu"] = strconv.Itoa(mtu)
	}
	var prefixes []string
	for _, a := range p.Net.IPv6 {
		if isLinkLocal(a.Network) {
			// 23.03 adds one key per link-local network; the SB keeps the
			// first, a network's before the one derived from the MAC.
			if _, ok := options["ipv6_ra_src_addr"]; !ok {
				options["ipv6_ra_src_addr"] = a.AddrS
			}
			continue
		}
		prefixes = append(prefixes, a.NetworkS+"/"+strconv.Itoa(a.Plen))
	}
	if raPrefixesFromNB(rel) {
		prefixes = append(prefixes, slices.Sorted(slices.Values(p.Port.Ipv6Prefix))...)
	}
	options["ipv6_ra_prefixes"] = strings.Join(prefixes, " ")
	for _, k := range []string{"rdnss", "dnssl", "route_info"} {
		if v, ok := ra[k]; ok {
			options["ipv6_ra_"+k] = v
		}
	}
	options["ipv6_ra_src_eth"] = p.Net.MAC.String()
	switch prf := ra["router_preference"]; prf {
	case "HIGH", "LOW":
		options["ipv6_ra_prf"] = prf
	default:
		options["ipv6_ra_prf"] = "MEDIUM"
	}
}
