package reference

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/relations/schema"
)

// ecmpUnordered reports whether release r's northd numbers ECMP groups
// and their members in an order that changes from one run to the next on
// the same NB (26.03 walks hash maps to number them), so that comparisons
// must take the numbers as labels (canonicalECMP). 23.03's numbering is
// fixed and compared as is.
func ecmpUnordered(r schema.Release) bool { return r != schema.OVN2303 }

var (
	// ecmpSelect is an ECMP group's choice in the routing or policy stage:
	// "reg8[0..15] = G; reg8[16..31] = select(...)".
	ecmpSelect = regexp.MustCompile(`reg8\[0\.\.15\] = (\d+); reg8\[16\.\.31\] = select\(`)
	// ecmpMember is a member's match in the next stage, which is all of
	// it: "reg8[0..15] == G && reg8[16..31] == M|ACTIONS".
	ecmpMember = regexp.MustCompile(`^reg8\[0\.\.15\] == (\d+) && reg8\[16\.\.31\] == (\d+)\|`)
)

// ecmpLine is a canonical line cut where canonicalECMP needs it.
type ecmpLine struct {
	dp, pipeline string
	table        int
	priority     string
	rest         string // MATCH|ACTIONS
}

func cutECMPLine(line string) (ecmpLine, bool) {
	f := strings.SplitN(line, "|", 5)
	if len(f) < 5 {
		return ecmpLine{}, false
	}
	table, err := strconv.Atoi(f[2])
	if err != nil {
		return ecmpLine{}, false
	}
	return ecmpLine{f[0], f[1], table, f[3], f[4]}, true
}

func (l ecmpLine) String() string {
	return strings.Join([]string{l.dp, l.pipeline, strconv.Itoa(l.table), l.priority, l.rest}, "|")
}

// ecmpGroup is one ECMP group of a datapath: the stage table that selects
// it and its number there.
type ecmpGroup struct {
	dp, pipeline string
	table        int
	number       string
}

// canonicalECMP renumbers the ECMP groups of a dump, and their members, so
// that two dumps that differ only in how they numbered them become equal:
// a datapath's groups selected in one table are numbered 1, 2, ... in the
// order of their selecting lines (priority, match, actions with the
// number left out), and the members of a group keep the set of member
// numbers they had, given out in the order of their lines with the member
// number left out. Lines of groups without a selecting line stay as they
// are.
func canonicalECMP(lines []string) []string {
	type selector struct {
		group ecmpGroup
		key   string
	}
	var selectors []selector
	for _, line := range lines {
		l, ok := cutECMPLine(line)
		if !ok {
			continue
		}
		if m := ecmpSelect.FindStringSubmatchIndex(l.rest); m != nil {
			key := l.priority + "|" + l.rest[:m[2]] + l.rest[m[3]:]
			selectors = append(selectors, selector{ecmpGroup{l.dp, l.pipeline, l.table, l.rest[m[2]:m[3]]}, key})
		}
	}
	slices.SortFunc(selectors, func(a, b selector) int {
		return cmp.Or(cmp.Compare(a.group.dp, b.group.dp), cmp.Compare(a.group.pipeline, b.group.pipeline),
			cmp.Compare(a.group.table, b.group.table), cmp.Compare(a.key, b.key))
	})
	renumber := map[ecmpGroup]string{}
	n := 0
	for i, s := range selectors {
		if i == 0 || !sameTable(selectors[i-1].group, s.group) {
			n = 0
		}
		// A group selected by several lines keeps the number its first
		// line gives.
		if _, done := renumber[s.group]; !done {
			n++
			renumber[s.group] = strconv.Itoa(n)
		}
	}
	// A member line is head + member number + tail; a group's members are
	// given out their numbers in the order of head + tail.
	type member struct {
		at         int
		head, tail string
	}
	byGroup := map[ecmpGroup][]member{}
	numbers := map[ecmpGroup][]int{}
	out := slices.Clone(lines)
	for i, line := range out {
		l, ok := cutECMPLine(line)
		if !ok {
			continue
		}
		if m := ecmpSelect.FindStringSubmatchIndex(l.rest); m != nil {
			if n, ok := renumber[ecmpGroup{l.dp, l.pipeline, l.table, l.rest[m[2]:m[3]]}]; ok {
				l.rest = l.rest[:m[2]] + n + l.rest[m[3]:]
				out[i] = l.String()
			}
			continue
		}
		m := ecmpMember.FindStringSubmatch(l.rest)
		if m == nil {
			continue
		}
		n, ok := renumber[ecmpGroup{l.dp, l.pipeline, l.table - 1, m[1]}]
		if !ok {
			continue
		}
		number, _ := strconv.Atoi(m[2])
		g := ecmpGroup{l.dp, l.pipeline, l.table, n}
		tail := "|" + l.rest[len(m[0]):]
		l.rest = "reg8[0..15] == " + n + " && reg8[16..31] == "
		byGroup[g] = append(byGroup[g], member{i, l.String(), tail})
		numbers[g] = append(numbers[g], number)
	}
	for g, ms := range byGroup {
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.head+a.tail, b.head+b.tail) })
		slices.Sort(numbers[g])
		for k, m := range ms {
			out[m.at] = m.head + strconv.Itoa(numbers[g][k]) + m.tail
		}
	}
	return out
}

func sameTable(a, b ecmpGroup) bool {
	return a.dp == b.dp && a.pipeline == b.pipeline && a.table == b.table
}
