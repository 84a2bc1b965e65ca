package rules

import (
	"cmp"
	"maps"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
)

// SBLoadBalancer is one SB Load_Balancer row as ovn-northd writes it
// (23.03: northd.c sync_lbs; 26.03: en-sync-sb.c sync_sb_lb_record): one
// per NB load balancer that applies to at least one switch (26.03: or
// router), for ovn-controller's hairpin and conntrack flush flows.
type SBLoadBalancer struct {
	// LB is the NB _uuid: 23.03's external_ids:lb_id, 26.03's row UUID.
	LB   string
	Name string
	// VIPs is the NB vips column as written (relations.SBVIPs).
	VIPs Smap
	// Protocol is the NB protocol column, "" when unset.
	Protocol string
	// Options are the NB options, with 23.03's hairpin_orig_tuple
	// (marksHairpinOrigTuple).
	Options Smap
	// Switches are the NB _uuids of the switches the load balancer applies
	// to: the members of its datapath_group (26.03: ls_datapath_group; the
	// datapaths column stays empty).
	Switches Strings
	// Routers are the NB _uuids of the routers it applies to, 26.03's
	// lr_datapath_group (rowsNameRouters); none in 23.03.
	Routers Strings
}

// CompareSBLoadBalancers orders load balancers by NB _uuid, then contents.
func CompareSBLoadBalancers(a, b SBLoadBalancer) int {
	return cmp.Or(cmp.Compare(a.LB, b.LB), cmp.Compare(a.Name, b.Name), cmp.Compare(a.VIPs, b.VIPs),
		cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.Options, b.Options), cmp.Compare(a.Switches, b.Switches),
		cmp.Compare(a.Routers, b.Routers))
}

// marksHairpinOrigTuple: 23.03 adds options:hairpin_orig_tuple=true, as
// northd keeps the original destination in registers for the hairpin
// stages; 26.03 copies the NB options as they are.
func marksHairpinOrigTuple(rel schema.Release) bool { return rel < schema.OVN2603 }

// lbRowsNameRouters: from 26.03 a load balancer's row also names its
// routers (lr_datapath_group), and one on routers only has a row.
func lbRowsNameRouters(rel schema.Release) bool { return rel >= schema.OVN2603 }

// lbDatapaths are datapaths (NB _uuids) that a load balancer applies to,
// those of its switches' or its routers' scopes.
type lbDatapaths struct {
	LB        string
	OnRouters bool
	IDs       Strings
}

// lbDatapathsOf are, for each load balancer, the datapaths of the scopes
// in scopes that hold it, each scope's datapaths listed once.
func lbDatapathsOf(n *relations.NB, scopes engine.Rel[relations.ScopeDatapath], onRouters bool) engine.Rel[lbDatapaths] {
	byScope := engine.GroupBy(engine.IndexBy(scopes, func(s relations.ScopeDatapath) string { return s.Scope }),
		func(scope string, ss []relations.ScopeDatapath) []engine.KV[string, Strings] {
			ids := make([]string, len(ss))
			for i, s := range ss {
				ids[i] = s.Datapath
			}
			return []engine.KV[string, Strings]{{Key: scope, Value: StringsOf(ids...)}}
		})
	ofLB := engine.Join(n.LBScopesByScope, engine.IndexBy(byScope, func(kv engine.KV[string, Strings]) string { return kv.Key }),
		func(_ string, s relations.LBScope, dps engine.KV[string, Strings]) lbDatapaths {
			return lbDatapaths{s.LB, onRouters, dps.Value}
		})
	return engine.GroupBy(engine.IndexBy(ofLB, func(d lbDatapaths) string { return d.LB }),
		func(lb string, ds []lbDatapaths) []lbDatapaths {
			if len(ds) == 1 {
				return ds
			}
			var ids []string
			for _, d := range ds {
				ids = append(ids, d.IDs.Slice()...)
			}
			return []lbDatapaths{{lb, onRouters, StringsOf(ids...)}}
		})
}

