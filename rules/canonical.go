package rules

import (
	"slices"
	"strconv"
	"strings"
)

// Canonical renders flows in the canonical dump form shared with the
// reference harness: one line per flow,
// DATAPATH|PIPELINE|TABLE|PRIORITY|MATCH|ACTIONS, with the datapath written
// as its NB name (names maps NB _uuid to name), sorted. Two SB databases hold
// the same logical flows exactly when their canonical dumps are equal.
func Canonical(flows []Flow, names map[string]string) []string {
	lines := make([]string, len(flows))
	for i, f := range flows {
		lines[i] = strings.Join([]string{
			names[f.Datapath],
			f.Stage.Pipeline().String(),
			strconv.Itoa(f.Stage.Table()),
			strconv.Itoa(f.Priority),
			f.Match,
			f.Actions,
		}, "|")
	}
	slices.Sort(lines)
	return lines
}
