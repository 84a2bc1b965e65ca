package reference

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

const scenarioDir = "../../rules/testdata/scenarios"

// datapathsOf returns the sorted distinct datapath names of canonical lines.
func datapathsOf(lines []string) []string {
	var dps []string
	for _, l := range lines {
		dp, _, _ := strings.Cut(l, "|")
		dps = append(dps, dp)
	}
	slices.Sort(dps)
	return slices.Compact(dps)
}

// logicalFlowRows counts the SB Logical_Flow rows, read with a query of its
// own rather than a dump.
func logicalFlowRows(t *testing.T, r *Instance) int {
	t.Helper()
	res, err := r.transact(t.Context(), r.SBRemote(), []any{"OVN_Southbound",
		map[string]any{"op": "select", "table": "Logical_Flow", "where": []any{}, "columns": []string{"_uuid"}}})
	if err != nil {
		t.Fatal(err)
	}
	var sel struct{ Rows []json.RawMessage }
	if err := json.Unmarshal(res[0], &sel); err != nil {
		t.Fatal(err)
	}
	return len(sel.Rows)
}

func TestEmptyDatapaths(t *testing.T) {
	t.Parallel()
	ref := Start(t)
	scenarios, err := LoadScenarios(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Scenario{}
	for _, sc := range scenarios {
		byName[sc.Name] = sc
	}
	for _, c := range []struct {
		scenario, datapath string
		check              func(t *testing.T, lines []string)
	}{
		{"empty_switch", "sw0", func(t *testing.T, lines []string) {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "sw0|ingress|25|") }) {
				t.Error("no ls_in_l2_lkup (ingress table 25) flow")
			}
		}},
		{"empty_router", "lr0", func(t *testing.T, lines []string) {
			for _, l := range lines {
				// lr_in_arp_request is ingress table 21, lr_out_delivery egress 6.
				if _, p, table, _ := splitLine(l); p == rules.Ingress && table > 21 || p == rules.Egress && table > 6 {
					t.Errorf("router flow beyond the router tables: %s", l)
				}
			}
		}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			sc, ok := byName[c.scenario]
			if !ok {
				t.Fatalf("no scenario %s in %s", c.scenario, scenarioDir)
			}
			if sc.Description == "" {
				t.Errorf("scenario %s has no description", sc.Name)
			}
			lines, err := ref.Run(t.Context(), sc.Script)
			if err != nil {
				t.Fatal(err)
			}
			if dps := datapathsOf(lines); !slices.Equal(dps, []string{c.datapath}) {
				t.Errorf("datapaths %q, want [%s]", dps, c.datapath)
			}
			for _, l := range lines {
				if f := strings.SplitN(l, "|", 6); len(f) != 6 {
					t.Errorf("not 6 fields: %q", l)
				}
			}
			if !slices.IsSorted(lines) {
				t.Error("lines not sorted")
			}
			// One datapath: no flow is shared, one line per SB row.
			if n := logicalFlowRows(t, ref); len(lines) != n || n == 0 {
				t.Errorf("%d lines for %d Logical_Flow rows", len(lines), n)
			}
			c.check(t, lines)
		})
	}
}

// forEachBuild runs f as a parallel subtest per release, named after it,
// with that release's build.
func forEachBuild(t *testing.T, f func(t *testing.T, b *Build)) {
	for _, b := range Builds() {
		t.Run(b.Release().String(), func(t *testing.T) {
			t.Parallel()
			f(t, b)
		})
	}
}

// TestResetEqualsFresh checks, for each release, that a scenario run after
// Reset gives the flows it gives on fresh servers.
func TestResetEqualsFresh(t *testing.T) {
	t.Parallel()
	forEachBuild(t, func(t *testing.T, b *Build) {
		reused := b.Start(t)
		if _, err := reused.Run(t.Context(), RandomTopology(100, DefaultTopology())); err != nil {
			t.Fatal(err)
		}
		for seed := range int64(3) {
			script := RandomTopology(seed, DefaultTopology())
			fresh := b.Start(t)
			want, err := fresh.Run(t.Context(), script)
			if err != nil {
				t.Fatal(err)
			}
			fresh.Close()
			got, err := reused.Run(t.Context(), script)
			if err != nil {
				t.Fatal(err)
			}
			if r := CompareIn(rules.StagesOf(b.Release()), want, got); !r.Equal() {
				t.Errorf("seed %d: after Reset (+) vs fresh (-):\n%s", seed, r)
			}
		}
	})
}

