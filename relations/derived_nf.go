package relations

import (
	"cmp"
	"net/netip"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
)

// NetworkFunction is an NB Network_Function as its flows and health check
// read it: its id, the names of its two ports (packets go in through
// Inport and come back out of Outport), and whether it has a health check.
type NetworkFunction struct {
	UUID            string
	ID              int
	Inport, Outport string
	HealthCheck     string // NB _uuid of its Network_Function_Health_Check, "" without
}

// Set reports whether f is a network function rather than none.
func (f NetworkFunction) Set() bool { return f.UUID != "" }

// NetworkFunctionGroup is an NB Network_Function_Group with the network
// function northd makes active (northd.c network_function_update_active):
// the one already active if it is still healthy, else the first healthy
// one in _uuid order (the order of the IDL's set); none when no function is
// healthy, and then traffic the group should see is dropped, or goes on
// without it when the group's fallback is fail-open.
type NetworkFunctionGroup struct {
	UUID     string
	ID       int
	FailOpen bool
	Active   NetworkFunction
}

// NFMonitorAddresses are NB_Global options svc_monitor_ip and
// svc_monitor_ip_dst (en-global-config.c), the source and destination of
// network functions' health checks; "" without.
type NFMonitorAddresses struct{ Src, Dst string }

// DeriveNFMonitorAddresses reads the NB_Global row's; an address that is
// not one is none (update_svc_monitor_addr).
func DeriveNFMonitorAddresses(n *NB) engine.Rel[NFMonitorAddresses] {
	address := func(s string) string {
		if a, err := netip.ParseAddr(s); err != nil || a.Zone() != "" {
			return ""
		}
		return s
	}
	return engine.Map(n.Global.Rows, func(g *nb.NBGlobal) NFMonitorAddresses {
		return NFMonitorAddresses{Src: address(g.Options["svc_monitor_ip"]), Dst: address(g.Options["svc_monitor_ip_dst"])}
	})
}

// deriveNetworkFunctions resolves each Network_Function's ports to their
// names.
func deriveNetworkFunctions(n *NB) engine.Rel[NetworkFunction] {
	ports := n.SwitchPorts.ByUUID()
	type half struct {
		NF     *nb.NetworkFunction
		Inport string
	}
	withIn := engine.Join(
		engine.IndexBy(n.NetworkFunctionRows.Rows, func(f *nb.NetworkFunction) string { return f.Inport }),
		ports,
		func(_ string, f *nb.NetworkFunction, p *nb.LogicalSwitchPort) half { return half{f, p.Name} })
	return engine.Join(
		engine.IndexBy(withIn, func(h half) string { return h.NF.Outport }),
		ports,
		func(_ string, h half, p *nb.LogicalSwitchPort) NetworkFunction {
			f := NetworkFunction{UUID: h.NF.UUID, ID: h.NF.ID, Inport: h.Inport, Outport: p.Name}
			if h.NF.HealthCheck != nil {
				f.HealthCheck = *h.NF.HealthCheck
			}
			return f
		})
}

// NFMonitorKey is the key of the Service_Monitor of a network function
// with a health check (ovn_nf_svc_create): ICMP probes of
// svc_monitor_ip_dst through its outport.
func NFMonitorKey(ipDst string, f NetworkFunction) ServiceMonitorKey {
	return ServiceMonitorKey{IP: ipDst, LogicalPort: f.Outport, Protocol: "icmp"}
}

