package rules_test

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

var (
	randomSeeds   = flag.Int("random-seeds", 50, "random topologies compared with the reference in TestDifferentialRandom")
	securitySeeds = flag.Int("security-seeds", 50, "random topologies with ACLs, port groups, address sets and load balancers compared with the reference in TestDifferentialRandomSecurity")
	newerSeeds    = flag.Int("newer-seeds", 10, "at most this many random topologies of each family compared with the references newer than 23.03")
	writePending  = flag.Bool("write-pending", false, "rewrite each release's pending list (testdata/pending*.txt) from the scenarios compared")
)

// TestDifferential runs every scenario under testdata/scenarios on the real
// ovn-northd of each release and on northlog (offline, from the same NB
// database file) and requires the same logical flows, as each release's
// pending list allows. With -v it prints, per scenario and in total, how
// many reference flows northlog reproduces, and every NB column northd
// 23.03 reads must be set by some scenario (nbCoverage).
func TestDifferential(t *testing.T) {
	scenarios, err := reference.LoadScenarios("testdata/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	forEachRelease(t, "all scenarios", func(t *testing.T, rel *releaseRun) {
		ref := rel.build.Start(t)
		var coverage nbCoverage
		applicable := 0
		for _, sc := range scenarios {
			if !sc.AppliesTo(rel.release) {
				continue
			}
			applicable++
			t.Run(sc.Name, func(t *testing.T) {
				rel.check(t, sc.Name, compareScenario(t, rel, ref, sc.Name, sc.Script), sc.Description)
				if err := coverage.add(sc.Name, ref.NBFile()); err != nil {
					t.Fatal(err)
				}
			})
		}
		coverage.check(t, rel.release, applicable)
	})
}

// TestMain rewrites the pending lists after the differential tests when
// asked to (-write-pending), and prints each release's totals.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	for _, rel := range releaseRuns {
		if total := rel.totals(); total.Expected+total.Extra > 0 {
			fmt.Printf("differential %s: %s\n", rel.release, summary(total))
		}
		if *writePending {
			if err := rel.pending.save(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				code = 1
			}
		}
	}
	os.Exit(code)
}

// releaseRun is what the differential tests compare against for one
// release: its reference build, its pending list and the totals so far.
type releaseRun struct {
	release schema.Release
	build   *reference.Build
	pending *pendingList
	mu      sync.Mutex
	total   reference.Report
}

// releaseRuns are the releases the differential tests compare, oldest
// first. 23.03's pending scenarios may only miss flows; 26.03's list is a
// ratchet, since its flows are far from complete.
var releaseRuns = []*releaseRun{
	newReleaseRun(schema.OVN2303, "testdata/pending.txt", false),
	newReleaseRun(schema.OVN2603, "testdata/pending-26.03.txt", true),
}

func newReleaseRun(r schema.Release, pendingFile string, ratchet bool) *releaseRun {
	return &releaseRun{release: r, build: reference.BuildOf(r), pending: newPendingList(pendingFile, ratchet)}
}

// forEachRelease runs f as a subtest named after each release (so
// TestDifferential/26.03/NAME), after skipping it, or failing it under
// CI=true, when that release's reference build is missing, and logs the
// release's totals of the comparisons f made as "RELEASE WHAT: N of M
// reference flows reproduced, K extra".
func forEachRelease(t *testing.T, what string, f func(t *testing.T, rel *releaseRun)) {
	for _, rel := range releaseRuns {
		t.Run(rel.release.String(), func(t *testing.T) {
			rel.build.Require(t)
			if err := rel.pending.load(); err != nil {
				t.Fatal(err)
			}
			before := rel.totals()
			f(t, rel)
			t.Logf("%s %s: %s", rel.release, what, summary(subtract(rel.totals(), before)))
		})
	}
}