// TestResetForgetsChassisFeatures checks, for each release, that the
// features a chassis of one scenario lacked do not change the next
// scenario's flows: 26.03 tracks a distributed router's SNAT traffic in
// its own conntrack zone only when every chassis has ct-commit-to-zone and
// ct-next-zone, and its northd keeps a feature off after the chassis that
// lacked it goes.
func TestResetForgetsChassisFeatures(t *testing.T) {
	t.Parallel()
	script := `ovn-nbctl lr-add lr0 -- lrp-add lr0 lr0-pub 00:00:00:00:ff:01 172.16.0.1/24 -- lrp-set-gateway-chassis lr0-pub gw1
ovn-nbctl lrp-add lr0 lr0-in 00:00:00:00:ff:02 10.0.0.1/24 -- lr-nat-add lr0 snat 172.16.0.1 10.0.0.0/24`
	forEachBuild(t, func(t *testing.T, b *Build) {
		fresh := b.Start(t)
		want, err := fresh.Run(t.Context(), script)
		if err != nil {
			t.Fatal(err)
		}
		fresh.Close()
		reused := b.Start(t)
		if _, err := reused.Run(t.Context(), script+"\novn-sbctl chassis-add ch1 geneve 127.0.0.2"); err != nil {
			t.Fatal(err)
		}
		got, err := reused.Run(t.Context(), script)
		if err != nil {
			t.Fatal(err)
		}
		if r := CompareIn(rules.StagesOf(b.Release()), want, got); !r.Equal() {
			t.Errorf("after a chassis of no features and Reset (+) vs fresh (-):\n%s", r)
		}
	})
}

// TestBuilds checks that each release's instance runs that release: its
// ovn-northd's version, the schema version of the NB file it writes, and
// scenarios' ovn-nbctl.
func TestBuilds(t *testing.T) {
	t.Parallel()
	forEachBuild(t, func(t *testing.T, b *Build) {
		ref := b.Start(t)
		for _, program := range []string{"ovn-northd", "ovn-nbctl"} {
			out, err := ref.dir.Command(t.Context(), program, "--version").Output()
			if err != nil {
				t.Fatal(err)
			}
			if want := " " + b.Release().Point() + "\n"; !strings.Contains(string(out), want) {
				t.Errorf("%s --version:\n%s\nwant %q", program, out, want)
			}
		}
		out, err := ref.dir.Command(t.Context(), "ovsdb-tool", "db-version", ref.NBFile()).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != b.Release().NBVersion() {
			t.Errorf("NB file schema version %s, want %s", got, b.Release().NBVersion())
		}
		if err := ref.Apply(t.Context(), `ovn-nbctl --version | grep -q " `+b.Release().Point()+`$"`); err != nil {
			t.Errorf("a scenario's ovn-nbctl is not the build's: %v", err)
		}
	})
}

// TestResetRestoresGlobals checks that NB_Global settings and SB chassis
// of one scenario do not leak into the next.
func TestResetRestoresGlobals(t *testing.T) {
	t.Parallel()
	ref := Start(t)
	ctx := t.Context()
	if err := ref.Apply(ctx, `ovn-nbctl ls-add sw0 -- set NB_Global . options:mac_binding_removal_limit=7 external_ids:x=y
ovn-sbctl chassis-add ch1 geneve 127.0.0.2`); err != nil {
		t.Fatal(err)
	}
	before, err := ref.Flows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == 0 {
		t.Fatal("no flows")
	}
	if err := ref.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := ref.Flows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 0 {
		t.Errorf("%d flows after Reset, first %q", len(after), after[0])
	}
	for _, q := range [][]string{
		{"ovn-nbctl", "get", "NB_Global", ".", "external_ids"},
		{"ovn-nbctl", "--if-exists", "get", "NB_Global", ".", "options:mac_binding_removal_limit"},
		{"ovn-sbctl", "--columns=name", "list", "Chassis"},
	} {
		out, err := ref.run(ctx, "bash", "-c", strings.Join(q, " "))
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.TrimSpace(string(out)); s != "" && s != "{}" {
			t.Errorf("%s after Reset: %q", strings.Join(q, " "), s)
		}
	}
}