// SBLoadBalancers computes the SB Load_Balancer rows.
func SBLoadBalancers(n *relations.NB) engine.Rel[SBLoadBalancer] {
	dps := lbDatapathsOf(n, n.SwitchLBScopes, false)
	if lbRowsNameRouters(n.Release) {
		dps = engine.Union(dps, lbDatapathsOf(n, n.RouterLBScopes, true))
	}
	rows := engine.GroupBy(engine.IndexBy(dps, func(d lbDatapaths) string { return d.LB }),
		func(lb string, ds []lbDatapaths) []SBLoadBalancer {
			row := SBLoadBalancer{LB: lb}
			for _, d := range ds {
				if d.OnRouters {
					row.Routers = d.IDs
				} else {
					row.Switches = d.IDs
				}
			}
			return []SBLoadBalancer{row}
		})
	hairpin := marksHairpinOrigTuple(n.Release)
	return engine.Join(
		n.LoadBalancers.ByUUID(),
		engine.IndexBy(rows, func(r SBLoadBalancer) string { return r.LB }),
		func(_ string, lb *nb.LoadBalancer, row SBLoadBalancer) SBLoadBalancer {
			options := lb.Options
			if hairpin {
				options = maps.Clone(lb.Options)
				if options == nil {
					options = map[string]string{}
				}
				options["hairpin_orig_tuple"] = "true"
			}
			if lb.Protocol != nil {
				row.Protocol = string(*lb.Protocol)
			}
			row.Name, row.VIPs, row.Options = lb.Name, SmapOf(relations.SBVIPs(n.Release, lb)), SmapOf(options)
			return row
		})
}

// SBServiceMonitor is one SB Service_Monitor row as ovn-northd 23.03 writes
// it (northd.c ovn_lb_svc_create): one per health-checked backend that
// ovn-controller can probe, that is whose ip_port_mappings entry names an
// enabled switch port and a readable source address. Its status column
// belongs to ovn-controller.
type SBServiceMonitor struct {
	IP          string // the backend address
	Port        int    // the backend port, 0 without one
	LogicalPort string // the port the probes go through
	// Protocol is the load balancer's protocol column, "tcp" when unset
	// (SCTP load balancers have no health checks).
	Protocol string
	// Options are the options of the VIP's Load_Balancer_Health_Check.
	Options Smap
	// SrcMAC is NB_Global options:svc_monitor_mac, or in 26.03 the router
	// port's MAC when SrcIP, the mapping's source address, is its
	// (relations.LBMonitorLRP).
	SrcMAC, SrcIP string
	// Type is what the monitor is for, from 26.03 (monitorsHaveType): a
	// load balancer's, a network function's or a switch port's.
	Type string
	// LogicalInputPort and MAC are a network function's monitor's
	// (SBNetworkFunctionMonitors); "" for the others.
	LogicalInputPort, MAC string
	// Remote is a 26.03 load balancer backend's in another availability
	// zone (relations.LBBackend.Remote), whose options name the zone
	// (az-name) for ovn-ic.
	Remote bool
}

// CompareSBServiceMonitors orders service monitors by their key (IP, port,
// logical port, protocol), then contents.
func CompareSBServiceMonitors(a, b SBServiceMonitor) int {
	return cmp.Or(cmp.Compare(a.IP, b.IP), cmp.Compare(a.Port, b.Port), cmp.Compare(a.LogicalPort, b.LogicalPort),
		cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.Options, b.Options), cmp.Compare(a.SrcMAC, b.SrcMAC),
		cmp.Compare(a.SrcIP, b.SrcIP), cmp.Compare(a.Type, b.Type), cmp.Compare(a.LogicalInputPort, b.LogicalInputPort),
		cmp.Compare(a.MAC, b.MAC), CompareBools(a.Remote, b.Remote))
}

// SBServiceMonitors computes the Service_Monitor rows: the load balancers',
// the network functions' and the switch ports'. When several VIPs
// monitor the same backend, port and protocol with different health check
// options or source addresses, northd keeps whichever it handled last;
// here the row is the greatest by CompareSBServiceMonitors, so that the
// choice is stable.
func SBServiceMonitors(n *relations.NB) engine.Rel[SBServiceMonitor] {
	return engine.Union(sbLBServiceMonitors(n), SBNetworkFunctionMonitors(n), SBSwitchPortMonitors(n))
}

// monitorsHaveType: from 26.03 a Service_Monitor names what it monitors
// for (type), as network functions and switch ports have them too.
func monitorsHaveType(rel schema.Release) bool { return rel >= schema.OVN2603 }

