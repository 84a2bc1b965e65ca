package rules

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// lportMirrorOffset is the priority of a port's lport mirror flows; a
// Mirror_Rule's flow adds the rule's priority (OVN_LPORT_MIRROR_OFFSET).
const lportMirrorOffset = 100

// LportMirror is a switch port attached to a Mirror of type "lport" whose
// sink names a port: the port's traffic is mirrored to the serving port
// Serving on the port's switch, a binding of type "mirror" that stands
// for the sink (northd.c create_mirror_port).
type LportMirror struct {
	Source relations.LSP
	Mirror string // NB _uuid
	// Filter is the mirror's: from-lport mirrors the traffic the port
	// sends (ingress), to-lport what it receives (egress), else both.
	Filter  string
	Sink    string
	Serving string
}

// ingress and egress are whether the mirror copies the port's ingress and
// egress traffic.
func (m LportMirror) ingress() bool { return m.Filter != nb.MirrorFilterToLport }
func (m LportMirror) egress() bool  { return m.Filter != nb.MirrorFilterFromLport }

// servingPortName is the serving port of a switch's mirrors to sink
// (ovn_mirror_port_name).
func servingPortName(switchName, sink string) string {
	return fmt.Sprintf("mp-%s-%s", switchName, sink)
}

// lportMirrors are the lport mirrors of the switch ports whose sink is a
// bound switch or router port (join_mirror_ports; a mirror to no port
// has no serving port, and so no flows).
func lportMirrors(n *relations.NB) engine.Rel[LportMirror] {
	return relations.Shared(n, "lportMirrors", joinMirrorPorts)
}

func joinMirrorPorts(n *relations.NB) engine.Rel[LportMirror] {
	type attached struct {
		Source relations.LSP
		Mirror string
	}
	refs := engine.FlatMap(n.LSPs, func(p relations.LSP) []attached {
		out := make([]attached, len(p.Port.MirrorRules))
		for i, u := range p.Port.MirrorRules {
			out[i] = attached{Source: p, Mirror: u}
		}
		return out
	})
	lport := engine.Filter(n.Mirrors.Rows, func(m *nb.Mirror) bool { return m.Type == nb.MirrorTypeLport })
	withMirror := engine.Join(
		engine.IndexBy(refs, func(a attached) string { return a.Mirror }),
		engine.IndexBy(lport, func(m *nb.Mirror) string { return m.UUID }),
		func(_ string, a attached, m *nb.Mirror) LportMirror {
			return LportMirror{Source: a.Source, Mirror: m.UUID, Filter: m.Filter, Sink: m.Sink}
		})
	named := engine.Join(
		engine.IndexBy(withMirror, func(m LportMirror) string { return m.Source.Switch }),
		engine.IndexBy(n.SwitchDatapaths, func(s relations.Switch) string { return s.UUID }),
		func(_ string, m LportMirror, sw relations.Switch) LportMirror {
			m.Serving = servingPortName(sw.Name, m.Sink)
			return m
		})
	ports := engine.Distinct(engine.Union(
		engine.Map(n.LSPs, relations.LSP.Name),
		engine.Map(n.LRPs, relations.LRP.Name)))
	return engine.SemiJoin(
		engine.IndexBy(named, func(m LportMirror) string { return m.Sink }),
		engine.IndexBy(ports, func(name string) string { return name }))
}

// mirrorRule is one Mirror_Rule of a mirror.
type mirrorRule struct {
	Mirror string // NB _uuid
	Rule   *nb.MirrorRule
}

// mirrorRules are the rules of every mirror (Mirror.mirror_rules).
func mirrorRules(n *relations.NB) engine.Rel[mirrorRule] {
	type listed struct{ Mirror, Rule string }
	refs := engine.FlatMap(n.Mirrors.Rows, func(m *nb.Mirror) []listed {
		out := make([]listed, len(m.MirrorRules))
		for i, u := range m.MirrorRules {
			out[i] = listed{Mirror: m.UUID, Rule: u}
		}
		return out
	})
	return engine.Join(
		engine.IndexBy(refs, func(l listed) string { return l.Rule }),
		n.MirrorRules.ByUUID(),
		func(_ string, l listed, r *nb.MirrorRule) mirrorRule { return mirrorRule{Mirror: l.Mirror, Rule: r} })
}

