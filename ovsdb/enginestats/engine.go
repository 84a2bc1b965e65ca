// Package enginestats counts what ovn-northd 26.03's incremental engine
// would have done for each change northlog's northd processes, so that
// inc-engine/show-stats answers as 26.03's does. northlog's program has
// no such engine: the counters come from a model of 26.03's, its graph
// of nodes (northd/inc-proc-northd.c) with, for each input, when its
// change handler gives up (the en-*.c handlers), driven by the NB and SB
// rows each iteration changed.
package enginestats

// Result is what a change handler returns (inc-proc-eng.h's
// engine_input_handler_result).
type Result uint8

const (
	// Unhandled: the node recomputes.
	Unhandled Result = iota
	// Unchanged: handled, and the node's data did not change.
	Unchanged
	// Updated: handled, and the node's data changed.
	Updated
)

// Stats are one node's counters, as show-stats prints them.
type Stats struct {
	Recompute, Compute, Cancel uint64
}

// Input is one input of a node: the node it reads and its change handler
// (nil: the node recomputes whenever the input changed).
type Input struct {
	Node    string
	Handler func(*Iteration) Result
}

// Node is a computed node of the graph. Clear, when set, forgets the
// data a recompute replaces (the node's tracked changes). Sink says a
// recompute never changes the node's data for the nodes after it (its
// run writes to a database only and returns EN_UNCHANGED); Stale, when
// set, says whether this iteration's recompute leaves it stale
// (EN_STALE), which the nodes after it do not see either.
type Node struct {
	Name   string
	Inputs []Input
	Clear  func(*Iteration)
	Sink   bool
	Stale  func(*Iteration) bool
}

// Leaf is an input node of the graph (a database table, or a timer): it
// has changed in an iteration when Changed says so.
type Leaf struct {
	Name    string
	Changed func(*Iteration) bool
}

// Engine runs the graph of nodes, in the order 26.03's engine runs them,
// and keeps their counters.
type Engine struct {
	order []node
	stats []Stats
	index map[string]int
	// updated says, during Run, which nodes' data changed; kept from run
	// to run, as every run has every node.
	updated []bool
}

type node struct {
	name    string
	inputs  []edge
	changed func(*Iteration) bool // leaves only
	clear   func(*Iteration)
	sink    bool
	stale   func(*Iteration) bool
}

type edge struct {
	from    int
	handler func(*Iteration) Result
}

// NewEngine orders the nodes reachable from output as engine_init does:
// depth first, each node after its inputs, inputs in the order given.
func NewEngine(output string, leaves []Leaf, nodes []Node) *Engine {
	byName := map[string]Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	leafByName := map[string]Leaf{}
	for _, l := range leaves {
		leafByName[l.Name] = l
	}
	e := &Engine{index: map[string]int{}}
	var visit func(name string) int
	visit = func(name string) int {
		if i, ok := e.index[name]; ok {
			return i
		}
		if l, ok := leafByName[name]; ok {
			e.index[name] = len(e.order)
			e.order = append(e.order, node{name: name, changed: l.Changed})
			return e.index[name]
		}
		n, ok := byName[name]
		if !ok {
			panic("enginestats: no node " + name)
		}
		var in []edge
		for _, i := range n.Inputs {
			in = append(in, edge{from: visit(i.Node), handler: i.Handler})
		}
		e.index[name] = len(e.order)
		e.order = append(e.order, node{name: name, inputs: in, clear: n.Clear, sink: n.Sink, stale: n.Stale})
		return e.index[name]
	}
	visit(output)
	e.stats = make([]Stats, len(e.order))
	e.updated = make([]bool, len(e.order))
	return e
}

// Names are the nodes in the order show-stats lists them.
func (e *Engine) Names() []string {
	out := make([]string, len(e.order))
	for i, n := range e.order {
		out[i] = n.name
	}
	return out
}

// Stats returns the counters of the node name.
func (e *Engine) Stats(name string) (Stats, bool) {
	i, ok := e.index[name]
	if !ok {
		return Stats{}, false
	}
	return e.stats[i], true
}

// Clear sets every counter to 0.
func (e *Engine) Clear() { clear(e.stats) }

// Run is one run of the engine (engine_run): every leaf is checked; a
// node with a changed input recomputes when forced, when the input has no
// handler or when its handler gives up, and computes otherwise.
func (e *Engine) Run(it *Iteration, force bool) {
	updated := e.updated
	clear(updated)
	for i, n := range e.order {
		if n.inputs == nil {
			e.stats[i].Recompute++
			updated[i] = n.changed(it)
			continue
		}
		recompute := force
		touched := false
		for _, in := range n.inputs {
			if updated[in.from] {
				touched = true
				recompute = recompute || in.handler == nil
			}
		}
		if !touched && !force {
			continue
		}
		if !recompute {
			for _, in := range n.inputs {
				if !updated[in.from] {
					continue
				}
				switch in.handler(it) {
				case Unhandled:
					recompute = true
				case Updated:
					updated[i] = true
				}
				if recompute {
					break
				}
			}
		}
		if recompute {
			if n.clear != nil {
				n.clear(it)
			}
			e.stats[i].Recompute++
			updated[i] = !n.sink && (n.stale == nil || !n.stale(it))
			continue
		}
		e.stats[i].Compute++
	}
}

// updatedIf is the result of a handler that handled its input: Updated
// when the node's data changed.
func updatedIf(changed bool) Result {
	if changed {
		return Updated
	}
	return Unchanged
}
