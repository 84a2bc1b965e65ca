package rules_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
	"github.com/ovn-org/libovsdb/cache"
	"github.com/ovn-org/libovsdb/model"
	"pgregory.net/rapid"
)

// TestEventsEqualApply: a program fed the rows alone, by _uuid, through
// libovsdb's cache events (relations.Events: NB.Upsert and NB.Delete),
// writes the same flows and SB rows after every step as one fed each row
// change with its previous version (NB.Apply).
func TestEventsEqualApply(t *testing.T) {
	changes := ruletest.Changes(ruletest.Topology, ruletest.SwitchPorts, ruletest.Routers, ruletest.ACLs)
	names := slices.Sorted(maps.Keys(changes))
	rapid.Check(t, func(t *rapid.T) {
		s := ruletest.NewState(rules.New())
		byEvents := rules.New()
		var events cache.EventHandler = relations.Events{NB: byEvents.NB, OnError: func(table string, err error) {
			t.Fatalf("%s: %v", table, err)
		}}
		for range rapid.IntRange(1, 20).Draw(t, "steps") {
			before := rowsOf(s)
			for range rapid.IntRange(1, 6).Draw(t, "changes") {
				changes[rapid.SampledFrom(names).Draw(t, "change")](t, s)
			}
			after := rowsOf(s)
			for table, rows := range after {
				for id, row := range rows {
					switch old, had := before[table][id]; {
					case !had:
						events.OnAdd(table, row)
					case old != row:
						events.OnUpdate(table, old, row)
					}
				}
			}
			for table, rows := range before {
				for id, row := range rows {
					if _, ok := after[table][id]; !ok {
						events.OnDelete(table, row)
					}
				}
			}
			s.Program.Step()
			byEvents.Step()
			if d := cmp.Diff(s.Program.Flows.Contents(), byEvents.Flows.Contents()); d != "" {
				t.Fatalf("flows (-apply +events):\n%s", d)
			}
			if d := cmp.Diff(s.Program.PortBindings.Contents(), byEvents.PortBindings.Contents()); d != "" {
				t.Fatalf("port bindings (-apply +events):\n%s", d)
			}
		}
	})
}

// rowsOf is the state's rows by table and _uuid.
func rowsOf(s *ruletest.State) map[string]map[string]model.Model {
	out := map[string]map[string]model.Model{}
	for _, table := range s.Tables() {
		out[table] = map[string]model.Model{}
		for _, id := range s.IDs(table) {
			out[table][id] = s.Row(table, id)
		}
	}
	return out
}
