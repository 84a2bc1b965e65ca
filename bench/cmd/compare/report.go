//go:build linux

package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/northlog/northlog/bench/topology"
	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of xs.
func percentile(xs []time.Duration, p int) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[max(0, (p*len(s)+99)/100-1)]
}

// sum is the element-wise sum of lists of the same length.
func sum(lists ...[]time.Duration) []time.Duration {
	s := make([]time.Duration, len(lists[0]))
	for _, l := range lists {
		for i, x := range l {
			s[i] += x
		}
	}
	return s
}

func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + fmtDur(-d)
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", d.Seconds()*1e3)
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", d.Seconds()*1e3)
	default:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
}

func fmtMiB(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// line is one row of the table: a label, a cell per side, and the values
// whose ratios (each side over the one before it) the last columns show;
// NaN for a side that has no such value.
type line struct {
	label  string
	cells  []string
	ratios []float64
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// report prints the side-by-side table and the flow comparison in
// Markdown; nThreads is -n-threads, warmup -warmup.
func report(w io.Writer, topo *topology.Topology, release schema.Release, sides []*side, loadStart string, nThreads, warmup int) {
	o := topo.Options
	fmt.Fprintf(w, "Topology: %d nodes × %d pods (%d switch ports), %d load balancers × %d backends in one group, %d network policies of %d pods over %d namespaces; %d NB transactions.\n",
		o.Nodes, o.PodsPerNode, topo.Rows["Logical_Switch_Port"], o.LoadBalancers, o.Backends, o.Policies, o.PolicyPods, o.Namespaces, len(topo.Transactions))
	threads := "no --n-threads: one thread each"
	if nThreads > 0 {
		threads = fmt.Sprintf("--n-threads=%d each", nThreads)
	}
	fmt.Fprintf(w, "Machine: %d CPUs, load average %s at start, %s at end. Northds: %s. %d lsp-add and %d lsp-del per side, after %d unmeasured changes.\n\n",
		runtime.NumCPU(), loadStart, loadAverage(), threads, len(sides[0].res.add), len(sides[0].res.del), warmup)

	dur := func(label string, f func(r *result) time.Duration) line {
		l := line{label: label}
		for _, s := range sides {
			d := f(&s.res)
			l.cells = append(l.cells, fmtDur(d))
			l.ratios = append(l.ratios, float64(d))
		}
		return l
	}
	// server is a row of a figure of the SB ovsdb-server, which an
	// embedded side's northd process includes.
	server := func(l line) line {
		for i, s := range sides {
			if s.embedded {
				l.cells[i], l.ratios[i] = "(in northd)", math.NaN()
			}
		}
		return l
	}
	medP90 := func(label string, f func(r *result) []time.Duration) line {
		l := line{label: label}
		for _, s := range sides {
			xs := f(&s.res)
			l.cells = append(l.cells, fmtDur(percentile(xs, 50))+" ("+fmtDur(percentile(xs, 90))+")")
			l.ratios = append(l.ratios, float64(percentile(xs, 50)))
		}
		return l
	}
	num := func(label string, f func(r *result) int64, format func(int64) string) line {
		l := line{label: label}
		for _, s := range sides {
			v := f(&s.res)
			l.cells = append(l.cells, format(v))
			l.ratios = append(l.ratios, float64(v))
		}
		return l
	}
	count := func(v int64) string { return fmt.Sprint(v) }
	coldRuns := fmt.Sprintf(" of %d (*)", len(sides[0].res.cold))
	changes := func(r *result) int { return len(r.add) + len(r.del) + len(r.clientAdd) + len(r.clientDel) }
	lines := []line{
		dur(fmt.Sprintf("NB load (%d × ovsdb-client transact)", len(topo.Transactions)), func(r *result) time.Duration { return r.load }),
		dur("NB server CPU during the NB load (embedded: the paused northd's process)", func(r *result) time.Duration { return r.loadCPU }),
		dur("cold start until `--wait=sb sync` returns, median"+coldRuns, func(r *result) time.Duration { return percentile(r.cold, 50) }),
		dur("northd CPU during cold start, median"+coldRuns, func(r *result) time.Duration { return percentile(r.coldCPU, 50) }),
		server(dur("SB ovsdb-server CPU during cold start, median"+coldRuns, func(r *result) time.Duration { return percentile(r.coldSBCPU, 50) })),
		server(dur("NB ovsdb-server CPU during cold start, median"+coldRuns, func(r *result) time.Duration { return percentile(r.coldNBCPU, 50) })),
		dur("northd, SB and NB server CPU together during cold start, median"+coldRuns, func(r *result) time.Duration {
			return percentile(sum(r.coldCPU, r.coldSBCPU, r.coldNBCPU), 50)
		}),
		dur("northd CPU by the quiet after cold start, median"+coldRuns, func(r *result) time.Duration { return percentile(r.coldQuietCPU, 50) }),
		server(dur("SB ovsdb-server CPU by the quiet after cold start, median"+coldRuns, func(r *result) time.Duration { return percentile(r.coldQuietSBCPU, 50) })),
		medP90("`--wait=sb lsp-add` wall, median (p90)", func(r *result) []time.Duration { return r.add }),
		medP90("`--wait=sb lsp-del` wall, median (p90)", func(r *result) []time.Duration { return r.del }),
		medP90("client's own cost: `--wait=none` lsp-add wall, median (p90)", func(r *result) []time.Duration { return r.clientAdd }),
		medP90("client's own cost: `--wait=none` lsp-del wall, median (p90)", func(r *result) []time.Duration { return r.clientDel }),
		dur("lsp-add wall − client's own cost, median", func(r *result) time.Duration { return percentile(r.add, 50) - percentile(r.clientAdd, 50) }),
		dur("lsp-del wall − client's own cost, median", func(r *result) time.Duration { return percentile(r.del, 50) - percentile(r.clientDel, 50) }),
		medP90("`--print-wait-time` ovn-northd delay before processing of lsp-add (commit to nb_cfg_timestamp, the northd's run's start), median (p90)", func(r *result) []time.Duration { return r.addDelay }),
		medP90("`--print-wait-time` ovn-northd delay before processing of lsp-del, median (p90)", func(r *result) []time.Duration { return r.delDelay }),
		medP90("`--print-wait-time` ovn-northd completion of lsp-add (commit to sb_cfg_timestamp), median (p90)", func(r *result) []time.Duration { return r.addDone }),
		medP90("`--print-wait-time` ovn-northd completion of lsp-del, median (p90)", func(r *result) []time.Duration { return r.delDone }),
		medP90("northd CPU per change, median (p90)", func(r *result) []time.Duration { return r.northdCPU }),
		medP90("northd CPU per lsp-add, median (p90)", func(r *result) []time.Duration { return r.addCPU }),
		medP90("northd CPU per lsp-del, median (p90)", func(r *result) []time.Duration { return r.delCPU }),
		dur("northd CPU per change, mean (utime+stime)", func(r *result) time.Duration { return r.phaseCPU / time.Duration(max(1, changes(r))) }),
		server(medP90("SB ovsdb-server CPU per change, median (p90)", func(r *result) []time.Duration { return r.sbCPU })),
		server(medP90("NB ovsdb-server CPU per change (the client's requests), median (p90)", func(r *result) []time.Duration { return r.nbCPU })),
		medP90("northd, SB and NB server CPU together per change, median (p90)", func(r *result) []time.Duration { return sum(r.northdCPU, r.sbCPU, r.nbCPU) }),
		num("northd peak RSS (VmHWM)", func(r *result) int64 { return r.rss }, fmtMiB),
		server(num("SB ovsdb-server peak RSS (VmHWM)", func(r *result) int64 { return r.sbRSS }, fmtMiB)),
		num("peak RSS of the northd and its NB and SB servers (sum of VmHWM)", func(r *result) int64 { return r.rss + r.sbRSS + r.nbRSS }, fmtMiB),
		num("SB Logical_Flow rows", func(r *result) int64 { return int64(r.lflowRows) }, count),
		num("logical flows, one per datapath (canonical lines)", func(r *result) int64 { return int64(len(r.flows)) }, count),
	}
	fmt.Fprint(w, "| |")
	for _, s := range sides {
		fmt.Fprintf(w, " %s |", s.name)
	}
	for i := 1; i < len(sides); i++ {
		fmt.Fprintf(w, " %s / %s |", sides[i].name, sides[i-1].name)
	}
	fmt.Fprint(w, "\n|---|")
	for range 2*len(sides) - 1 {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, l := range lines {
		fmt.Fprintf(w, "| %s | %s |", l.label, strings.Join(l.cells, " | "))
		for i := 1; i < len(sides); i++ {
			// NaN compares false: no ratio.
			if a, b := l.ratios[i-1], l.ratios[i]; a > 0 && b >= 0 {
				fmt.Fprintf(w, " %.3g |", b/a)
			} else {
				fmt.Fprint(w, " |")
			}
		}
		fmt.Fprintln(w)
	}
	coldStarts(w, sides)
	for _, other := range sides[1:] {
		flowDifference(w, rules.StagesOf(release), sides[0], other)
	}
}

// coldStarts prints the note the cold start rows point to: how many cold
// starts each side made, in what order, and each one's figures.
func coldStarts(w io.Writer, sides []*side) {
	n := len(sides[0].res.cold)
	fmt.Fprintf(w, "\n(*) Cold starts per side: %d, each on a newly created, empty SB beside the loaded NB", n)
	if len(sides) > 1 && n > 1 {
		fmt.Fprintf(w, "; in odd rounds %s first, in even rounds %s first", inTurn(sides, 0)[0].name, inTurn(sides, 1)[0].name)
	}
	fmt.Fprintln(w, ". Wall / northd CPU / SB server CPU of each until sync returns, then both CPUs by the quiet after it, in run order:")
	for _, s := range sides {
		runs := make([]string, n)
		for i := range runs {
			runs[i] = fmtDur(s.res.cold[i]) + " / " + fmtDur(s.res.coldCPU[i]) + " / " + fmtDur(s.res.coldSBCPU[i]) +
				" (" + fmtDur(s.res.coldQuietCPU[i]) + " / " + fmtDur(s.res.coldQuietSBCPU[i]) + ")"
		}
		fmt.Fprintf(w, "- %s: %s\n", s.name, strings.Join(runs, "; "))
	}
}

// maxStages is how many differing stages flowDifference lists.
const maxStages = 15

// flowDifference prints how the second side's canonical flows differ from
// the first's, by stage of the release's table t, most differing stages
// first.
func flowDifference(w io.Writer, t *rules.StageTable, ref, other *side) {
	r := reference.CompareIn(t, ref.res.flows, other.res.flows)
	fmt.Fprintf(w, "\nFlows: %s has %d of %s's %d canonical lines; %d missing, %d extra.\n",
		other.name, r.Matched, ref.name, r.Expected, r.Missing, r.Extra)
	if r.Equal() {
		return
	}
	stages := slices.DeleteFunc(slices.Clone(r.Stages), func(s reference.StageCount) bool { return s.Missing+s.Extra == 0 })
	slices.SortStableFunc(stages, func(a, b reference.StageCount) int { return cmp.Compare(b.Missing+b.Extra, a.Missing+a.Extra) })
	fmt.Fprintf(w, "\n| stage | %s | matched | missing | extra |\n|---|---:|---:|---:|---:|\n", ref.name)
	for _, s := range stages[:min(len(stages), maxStages)] {
		fmt.Fprintf(w, "| %s %s %d %s | %d | %d | %d | %d |\n", kind(s), s.Pipeline, s.Table, s.Name, s.Expected, s.Matched, s.Missing, s.Extra)
	}
	if len(stages) > maxStages {
		fmt.Fprintf(w, "| … %d more stages | | | | |\n", len(stages)-maxStages)
	}
}

func kind(s reference.StageCount) string {
	if s.Kind == rules.Router {
		return "router"
	}
	return "switch"
}
