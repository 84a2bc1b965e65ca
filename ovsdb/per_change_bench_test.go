package ovsdb

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/northlog/northlog/bench/topology"
	"github.com/northlog/northlog/internal/cputime"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// perChangeSizes are BenchmarkPerChange's topologies, named by their
// switch ports: bench/README.md's scaling table.
var perChangeSizes = []struct {
	name string
	opts func() topology.Options
}{
	{"ports=1k", func() topology.Options { o := topology.Large(); o.Nodes = 20; return o }},
	{"ports=5k", topology.Large},
	{"ports=25k", topology.XLarge},
	{"ports=100k", topology.Huge},
}

// BenchmarkPerChange measures what one pod port costs northlog's program
// on the bench topology (bench/topology, generated here, loaded and
// stepped once before the timer starts): each iteration is an `ovn-nbctl
// lsp-add` of a pod port to a node switch (the new Logical_Switch_Port
// row and the switch's ports rewritten) and its `lsp-del`, each followed
// by one Step, the node switch taking turns. It reports cpu-ns/change
// (process CPU per change, garbage collection included), step-cpu-ns/change
// (the steps' own, on their thread's clock) and flows/change (flows
// inserted plus deleted per change). Live, the read loops and servers
// evict the program's state from the caches between two changes: with
// -per-change-evict MiB the benchmark writes that much before each step,
// and the step pays the same cache misses. The read loops, JSON decoding
// and the SB writer are not in it: it is the engine's share of a change.
// Each release's program is measured, on an NB of that release's schema.
// The measured steps carry the profiler label phase=change, for
// `go tool pprof -tagfocus phase=change`.
//
//	go test ./ovsdb -run XXX -bench 'PerChange/release=26.03/ports=25k' -benchtime 200x
//	go test ./ovsdb -run XXX -bench 'PerChange/release=26.03/ports=25k' -benchtime 200x -per-change-evict 64
func BenchmarkPerChange(b *testing.B) {
	eachPerChangeSize(b, benchPerChange)
}

// eachPerChangeSize runs bench as sub-benchmarks release=R/SIZE, for
// every release and each of perChangeSizes' topologies, generated.
func eachPerChangeSize(b *testing.B, bench func(*testing.B, *topology.Topology, schema.Release)) {
	for _, release := range schema.Releases() {
		b.Run("release="+release.String(), func(b *testing.B) {
			for _, size := range perChangeSizes {
				b.Run(size.name, func(b *testing.B) {
					topo, err := topology.Generate(size.opts())
					if err != nil {
						b.Fatal(err)
					}
					bench(b, topo, release)
				})
			}
		})
	}
}

var perChangeEvict = flag.Int("per-change-evict", 0, "BenchmarkPerChange: write this many MiB before each step, as the live northd's read loops and the servers do between two changes, so that the step reads the program's state from memory rather than from the caches")

func benchPerChange(b *testing.B, topo *topology.Topology, release schema.Release) {
	p, switches := loadTopology(b, topo, release)
	p.Step()
	apply := func(table string, old, new any) {
		if err := p.NB.Apply(table, old, new); err != nil {
			b.Fatal(err)
		}
	}
	evict := make([]byte, *perChangeEvict<<20)
	var steps time.Duration
	step := func() int {
		evictCaches(evict)
		start := cputime.Thread()
		p.Step()
		steps += cputime.Thread() - start
		return len(p.Flows.Delta())
	}
	// The thread's clock measures the steps alone.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	changes := 0
	cputime.BenchChanges(b, "change", func() (int, int) {
		ls, lsp, with := sparePortChange(topo, switches, changes)
		applyPortAdd(apply, ls, lsp, with)
		flows := step()
		applyPortDel(apply, ls, lsp, with)
		flows += step()
		changes += 2
		return flows, 2
	})
	b.ReportMetric(float64(steps.Nanoseconds())/float64(changes), "step-cpu-ns/change")
}

