package reference

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/northlog/northlog/rules"
)

// hintSep separates a canonical line from its stage-hint in the lines
// FlowHints builds.
const hintSep = "|stage-hint="

// FlowHints maps each canonical flow line (Flows) to its SB row's
// external_ids:stage-hint, "" for a row without one.
func (d *SBDump) FlowHints() (map[string]string, error) {
	p := &parser{}
	lines, err := d.flows(func(r row) string { return hintSep + p.smap(r, "external_ids")["stage-hint"] })
	if err == nil && p.err != nil {
		err = fmt.Errorf("reference: SB dump: %w", p.err)
	}
	if err != nil {
		return nil, err
	}
	hints := make(map[string]string, len(lines))
	for _, l := range lines {
		i := strings.LastIndex(l, hintSep)
		hints[l[:i]] = l[i+len(hintSep):]
	}
	return hints, nil
}

// FlowHints is the stage-hints of the SB's logical flows (SBDump.FlowHints).
func (r *Instance) FlowHints(ctx context.Context) (map[string]string, error) {
	d, err := r.Build().DumpSB(ctx, r.SBRemote())
	if err != nil {
		return nil, err
	}
	return d.FlowHints()
}

// hashOrderHintStages are the stages where 23.03 gives flows of the same
// text, built from different NB rows, the hint of whichever it builds
// first in the order of its hash maps: no NB-only rule says which, so
// CompareHints leaves them out.
var hashOrderHintStages = map[string]bool{
	// The load balancer hairpin flows name their switch, and are the same
	// on every switch with a VIP.
	"ls_in_pre_hairpin": true,
	"ls_in_nat_hairpin": true,
}

// hashOrderHintFlows are, by stage, the priorities of the flows whose
// hint names one of several load balancers in northd's hash order: a VIP
// on several of them (ls_in_pre_stateful), the ARP reply for a health
// check source IP they share (ls_in_arp_rsp, 110). Seen to change from
// one run of the same reference to the next (random-nat/seed46).
var hashOrderHintFlows = map[string]string{
	"ls_in_pre_stateful": "120",
	"ls_in_arp_rsp":      "110",
}

// unhintedStages are the stages whose flows' hints northlog's rules do
// not all set yet (README, "Not yet": the router's port, route, policy
// and gateway flows); CompareHints leaves them out too.
var unhintedStages = map[string]bool{
	"lr_in_admission":       true,
	"lr_in_lookup_neighbor": true,
	"lr_in_ip_input":        true,
	"lr_in_unsnat":          true,
	"lr_in_defrag":          true,
	"lr_in_dnat":            true,
	"lr_in_ecmp_stateful":   true,
	"lr_in_nd_ra_options":   true,
	"lr_in_nd_ra_response":  true,
	"lr_in_ip_routing_pre":  true,
	"lr_in_ip_routing":      true,
	"lr_in_ip_routing_ecmp": true,
	"lr_in_policy":          true,
	"lr_in_policy_ecmp":     true,
	"lr_in_arp_resolve":     true,
	"lr_in_chk_pkt_len":     true,
	"lr_in_larger_pkts":     true,
	"lr_in_gw_redirect":     true,
	"lr_in_arp_request":     true,
	"lr_out_chk_dnat_local": true,
	"lr_out_undnat":         true,
	"lr_out_snat":           true,
	"lr_out_egr_loop":       true,
	"lr_out_post_undnat":    true,
	"lr_out_post_snat":      true,
}

// CompareHints compares the stage-hints of the lines that both expected
// (a reference's, FlowHints) and actual hold, in the stage table t of
// their release, and describes each line whose hints differ, but in
// hashOrderHintStages, hashOrderHintFlows and unhintedStages. Lines one side lacks are Compare's business.
func CompareHints(t *rules.StageTable, expected, actual map[string]string) []string {
	lines := slices.Sorted(func(yield func(string) bool) {
		for l := range expected {
			if _, ok := actual[l]; ok && !yield(l) {
				return
			}
		}
	})
	kinds := datapathKinds(t, slices.Collect(maps.Keys(expected)))
	var diffs []string
	for _, l := range lines {
		stage := keyOf(l, kinds).name(t)
		if expected[l] == actual[l] || hashOrderHintStages[stage] || unhintedStages[stage] ||
			hashOrderHintFlows[stage] == strings.SplitN(l, "|", 5)[3] {
			continue
		}
		diffs = append(diffs, fmt.Sprintf("%s: stage-hint %q, want %q (%s)", l, actual[l], expected[l], stage))
	}
	return diffs
}
