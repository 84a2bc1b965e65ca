package reference

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// Report is the comparison of two canonical flow dumps: expected (the
// reference's) and actual (northlog's). Lines are compared as multisets.
type Report struct {
	// Totals over all lines.
	Expected, Matched, Missing, Extra int
	// Stages counts the lines per stage, in kind (switch, router), pipeline
	// and table order; only stages with at least one line are listed.
	Stages []StageCount
	// MissingLines are the expected lines absent from actual and ExtraLines
	// the actual lines absent from expected, each sorted.
	MissingLines, ExtraLines []string
}

// StageCount counts the lines of one stage: one table of one pipeline of
// one kind of datapath.
type StageCount struct {
	Kind     rules.DatapathKind
	Pipeline rules.Pipeline
	Table    int
	// Name is the stage name, or "?" for a table 23.03 does not have and
	// "malformed" for lines that are not DATAPATH|PIPELINE|TABLE|... (those
	// have Table -1).
	Name                              string
	Expected, Matched, Missing, Extra int
}

// Equal reports whether the two dumps hold the same lines.
func (r Report) Equal() bool { return r.Missing == 0 && r.Extra == 0 }

// maxDiffLines is how many differing lines String prints.
const maxDiffLines = 40

// String prints the per-stage counts, then the first differing lines in
// sorted order, missing ones with "-" and extra ones with "+", so a missing
// line and the extra line that nearly matches it tend to sit together.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-44s %8s %8s %8s %8s\n", "stage", "expected", "matched", "missing", "extra")
	for _, s := range r.Stages {
		mark := ' '
		if s.Missing+s.Extra > 0 {
			mark = '*'
		}
		stage := fmt.Sprintf("%c %s %s %2d %s", mark, kindName(s.Kind), s.Pipeline, s.Table, s.Name)
		fmt.Fprintf(&b, "%-44s %8d %8d %8d %8d\n", stage, s.Expected, s.Matched, s.Missing, s.Extra)
	}
	fmt.Fprintf(&b, "%-44s %8d %8d %8d %8d\n", "  total", r.Expected, r.Matched, r.Missing, r.Extra)
	if r.Equal() {
		return b.String()
	}
	diff := make([]string, 0, r.Missing+r.Extra)
	for _, l := range r.MissingLines {
		diff = append(diff, "-"+l)
	}
	for _, l := range r.ExtraLines {
		diff = append(diff, "+"+l)
	}
	slices.SortStableFunc(diff, func(a, b string) int { return strings.Compare(a[1:], b[1:]) })
	fmt.Fprintf(&b, "%d differing lines (-missing +extra):\n", len(diff))
	for _, l := range diff[:min(len(diff), maxDiffLines)] {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if len(diff) > maxDiffLines {
		fmt.Fprintf(&b, "... and %d more\n", len(diff)-maxDiffLines)
	}
	return b.String()
}

func kindName(k rules.DatapathKind) string {
	if k == rules.Router {
		return "router"
	}
	return "switch"
}

// Compare compares two canonical dumps (see DumpFlows), in any order.
//
// A datapath's kind is inferred from its lines in both dumps: it is a switch
// if any line sits in a table beyond the last router table of its pipeline
// (every switch of a reference dump has ls_in_l2_lkup flows, table 25), a
// router otherwise. The inference is sound when expected is a whole
// reference dump; a dump filtered to the early tables of a switch would make
// it a router.
func Compare(expected, actual []string) Report {
	return CompareIn(rules.StagesOf(schema.OVN2303), expected, actual)
}

// CompareIn is Compare for dumps of a release whose stage table is t. When
// that release numbers ECMP groups and members in no fixed order, the
// numbers are compared as labels (canonicalECMP), and the lines reported
// are the renumbered ones.
func CompareIn(t *rules.StageTable, expected, actual []string) Report {
	if ecmpUnordered(t.Release()) {
		expected, actual = canonicalECMP(expected), canonicalECMP(actual)
	}
	exp, act := slices.Sorted(slices.Values(expected)), slices.Sorted(slices.Values(actual))
	kinds := datapathKinds(t, exp, act)
	stages := map[stageKey]*StageCount{}
	count := func(line string) *StageCount {
		k := keyOf(line, kinds)
		if stages[k] == nil {
			stages[k] = &StageCount{Kind: k.kind, Pipeline: k.pipeline, Table: k.table, Name: k.name(t)}
		}
		return stages[k]
	}
	var r Report
	i, j := 0, 0
	for i < len(exp) || j < len(act) {
		switch {
		case j == len(act) || i < len(exp) && exp[i] < act[j]:
			s := count(exp[i])
			s.Expected++
			s.Missing++
			r.MissingLines = append(r.MissingLines, exp[i])
			i++
		case i == len(exp) || act[j] < exp[i]:
			count(act[j]).Extra++
			r.ExtraLines = append(r.ExtraLines, act[j])
			j++
		default:
			s := count(exp[i])
			s.Expected++
			s.Matched++
			i, j = i+1, j+1
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(stages), compareKeys) {
		s := stages[k]
		r.Stages = append(r.Stages, *s)
		r.Expected += s.Expected
		r.Matched += s.Matched
		r.Missing += s.Missing
		r.Extra += s.Extra
	}
	return r
}

// stageKey identifies the stage of a line; table -1 marks a malformed line.
type stageKey struct {
	kind     rules.DatapathKind
	pipeline rules.Pipeline
	table    int
}

func compareKeys(a, b stageKey) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.pipeline, b.pipeline), cmp.Compare(a.table, b.table))
}

func (k stageKey) name(t *rules.StageTable) string {
	if k.table < 0 {
		return "malformed"
	}
	if s, ok := t.Lookup(k.kind, k.pipeline, k.table); ok {
		return s.Name()
	}
	return "?"
}

// splitLine parses the datapath, pipeline and table of a canonical line.
func splitLine(line string) (dp string, p rules.Pipeline, table int, ok bool) {
	f := strings.SplitN(line, "|", 4)
	if len(f) < 4 {
		return "", 0, 0, false
	}
	switch f[1] {
	case "ingress":
		p = rules.Ingress
	case "egress":
		p = rules.Egress
	default:
		return "", 0, 0, false
	}
	table, err := strconv.Atoi(f[2])
	if err != nil || table < 0 {
		return "", 0, 0, false
	}
	return f[0], p, table, true
}

func keyOf(line string, kinds map[string]rules.DatapathKind) stageKey {
	dp, p, table, ok := splitLine(line)
	if !ok {
		return stageKey{table: -1}
	}
	return stageKey{kinds[dp], p, table}
}

// datapathKinds infers each datapath's kind from its lines (see Compare).
func datapathKinds(t *rules.StageTable, dumps ...[]string) map[string]rules.DatapathKind {
	lastRouterTable := map[rules.Pipeline]int{}
	for _, s := range t.Stages(rules.Router) {
		lastRouterTable[s.Pipeline()] = max(lastRouterTable[s.Pipeline()], t.Table(s))
	}
	kinds := map[string]rules.DatapathKind{}
	for _, lines := range dumps {
		for _, l := range lines {
			dp, p, table, ok := splitLine(l)
			if !ok {
				continue
			}
			if table > lastRouterTable[p] {
				kinds[dp] = rules.Switch
			} else if _, seen := kinds[dp]; !seen {
				kinds[dp] = rules.Router
			}
		}
	}
	return kinds
}