// topology is opts without what rel's NB schema lacks or its northd does
// not read: ACL tiers, sampling, network functions, 26.03's load
// balancer features and dynamic routing before 26.03.
func (rel *releaseRun) topology(opts reference.TopologyOptions) reference.TopologyOptions {
	opts.ACLTiers = opts.ACLTiers && rel.release >= schema.OVN2603
	opts.ACLSampling = opts.ACLSampling && rel.release >= schema.OVN2603
	opts.NetworkFunctions = opts.NetworkFunctions && rel.release >= schema.OVN2603
	opts.LB2603 = opts.LB2603 && rel.release >= schema.OVN2603
	opts.DynamicRouting = opts.DynamicRouting && rel.release >= schema.OVN2603
	return opts
}

// seeds is how many random topologies of a family whose flag says n
// the release compares: n for 23.03, at most -newer-seeds for the others.
func (rel *releaseRun) seeds(n int) int {
	if rel.release == schema.OVN2303 {
		return n
	}
	return min(n, *newerSeeds)
}

// TestDifferentialRandom compares random topologies from the harness
// generator (with dynamic routing and EVPN on 26.03), a fixed list of
// seeds (-random-seeds sets how many).
func TestDifferentialRandom(t *testing.T) {
	opts := reference.DefaultTopology()
	opts.DynamicRouting = true
	compareRandom(t, "random", *randomSeeds, opts)
}

// securityTopology is DefaultTopology with address sets, port groups, ACLs
// on switches and port groups, and load balancers on switches, routers and
// load balancer groups.
func securityTopology() reference.TopologyOptions {
	o := reference.DefaultTopology()
	o.AddressSets, o.PortGroups, o.ACLs, o.LoadBalancers = 3, 3, 4, 4
	return o
}

// TestDifferentialRandomSecurity compares random topologies with security
// groups (ACLs of every action and option, tiers, pass, sampling and
// network function groups on 26.03, on switches and on port groups whose members span switches,
// matching address sets and port groups' address sets) and load balancers
// (IPv4 and IPv6 VIPs, protocols, no backends, health checks, the load balancer options;
// on 26.03 stateless NAT, distributed and remote backends) on switches (EVPN ones on 26.03), gateway routers,
// routers with a distributed gateway port and load balancer groups, a fixed
// list of seeds (-security-seeds sets how many).
func TestDifferentialRandomSecurity(t *testing.T) {
	opts := securityTopology()
	opts.ACLTiers, opts.ACLSampling, opts.NetworkFunctions, opts.LB2603, opts.DynamicRouting = true, true, true, true, true
	compareRandom(t, "random-security", *securitySeeds, opts)
}

// compareRandom compares, for each release, the random topologies of seeds
// 1..N drawn with opts (N as releaseRun.seeds says); they are named
// "PREFIX/seedN" in the pending lists.
func compareRandom(t *testing.T, prefix string, seeds int, opts reference.TopologyOptions) {
	forEachRelease(t, prefix+" topologies", func(t *testing.T, rel *releaseRun) {
		ref := rel.build.Start(t)
		for seed := range rel.seeds(seeds) {
			name := fmt.Sprint("seed", seed+1)
			t.Run(name, func(t *testing.T) {
				script := reference.RandomTopology(int64(seed+1), rel.topology(opts))
				rel.check(t, prefix+"/"+name, compareScenario(t, rel, ref, prefix+"/"+name, script), "topology:\n"+script)
			})
		}
	})
}

