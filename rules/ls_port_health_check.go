package rules

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
)

// portHealthCheck is a switch port's health check (26.03's
// Logical_Switch_Port_Health_Check, in the port's health_checks) whose
// address is still one of the port's.
type portHealthCheck struct {
	Port  relations.LSP
	Check *nb.LogicalSwitchPortHealthCheck
}

// portHealthChecks are the health checks of switch ports whose address is
// among the port's addresses (lport_addresses_contains_ip); northd skips
// the others, and deletes their monitors.
func portHealthChecks(n *relations.NB) engine.Rel[portHealthCheck] {
	type ref struct {
		Port  relations.LSP
		Check string
	}
	refs := engine.FlatMap(n.LSPs, func(p relations.LSP) []ref {
		out := make([]ref, len(p.Port.HealthChecks))
		for i, hc := range p.Port.HealthChecks {
			out[i] = ref{p, hc}
		}
		return out
	})
	return engine.Filter(engine.Join(
		engine.IndexBy(refs, func(r ref) string { return r.Check }),
		engine.IndexBy(n.SwitchPortChecks.Rows, func(hc *nb.LogicalSwitchPortHealthCheck) string { return hc.UUID }),
		func(_ string, r ref, hc *nb.LogicalSwitchPortHealthCheck) portHealthCheck {
			return portHealthCheck{r.Port, hc}
		}),
		func(c portHealthCheck) bool { return portHasIP(c.Port.Addrs, c.Check.Address) })
}

// portHasIP reports whether ip, as written, is one of the IPv4 or IPv6
// addresses of a switch port's addresses.
func portHasIP(a *relations.LSPAddresses, ip string) bool {
	addr, err := netip.ParseAddr(ip)
	if err != nil || a == nil {
		return false
	}
	return slices.ContainsFunc(a.Static, func(l relations.LPortAddresses) bool {
		return slices.ContainsFunc(l.IPv4, func(v relations.IPv4NetAddr) bool { return v.Addr == addr }) ||
			slices.ContainsFunc(l.IPv6, func(v relations.IPv6NetAddr) bool { return v.Addr == addr })
	})
}

// SwitchPortHealthCheckFlows: ls_in_arp_rsp priority 110 (northd.c
// build_arp_nd_lflow_for_lsp_svc_hc, 26.03): on the switch of a port with
// a health check, ARP requests or neighbour solicitations for the check's
// source address are answered with svc_monitor_mac, whether the port is
// enabled or not.
func SwitchPortHealthCheckFlows(n *relations.NB) engine.Rel[Flow] {
	return engine.Join(
		engine.IndexBy(portHealthChecks(n), func(portHealthCheck) struct{} { return struct{}{} }),
		engine.IndexBy(engine.Filter(n.LBGlobal, func(o relations.LBGlobalOptions) bool { return o.SvcMonitorMAC != "" }),
			func(relations.LBGlobalOptions) struct{} { return struct{}{} }),
		func(_ struct{}, c portHealthCheck, o relations.LBGlobalOptions) Flow {
			return monitorSourceResponse(on(c.Port.Switch).from(c.Port.Port.UUID), o.SvcMonitorMAC, c.Check.SrcIP,
				strings.Contains(c.Check.SrcIP, "."))
		})
}

// SBSwitchPortMonitors are the switch ports' Service_Monitor rows (northd.c
// ovn_lsp_svc_monitors_process_port, 26.03): one per health check of an
// enabled port, probed from svc_monitor_mac and the check's source
// address. Checks of one port that share address, port and protocol make
// one row, the greatest.
func SBSwitchPortMonitors(n *relations.NB) engine.Rel[SBServiceMonitor] {
	enabled := engine.Filter(portHealthChecks(n), func(c portHealthCheck) bool { return c.Port.Enabled() })
	rows := engine.Join(
		engine.IndexBy(enabled, func(portHealthCheck) struct{} { return struct{}{} }),
		engine.IndexBy(n.LBGlobal, func(relations.LBGlobalOptions) struct{} { return struct{}{} }),
		func(_ struct{}, c portHealthCheck, o relations.LBGlobalOptions) SBServiceMonitor {
			hc := c.Check
			return SBServiceMonitor{IP: hc.Address, Port: hc.Port, LogicalPort: c.Port.Name(), Protocol: hc.Protocol,
				Options: SmapOf(hc.Options), SrcMAC: o.SvcMonitorMAC, SrcIP: hc.SrcIP, Type: sb.ServiceMonitorTypeLogicalSwitchPort}
		})
	return engine.Map(engine.Max(engine.IndexBy(rows, func(m SBServiceMonitor) relations.ServiceMonitorKey {
		return relations.ServiceMonitorKey{IP: m.IP, Port: m.Port, LogicalPort: m.LogicalPort, Protocol: m.Protocol}
	}), CompareSBServiceMonitors), func(kv engine.KV[relations.ServiceMonitorKey, SBServiceMonitor]) SBServiceMonitor {
		return kv.Value
	})
}