// healthyNetworkFunctions are the network functions with no health check,
// and those whose Service_Monitor is online (MonitorsOnline).
func healthyNetworkFunctions(n *NB, nfs engine.Rel[NetworkFunction]) engine.Rel[NetworkFunction] {
	one := func(NFMonitorAddresses) struct{} { return struct{}{} }
	type monitored struct {
		NF  NetworkFunction
		Key ServiceMonitorKey
	}
	checked := engine.Join(
		engine.IndexBy(engine.Filter(nfs, func(f NetworkFunction) bool { return f.HealthCheck != "" }),
			func(NetworkFunction) struct{} { return struct{}{} }),
		engine.IndexBy(engine.Filter(DeriveNFMonitorAddresses(n), func(a NFMonitorAddresses) bool { return a.Dst != "" }), one),
		func(_ struct{}, f NetworkFunction, a NFMonitorAddresses) monitored {
			return monitored{f, NFMonitorKey(a.Dst, f)}
		})
	online := engine.SemiJoin(
		engine.IndexBy(checked, func(m monitored) ServiceMonitorKey { return m.Key }),
		engine.IndexBy(n.MonitorsOnline, func(k ServiceMonitorKey) ServiceMonitorKey { return k }))
	return engine.Union(
		engine.Filter(nfs, func(f NetworkFunction) bool { return f.HealthCheck == "" }),
		engine.Map(online, func(m monitored) NetworkFunction { return m.NF }))
}

// nfgMember is a healthy network function of a group, or none (NF unset)
// to say that the group exists.
type nfgMember struct {
	Group *nb.NetworkFunctionGroup
	NF    NetworkFunction
}

// deriveNetworkFunctionGroups chooses each group's active network function.
func deriveNetworkFunctionGroups(n *NB) engine.Rel[NetworkFunctionGroup] {
	listed := engine.FlatMap(n.NetworkFunctionGroupRows.Rows, func(g *nb.NetworkFunctionGroup) []nfgMember {
		out := make([]nfgMember, len(g.NetworkFunction))
		for i, f := range g.NetworkFunction {
			out[i] = nfgMember{Group: g, NF: NetworkFunction{UUID: f}}
		}
		return out
	})
	healthy := engine.Join(
		engine.IndexBy(listed, func(m nfgMember) string { return m.NF.UUID }),
		engine.IndexBy(healthyNetworkFunctions(n, n.NetworkFunctions), func(f NetworkFunction) string { return f.UUID }),
		func(_ string, m nfgMember, f NetworkFunction) nfgMember {
			m.NF = f
			return m
		})
	exists := engine.Map(n.NetworkFunctionGroupRows.Rows, func(g *nb.NetworkFunctionGroup) nfgMember { return nfgMember{Group: g} })
	return engine.GroupBy(
		engine.IndexBy(engine.Union(exists, healthy), func(m nfgMember) *nb.NetworkFunctionGroup { return m.Group }),
		func(g *nb.NetworkFunctionGroup, ms []nfgMember) []NetworkFunctionGroup {
			group := NetworkFunctionGroup{
				UUID:     g.UUID,
				ID:       g.ID,
				FailOpen: g.Fallback != nil && strings.EqualFold(*g.Fallback, nb.NetworkFunctionGroupFallbackFailOpen),
			}
			for _, m := range ms {
				switch {
				case !m.NF.Set():
				case g.NetworkFunctionActive != nil && m.NF.UUID == *g.NetworkFunctionActive:
					// The active function stays while it is healthy.
					group.Active = m.NF
					return []NetworkFunctionGroup{group}
				case !group.Active.Set() || cmp.Less(m.NF.UUID, group.Active.UUID):
					group.Active = m.NF
				}
			}
			return []NetworkFunctionGroup{group}
		})
}

// NetworkFunctionACL is an ACL that sends the connections it allows
// through a network function group, with the group's id.
type NetworkFunctionACL struct {
	ACL     string // NB _uuid
	GroupID int
}

// deriveNetworkFunctionACLs gives each ACL with a network_function_group
// the group's id.
func deriveNetworkFunctionACLs(n *NB) engine.Rel[NetworkFunctionACL] {
	return engine.Join(
		engine.IndexBy(engine.Filter(n.ACLs.Rows, func(a *nb.ACL) bool { return a.NetworkFunctionGroup != nil }),
			func(a *nb.ACL) string { return *a.NetworkFunctionGroup }),
		n.NetworkFunctionGroupRows.ByUUID(),
		func(_ string, a *nb.ACL, g *nb.NetworkFunctionGroup) NetworkFunctionACL {
			return NetworkFunctionACL{ACL: a.UUID, GroupID: g.ID}
		})
}