// mirrorDirection is one direction of a port's traffic a mirror copies.
type mirrorDirection struct {
	stage Stage
	port  string // the match's field naming the port
}

// directions are the directions of m's traffic that it copies.
func (m LportMirror) directions() []mirrorDirection {
	var ds []mirrorDirection
	if m.ingress() {
		ds = append(ds, mirrorDirection{LSInMirror, "inport"})
	}
	if m.egress() {
		ds = append(ds, mirrorDirection{LSOutMirror, "outport"})
	}
	return ds
}

// SwitchLportMirrorFlows: a port attached to an lport mirror has its
// traffic copied to the serving port in each direction the mirror's
// filter names (build_mirror_pass_lflow), and traffic to the serving port
// skips the egress pipeline's conntrack stages up to port security.
func SwitchLportMirrorFlows(n *relations.NB) engine.Rel[Flow] {
	toPortSec := tableIn(n, LSOutApplyPortSec)
	return engine.Distinct(engine.FlatMap(lportMirrors(n), func(m LportMirror) []Flow {
		dp, serving := on(m.Source.Switch), jsonKey(m.Serving)
		flows := []Flow{dp.flow(LSOutPreACL, 65535, "outport == "+serving,
			fmt.Sprintf("next(pipeline=egress, table=%d);", toPortSec))}
		for _, d := range m.directions() {
			flows = append(flows, dp.flow(d.stage, lportMirrorOffset,
				fmt.Sprintf("%s == %s", d.port, jsonKey(m.Source.Name())), "mirror("+serving+"); next;"))
		}
		return flows
	}))
}

// SwitchMirrorRuleFlows: each rule of a port's lport mirror, at the
// mirror offset plus its priority, mirrors the traffic it matches or
// (action skip) lets it go unmirrored (build_mirror_lflow).
func SwitchMirrorRuleFlows(n *relations.NB) engine.Rel[Flow] {
	type ruleOfMirror struct {
		Mirror LportMirror
		Rule   *nb.MirrorRule
	}
	pairs := engine.Join(
		engine.IndexBy(lportMirrors(n), func(m LportMirror) string { return m.Mirror }),
		engine.IndexBy(mirrorRules(n), func(r mirrorRule) string { return r.Mirror }),
		func(_ string, m LportMirror, r mirrorRule) ruleOfMirror { return ruleOfMirror{m, r.Rule} })
	return engine.Distinct(engine.FlatMap(pairs, func(p ruleOfMirror) []Flow {
		m, r := p.Mirror, p.Rule
		action := "next;"
		if r.Action == nb.MirrorRuleActionMirror {
			action = "mirror(" + jsonKey(m.Serving) + "); " + action
		}
		var flows []Flow
		for _, d := range m.directions() {
			flows = append(flows, on(m.Source.Switch).flow(d.stage, lportMirrorOffset+r.Priority,
				fmt.Sprintf("%s == %s && (%s)", d.port, jsonKey(m.Source.Name()), r.Match), action))
		}
		return flows
	}))
}

// mirrorPortBindings are the serving ports of lport mirrors: one per
// switch and sink, of type "mirror" with the sink as mirror_port and no
// other column set (ovn_port_update_sbrec leaves them at their defaults).
func mirrorPortBindings(n *relations.NB) engine.Rel[PortBinding] {
	return engine.Distinct(engine.Map(lportMirrors(n), func(m LportMirror) PortBinding {
		return PortBinding{Name: m.Serving, Datapath: m.Source.Switch, Type: "mirror", MirrorPort: m.Sink}
	}))
}

// servingPortGroupMembers: a serving port stands in its switch's flood
// groups for the port attached to the mirror (its ovn_port carries that
// port's NB row, which build_mcast_groups reads): in _MC_flood when that
// port is enabled, and in _MC_flood_l2 when it is no router port too.
func servingPortGroupMembers(n *relations.NB) engine.Rel[MulticastGroupMember] {
	enabled := engine.Filter(lportMirrors(n), func(m LportMirror) bool { return m.Source.Enabled() })
	return engine.FlatMap(enabled, func(m LportMirror) []MulticastGroupMember {
		ms := []MulticastGroupMember{{m.Source.Switch, MCFlood, m.Serving}}
		if m.Source.Port.Type != relations.LSPTypeRouter {
			ms = append(ms, MulticastGroupMember{m.Source.Switch, MCFloodL2, m.Serving})
		}
		return ms
	})
}
