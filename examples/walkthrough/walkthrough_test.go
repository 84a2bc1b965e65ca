// Package walkthrough reproduces the README's embedding walk-through from a
// fresh module: a custom rule, its flows computed offline beside the
// built-in ones, and the test kit's check of it, using only exported API.
package walkthrough

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// userRule is the user's code: a rule and its test, as the README shows.
const userRule = `package quarantine

import (
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/rules"
)

// Flows drops everything from a switch port whose
// external_ids:quarantine is "true".
func Flows(nb *relations.NB) engine.Rel[rules.Flow] {
	q := engine.Filter(nb.PortsOnSwitches, func(sp relations.SwitchPort) bool {
		return sp.Port.ExternalIDs["quarantine"] == "true"
	})
	return engine.Map(q, func(sp relations.SwitchPort) rules.Flow {
		return rules.Flow{Datapath: sp.Switch, Stage: rules.LSInCheckPortSec, Priority: 110,
			Match: "inport == " + strconv.Quote(sp.Port.Name), Actions: "drop;"}
	})
}
`

const userTest = `package quarantine

import (
	"testing"

	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
	"pgregory.net/rapid"
)

func TestOffline(t *testing.T) {
	p := rules.New(Flows)
	p.NB.Upsert(nb.LogicalSwitchPortTable, &nb.LogicalSwitchPort{UUID: "p1", Name: "vm1",
		ExternalIDs: map[string]string{"quarantine": "true"}})
	p.NB.Upsert(nb.LogicalSwitchTable, &nb.LogicalSwitch{UUID: "s1", Name: "sw0", Ports: []string{"p1"}})
	p.Step()
	found := false
	for _, f := range p.FlowsByDatapath() {
		found = found || f.Match == "inport == \"vm1\"" && f.Actions == "drop;"
	}
	if !found {
		t.Fatal("no quarantine flow")
	}
}

// quarantine flips external_ids:quarantine of a random port.
func quarantine(t *rapid.T, s *ruletest.State) {
	id := s.Pick(t, nb.LogicalSwitchPortTable, "port")
	if id == "" {
		return
	}
	ruletest.Edit(t, s, nb.LogicalSwitchPortTable, id, func(p *nb.LogicalSwitchPort) {
		p.ExternalIDs = map[string]string{"quarantine": "true"}
	})
}

func TestIncremental(t *testing.T) {
	changes := ruletest.Changes(ruletest.Topology)
	changes["quarantine"] = quarantine
	ruletest.Check(t, ruletest.Config{Changes: changes,
		Program: func() *rules.Program { return rules.NewFrom(schema.OVN2303, Flows) }})
}
`

// TestWalkthrough writes the user's module (go mod init, a replace to
// this checkout) and runs its tests, offline: the module cache must hold
// northlog's dependencies (go mod download), no network is used.
func TestWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	_, here, _, _ := runtime.Caller(0)
	checkout := filepath.Join(filepath.Dir(here), "..", "..")
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("quarantine.go", userRule)
	write("quarantine_test.go", userTest)
	if lines := strings.Count(userRule, "\n") + strings.Count(userTest, "\n"); lines >= 100 {
		t.Errorf("the walk-through takes %d lines of user code, not under 100", lines)
	}
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	run := func(args ...string) {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("mod", "init", "example.com/quarantine")
	run("mod", "edit", "-require=github.com/northlog/northlog@v0.0.0", "-replace=github.com/northlog/northlog="+checkout)
	// The checkout's sums vouch for its dependencies: no checksum
	// database is asked.
	sums, err := os.ReadFile(filepath.Join(checkout, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sums))
	run("mod", "tidy")
	run("test", "-count=1", "./...")
}
