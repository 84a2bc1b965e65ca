package reference

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// valueSep separates a canonical line from the value flowValues adds.
const valueSep = "|value="

// flowValues maps each canonical flow line (Flows) to value(row) of its SB
// row.
func (d *SBDump) flowValues(value func(p *parser, r row) string) (map[string]string, error) {
	p := &parser{}
	lines, err := d.flows(func(r row) string { return valueSep + value(p, r) })
	if err == nil && p.err != nil {
		err = fmt.Errorf("reference: SB dump: %w", p.err)
	}
	if err != nil {
		return nil, err
	}
	values := make(map[string]string, len(lines))
	for _, l := range lines {
		i := strings.LastIndex(l, valueSep)
		values[l[:i]] = l[i+len(valueSep):]
	}
	return values, nil
}

// FlowHints maps each canonical flow line (Flows) to its SB row's
// external_ids:stage-hint, "" for a row without one.
func (d *SBDump) FlowHints() (map[string]string, error) {
	return d.flowValues(func(p *parser, r row) string { return p.smap(r, "external_ids")["stage-hint"] })
}

// FlowHints is the stage-hints of the SB's logical flows (SBDump.FlowHints).
func (r *Instance) FlowHints(ctx context.Context) (map[string]string, error) {
	d, err := r.Build().DumpSB(ctx, r.SBRemote())
	if err != nil {
		return nil, err
	}
	return d.FlowHints()
}

// FlowTags maps each canonical flow line (Flows) to its SB row's tags and
// flow_desc as rules.TagsLine writes them.
func (d *SBDump) FlowTags() (map[string]string, error) {
	return d.flowValues(func(p *parser, r row) string {
		tags := p.smap(r, "tags")
		return rules.TagsLine(tags["in_out_port"], tags["acl_ct_translation"] == "true", p.optStr(r, "flow_desc"))
	})
}

// FlowTags is the tags and flow_desc of the SB's logical flows
// (SBDump.FlowTags).
func (r *Instance) FlowTags(ctx context.Context) (map[string]string, error) {
	d, err := r.Build().DumpSB(ctx, r.SBRemote())
	if err != nil {
		return nil, err
	}
	return d.FlowTags()
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

// hashOrderHintFlows2603 are, by stage, the priorities of 26.03's further
// flows whose hint follows its hash order: it numbers the members of an
// ECMP route group in the order of its route hash map, so which route a
// member flow (lr_in_ip_routing_ecmp) names, and which route a port's
// ECMP symmetric-reply flows (lr_in_policy, lr_in_arp_resolve) name,
// changes between runs of the same reference (random-routing/seed7, 24).
var hashOrderHintFlows2603 = map[string]string{
	"lr_in_ip_routing_ecmp": "100",
	"lr_in_policy":          "65535",
	"lr_in_arp_resolve":     "200",
}

// CompareHints compares the stage-hints of the lines that both expected
// (a reference's, FlowHints) and actual hold, in the stage table t of
// their release, and describes each line whose hints differ, but in
// hashOrderHintStages, hashOrderHintFlows and (26.03)
// hashOrderHintFlows2603. Lines one
// side lacks are Compare's business.
//
// actual gives each line the hints of every NB row northlog builds it
// from (ovsdb.Offline.StageHints). Where there are several, or where the
// same flow is on other datapaths too, 23.03 writes one SB row (with a
// datapath group) whose hint is that of the row it builds the flow from
// first, in the order of its hash maps: any of them is taken.
func CompareHints(t *rules.StageTable, expected map[string]string, actual map[string][]string) []string {
	return compareHints(t, expected, actual, func(l string, accepted []string) bool {
		return slices.Contains(accepted, expected[l])
	}, func(l string) string {
		return fmt.Sprintf("stage-hint %q, want %q", strings.Join(actual[l], " or "), expected[l])
	})
}

// CompareLiveHints compares the stage-hints of two SBs written by northds
// that followed the same NB changes, one at a time: a reference's
// (expected) and northlog's (got, both FlowHints), given the hints of the
// NB rows that northlog builds each line from (possible,
// ovsdb.Offline.StageHints), and describes each line whose hints differ as
// CompareHints does. An SB row keeps the hint it was inserted with as long
// as the flow stays (northd.c rewrites hints only when
// northd_internal_version changes), so the hints agree when they are the
// same, though the NB row they name may no longer build the flow; or when
// both are hints of NB rows that build it, each northd having inserted the
// row for the one it met first.
func CompareLiveHints(t *rules.StageTable, expected, got map[string]string, possible map[string][]string) []string {
	return compareHints(t, expected, possible, func(l string, accepted []string) bool {
		return got[l] == expected[l] || slices.Contains(accepted, expected[l]) && slices.Contains(accepted, got[l])
	}, func(l string) string {
		return fmt.Sprintf("stage-hint %q, want %q (northlog builds it from %s)", got[l], expected[l], strings.Join(possible[l], " or "))
	})
}

// compareHints describes, as "LINE: describe(LINE) (STAGE)", the lines
// that both expected and actual hold whose hints do not agree: whose
// accepted hints (those of actual's lines of the same text on any
// datapath) do not make agree true, but in the hash-order stages and flows
// (see CompareHints).
func compareHints(t *rules.StageTable, expected map[string]string, actual map[string][]string, agree func(l string, accepted []string) bool, describe func(l string) string) []string {
	lines := slices.Sorted(func(yield func(string) bool) {
		for l := range expected {
			if _, ok := actual[l]; ok && !yield(l) {
				return
			}
		}
	})
	shared := map[string][]string{}
	for l, hints := range actual {
		text := withoutDatapath(l)
		shared[text] = append(shared[text], hints...)
	}
	kinds := datapathKinds(t, slices.Collect(maps.Keys(expected)))
	var diffs []string
	for _, l := range lines {
		stage := keyOf(l, kinds).name(t)
		priority := strings.SplitN(l, "|", 5)[3]
		if agree(l, shared[withoutDatapath(l)]) || hashOrderHintStages[stage] ||
			hashOrderHintFlows[stage] == priority || t.Release() >= schema.OVN2603 && hashOrderHintFlows2603[stage] == priority {
			continue
		}
		diffs = append(diffs, fmt.Sprintf("%s: %s (%s)", l, describe(l), stage))
	}
	return diffs
}

// withoutDatapath is a canonical line without its datapath: the flow's
// text, which is one SB row however many datapaths have it.
func withoutDatapath(l string) string {
	_, text, _ := strings.Cut(l, "|")
	return text
}
