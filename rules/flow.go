package rules

import (
	"cmp"
	"slices"
	"strings"
)

// Flow is one logical flow: a row of SB Logical_Flow before datapath
// grouping. Datapath is the NB _uuid of the Logical_Switch or
// Logical_Router it is on, or the name of a datapath set
// (IsDatapathSet): the flow is then on every member of the set
// (DatapathSetMember). ControllerMeter is the meter of the packets the
// actions send to ovn-controller (the SB controller_meter column), from
// the datapath's CoPP (controller_meter.go); rules leave it empty.
// InOutPort is the switch port whose inport (ingress) or outport (egress)
// the match tests, for the flows 23.03 tags with it (SB tags:in_out_port,
// ovn_lflow_add_with_lport_and_hint): ovn-controller skips them on chassis
// where the port is not local. It is no part of the flow's text: of two
// flows that differ only in it, the SB gets one (FlowsByDatapath).
// Hint is the _uuid of the NB row the flow comes from (an ACL, a port, a
// NAT, a route...), or empty: 23.03 writes its first 8 hex digits as
// external_ids:stage-hint (ovn_lflow_add_with_hint), for ovn-detrace and
// ovn-trace --detailed. Like InOutPort, it is no part of the flow's text.
// Desc is 26.03's flow_desc, why a drop flow drops (WITH_DESC), and
// CTTranslation its tags:acl_ct_translation, on the stateful ACLs' flows
// with NB_Global options:acl_ct_translation: ovn-controller then matches
// their L4 fields on the connection's original ones. Neither is part of
// the text either. MeteredAsReject marks a flow whose actions send nothing
// to ovn-controller but that northd meters as a reject all the same (the
// stateless DNAT of a VIP that rejects): withControllerMeters meters it
// so and clears the mark. The small fields sit together so that a Flow
// is 128 bytes, the most a Go map holds inline as a key: a larger one
// would cost a heap object for every flow in every change the engine
// holds as a map.
type Flow struct {
	Datapath        string
	Stage           Stage
	CTTranslation   bool
	MeteredAsReject bool
	Priority        int
	Match           string
	Actions         string
	ControllerMeter string
	InOutPort       string
	Hint            string
	Desc            string
}

// CompareFlows orders flows by datapath, stage (pipeline and table, in
// every release), priority, match, actions and controller meter: the
// order in which outputs list them.
func CompareFlows(a, b Flow) int {
	return cmp.Or(
		cmp.Compare(a.Datapath, b.Datapath),
		cmp.Compare(a.Stage, b.Stage),
		cmp.Compare(a.Priority, b.Priority),
		cmp.Compare(a.Match, b.Match),
		cmp.Compare(a.Actions, b.Actions),
		cmp.Compare(a.ControllerMeter, b.ControllerMeter),
		cmp.Compare(a.InOutPort, b.InOutPort),
		cmp.Compare(a.Hint, b.Hint),
		cmp.Compare(a.Desc, b.Desc),
		CompareBools(a.CTTranslation, b.CTTranslation),
		CompareBools(a.MeteredAsReject, b.MeteredAsReject),
	)
}

// SameText reports whether two flows are the same SB row: all but
// InOutPort, Hint, Desc and CTTranslation equal.
func SameText(a, b Flow) bool {
	a.InOutPort, b.InOutPort = "", ""
	a.Hint, b.Hint = "", ""
	a.Desc, b.Desc = "", ""
	a.CTTranslation, b.CTTranslation = false, false
	return a == b
}

// StageHint is the external_ids:stage-hint of the flow's SB row: the first
// 8 hex digits of Hint ("" for none).
func (f Flow) StageHint() string { return stageHint(f.Hint) }

// stageHint is the stage-hint of NB row _uuid u.
func stageHint(u string) string { return u[:min(len(u), 8)] }

// A datapath set names the datapaths that share a family of flows with the
// same text on each: the switches of a load balancer group, say. Rules
// write one flow on the set instead of one per member, so that an NB change
// to a load balancer costs its flows, not its flows times its datapaths,
// and the SB writer finds the flows' datapath group ready made. A datapath
// in several sets gets each set's flows (the SB writer merges a text's
// datapaths).
const datapathSetPrefix = "set:"

// datapathSet is the name of the datapath set of a family and a key inside
// it.
func datapathSet(family, key string) string { return datapathSetPrefix + family + "/" + key }

// IsDatapathSet reports whether a flow's Datapath names a datapath set
// rather than one datapath.
func IsDatapathSet(datapath string) bool { return strings.HasPrefix(datapath, datapathSetPrefix) }

// DatapathSetMember puts datapath Datapath (an NB _uuid) in datapath set
// Set.
type DatapathSetMember struct {
	Set      string
	Datapath string
}

// CompareDatapathSetMembers orders members by set, then datapath.
func CompareDatapathSetMembers(a, b DatapathSetMember) int {
	return cmp.Or(cmp.Compare(a.Set, b.Set), cmp.Compare(a.Datapath, b.Datapath))
}

// FlowsByDatapath returns flows with every flow on a datapath set replaced
// by one flow on each of the set's members, sorted by CompareFlows and
// without duplicates: the flows as an SB dump lists them, one per
// datapath. Of flows with the same text, the one with the smallest
// InOutPort stays (23.03 keeps the first it builds, in its hash order).
func FlowsByDatapath(flows []Flow, members []DatapathSetMember) []Flow {
	return slices.CompactFunc(FlowsOnEachDatapath(flows, members), SameText)
}

// FlowsOnEachDatapath is FlowsByDatapath with the duplicates kept: of flows
// with the same text, each NB row's (Hint) and port's (InOutPort).
func FlowsOnEachDatapath(flows []Flow, members []DatapathSetMember) []Flow {
	bySet := map[string][]string{}
	for _, m := range members {
		bySet[m.Set] = append(bySet[m.Set], m.Datapath)
	}
	out := make([]Flow, 0, len(flows))
	for _, f := range flows {
		if !IsDatapathSet(f.Datapath) {
			out = append(out, f)
			continue
		}
		for _, dp := range bySet[f.Datapath] {
			f.Datapath = dp
			out = append(out, f)
		}
	}
	slices.SortFunc(out, CompareFlows)
	return slices.CompactFunc(out, func(a, b Flow) bool { return a == b })
}
