package relations

import (
	"fmt"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// GlobalOptions are the NB_Global options that switch ACL flows read, with
// 23.03's defaults. Being a value, a bump of nb_cfg or any other column
// leaves it unchanged.
type GlobalOptions struct {
	// UseCtInvMatch is options:use_ct_inv_match (default true): whether ACL
	// flows match on ct.inv.
	UseCtInvMatch bool
	// DefaultACLDrop is options:default_acl_drop (default false): whether
	// traffic no ACL allows is dropped on switches that have ACLs.
	DefaultACLDrop bool
	// ACLCTTranslation is options:acl_ct_translation (26.03, default
	// false): stateful ACLs match L4 fields on the connection's original
	// ones, which every fragment carries, so multicast is tracked too.
	ACLCTTranslation bool
}

// ReadsACLCTTranslation: 26.03 reads NB_Global options:acl_ct_translation.
func ReadsACLCTTranslation(r schema.Release) bool { return r >= schema.OVN2603 }

// defaultGlobalOptions is what northd reads when NB_Global has no options
// (or no row at all: northd then creates an empty one).
var defaultGlobalOptions = GlobalOptions{UseCtInvMatch: true}

// SwitchACL says that ACL applies to the switch: the switch lists it in
// acls, or a port group that has a port on the switch lists it.
type SwitchACL struct {
	Switch string // NB _uuid of the switch
	ACL    *nb.ACL
}

// SwitchACLFacts are a switch's datapath-level ACL and load-balancer facts
// (northd.c ls_get_acl_flags, ls_has_lb_vip) and the NB_Global options and
// chassis features that go with them. One tuple per switch.
type SwitchACLFacts struct {
	Switch string // NB _uuid of the switch
	// HasACLs: some ACL applies to the switch (od->has_acls).
	HasACLs bool
	// HasStatefulACL: one of them is allow-related (od->has_stateful_acl).
	HasStatefulACL bool
	// HasLBVIP: a load balancer with at least one VIP is attached to the
	// switch directly or through a load balancer group (od->has_lb_vip).
	HasLBVIP bool
	// StatelessACLWithLB: the switch's Switch.StatelessACLWithLB.
	StatelessACLWithLB bool
	// MaxTiers are the highest tier of the switch's ACLs in each ACL
	// stage (en-ls-stateful.c max_acl_tier); 0, the only tier before
	// 26.03, leaves the stage untiered.
	MaxTiers [numACLStages]int
	GlobalOptions
	Features Features
}

// ACLStage is which of a switch's ACL stages an ACL is evaluated in.
type ACLStage uint8

const (
	ACLIngress        ACLStage = iota // from-lport, before load balancing
	ACLIngressAfterLB                 // from-lport with options:apply-after-lb
	ACLEgress                         // to-lport
	numACLStages
)

// StageOfACL is the ACL stage of a.
func StageOfACL(a *nb.ACL) ACLStage {
	switch {
	case a.Direction != nb.ACLDirectionFromLport:
		return ACLEgress
	case SmapBool(a.Options, "apply-after-lb", false):
		return ACLIngressAfterLB
	}
	return ACLIngress
}

// Stateful is has_stateful in northd.c build_acls: the switch sends traffic
// through conntrack, for stateful ACLs or for load balancing.
func (f SwitchACLFacts) Stateful() bool { return f.HasStatefulACL || f.HasLBVIP }

// ref says that row Owner lists row Target in one of its reference columns.
type ref = Ref

func refs(owner string, targets []string) []ref {
	out := make([]ref, len(targets))
	for i, t := range targets {
		out[i] = ref{Owner: owner, Target: t}
	}
	return out
}

func byOwner(r ref) string  { return r.Owner }
func byTarget(r ref) string { return r.Target }

// deriveGlobalOptions reads the NB_Global options (at most one row).
func deriveGlobalOptions(n *NB) engine.Rel[GlobalOptions] {
	return engine.Map(n.Global.Rows, func(g *nb.NBGlobal) GlobalOptions {
		return GlobalOptions{
			UseCtInvMatch:    SmapBool(g.Options, "use_ct_inv_match", true),
			DefaultACLDrop:   SmapBool(g.Options, "default_acl_drop", false),
			ACLCTTranslation: ReadsACLCTTranslation(n.Release) && SmapBool(g.Options, "acl_ct_translation", false),
		}
	})
}

// switchOfPort is a switch port as a value: (switch, port _uuid).
func switchOfPort(n *NB) engine.Rel[ref] {
	return engine.Map(n.PortsOnSwitches, func(sp SwitchPort) ref {
		return ref{Owner: sp.Switch, Target: sp.Port.UUID}
	})
}

// deriveSwitchACLs computes which ACLs apply to which switch. A port group
// applies to the switches its ports are on (northd.c
// build_port_group_lswitches); ports on no switch are ignored and reported,
// as northd logs them. (An NB database never holds one, port groups holding
// their ports by weak reference, but rows fed by a library user may.)
func deriveSwitchACLs(n *NB) engine.Rel[SwitchACL] {
	direct := n.Refs.SwitchACLs
	members, onSwitch := engine.IndexBy(n.Refs.PortGroupPorts, byTarget), engine.IndexBy(switchOfPort(n), byTarget)
	engine.Report(engine.AntiJoin(members, onSwitch), "port group", func(r ref) error {
		return fmt.Errorf("lport %s in port group %s not found", r.Target, r.Owner)
	})
	pgSwitches := engine.Distinct(engine.Join(members, onSwitch,
		func(_ string, pg, sw ref) ref { return ref{Owner: pg.Owner, Target: sw.Owner} }))
	viaGroups := engine.Join(
		engine.IndexBy(pgSwitches, byOwner),
		engine.IndexBy(n.Refs.PortGroupACLs, byOwner),
		func(_ string, sw, acl ref) ref { return ref{Owner: sw.Target, Target: acl.Target} })
	switchACLs := engine.Distinct(engine.Union(direct, viaGroups))
	return engine.Join(
		engine.IndexBy(switchACLs, byTarget),
		n.ACLs.ByUUID(),
		func(_ string, r ref, a *nb.ACL) SwitchACL { return SwitchACL{Switch: r.Owner, ACL: a} })
}

// switchesWithLBVIP computes the switches that have a load balancer with a
// VIP, directly or through a load balancer group.
func switchesWithLBVIP(n *NB) engine.Rel[string] {
	return engine.Distinct(engine.Join(
		engine.IndexBy(n.switchOwnLBScopes, func(s ScopeDatapath) string { return s.Scope }),
		engine.IndexBy(n.lbVIPScopes, func(s string) string { return s }),
		func(_ string, s ScopeDatapath, _ string) string { return s.Datapath }))
}

// switchMark is one fact about a switch that SwitchACLFacts gathers.
type switchMark struct {
	Switch string
	Kind   uint8
	// Stage and Tier: an ACL's (markACL, markStatefulACL).
	Stage ACLStage
	Tier  int
}

const (
	markExists uint8 = iota
	markACL
	markStatefulACL
	markLBVIP
	markStatelessACLWithLB
)

// deriveSwitchACLFacts computes one SwitchACLFacts per switch.
func deriveSwitchACLFacts(n *NB) engine.Rel[SwitchACLFacts] {
	marks := engine.Union(
		engine.Map(n.SwitchDatapaths, func(s Switch) switchMark { return switchMark{Switch: s.UUID, Kind: markExists} }),
		engine.Map(engine.Filter(n.SwitchDatapaths, func(s Switch) bool { return s.StatelessACLWithLB }),
			func(s Switch) switchMark { return switchMark{Switch: s.UUID, Kind: markStatelessACLWithLB} }),
		engine.Map(n.SwitchACLs, func(sa SwitchACL) switchMark {
			m := switchMark{Switch: sa.Switch, Kind: markACL, Stage: StageOfACL(sa.ACL), Tier: sa.ACL.Tier}
			if sa.ACL.Action == nb.ACLActionAllowRelated {
				m.Kind = markStatefulACL
			}
			return m
		}),
		engine.Map(switchesWithLBVIP(n), func(sw string) switchMark { return switchMark{Switch: sw, Kind: markLBVIP} }),
	)
	facts := engine.GroupBy(
		engine.IndexBy(marks, func(m switchMark) string { return m.Switch }),
		func(sw string, ms []switchMark) []SwitchACLFacts {
			f := SwitchACLFacts{Switch: sw}
			exists := false
			for _, m := range ms {
				switch m.Kind {
				case markExists:
					exists = true
				case markACL, markStatefulACL:
					f.HasACLs = true
					f.HasStatefulACL = f.HasStatefulACL || m.Kind == markStatefulACL
					f.MaxTiers[m.Stage] = max(f.MaxTiers[m.Stage], m.Tier)
				case markLBVIP:
					f.HasLBVIP = true
				case markStatelessACLWithLB:
					f.StatelessACLWithLB = true
				}
			}
			if !exists {
				return nil
			}
			return []SwitchACLFacts{f}
		})
	// Every switch reads the one NB_Global row, or the defaults without one.
	one := func(SwitchACLFacts) struct{} { return struct{}{} }
	byOne := engine.IndexBy(facts, one)
	opts := engine.IndexBy(deriveGlobalOptions(n), func(GlobalOptions) struct{} { return struct{}{} })
	withOptions := engine.Union(
		engine.Join(byOne, opts, func(_ struct{}, f SwitchACLFacts, o GlobalOptions) SwitchACLFacts {
			f.GlobalOptions = o
			return f
		}),
		engine.Map(engine.AntiJoin(byOne, opts), func(f SwitchACLFacts) SwitchACLFacts {
			f.GlobalOptions = defaultGlobalOptions
			return f
		}),
	)
	return engine.Map(WithFeatures(n, withOptions), func(x Featured[SwitchACLFacts]) SwitchACLFacts {
		x.Of.Features = x.Features
		return x.Of
	})
}
