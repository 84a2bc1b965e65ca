package rules

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Canonical renders flows in the canonical dump form shared with the
// reference harness: one line per flow,
// DATAPATH|PIPELINE|TABLE|PRIORITY|MATCH|ACTIONS, with the datapath written
// as its NB name (names maps NB _uuid to name), sorted. Two SB databases hold
// the same logical flows exactly when their canonical dumps are equal.
// Tables are numbered as stage table t numbers them.
func Canonical(t *StageTable, flows []Flow, names map[string]string) []string {
	lines := make([]string, len(flows))
	for i, f := range flows {
		lines[i] = CanonicalLine(t, f, names)
	}
	slices.Sort(lines)
	return lines
}

// CanonicalLine is flow f's line of Canonical.
func CanonicalLine(t *StageTable, f Flow, names map[string]string) string {
	return strings.Join([]string{
		names[f.Datapath],
		f.Stage.Pipeline().String(),
		strconv.Itoa(t.Table(f.Stage)),
		strconv.Itoa(f.Priority),
		f.Match,
		f.Actions,
	}, "|")
}

// WriteLflowList writes flows the way `ovn-sbctl lflow-list` prints them:
// grouped by datapath (by name, then NB _uuid) and pipeline, then by table,
// priority from high to low, and match; tables numbered by stage table t.
func WriteLflowList(w io.Writer, t *StageTable, flows []Flow, names map[string]string) error {
	sorted := slices.SortedFunc(slices.Values(flows), func(a, b Flow) int {
		return cmp.Or(
			cmp.Compare(names[a.Datapath], names[b.Datapath]),
			cmp.Compare(a.Datapath, b.Datapath),
			cmp.Compare(a.Stage.Pipeline(), b.Stage.Pipeline()),
			cmp.Compare(t.Table(a.Stage), t.Table(b.Stage)),
			cmp.Compare(b.Priority, a.Priority),
			cmp.Compare(a.Match, b.Match),
			cmp.Compare(a.Actions, b.Actions),
		)
	})
	bw := bufio.NewWriter(w)
	for i, f := range sorted {
		if i == 0 || f.Datapath != sorted[i-1].Datapath || f.Stage.Pipeline() != sorted[i-1].Stage.Pipeline() {
			fmt.Fprintf(bw, "Datapath: %q (%s)  Pipeline: %s\n", names[f.Datapath], f.Datapath, f.Stage.Pipeline())
		}
		fmt.Fprintf(bw, "  table=%-2d(%-19s), priority=%-5d, match=(%s), action=(%s)\n",
			t.Table(f.Stage), f.Stage.Name(), f.Priority, f.Match, f.Actions)
	}
	return bw.Flush()
}

// TagsLine is what a flow's SB row holds besides its text and stage-hint,
// as one line: tags:in_out_port (Flow.InOutPort), tags:acl_ct_translation
// (Flow.CTTranslation) and 26.03's flow_desc (Flow.Desc).
func TagsLine(inOutPort string, ctTranslation bool, desc string) string {
	return "in_out_port=" + strconv.Quote(inOutPort) + " acl_ct_translation=" + strconv.FormatBool(ctTranslation) +
		" flow_desc=" + strconv.Quote(desc)
}
