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

// switchPortIP is one IP address of a switch port (NB _uuid).
type switchPortIP struct {
	Port string
	IP   netip.Addr
}

// portHealthChecks are the health checks of switch ports whose address is
// among ips, the port's addresses (lport_addresses_contains_ip over
// op->lsp_addrs); northd skips the others, and deletes their monitors.
func portHealthChecks(n *relations.NB, ips engine.Rel[switchPortIP]) engine.Rel[portHealthCheck] {
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
	checks := engine.Join(
		engine.IndexBy(refs, func(r ref) string { return r.Check }),
		n.SwitchPortChecks.ByUUID(),
		func(_ string, r ref, hc *nb.LogicalSwitchPortHealthCheck) portHealthCheck {
			return portHealthCheck{r.Port, hc}
		})
	return engine.SemiJoin(
		engine.IndexBy(checks, func(c portHealthCheck) switchPortIP {
			ip, _ := netip.ParseAddr(c.Check.Address)
			return switchPortIP{c.Port.Port.UUID, ip}
		}),
		engine.IndexBy(ips, func(a switchPortIP) switchPortIP { return a }))
}

// checkedPortIPs are the IP addresses of the switch ports that have health
// checks: those of their address entries, of the router port a "router"
// entry stands for and, with dynamic, of their dynamic addresses. northd
// builds the monitors before IPAM adds the dynamic addresses to
// op->lsp_addrs (ovnnb_db_run), the flows after.
func checkedPortIPs(n *relations.NB, dynamic bool) engine.Rel[switchPortIP] {
	checked := func(p relations.LSP) bool { return len(p.Port.HealthChecks) > 0 }
	entries := staticLSPEntries(n.LSPs, checked)
	if dynamic {
		entries = lspEntries(n, n.LSPs, checked)
	}
	ips := engine.FlatMap(entries, func(e lspEntry) []switchPortIP { return switchPortIPsOf(e.Port.Port.UUID, e.Addrs) })
	routers := engine.FlatMap(n.LRPSwitchPeers, func(p relations.LRPSwitchPeer) []switchPortIP {
		if len(p.LSP.HealthChecks) == 0 || !slices.Contains(p.LSP.Addresses, "router") {
			return nil
		}
		return switchPortIPsOf(p.LSP.UUID, p.LRP.Net)
	})
	return engine.Distinct(engine.Union(ips, routers))
}

// switchPortIPsOf are the IPv4 and IPv6 addresses of one address entry of port.
func switchPortIPsOf(port string, a *relations.LPortAddresses) []switchPortIP {
	out := make([]switchPortIP, 0, len(a.IPv4)+len(a.IPv6))
	for _, v := range a.IPv4 {
		out = append(out, switchPortIP{port, v.Addr})
	}
	for _, v := range a.IPv6 {
		out = append(out, switchPortIP{port, v.Addr})
	}
	return out
}

// SwitchPortHealthCheckFlows: ls_in_arp_rsp priority 110 (northd.c
// build_arp_nd_lflow_for_lsp_svc_hc, 26.03): on the switch of a port with
// a health check, ARP requests or neighbour solicitations for the check's
// source address are answered with svc_monitor_mac, whether the port is
// enabled or not.
func SwitchPortHealthCheckFlows(n *relations.NB) engine.Rel[Flow] {
	return engine.Join(
		engine.IndexBy(portHealthChecks(n, checkedPortIPs(n, true)), func(portHealthCheck) struct{} { return struct{}{} }),
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
	enabled := engine.Filter(portHealthChecks(n, checkedPortIPs(n, false)), func(c portHealthCheck) bool { return c.Port.Enabled() })
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
