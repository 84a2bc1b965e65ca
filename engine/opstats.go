package engine

import "time"

// OpStats is what one operator did in the steps since CountOps: for finding
// which operators a change runs and what each costs.
type OpStats struct {
	// Op is the operator ("Map", "Join", ...) and Site the file:line of the
	// code outside this package that added it, as in StateSize.
	Op, Site string
	// Runs counts the steps that ran it; In the tuples of change it read
	// (an arrangement's counted by tuple), Out those it emitted (0 for an
	// IndexBy, whose change is its input's, and for an Output).
	Runs, In, Out int
	// Time is the wall time of its steps (not of its commits).
	Time time.Duration
}

// opCounts are an operator's counts since CountOps.
type opCounts struct {
	runs, in, out int
	time          time.Duration
}

// CountOps starts counting, for each operator, the steps that run it, the
// tuples it reads and emits and its time, from zero; OpStats reports them.
// Counting costs two clock reads per operator run, so it is for
// diagnostics, not for a program's normal steps.
func (c *Circuit) CountOps() { c.counts = make([]opCounts, len(c.ops)) }

// OpStats reports, for each operator that ran since CountOps, what it did,
// in the order the operators were added; nil if CountOps was not called.
func (c *Circuit) OpStats() []OpStats {
	var out []OpStats
	for i, n := range c.counts {
		if n.runs == 0 {
			continue
		}
		s := OpStats{Runs: n.runs, In: n.in, Out: n.out, Time: n.time}
		s.Op, s.Site = c.ops[i].sites.describe()
		out = append(out, s)
	}
	return out
}

// countIn adds to operator i's counts a run and the changes it is to
// read, and returns the time it starts.
func (c *Circuit) countIn(i int) time.Time {
	n := &c.counts[i]
	n.runs++
	for _, in := range c.ops[i].ins {
		n.in += in.changeSize()
	}
	return time.Now()
}

// countOut adds to operator i's counts the time since start and what it
// emitted: the streams from position outs of the dirty list.
func (c *Circuit) countOut(i int, start time.Time, outs int) {
	n := &c.counts[i]
	n.time += time.Since(start)
	for _, s := range c.dirty[outs:] {
		n.out += s.length()
	}
}
