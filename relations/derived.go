package relations

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// Switch is a logical switch datapath: the switch-level settings rules read,
// as a value, so an update to columns no rule reads (ports, acls, ...)
// changes nothing downstream.
type Switch struct {
	UUID string
	Name string
	// VLANPassthru is other_config:vlan-passthru=true: logical VLANs are
	// forwarded instead of dropped.
	VLANPassthru bool
	// EVPN: the switch extends an EVPN domain (HasEVPNVNI); its unknown
	// destinations are also looked up among the remote VTEPs' MACs.
	EVPN bool
	// EVPNFDBPreferLocal is other_config:dynamic-routing-fdb-prefer-local
	// =true: a MAC in the SB FDB wins over a remote VTEP's.
	EVPNFDBPreferLocal bool
	// StatelessACLWithLB is other_config:enable-stateless-acl-with-lb=true
	// (od->lb_with_stateless_mode): traffic that stateless ACLs allow
	// still reaches the switch's own load balancers through conntrack.
	StatelessACLWithLB bool
}

// Router is a logical router datapath, as a value (see Switch).
type Router struct {
	UUID string
	Name string
}

// SwitchPort is a logical switch port with the switch that lists it in
// Logical_Switch.ports.
type SwitchPort struct {
	Switch string // NB _uuid of the switch
	Port   *nb.LogicalSwitchPort
}

// RouterPort is a logical router port with the router that lists it in
// Logical_Router.ports.
type RouterPort struct {
	Router string // NB _uuid of the router
	Port   *nb.LogicalRouterPort
}

// ReadsStatelessACLWithLB: 26.03 reads a switch's
// other_config:enable-stateless-acl-with-lb; 23.03 has no such key.
func ReadsStatelessACLWithLB(r schema.Release) bool { return r >= schema.OVN2603 }

func deriveSwitches(n *NB) engine.Rel[Switch] {
	return engine.Map(n.Switches.Rows, func(ls *nb.LogicalSwitch) Switch {
		return Switch{
			UUID:               ls.UUID,
			Name:               ls.Name,
			VLANPassthru:       SmapBool(ls.OtherConfig, "vlan-passthru", false),
			EVPN:               HasEVPNVNI(n.Release, ls.OtherConfig),
			EVPNFDBPreferLocal: SmapBool(ls.OtherConfig, "dynamic-routing-fdb-prefer-local", false),
			StatelessACLWithLB: ReadsStatelessACLWithLB(n.Release) && SmapBool(ls.OtherConfig, "enable-stateless-acl-with-lb", false),
		}
	})
}

func deriveRouters(n *NB) engine.Rel[Router] {
	return engine.Map(n.Routers.Rows, func(lr *nb.LogicalRouter) Router {
		return Router{UUID: lr.UUID, Name: lr.Name}
	})
}

func deriveSwitchPorts(n *NB) engine.Rel[SwitchPort] {
	return Listed(n.Refs.SwitchPorts, n.SwitchPorts, func(sw string, p *nb.LogicalSwitchPort) SwitchPort {
		return SwitchPort{Switch: sw, Port: p}
	})
}

func deriveRouterPorts(n *NB) engine.Rel[RouterPort] {
	return Listed(n.Refs.RouterPorts, n.RouterPorts, func(lr string, p *nb.LogicalRouterPort) RouterPort {
		return RouterPort{Router: lr, Port: p}
	})
}
