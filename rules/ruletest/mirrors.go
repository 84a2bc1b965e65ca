package ruletest

import (
	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// mirrorChanges are random changes of lport mirrors (26.03's NB): the
// mirrors, their sinks (a switch port, or no port), their Mirror_Rules and
// the switch ports attached to them.
var mirrorChanges = map[string]Change{
	"setLportMirror": func(t *rapid.T, s *State) {
		id := s.PickOrNew(t, nb.MirrorTable, "mirror")
		sink := "ghost"
		if p := s.Pick(t, nb.LogicalSwitchPortTable, "sink"); p != "" && rapid.Bool().Draw(t, "toPort") {
			sink = s.rows[nb.LogicalSwitchPortTable][p].(*nb.LogicalSwitchPort).Name
		}
		m := &nb.Mirror{UUID: id, Name: "mir" + id[len(id)-3:], Type: nb.MirrorTypeLport, Sink: sink,
			Filter: rapid.SampledFrom([]string{nb.MirrorFilterFromLport, nb.MirrorFilterToLport, nb.MirrorFilterBoth}).Draw(t, "filter")}
		if old, ok := s.rows[nb.MirrorTable][id].(*nb.Mirror); ok {
			m.MirrorRules = old.MirrorRules
		}
		s.Set(t, nb.MirrorTable, id, m)
	},
	"setMirrorRule": func(t *rapid.T, s *State) {
		id := s.PickOrNew(t, nb.MirrorRuleTable, "rule")
		s.Set(t, nb.MirrorRuleTable, id, &nb.MirrorRule{UUID: id,
			Action:   rapid.SampledFrom([]string{nb.MirrorRuleActionMirror, nb.MirrorRuleActionSkip}).Draw(t, "action"),
			Match:    rapid.SampledFrom([]string{"ip", "icmp", "1"}).Draw(t, "match"),
			Priority: rapid.IntRange(0, 2).Draw(t, "priority")})
	},
	"linkMirrorRule": toggleLink(nb.MirrorTable, "mirror", nb.MirrorRuleTable, "rule",
		func(m *nb.Mirror) *[]string { return &m.MirrorRules }),
	"attachMirror": toggleLink(nb.LogicalSwitchPortTable, "lsp", nb.MirrorTable, "mirror",
		func(p *nb.LogicalSwitchPort) *[]string { return &p.MirrorRules }),
	"delMirror":     DeleteListed(nb.MirrorTable, nb.LogicalSwitchPortTable, func(p *nb.LogicalSwitchPort) *[]string { return &p.MirrorRules }),
	"delMirrorRule": DeleteListed(nb.MirrorRuleTable, nb.MirrorTable, func(m *nb.Mirror) *[]string { return &m.MirrorRules }),
}