// sparePortChange returns the pod port of topo's spare ports that the
// changes'th change adds (`ovn-nbctl lsp-add` with addresses and port
// security): its switch as it is, the port, and the switch with it.
func sparePortChange(topo *topology.Topology, switches map[string]*nb.LogicalSwitch, changes int) (ls *nb.LogicalSwitch, lsp *nb.LogicalSwitchPort, with *nb.LogicalSwitch) {
	spare := topo.SparePort(changes / 2)
	ls = switches[spare.Switch]
	lsp = &nb.LogicalSwitchPort{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", changes), Name: spare.Name,
		Addresses: []string{spare.Addresses}, PortSecurity: []string{spare.Addresses}}
	w := *ls
	w.Ports = append(slices.Clone(ls.Ports), lsp.UUID)
	return ls, lsp, &w
}

// applyPortAdd applies the add of sparePortChange's port, applyPortDel
// its delete, as the NB's update would.
func applyPortAdd(apply func(table string, old, new any), ls *nb.LogicalSwitch, lsp *nb.LogicalSwitchPort, with *nb.LogicalSwitch) {
	apply(nb.LogicalSwitchPortTable, nil, lsp)
	apply(nb.LogicalSwitchTable, ls, with)
}

func applyPortDel(apply func(table string, old, new any), ls *nb.LogicalSwitch, lsp *nb.LogicalSwitchPort, with *nb.LogicalSwitch) {
	apply(nb.LogicalSwitchTable, with, ls)
	apply(nb.LogicalSwitchPortTable, lsp, nil)
}

// loadTopology loads topo, written as an NB database file of release's
// schema, into a new program of that release and returns it unstepped,
// with the topology's switches by name.
func loadTopology(b *testing.B, topo *topology.Topology, release schema.Release) (*rules.Program, map[string]*nb.LogicalSwitch) {
	contents, err := LoadNB(topologyFile(b, topo, release))
	if err != nil {
		b.Fatal(err)
	}
	if contents.Warning != nil {
		b.Fatal(contents.Warning)
	}
	for table, n := range topo.Rows {
		if len(contents.Tables[table]) != n {
			b.Fatalf("%s: %d rows loaded of the topology's %d", table, len(contents.Tables[table]), n)
		}
	}
	if contents.Release != release {
		b.Fatalf("the NB file reads as %s, not %s", contents.Release, release)
	}
	p := rules.NewFor(release)
	switches := map[string]*nb.LogicalSwitch{}
	for table, m := range contents.All() {
		if err := p.NB.Apply(table, nil, m); err != nil {
			b.Fatal(err)
		}
		if ls, ok := m.(*nb.LogicalSwitch); ok {
			switches[ls.Name] = ls
		}
	}
	return p, switches
}

// topologyFile writes topo as a standalone NB database file of release's
// schema, as an ovsdb-server would after its transactions: a record per
// operation, an insert's row whole, a mutation's added set members as a
// diff.
func topologyFile(b *testing.B, topo *topology.Topology, release schema.Release) string {
	data := appendRecord(nil, string(release.NB()))
	for _, tx := range topo.Transactions {
		var params []json.RawMessage
		if err := json.Unmarshal(tx, &params); err != nil {
			b.Fatal(err)
		}
		for _, raw := range params[1:] {
			var op struct {
				Op, Table, UUID string
				Row             json.RawMessage
				Where           [][3]json.RawMessage
				Mutations       [][3]json.RawMessage
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				b.Fatal(err)
			}
			record := map[string]any{}
			switch op.Op {
			case "insert":
				record[op.Table] = map[string]json.RawMessage{op.UUID: op.Row}
			case "mutate":
				var target [2]string // ["uuid", UUID] of the where clause `_uuid == UUID`
				if err := json.Unmarshal(op.Where[0][2], &target); err != nil {
					b.Fatal(err)
				}
				cols := map[string]json.RawMessage{}
				for _, m := range op.Mutations {
					var col string
					if err := json.Unmarshal(m[0], &col); err != nil {
						b.Fatal(err)
					}
					cols[col] = m[2]
				}
				record["_is_diff"] = true
				record[op.Table] = map[string]any{target[1]: cols}
			default:
				b.Fatalf("topology operation %q", op.Op)
			}
			body, err := json.Marshal(record)
			if err != nil {
				b.Fatal(err)
			}
			data = appendRecord(data, string(body))
		}
	}
	path := filepath.Join(b.TempDir(), "nb.db")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// evictCaches writes a byte of every cache line of buf.
func evictCaches(buf []byte) {
	for i := 0; i < len(buf); i += 64 {
		buf[i]++
	}
}