// compareScenario applies script (scenario name) to the reference,
// computes northlog's flows from the reference's NB file, the chassis
// features and learnt routes of its SB, and compares them, stage-hints
// too.
func compareScenario(t *testing.T, rel *releaseRun, ref *reference.Instance, name, script string) reference.Report {
	t.Helper()
	want, err := ref.Run(t.Context(), script)
	if err != nil {
		t.Fatal(err)
	}
	chassis, err := ref.Chassis(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var otherConfigs []map[string]string
	var remote []relations.Chassis
	for _, c := range chassis {
		otherConfigs = append(otherConfigs, c.OtherConfig)
		remote = append(remote, relations.Chassis{UUID: c.UUID, Name: c.Name, Hostname: c.Hostname,
			Remote: relations.SmapBool(c.OtherConfig, "is-remote", false)})
	}
	features := relations.FeaturesOf(slices.Values(otherConfigs))
	queues, err := ref.QueueIDs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got, err := ovsdb.Compute(ref.NBFile(), ovsdb.ComputeOptions{Features: &features, LearnedRoutes: learnedRoutes(t, rel, ref), QueueIDs: queues,
		RemoteChassisNames: relations.RemoteChassisNames(remote)})
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Stages.Release(); r != rel.release {
		t.Fatalf("northlog computed %s's flows from the %s reference's NB file", r, rel.release)
	}
	for _, r := range got.Rejected {
		t.Logf("rejected: %v", r)
	}
	r := rel.compare(want, got.Canonical())
	wantHints, err := ref.FlowHints(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	diffs := reference.CompareHints(rules.StagesOf(rel.release), wantHints, got.StageHints())
	switch {
	case len(diffs) == 0:
	case !r.Equal():
		// A pending scenario's flows are not settled yet: which rule a
		// flow comes from is checked once they are.
		t.Logf("%d flows' stage-hint differs from the reference's (flows still pending):\n%s", len(diffs), strings.Join(diffs, "\n"))
	default:
		t.Errorf("%d flows' stage-hint differs from the reference's:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
	wantTags, err := ref.FlowTags(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diffs := tagDiffs(wantTags, got.FlowTags()); len(diffs) > 0 {
		t.Errorf("%d flows' tags or flow_desc differ from the reference's:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
	t.Logf("%s", summary(r))
	return r
}

// tagDiffs describes the flows that both the reference's SB (want) and
// northlog (got) have whose tags and flow_desc (rules.TagsLine) are not
// among those northlog's flows of that text carry. Flows on one side only
// are the canonical comparison's concern.
func tagDiffs(want map[string]string, got map[string][]string) []string {
	var diffs []string
	for _, line := range slices.Sorted(maps.Keys(want)) {
		if tags, ok := got[line]; ok && !slices.Contains(tags, want[line]) {
			diffs = append(diffs, fmt.Sprintf("%s\n  reference: %s\n  northlog:  %s", line, want[line], strings.Join(tags, " or ")))
		}
	}
	return diffs
}

// learnedRoutes are the SB Learned_Route rows a scenario gave the
// reference, for the releases that read them.
func learnedRoutes(t *testing.T, rel *releaseRun, ref *reference.Instance) []relations.LearnedRoute {
	t.Helper()
	if !relations.ReadsDynamicRouting(rel.release) {
		return nil
	}
	rows, err := ref.LearnedRoutes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]relations.LearnedRoute, len(rows))
	for i, r := range rows {
		out[i] = relations.LearnedRoute{Row: r.Row, Datapath: r.Router, Port: r.Port, Prefix: r.Prefix, Nexthop: r.Nexthop}
	}
	return out
}

// compare compares the reference's flows with northlog's in the release's
// stage table.
func (rel *releaseRun) compare(want, got []string) reference.Report {
	return reference.CompareIn(rules.StagesOf(rel.release), want, got)
}

// check adds r to the release's totals and fails unless the release's
// pending list accepts it (pendingList.check); context, what was compared,
// goes with a failure.
func (rel *releaseRun) check(t *testing.T, name string, r reference.Report, context string) {
	t.Helper()
	rel.mu.Lock()
	rel.total = add(rel.total, r)
	rel.mu.Unlock()
	rel.pending.check(t, name, r, context)
}

func (rel *releaseRun) totals() reference.Report {
	rel.mu.Lock()
	defer rel.mu.Unlock()
	return rel.total
}

// add is the sum of two reports' totals.
func add(a, b reference.Report) reference.Report {
	return reference.Report{Expected: a.Expected + b.Expected, Matched: a.Matched + b.Matched,
		Missing: a.Missing + b.Missing, Extra: a.Extra + b.Extra}
}

// subtract is the difference of two reports' totals.
func subtract(a, b reference.Report) reference.Report {
	return reference.Report{Expected: a.Expected - b.Expected, Matched: a.Matched - b.Matched,
		Missing: a.Missing - b.Missing, Extra: a.Extra - b.Extra}
}

func summary(r reference.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d reference flows reproduced, %d extra", r.Matched, r.Expected, r.Extra)
	return b.String()
}
