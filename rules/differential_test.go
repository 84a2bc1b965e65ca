package rules_test

import (
	"bufio"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/relations"
)

var (
	randomSeeds   = flag.Int("random-seeds", 50, "random topologies compared with the reference in TestDifferentialRandom")
	securitySeeds = flag.Int("security-seeds", 50, "random topologies with ACLs, port groups, address sets and load balancers compared with the reference in TestDifferentialRandomSecurity")
	writePending  = flag.Bool("write-pending", false, "rewrite testdata/pending.txt with the scenarios that miss reference flows and the stages they miss")
)

// TestDifferential runs every scenario under testdata/scenarios on the real
// ovn-northd 23.03 and on northlog (offline, from the same NB database file)
// and requires the same logical flows. With -v it prints, per scenario and in
// total, how many reference flows northlog reproduces.
func TestDifferential(t *testing.T) {
	ref := reference.Start(t)
	scenarios, err := reference.LoadScenarios("testdata/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	pending := loadPending(t)
	var total reference.Report
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			r := compareScenario(t, ref, sc.Script)
			addTotals(&total, r)
			checkReport(t, r, sc.Name, pending, sc.Description)
		})
	}
	t.Logf("all scenarios: %s", summary(total))
}

// TestMain rewrites testdata/pending.txt after the differential tests when
// asked to (-write-pending).
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if *writePending {
		if err := savePending(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// incomplete collects, for -write-pending, the stages each scenario misses.
var incomplete = map[string][]string{}

func savePending() error {
	var b strings.Builder
	b.WriteString("# Scenarios whose reference flows northlog does not all reproduce yet, with\n")
	b.WriteString("# the stages that miss flows. TestDifferential requires every other scenario\n")
	b.WriteString("# to match exactly, and these to have no extra flow. Regenerate with\n")
	b.WriteString("#   go test ./rules -run Differential -write-pending\n")
	for _, name := range slices.Sorted(maps.Keys(incomplete)) {
		fmt.Fprintf(&b, "%s: %s\n", name, strings.Join(incomplete[name], ", "))
	}
	return os.WriteFile("testdata/pending.txt", []byte(b.String()), 0o644)
}

// TestDifferentialRandom compares random topologies from the harness
// generator, a fixed list of seeds (-random-seeds sets how many).
func TestDifferentialRandom(t *testing.T) {
	compareRandom(t, "random", *randomSeeds, reference.DefaultTopology())
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
// groups (ACLs of every action and option, on switches and on port groups
// whose members span switches, matching address sets and port groups' address
// sets) and load balancers (IPv4 and IPv6 VIPs, protocols, no backends,
// health checks, the load balancer options) on switches, gateway routers,
// routers with a distributed gateway port and load balancer groups, a fixed
// list of seeds (-security-seeds sets how many).
func TestDifferentialRandomSecurity(t *testing.T) {
	compareRandom(t, "random-security", *securitySeeds, securityTopology())
}

// compareRandom compares the random topologies of seeds 1..seeds drawn with
// opts; they are named "PREFIX/seedN" in testdata/pending.txt.
func compareRandom(t *testing.T, prefix string, seeds int, opts reference.TopologyOptions) {
	ref := reference.Start(t)
	pending := loadPending(t)
	var total reference.Report
	for seed := range seeds {
		name := fmt.Sprint("seed", seed+1)
		t.Run(name, func(t *testing.T) {
			script := reference.RandomTopology(int64(seed+1), opts)
			r := compareScenario(t, ref, script)
			addTotals(&total, r)
			checkReport(t, r, prefix+"/"+name, pending, "topology:\n"+script)
		})
	}
	t.Logf("%s topologies: %s", prefix, summary(total))
}

// compareScenario applies script to the reference, computes northlog's flows
// from the reference's NB file and the chassis features of its SB, and
// compares them.
func compareScenario(t *testing.T, ref *reference.Instance, script string) reference.Report {
	t.Helper()
	want, err := ref.Run(t.Context(), script)
	if err != nil {
		t.Fatal(err)
	}
	chassis, err := ref.ChassisOtherConfigs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got, err := ovsdb.ComputeWithFeatures(ref.NBFile(), relations.FeaturesOf(slices.Values(chassis)))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got.Rejected {
		t.Logf("rejected: %v", r)
	}
	r := reference.Compare(want, got.Canonical())
	t.Logf("%s", summary(r))
	return r
}

// loadPending reads testdata/pending.txt: the scenarios whose flows northlog
// does not reproduce completely yet, one "NAME: what is missing" per line
// (random topologies are "random/seedN").
func loadPending(t *testing.T) map[string]string {
	f, err := os.Open("testdata/pending.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pending := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, why, _ := strings.Cut(line, ":")
		pending[strings.TrimSpace(name)] = strings.TrimSpace(why)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pending
}

// checkReport fails unless northlog's flows equal the reference's. A pending
// scenario may miss flows (it is logged) but never have extra ones, and must
// leave the pending list once it is complete.
func checkReport(t *testing.T, r reference.Report, name string, pending map[string]string, context string) {
	t.Helper()
	if *writePending && r.Missing > 0 {
		for _, st := range r.Stages {
			if st.Missing > 0 && !slices.Contains(incomplete[name], st.Name) {
				incomplete[name] = append(incomplete[name], st.Name)
			}
		}
	}
	why, isPending := pending[name]
	switch {
	case r.Equal() && isPending:
		t.Errorf("%s now matches the reference: remove it from testdata/pending.txt", name)
	case r.Equal():
	case isPending && r.Extra == 0:
		t.Logf("pending (%s): %d reference flows missing\n%s", why, r.Missing, r)
	default:
		t.Errorf("%s\nnorthlog differs from ovn-northd:\n%s", context, r)
	}
}

func addTotals(total *reference.Report, r reference.Report) {
	total.Expected += r.Expected
	total.Matched += r.Matched
	total.Missing += r.Missing
	total.Extra += r.Extra
}

func summary(r reference.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d reference flows reproduced, %d extra", r.Matched, r.Expected, r.Extra)
	return b.String()
}
