package ovsdb

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// quarantineInput names the embedding program's own input in
// TestLiveUpdate: names of ports whose traffic is dropped.
const quarantineInput = "quarantined"

// quarantineFlows drops, above port security, the traffic of the switch
// ports named in the program's own input, which it adds to the circuit
// filled with names.
func quarantineFlows(names []string) rules.Rule {
	return func(n *relations.NB) engine.Rel[rules.Flow] {
		in, quarantined := engine.NewInput[string](n.Circuit, quarantineInput)
		for _, name := range names {
			in.Insert(name)
		}
		byName := engine.IndexBy(n.PortsOnSwitches, func(sp relations.SwitchPort) string { return sp.Port.Name })
		return engine.Join(byName, engine.IndexBy(quarantined, func(name string) string { return name }),
			func(name string, sp relations.SwitchPort, _ string) rules.Flow {
				return rules.Flow{Datapath: sp.Switch, Stage: rules.LSInCheckPortSec, Priority: 110,
					Match: "inport == " + strconv.Quote(name), Actions: "drop;"}
			})
	}
}

// TestLiveUpdate: an embedding program's own input, changed through
// Northd.Update while the NB stays as it is, reaches the SB at once; a
// Recompute (which builds the program again from Config.Program) agrees
// with the incremental state; a deletion takes the flow away.
func TestLiveUpdate(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	s.script("ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2")
	var quarantined []string // the embedding program's state; read and changed on the northd's goroutine
	l := runNorthd(t, s, func(c *Config) {
		c.Program = func() *rules.Program {
			return rules.NewFor(schema.OVN2303, quarantineFlows(quarantined))
		}
	})
	s.sync()
	dropFlow := func() bool {
		for _, line := range strings.Split(s.run("ovn-sbctl", "lflow-list", "sw0"), "\n") {
			if strings.Contains(line, "priority=110") && strings.Contains(line, `match=(inport == "p1")`) && strings.Contains(line, "action=(drop;)") {
				return true
			}
		}
		return false
	}
	if dropFlow() {
		t.Fatal("p1's drop flow is in the SB before p1 is quarantined")
	}
	if err := l.Update(t.Context(), func(p *rules.Program) {
		engine.InputOf[string](p.Circuit, quarantineInput).Insert("p1")
		quarantined = append(quarantined, "p1")
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "p1's drop flow in the SB", dropFlow)
	if err := l.Recompute(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := l.RecomputeMismatches(); n != 0 {
		t.Errorf("%d recompute mismatches with the program's own input", n)
	}
	if err := l.Update(t.Context(), func(p *rules.Program) {
		engine.InputOf[string](p.Circuit, quarantineInput).Delete("p1")
		quarantined = slices.DeleteFunc(quarantined, func(n string) bool { return n == "p1" })
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "p1's drop flow gone from the SB", func() bool { return !dropFlow() })
}
