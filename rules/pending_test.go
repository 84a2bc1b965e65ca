package rules_test

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/northlog/northlog/internal/reference"
)

// pendingList is one release's list of the scenarios (random topologies
// are "FAMILY/seedN") whose flows northlog does not reproduce completely
// yet, one "NAME: ..." line each.
//
// A strict list (23.03's) names, after the colon, the stages that miss
// flows: a listed scenario may miss flows but never have extra ones.
//
// A ratchet (26.03's, a release far from complete) records what each
// listed scenario reproduces, "NAME: matched M, missing N, extra K;
// STAGE, ...", the stages being those that differ: a listed scenario may
// differ from the reference but not do worse than recorded, fewer flows
// matched or more extra ones. Doing better is logged, for -write-pending
// to record. Where the reference's own flows change from one run to the
// next (26.03 picks one of two NAT entries on one external IP in hash
// order, random-nat/seed30), a hand-written ", varies V" after the counts
// lets them be worse by V, or match in some runs; -write-pending keeps it
// (malformed/seed2: which router a port listed by two routers joins is
// 26.03's hash order, and one of the two brings flows northlog lacks).
//
// In both, an unlisted scenario must match exactly, and a listed one that
// now matches must leave the list, unless it varies. -write-pending rewrites the list from
// the scenarios compared, keeping the lines of those not compared.
type pendingList struct {
	file    string
	ratchet bool

	mu      sync.Mutex
	loaded  bool
	entries map[string]pendingEntry
	// found holds, for -write-pending, what each scenario compared in this
	// run differs by; compared says which were compared.
	found    map[string]pendingEntry
	compared map[string]bool
}

// pendingEntry is one line of a pending list.
type pendingEntry struct {
	// matched, missing and extra are a ratchet's recorded counts, and
	// varies by how much the reference's flows vary between runs.
	matched, missing, extra, varies int
	// stages are the stages that miss flows (strict) or differ (ratchet),
	// as written.
	stages string
}

func newPendingList(file string, ratchet bool) *pendingList {
	return &pendingList{file: file, ratchet: ratchet}
}

// load reads the list once.
func (p *pendingList) load() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loaded {
		return nil
	}
	p.entries, p.found, p.compared = map[string]pendingEntry{}, map[string]pendingEntry{}, map[string]bool{}
	entries, err := reference.ReadList(p.file)
	if err != nil {
		return err
	}
	for name, rest := range entries {
		e := pendingEntry{stages: rest}
		if p.ratchet {
			counts, stages, _ := strings.Cut(rest, ";")
			e.stages = strings.TrimSpace(stages)
			counts, varies, hasVaries := strings.Cut(counts, ", varies ")
			_, err := fmt.Sscanf(strings.TrimSpace(counts), "matched %d, missing %d, extra %d", &e.matched, &e.missing, &e.extra)
			if err == nil && hasVaries {
				_, err = fmt.Sscanf(varies, "%d", &e.varies)
			}
			if err != nil {
				return fmt.Errorf("%s: %s: %q: want NAME: matched M, missing N, extra K[, varies V]; STAGES (%v)", p.file, name, rest, err)
			}
		}
		p.entries[name] = e
	}
	p.loaded = true
	return nil
}

// check fails unless the list accepts r as name's comparison (see
// pendingList); context, what was compared, goes with a failure.
func (p *pendingList) check(t *testing.T, name string, r reference.Report, context string) {
	t.Helper()
	p.mu.Lock()
	p.compared[name] = true
	if r.Missing > 0 || p.ratchet && r.Extra > 0 {
		e := p.entryOf(r)
		e.varies = p.entries[name].varies
		p.found[name] = e
	}
	recorded, listed := p.entries[name]
	p.mu.Unlock()
	switch {
	case r.Equal() && listed && recorded.varies > 0:
		t.Logf("%s matches the reference in this run; %s keeps it, as the reference's flows vary between runs", name, p.file)
	case r.Equal() && listed:
		t.Errorf("%s now matches the reference: remove it from %s (-write-pending)", name, p.file)
	case r.Equal():
	case !listed:
		t.Errorf("%s\nnorthlog differs from ovn-northd:\n%s", context, r)
	case !p.ratchet && r.Extra == 0:
		t.Logf("pending (%s): %d reference flows missing\n%s", recorded.stages, r.Missing, r)
	case !p.ratchet:
		t.Errorf("%s\nnorthlog has flows ovn-northd does not (a pending scenario may only miss flows):\n%s", context, r)
	case r.Matched < recorded.matched-recorded.varies || r.Extra > recorded.extra+recorded.varies:
		t.Errorf("%s\n%s got worse than %s records (matched %d, extra %d, varies %d):\n%s", context, name, p.file, recorded.matched, recorded.extra, recorded.varies, r)
	case r.Matched > recorded.matched || r.Extra < recorded.extra:
		t.Logf("better than %s records (matched %d, extra %d): record it with -write-pending\n%s", p.file, recorded.matched, recorded.extra, r)
	default:
		t.Logf("pending (%s): as recorded\n%s", recorded.stages, r)
	}
}

// entryOf is the line -write-pending writes for a scenario that compared
// as r.
func (p *pendingList) entryOf(r reference.Report) pendingEntry {
	var stages []string
	for _, st := range r.Stages {
		differs := st.Missing > 0
		if p.ratchet {
			differs = st.Missing+st.Extra > 0
		}
		if differs && !slices.Contains(stages, st.Name) {
			stages = append(stages, st.Name)
		}
	}
	return pendingEntry{matched: r.Matched, missing: r.Missing, extra: r.Extra, stages: strings.Join(stages, ", ")}
}

// save rewrites the list (-write-pending): the scenarios compared in this
// run that differ, and the lines of those not compared.
func (p *pendingList) save() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.loaded {
		return nil
	}
	entries := maps.Clone(p.found)
	for name, e := range p.entries {
		if !p.compared[name] {
			entries[name] = e
		}
	}
	var b strings.Builder
	if p.ratchet {
		b.WriteString("# Scenarios whose flows northlog does not reproduce exactly yet, with what\n")
		b.WriteString("# they reproduce and the stages that differ. A ratchet: TestDifferential*\n")
		b.WriteString("# requires every other scenario to match exactly, and these to match no fewer\n")
		b.WriteString("# reference flows and have no more extra ones (by V with \", varies V\", written\n")
		b.WriteString("# by hand where the reference's flows vary between runs). Regenerate with\n")
	} else {
		b.WriteString("# Scenarios whose reference flows northlog does not all reproduce yet, with\n")
		b.WriteString("# the stages that miss flows. TestDifferential requires every other scenario\n")
		b.WriteString("# to match exactly, and these to have no extra flow. Regenerate with\n")
	}
	b.WriteString("#   go test ./rules -run Differential -write-pending\n")
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		e := entries[name]
		switch {
		case p.ratchet && e.varies > 0:
			fmt.Fprintf(&b, "%s: matched %d, missing %d, extra %d, varies %d; %s\n", name, e.matched, e.missing, e.extra, e.varies, e.stages)
		case p.ratchet:
			fmt.Fprintf(&b, "%s: matched %d, missing %d, extra %d; %s\n", name, e.matched, e.missing, e.extra, e.stages)
		default:
			fmt.Fprintf(&b, "%s: %s\n", name, e.stages)
		}
	}
	return os.WriteFile(p.file, []byte(b.String()), 0o644)
}
