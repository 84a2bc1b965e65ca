package rules_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

var (
	malformedSeeds   = flag.Int("malformed-seeds", 4, "random topologies mutated with malformed NB input in TestDifferentialMalformed")
	malformedSeed    = flag.Int("malformed-seed", 0, "run only this seed of TestDifferentialMalformed (0: seeds 1 to -malformed-seeds)")
	malformedBatches = flag.Int("malformed-batches", 3, "batches of mutations applied to each topology in TestDifferentialMalformed, flows compared after each")
	malformedBatch   = flag.Int("malformed-batch", 5, "mutations per batch in TestDifferentialMalformed")
)

// Bounds past which a side is said to hang: the reference is then skipped,
// northlog fails the test. A reference whose NB file still grows
// referenceQuiet after a sync has not settled: its flows and NB are each
// one of the states it cycles through, and the batch is skipped.
const (
	referenceStall = 10 * time.Second
	referenceQuiet = 300 * time.Millisecond
	northlogHang   = time.Minute
)

// malformedTopology is securityTopology with routes, NAT and more router
// ports, so that every mutation finds rows to break.
func malformedTopology() reference.TopologyOptions {
	o := securityTopology()
	o.Routes, o.NATs, o.RouterPorts = 3, 3, 4
	return o
}

// TestDifferentialMalformed applies schema-valid malformed mutations
// (reference.RandomMutations) to random topologies, in batches, on the real
// ovn-northd of each release and on northlog, and compares the flows after
// each batch (named "malformed/seedN/batchM" in the pending lists).
// Northlog panicking or hanging fails the test. A batch that kills or
// stalls the reference, or after which its northd never stops rewriting the
// NB, is skipped, counted, and the reference restarted if it died; the next
// topology follows. -malformed-seeds, -malformed-batches and
// -malformed-batch set the run's size; -malformed-seed runs one seed.
func TestDifferentialMalformed(t *testing.T) {
	forEachRelease(t, "malformed batches", func(t *testing.T, rel *releaseRun) {
		var st malformedStats
		ref := launchReference(t, rel.build)
		for seed := range *malformedSeeds {
			if *malformedSeed > 0 && seed+1 != *malformedSeed {
				continue
			}
			if !ref.Alive() {
				ref = launchReference(t, rel.build)
			}
			script := reference.RandomTopology(int64(seed+1), malformedTopology())
			if _, err := ref.Run(t.Context(), script); err != nil {
				t.Fatalf("seed %d: topology: %v", seed+1, err)
			}
			rng := rand.New(rand.NewPCG(uint64(seed+1), 0x6d616c666f726d))
			var applied []reference.Mutation
			for batch := range *malformedBatches {
				names, err := ref.Names(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				muts := reference.RandomMutations(rng, names, *malformedBatch)
				if !st.apply(t, ref, muts, &applied) {
					t.Logf("seed %d batch %d: the reference died or stalled; batch skipped", seed+1, batch+1)
					st.skipped++
					break
				}
				if settled, err := ref.NBSettled(t.Context(), referenceQuiet); err != nil {
					t.Fatal(err)
				} else if !settled {
					t.Logf("seed %d batch %d: the reference keeps rewriting the NB (reference.Instance.NBSettled); batch skipped:\n%s", seed+1, batch+1, scriptOf(applied))
					st.unsettled++
					break
				}
				st.compare(t, rel, ref, fmt.Sprintf("seed%d/batch%d", seed+1, batch+1), script, applied)
			}
		}
		t.Logf("%d mutations applied (%d refused by the database), %d batches compared, %d with differences, %d differing by a duplicate port's hash order, %d skipped (reference crashed or stalled), %d skipped (reference never settles); by kind: %v",
			st.applied, st.refused, st.compared, st.differing, st.hashOrder, st.skipped, st.unsettled, st.kinds)
	})
}

// malformedStats counts what TestDifferentialMalformed did.
type malformedStats struct {
	applied, refused, compared, differing, skipped int
	// unsettled counts the batches after which the reference's northd
	// kept rewriting the NB.
	unsettled int
	// hashOrder counts the batches that differ only where a duplicate
	// port's binding depends on northd's hash order.
	hashOrder int
	kinds     map[string]int
}

func launchReference(t *testing.T, b *reference.Build) *reference.Instance {
	t.Helper()
	ref, err := b.Launch(t.Context(), filepath.Join(t.TempDir(), "ref"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ref.Close)
	return ref
}

// apply applies muts one by one, each followed by a sync, and appends the
// ones the database took to applied. It returns false when the reference
// died or stalled.
func (st *malformedStats) apply(t *testing.T, ref *reference.Instance, muts []reference.Mutation, applied *[]reference.Mutation) bool {
	if st.kinds == nil {
		st.kinds = map[string]int{}
	}
	for _, m := range muts {
		ctx, cancel := context.WithTimeout(t.Context(), referenceStall)
		err := ref.Apply(ctx, m.Script)
		stalled := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case stalled || !ref.Alive():
			t.Logf("reference broken by %s: %v", strings.TrimSpace(m.Script), err)
			ref.Close()
			return false
		case err != nil:
			st.refused++
			t.Logf("refused: %v", err)
		default:
			st.applied++
			st.kinds[m.Kind]++
			*applied = append(*applied, m)
		}
	}
	return true
}

// compare computes northlog's flows from the reference's NB file, failing
// on a panic or a hang, and checks them against the reference's flows as
// the release's pending list says, with the script that led to them.
func (st *malformedStats) compare(t *testing.T, rel *releaseRun, ref *reference.Instance, what, topology string, applied []reference.Mutation) {
	t.Helper()
	want, err := ref.Flows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	chassis, err := ref.ChassisOtherConfigs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got, err := computeGuarded(ref.NBFile(), relations.FeaturesOf(slices.Values(chassis)))
	if err != nil {
		t.Fatalf("%s: %v\ntopology:\n%s\nmutations:\n%s", what, err, topology, scriptOf(applied))
	}
	st.compared++
	r := rel.compare(want, got)
	if !r.Equal() {
		if claims := hashOrderClaims(t, rel, ref); len(claims.ports) > 0 {
			stages := rules.StagesOf(rel.release)
			rest := rel.compare(claims.without(want, stages), claims.without(got, stages))
			if rest.Equal() {
				st.hashOrder++
				t.Logf("%s: differs only in the flows of ports claimed by datapaths that northd walks in an order the NB does not tell (relations compareClaims), %v:\n%s",
					what, claims.ports, r)
				return
			}
			t.Logf("%s: differs beyond the flows of ports claimed in hash order %v:\n%s", what, claims.ports, rest)
		}
		st.differing++
	}
	rel.check(t, "malformed/"+what, r, fmt.Sprintf("%s:\ntopology:\n%s\nmutations:\n%s", what, topology, scriptOf(applied)))
}

// claimsByHashOrder are the ports whose binding depends on the order
// northd walks its datapaths in (hashOrderClaims).
type claimsByHashOrder struct {
	// ports holds each such port with the names of the datapaths that
	// claim it.
	ports map[string][]string
	// routerPorts are the router ports that the claiming switches' router
	// ports connect to: the neighbours a router resolves through them
	// (lr_in_arp_resolve) are the ports on that switch.
	routerPorts []string
	// peerSwitches are the switches whose router ports connect to a
	// claimed router port: the flows they flood ARP and ND requests for
	// its addresses with (ls_in_l2_lkup, priorities 75 and 80;
	// build_lswitch_rport_arp_req_flows) hold those of the router that
	// binds it, its NAT external MACs and IPs among them.
	peerSwitches []string
}

// hashOrderClaims are the ports whose binding depends on the order
// northd walks its datapaths in, each with the names of the datapaths that
// claim it. For 23.03 those are the ports whose first two claims, in that
// walk, are in one bucket of its datapaths table
// (relations.DatapathBucket). Later releases keep switches and routers in
// tables of their own, whose buckets northlog does not model: any port
// claimed twice is taken to depend on them.
func hashOrderClaims(t *testing.T, rel *releaseRun, ref *reference.Instance) claimsByHashOrder {
	claims, names, err := ref.PortClaims(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	peers, err := ref.RouterPeers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := claimsByHashOrder{ports: map[string][]string{}}
	for port, dps := range claims {
		if len(dps) < 2 {
			continue
		}
		buckets := make([]uint32, len(dps))
		for i, dp := range dps {
			buckets[i] = relations.DatapathBucket(dp, len(names))
		}
		slices.Sort(buckets)
		if rel.release != schema.OVN2303 || buckets[0] == buckets[1] {
			for _, dp := range dps {
				out.ports[port] = append(out.ports[port], names[dp])
				out.routerPorts = append(out.routerPorts, peers[dp]...)
			}
		}
	}
	for sw, lrps := range peers {
		if slices.ContainsFunc(lrps, func(lrp string) bool { return out.ports[lrp] != nil }) {
			out.peerSwitches = append(out.peerSwitches, names[sw])
		}
	}
	return out
}

// without leaves out of canonical flows, in stage table t, those the
// claims of ports by datapaths decide: the flows of those datapaths, any
// flow that names one of the ports (its peer's, its routes'), the
// neighbour resolution through the router ports attached to those
// datapaths, and the ARP and ND flooding for claimed router ports on the
// switches they connect to.
func (c claimsByHashOrder) without(flows []string, t *rules.StageTable) []string {
	resolve := fmt.Sprintf("|ingress|%d|", t.Table(rules.LRInARPResolve))
	l2Lookup := t.Table(rules.LSInL2Lkup)
	flooding := []string{fmt.Sprintf("|ingress|%d|75|", l2Lookup), fmt.Sprintf("|ingress|%d|80|", l2Lookup)}
	return slices.DeleteFunc(slices.Clone(flows), func(line string) bool {
		dp, rest, _ := strings.Cut(line, "|")
		for port, dps := range c.ports {
			if slices.Contains(dps, dp) || strings.Contains(line, strconv.Quote(port)) {
				return true
			}
		}
		if slices.Contains(c.peerSwitches, dp) && slices.ContainsFunc(flooding, func(p string) bool { return strings.HasPrefix("|"+rest, p) }) {
			return true
		}
		if strings.Contains(line, resolve) {
			for _, lrp := range c.routerPorts {
				if strings.Contains(line, "outport == "+strconv.Quote(lrp)) {
					return true
				}
			}
		}
		return false
	})
}

// computeGuarded is ovsdb.ComputeWithFeatures' canonical flows, with a
// panic or a run longer than northlogHang turned into an error.
func computeGuarded(nbFile string, f relations.Features) ([]string, error) {
	type result struct {
		flows []string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("northlog panicked: %v", p)}
			}
		}()
		out, err := ovsdb.ComputeWithFeatures(nbFile, f)
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{flows: out.Canonical()}
	}()
	select {
	case r := <-done:
		return r.flows, r.err
	case <-time.After(northlogHang):
		return nil, fmt.Errorf("northlog hangs: no flows after %v", northlogHang)
	}
}

func scriptOf(muts []reference.Mutation) string {
	var b strings.Builder
	for _, m := range muts {
		b.WriteString(m.Script)
	}
	return b.String()
}
