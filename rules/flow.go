package rules

import "cmp"

// Flow is one logical flow on one datapath: a row of SB Logical_Flow before
// datapath grouping. Datapath is the NB _uuid of the Logical_Switch or
// Logical_Router it belongs to.
type Flow struct {
	Datapath string
	Stage    Stage
	Priority int
	Match    string
	Actions  string
}

// CompareFlows orders flows by datapath, pipeline, table, priority, match and
// actions: the order in which outputs and dumps list them.
func CompareFlows(a, b Flow) int {
	return cmp.Or(
		cmp.Compare(a.Datapath, b.Datapath),
		cmp.Compare(a.Stage.Pipeline(), b.Stage.Pipeline()),
		cmp.Compare(a.Stage.Table(), b.Stage.Table()),
		cmp.Compare(a.Priority, b.Priority),
		cmp.Compare(a.Match, b.Match),
		cmp.Compare(a.Actions, b.Actions),
	)
}
