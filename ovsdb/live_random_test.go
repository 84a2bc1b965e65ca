package ovsdb

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

var liveRandomSeeds = flag.Int("live-random-seeds", 2, "random change sequences per release in TestLiveRandomChanges")

// randomChangesTopology is what TestLiveRandomChanges builds: a few
// switches and routers with routes, policies, NAT, security groups and
// load balancers, and ACL tiers where the release's NB has them.
func randomChangesTopology(r schema.Release) reference.TopologyOptions {
	o := reference.DefaultTopology()
	o.Routes, o.Policies, o.NATs = 2, 2, 2
	o.AddressSets, o.PortGroups, o.ACLs, o.LoadBalancers = 2, 2, 3, 3
	o.ACLTiers = r != schema.OVN2303
	return o
}

// TestLiveRandomChanges runs random change sequences side by side on each
// release's ovn-northd and a live northlog, each on servers of that
// release: a random topology built one ovn-nbctl transaction at a time,
// then its ports disabled and its ports, router ports, switches and
// routers deleted in random order until the NB is empty. After every step
// both SBs are compared: the live SB's flows with the reference's — or,
// for an NB whose flows the release's rules do not reproduce yet (a
// release with a non-empty pending list, rules/testdata), with northlog's
// own offline computation from the live NB — and the rows of ownedTables
// and datapathTables with the reference's.
func TestLiveRandomChanges(t *testing.T) {
	t.Parallel()
	forEachReleaseBeside(t, func(t *testing.T, build *reference.Build, b *beside, pending map[string]string) {
		r := build.Release()
		for seed := range int64(*liveRandomSeeds) {
			t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
				b.run(t, "true")
				steps := reference.ScriptSteps(reference.RandomTopology(seed, randomChangesTopology(r)))
				var n stepCounts
				for i, step := range steps {
					b.compareStep(t, fmt.Sprintf("build step %d", i), step, len(pending) == 0, &n)
				}
				names, err := b.ref.Names(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				teardown := teardownSteps(rand.New(rand.NewPCG(uint64(seed), 0x7465617264)), names)
				for i, step := range teardown {
					b.compareStep(t, fmt.Sprintf("teardown step %d", i), step, len(pending) == 0, &n)
				}
				t.Logf("%d steps: %d with the reference's flows, %d with the same flows but for choices by NB UUIDs, %d pending",
					len(steps)+len(teardown), n.same, n.uuidOrder, n.pending)
			})
		}
	})
}

// teardownSteps changes and deletes what names lists, one ovn-nbctl
// transaction a step, in random order: a third of the switch ports are
// disabled first; then every switch port, router port, switch and router
// is deleted (--if-exists: deleting a switch or router deletes its ports).
func teardownSteps(rng *rand.Rand, names reference.NBNames) []string {
	var disable, del []string
	for _, p := range names.SwitchPorts {
		if rng.IntN(3) == 0 {
			disable = append(disable, "ovn-nbctl lsp-set-enabled "+p+" disabled\n")
		}
		del = append(del, "ovn-nbctl --if-exists lsp-del "+p+"\n")
	}
	for _, p := range names.RouterPorts {
		del = append(del, "ovn-nbctl --if-exists lrp-del "+p+"\n")
	}
	for _, s := range names.Switches {
		del = append(del, "ovn-nbctl --if-exists ls-del "+s+"\n")
	}
	for _, r := range names.Routers {
		del = append(del, "ovn-nbctl --if-exists lr-del "+r+"\n")
	}
	rng.Shuffle(len(disable), func(i, j int) { disable[i], disable[j] = disable[j], disable[i] })
	rng.Shuffle(len(del), func(i, j int) { del[i], del[j] = del[j], del[i] })
	return append(disable, del...)
}

// compareStep applies change to both NBs, waits until both northds have
// written their SBs, and compares them (TestLiveRandomChanges). The live
// SB's flows must be the reference's, or else the flows northlog computes
// offline from the live NB, while northlog's offline flows from the
// reference's NB are the reference's: the two NBs differ in their UUIDs,
// and 23.03 orders some choices by them (which of a router's distributed
// gateway ports its load balancers use). Without exact, that last check
// only logs, for the NBs whose flows the rules do not reproduce yet. The
// reference recomputes after each change: 26.03.2's incremental
// processing leaves out the multicast groups of a switch created with its
// ports in one transaction, which its recompute writes.
func (b *beside) compareStep(t *testing.T, name, change string, exact bool, n *stepCounts) {
	t.Helper()
	if err := b.ref.Apply(t.Context(), change+`ovn-appctl -t "$OVN_RUNDIR/northd.ctl" inc-engine/recompute`+"\n"); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b.live.t = t
	b.live.script(change)
	b.live.sync()
	refSB, liveSB := dumpSB(t, b.ref.SBRemote()), dumpSB(t, b.live.SBRemote())
	for _, tables := range [][]string{ownedTables, datapathTables} {
		if r := reference.Compare(ownedRows(t, refSB, tables), ownedRows(t, liveSB, tables)); !r.Equal() {
			t.Fatalf("%s: %s\n%s rows differ from the reference's (- reference, + northlog):\n%s", name, change,
				strings.Join(tables, ", "), rowDiff(r))
		}
	}
	want, got := withoutACLUUIDs(sbFlows(t, refSB)), withoutACLUUIDs(sbFlows(t, liveSB))
	if reference.Compare(want, got).Equal() {
		n.same++
		return
	}
	if r := reference.Compare(withoutACLUUIDs(offlineFlows(t, b.live)), got); !r.Equal() {
		t.Fatalf("%s: %s\nlive SB differs from northlog offline:\n%s\n%s", name, change, r, rowDiff(r))
	}
	features := chassisFeatures(t, b.ref.SBRemote())
	o, err := ComputeWithFeatures(b.ref.NBFile(), features)
	if err != nil {
		t.Fatal(err)
	}
	switch r := reference.Compare(want, withoutACLUUIDs(o.Canonical())); {
	case r.Equal():
		n.uuidOrder++
	case exact:
		t.Fatalf("%s: %s\nnorthlog's flows from the reference's NB differ from the reference's:\n%s\n%s", name, change, r, rowDiff(r))
	default:
		n.pending++
	}
}

// stepCounts counts TestLiveRandomChanges's steps by how the live SB's
// flows compared (compareStep).
type stepCounts struct {
	// same: the reference's flows; uuidOrder: northlog's from the live NB,
	// the reference's from its NB; pending: northlog's from the live NB,
	// not yet the reference's.
	same, uuidOrder, pending int
}

// withoutACLUUIDs is lines with the ACL UUIDs in fair meter names written
// "*" (aclMeterName), sorted again.
func withoutACLUUIDs(lines []string) []string {
	for i, l := range lines {
		lines[i] = aclMeterName.ReplaceAllString(l, `__*"`)
	}
	slices.Sort(lines)
	return lines
}
