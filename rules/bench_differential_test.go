package rules_test

import (
	"os"
	"path/filepath"
	"testing"

	benchtopology "github.com/northlog/northlog/bench/topology"
)

// TestDifferentialBench compares the benchmark's ovn-kubernetes-like
// topology (bench/topology, preset small: node switches full of pods,
// gateway routers, a cluster load balancer group, network policies) with
// each release's reference, as "bench/small" in the pending lists. The
// topology's transactions are too big for one script argument, so the
// script reads them from a file, one ovsdb-client call each, as
// bench/cmd/compare loads them, and stops at the first that fails.
func TestDifferentialBench(t *testing.T) {
	top, err := benchtopology.Generate(benchtopology.Small())
	if err != nil {
		t.Fatal(err)
	}
	txFile := filepath.Join(t.TempDir(), "transactions.jsonl")
	f, err := os.Create(txFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := top.WriteJSONLines(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	script := `while read -r tx; do
	out=$(ovsdb-client transact "$OVN_NB_DB" "$tx")
	case $out in *'"error"'*) echo "$out" >&2; exit 1;; esac
done < "` + txFile + `"`
	forEachRelease(t, "bench topology", func(t *testing.T, rel *releaseRun) {
		ref := rel.build.Start(t)
		rel.check(t, "bench/small", compareScenario(t, rel, ref, "bench/small", script), "bench/topology.Small()")
	})
}