// sbLBServiceMonitors are the load balancers' Service_Monitor rows.
func sbLBServiceMonitors(n *relations.NB) engine.Rel[SBServiceMonitor] {
	monitorType := ""
	if monitorsHaveType(n.Release) {
		monitorType = sb.ServiceMonitorTypeLoadBalancer
	}
	// The options of each VIP's health check: northd takes the first of the
	// load balancer's health_check column (in _uuid order) that names it.
	type check struct {
		LB, VIP, UUID string
		Options       Smap
	}
	type checkRef struct{ LB, Check string }
	refs := engine.FlatMap(n.LoadBalancers.Rows, func(lb *nb.LoadBalancer) []checkRef {
		out := make([]checkRef, len(lb.HealthCheck))
		for i, hc := range lb.HealthCheck {
			out[i] = checkRef{lb.UUID, hc}
		}
		return out
	})
	checks := engine.Join(
		engine.IndexBy(refs, func(r checkRef) string { return r.Check }),
		n.LoadBalancerChecks.ByUUID(),
		func(_ string, r checkRef, hc *nb.LoadBalancerHealthCheck) check {
			return check{r.LB, hc.Vip, hc.UUID, SmapOf(hc.Options)}
		})
	type vipKey struct{ LB, VIP string }
	first := engine.Min(engine.IndexBy(checks, func(c check) vipKey { return vipKey{c.LB, c.VIP} }),
		func(a, b check) int { return cmp.Compare(a.UUID, b.UUID) })
	// The monitorable backends of health-checked VIPs.
	type monitored struct {
		Key  vipKey
		Row  SBServiceMonitor
		Port string // the logical port
		Zone string // a remote backend's availability zone
	}
	backends := engine.FlatMap(engine.Filter(n.LBVIPs, func(v relations.LBVIP) bool { return v.HealthCheck }),
		func(v relations.LBVIP) []monitored {
			var out []monitored
			for _, b := range v.Backends.All() {
				if b.MonitorPort == "" || b.MonitorSrcIP == "" {
					continue
				}
				port, _ := strconv.Atoi(b.Port)
				out = append(out, monitored{vipKey{v.LB, v.Key},
					SBServiceMonitor{IP: b.IP, Port: port, LogicalPort: b.MonitorPort, Protocol: v.Proto, SrcIP: b.MonitorSrcIP,
						Type: monitorType, Remote: b.Remote()}, b.MonitorPort, b.Zone})
			}
			return out
		})
	// A remote backend's port is in its own zone.
	local := engine.Filter(backends, func(m monitored) bool { return !m.Row.Remote })
	onPorts := engine.SemiJoin(
		engine.IndexBy(local, func(m monitored) string { return m.Port }),
		n.EnabledPortsByName())
	// Probes from a router port's address carry its MAC, the others
	// svc_monitor_mac.
	type source struct{ LB, Port, SrcIP string }
	bySource := engine.IndexBy(engine.Union(onPorts, engine.Filter(backends, func(m monitored) bool { return m.Row.Remote })),
		func(m monitored) source { return source{m.Key.LB, m.Port, m.Row.SrcIP} })
	lrps := engine.IndexBy(n.LBMonitorLRPs, func(l relations.LBMonitorLRP) source { return source{l.LB, l.Port, l.SrcIP} })
	fromLRPs := engine.Join(bySource, lrps, func(_ source, m monitored, l relations.LBMonitorLRP) monitored {
		m.Row.SrcMAC = l.MAC
		return m
	})
	fromGlobal := engine.Join(
		engine.IndexBy(engine.AntiJoin(bySource, lrps), func(monitored) struct{} { return struct{}{} }),
		engine.IndexBy(n.LBGlobal, func(relations.LBGlobalOptions) struct{} { return struct{}{} }),
		func(_ struct{}, m monitored, o relations.LBGlobalOptions) monitored {
			m.Row.SrcMAC = o.SvcMonitorMAC
			return m
		})
	withMAC := engine.Join(
		engine.IndexBy(engine.Union(fromLRPs, fromGlobal), func(m monitored) vipKey { return m.Key }),
		engine.IndexBy(first, func(kv engine.KV[vipKey, check]) vipKey { return kv.Key }),
		func(_ vipKey, m monitored, c engine.KV[vipKey, check]) SBServiceMonitor {
			m.Row.Options = c.Value.Options
			if m.Row.Remote {
				options := c.Value.Options.Map()
				options["az-name"] = m.Zone
				m.Row.Options = SmapOf(options)
			}
			return m.Row
		})
	type monitorKey struct {
		IP          string
		Port        int
		LogicalPort string
		Protocol    string
	}
	return engine.Map(engine.Max(
		engine.IndexBy(withMAC, func(m SBServiceMonitor) monitorKey { return monitorKey{m.IP, m.Port, m.LogicalPort, m.Protocol} }),
		CompareSBServiceMonitors), func(kv engine.KV[monitorKey, SBServiceMonitor]) SBServiceMonitor { return kv.Value })
}
