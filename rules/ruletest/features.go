package ruletest

import (
	"github.com/northlog/northlog/relations"
	"pgregory.net/rapid"
)

// featureChanges flip the SB chassis features, which rewrites the
// conntrack flows of every stateful switch and NAT router.
var featureChanges = map[string]Change{
	"setFeatures": func(t *rapid.T, s *State) {
		s.SetFeatures(relations.Features{
			CTNoMaskedLabel:     rapid.Bool().Draw(t, "ct_no_masked_label"),
			CTLBRelated:         rapid.Bool().Draw(t, "ct_lb_related"),
			CTCommitToZone:      rapid.Bool().Draw(t, "ct_commit_to_zone"),
			CTNextZone:          rapid.Bool().Draw(t, "ct_next_zone"),
			SampleWithRegisters: rapid.Bool().Draw(t, "sample_with_registers"),
			CTStateSave:         rapid.Bool().Draw(t, "ct_state_save"),
			CTCommitNATv2:       rapid.Bool().Draw(t, "ct_commit_nat_v2"),
			CTLabelFlush:        rapid.Bool().Draw(t, "ct_label_flush"),
		})
	},
}