// TestNBFileComplete checks that when Run returns, the NB file holds every
// transaction of the sync, northd's dynamic_addresses write included.
func TestNBFileComplete(t *testing.T) {
	t.Parallel()
	ref := Start(t)
	ctx := t.Context()
	for i := range 5 {
		port := fmt.Sprintf("p%d", i)
		script := fmt.Sprintf("ovn-nbctl ls-add sw%d -- set Logical_Switch sw%d other_config:subnet=10.0.0.0/24"+
			" -- lsp-add sw%d %s -- lsp-set-addresses %s dynamic", i, i, i, port, port)
		if _, err := ref.Run(ctx, script); err != nil {
			t.Fatal(err)
		}
		out, err := ref.run(ctx, "ovn-nbctl", "get", "NB_Global", ".", "nb_cfg")
		if err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(ref.NBFile())
		if err != nil {
			t.Fatal(err)
		}
		if want := `"sb_cfg":` + strings.TrimSpace(string(out)); !strings.Contains(string(file), want) {
			t.Errorf("NB file lacks %s", want)
		}
		addrs, err := ref.run(ctx, "ovn-nbctl", "get", "Logical_Switch_Port", port, "dynamic_addresses")
		if err != nil {
			t.Fatal(err)
		}
		// The value as the file stores it: a JSON string.
		want, _ := json.Marshal(strings.Trim(strings.TrimSpace(string(addrs)), `"`))
		if !strings.Contains(string(file), `"dynamic_addresses":`+string(want)) {
			t.Errorf("NB file lacks dynamic_addresses %s", want)
		}
	}
}

func TestApplyError(t *testing.T) {
	t.Parallel()
	ref := Start(t)
	err := ref.Apply(t.Context(), "ovn-nbctl ls-add sw0\novn-nbctl lsp-add nosuchswitch p0\novn-nbctl ls-add sw1")
	if err == nil || !strings.Contains(err.Error(), "nosuchswitch") {
		t.Fatalf("Apply of a failing script: %v, want an error naming nosuchswitch", err)
	}
	lines, err := ref.Run(t.Context(), "ovn-nbctl ls-add sw2")
	if err != nil {
		t.Fatal(err)
	}
	if dps := datapathsOf(lines); !slices.Equal(dps, []string{"sw2"}) {
		t.Errorf("after a failed scenario and Reset, datapaths %q, want [sw2]", dps)
	}
}

// TestNorthdDeath checks that a dead northd fails Sync at once, naming it.
func TestNorthdDeath(t *testing.T) {
	t.Parallel()
	ref := Start(t)
	northd := ref.daemons[len(ref.daemons)-1]
	if err := northd.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-northd.done
	start := time.Now()
	err := ref.Apply(t.Context(), "ovn-nbctl ls-add sw0")
	if err == nil || !strings.Contains(err.Error(), "ovn-northd") {
		t.Fatalf("Apply with northd dead: %v, want an error naming ovn-northd", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v to notice", d)
	}
}

func TestLoadScenarios(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"b.sh":   "# Second.\n#  Two lines.\novn-nbctl ls-add sw0\n# not description\n",
		"a.sh":   "ovn-nbctl lr-add lr0\n",
		"e.sh":   "# Old only.\n# releases: 23.03\novn-nbctl ls-add sw0\n",
		"c.txt":  "not a scenario",
		"d.sh.x": "not a scenario",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := LoadScenarios(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Scenario{
		{Name: "a", Script: "ovn-nbctl lr-add lr0\n"},
		{Name: "b", Description: "Second.\nTwo lines.", Script: "# Second.\n#  Two lines.\novn-nbctl ls-add sw0\n# not description\n"},
		{Name: "e", Description: "Old only.", Script: "# Old only.\n# releases: 23.03\novn-nbctl ls-add sw0\n", Releases: []schema.Release{schema.OVN2303}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadScenarios (-want +got):\n%s", diff)
	}
	if !got[0].AppliesTo(schema.OVN2603) || !got[2].AppliesTo(schema.OVN2303) || got[2].AppliesTo(schema.OVN2603) {
		t.Errorf("AppliesTo: a scenario without releases applies to all, one with releases to those only")
	}
	if _, err := LoadScenarios(t.TempDir()); err == nil {
		t.Error("LoadScenarios of an empty directory: no error")
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "x.sh"), []byte("# releases: 22.03\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadScenarios(bad); err == nil || !strings.Contains(err.Error(), "22.03") {
		t.Errorf("LoadScenarios with an unknown release: %v, want an error naming it", err)
	}
}
