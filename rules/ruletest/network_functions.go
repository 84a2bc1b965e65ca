package ruletest

import (
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// nfChanges are network functions' rows (26.03): functions on switch
// ports, with or without a health check, groups of them with a fallback
// and an active one, the ACLs that use a group, the address health checks
// probe, and the SB monitors that come online or go offline.
var nfChanges = map[string]Change{
	"setNF":            setNF,
	"delNF":            delNF,
	"setNFGroup":       setNFGroup,
	"delNFGroup":       delNFGroup,
	"setACLNFGroup":    setACLNFGroup,
	"setNFMonitorIP":   setNFMonitorIP,
	"toggleNFMonitor":  toggleNFMonitor,
	"setNFHealthCheck": setNFHealthCheck,
	"setPortParent":    setPortParent,
}

// setNF adds a Network_Function or rewrites one: a few ids, two switch
// ports (or the same twice), and a health check one time in two.
func setNF(t *rapid.T, s *State) {
	in, out := s.Pick(t, nb.LogicalSwitchPortTable, "nf inport"), s.Pick(t, nb.LogicalSwitchPortTable, "nf outport")
	if in == "" {
		return
	}
	id := s.PickOrNew(t, nb.NetworkFunctionTable, "nf")
	f := &nb.NetworkFunction{UUID: id, ID: rapid.IntRange(1, 3).Draw(t, "nfID"), Inport: in, Outport: out}
	if hc := s.Pick(t, nb.NetworkFunctionHealthCheckTable, "nf health check"); hc != "" && rapid.Bool().Draw(t, "checked") {
		f.HealthCheck = &hc
	}
	s.Set(t, nb.NetworkFunctionTable, id, f)
}

// setNFHealthCheck adds a Network_Function_Health_Check.
func setNFHealthCheck(t *rapid.T, s *State) {
	id := s.UUID()
	s.Set(t, nb.NetworkFunctionHealthCheckTable, id, &nb.NetworkFunctionHealthCheck{UUID: id, Options: map[string]string{"interval": "5"}})
}

// delNF deletes a network function, out of the groups that list it or have
// it active first.
func delNF(t *rapid.T, s *State) {
	id := s.Pick(t, nb.NetworkFunctionTable, "nf")
	if id == "" {
		return
	}
	Unlink(t, s, nb.NetworkFunctionGroupTable, id, func(g *nb.NetworkFunctionGroup) *[]string { return &g.NetworkFunction })
	for _, g := range s.IDs(nb.NetworkFunctionGroupTable) {
		if active := s.rows[nb.NetworkFunctionGroupTable][g].(*nb.NetworkFunctionGroup).NetworkFunctionActive; active != nil && *active == id {
			Edit(t, s, nb.NetworkFunctionGroupTable, g, func(g *nb.NetworkFunctionGroup) { g.NetworkFunctionActive = nil })
		}
	}
	s.Set(t, nb.NetworkFunctionTable, id, nil)
}

// setNFGroup adds a Network_Function_Group or rewrites one: a few ids, a
// fallback or none, a subset of the functions and one of them (or one it
// does not list, as a stale NB may hold) active, or none.
func setNFGroup(t *rapid.T, s *State) {
	id := s.PickOrNew(t, nb.NetworkFunctionGroupTable, "nfg")
	g := &nb.NetworkFunctionGroup{UUID: id, ID: rapid.IntRange(1, 3).Draw(t, "nfgID"), Mode: nb.NetworkFunctionGroupModeInline}
	if fallback := rapid.SampledFrom([]string{"", nb.NetworkFunctionGroupFallbackFailOpen, nb.NetworkFunctionGroupFallbackFailClose}).Draw(t, "fallback"); fallback != "" {
		g.Fallback = &fallback
	}
	for _, f := range s.IDs(nb.NetworkFunctionTable) {
		if rapid.Bool().Draw(t, "listed") {
			g.NetworkFunction = append(g.NetworkFunction, f)
		}
	}
	if active := s.Pick(t, nb.NetworkFunctionTable, "active nf"); active != "" && rapid.Bool().Draw(t, "has active") {
		g.NetworkFunctionActive = &active
	}
	s.Set(t, nb.NetworkFunctionGroupTable, id, g)
}

// delNFGroup deletes a group, out of the ACLs that use it first.
func delNFGroup(t *rapid.T, s *State) {
	id := s.Pick(t, nb.NetworkFunctionGroupTable, "nfg")
	if id == "" {
		return
	}
	for _, a := range s.IDs(nb.ACLTable) {
		if g := s.rows[nb.ACLTable][a].(*nb.ACL).NetworkFunctionGroup; g != nil && *g == id {
			Edit(t, s, nb.ACLTable, a, func(a *nb.ACL) { a.NetworkFunctionGroup = nil })
		}
	}
	s.Set(t, nb.NetworkFunctionGroupTable, id, nil)
}

// setACLNFGroup sets or clears an ACL's network_function_group.
func setACLNFGroup(t *rapid.T, s *State) {
	acl := s.Pick(t, nb.ACLTable, "acl")
	if acl == "" {
		return
	}
	var group *string
	if id := s.Pick(t, nb.NetworkFunctionGroupTable, "nfg"); id != "" && rapid.Bool().Draw(t, "set") {
		group = &id
	}
	Edit(t, s, nb.ACLTable, acl, func(a *nb.ACL) { a.NetworkFunctionGroup = group })
}

// nfMonitorIPs are the svc_monitor_ip_dst values the changes use.
var nfMonitorIPs = []string{"169.254.0.2", "169.254.0.3"}

// setNFMonitorIP sets NB_Global options:svc_monitor_ip_dst, or removes it,
// keeping the row's other options.
func setNFMonitorIP(t *rapid.T, s *State) {
	editGlobalOptions(t, s, func(options map[string]string) {
		if ip := rapid.SampledFrom(append([]string{""}, nfMonitorIPs...)).Draw(t, "monitor ip"); ip != "" {
			options["svc_monitor_ip_dst"] = ip
		} else {
			delete(options, "svc_monitor_ip_dst")
		}
	})
}

// toggleNFMonitor brings the SB Service_Monitor of a switch port's ICMP
// probes online, or takes it offline.
func toggleNFMonitor(t *rapid.T, s *State) {
	port := s.Pick(t, nb.LogicalSwitchPortTable, "monitored port")
	if port == "" {
		return
	}
	k := relations.ServiceMonitorKey{
		IP:          rapid.SampledFrom(nfMonitorIPs).Draw(t, "monitor ip"),
		LogicalPort: s.rows[nb.LogicalSwitchPortTable][port].(*nb.LogicalSwitchPort).Name,
		Protocol:    "icmp",
	}
	s.SetMonitorOnline(k, !s.online[k])
}

// setPortParent makes a switch port the child of another (by name), or of
// none, as the ports of network functions reached through a VM's child
// ports are.
func setPortParent(t *rapid.T, s *State) {
	child, parent := s.Pick(t, nb.LogicalSwitchPortTable, "child"), s.Pick(t, nb.LogicalSwitchPortTable, "parent")
	if child == "" {
		return
	}
	name := maybePortName(t, s, parent, "has parent")
	Edit(t, s, nb.LogicalSwitchPortTable, child, func(p *nb.LogicalSwitchPort) { p.ParentName = name })
}

// maybePortName is, drawn as label, the name of switch port uuid, or nil:
// a value for a column that optionally names another port.
func maybePortName(t *rapid.T, s *State, uuid, label string) *string {
	if !rapid.Bool().Draw(t, label) {
		return nil
	}
	name := s.rows[nb.LogicalSwitchPortTable][uuid].(*nb.LogicalSwitchPort).Name
	return &name
}
