package ruletest

import (
	"github.com/northlog/northlog/rules"
	"pgregory.net/rapid"
)

// Ties is the check, after every step, that no flow of the rules own on a
// built-in stage ties with a built-in flow: has the datapath, stage and
// priority of a flow of the program that own do not write. Two flows of
// one priority that match the same packet tie, and ovn-controller runs
// either; a priority that no built-in flow of the stage has on the
// datapath ties with none, whatever the matches. (ls_in_acl's 34000, for
// one, is the service monitor's on a switch with ACLs or load balancers.)
// The program under test must hold the built-in rules beside own
// (rules.New(own...)); own alone, numbered by the same stages, make the
// flows checked.
func Ties(own ...rules.Rule) Output {
	type slot struct {
		datapath string
		stage    rules.Stage
		priority int
	}
	return Output{Name: "priority ties", start: func() outputCheck {
		return func(t *rapid.T, s *State, full, _ *rules.Program) {
			mine := map[rules.Flow]bool{}
			slots := map[slot]rules.Flow{}
			for _, f := range s.Load(t, rules.NewWith(full.Stages, own...)).FlowsByDatapath() {
				if f.Stage.Builtin() {
					mine[text(f)] = true
					slots[slot{f.Datapath, f.Stage, f.Priority}] = f
				}
			}
			for _, f := range full.FlowsByDatapath() {
				if m, ok := slots[slot{f.Datapath, f.Stage, f.Priority}]; ok && !mine[text(f)] {
					t.Fatalf("priority ties: %s priority %d (%s) is also the priority of the built-in flow (%s) on datapath %s: "+
						"pick one that the stage's built-in flows do not use", m.Stage, m.Priority, m.Match, f.Match, f.Datapath)
				}
			}
		}
	}}
}

// text is f without what is not part of its text (rules.SameText).
func text(f rules.Flow) rules.Flow {
	f.InOutPort, f.Hint = "", ""
	return f
}
