package rules

import (
	"fmt"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// Debug drop sampling (northd/debug.c): with NB_Global
// options:debug_drop_collector_set set, every drop northd writes, the
// statement "drop;" (debug_drop_action) and the ACLs' implicit
// "/* drop */" (debug_implicit_drop_action), becomes a sample action that
// sends the dropped packet to that IPFIX collector set. Rules write the
// drops as they are without sampling (drop, implicitDrop); the flows that
// hold one are rewritten here.

// implicitDropStages are the stages whose flows end in northd's implicit
// drop: the ACLs' (23.03) and their verdicts' (26.03).
var implicitDropStages = map[Stage]bool{
	LSInACL: true, LSOutACL: true, LSInACLAfterLB: true,
	LSInACLEval: true, LSOutACLEval: true, LSInACLAfterLBEval: true,
	LSInACLAction: true, LSOutACLAction: true, LSInACLAfterLBAction: true,
}

// debugDropAction is the action that replaces a drop: northd's
// debug_drop_action() text with sampling on. Sampling is off (no tuple)
// without a collector set, and when the observation domain does not fit
// 8 bits, which northd refuses with an error, keeping what it had, nothing
// on a fresh start. From 26.03 the Sampling_App of type drop, when there
// is one, names the domain in debug_drop_domain_id's stead.
func debugDropAction(n *relations.NB) engine.Rel[string] {
	one := func(*nb.NBGlobal) struct{} { return struct{}{} }
	global := engine.IndexBy(n.Global.Rows, one)
	apps := engine.IndexBy(n.SamplingApps, func(relations.SamplingApps) struct{} { return struct{}{} })
	return engine.Union(
		engine.JoinFlatMap(global, apps, func(_ struct{}, g *nb.NBGlobal, a relations.SamplingApps) []string {
			return debugDropSample(g, a.Drop)
		}),
		engine.FlatMap(engine.AntiJoin(global, apps), func(g *nb.NBGlobal) []string { return debugDropSample(g, 0) }))
}

// debugDropSample is debugDropAction for NB_Global g and the drop
// Sampling_App's domain (0: none).
func debugDropSample(g *nb.NBGlobal, appDomain int) []string {
	set := relations.SmapUint(g.Options, "debug_drop_collector_set", 0)
	domain := relations.SmapUint(g.Options, "debug_drop_domain_id", 0)
	if appDomain != 0 {
		domain = uint32(appDomain)
	}
	if set == 0 || domain >= 255 {
		return nil
	}
	// northd prints the unsigned values with %d.
	return []string{fmt.Sprintf("sample(probability=65535,collector_set=%d,obs_domain=%d,obs_point=$cookie); /* drop */",
		int32(set), int32(domain))}
}

// dropStatements are the offsets in actions of each statement "drop;":
// at the start or after a space, and at the end or before one.
func dropStatements(actions string) []int {
	var at []int
	for i := 0; ; i += len(drop) {
		j := strings.Index(actions[i:], drop)
		if j < 0 {
			return at
		}
		i += j
		end := i + len(drop)
		if (i == 0 || actions[i-1] == ' ') && (end == len(actions) || actions[end] == ' ') {
			at = append(at, i)
		}
	}
}

// rewriteDrops replaces each statement "drop;" in actions with with.
func rewriteDrops(actions, with string) string {
	var b strings.Builder
	last := 0
	for _, i := range dropStatements(actions) {
		b.WriteString(actions[last:i])
		b.WriteString(with)
		last = i + len(drop)
	}
	b.WriteString(actions[last:])
	return b.String()
}

// implicitDrops reports whether flow f ends in the ACLs' implicit drop.
func implicitDrops(f Flow) bool {
	return implicitDropStages[f.Stage] && strings.HasSuffix(f.Actions, implicitDrop)
}

// drops reports whether flow f drops packets: withDebugDrops may sample it.
func drops(f Flow) bool { return implicitDrops(f) || len(dropStatements(f.Actions)) > 0 }

// withDebugDrops samples every drop when debug drop sampling is on. Only
// the flows that drop are held for the join, so turning sampling on or
// off costs those flows.
func withDebugDrops(n *relations.NB, flows engine.Rel[Flow]) engine.Rel[Flow] {
	one := func(Flow) struct{} { return struct{}{} }
	dropping := engine.IndexBy(engine.Filter(flows, drops), one)
	action := engine.IndexBy(debugDropAction(n), func(string) struct{} { return struct{}{} })
	return engine.Union(
		engine.Filter(flows, func(f Flow) bool { return !drops(f) }),
		engine.AntiJoin(dropping, action),
		engine.Join(dropping, action, func(_ struct{}, f Flow, sample string) Flow {
			if implicitDrops(f) {
				f.Actions = strings.TrimSuffix(f.Actions, implicitDrop) + sample
			} else {
				f.Actions = rewriteDrops(f.Actions, sample)
			}
			return f
		}))
}
