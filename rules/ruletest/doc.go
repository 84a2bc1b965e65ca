// Package ruletest is a test kit for northlog rules, in the style of
// net/http/httptest: random NB contents and change sequences (the ones
// northlog's own property tests draw from, by Group), and a check that
// runs a program incrementally and compares every step with a full
// recompute of the same NB, and every step's delta with the difference of
// the contents.
//
// A property test of a rule of one's own:
//
//	func TestMyRule(t *testing.T) {
//		ruletest.Check(t, ruletest.Config{
//			Changes: ruletest.Changes(ruletest.Topology, ruletest.ACLs),
//			Program: func() *rules.Program { return rules.NewFrom(schema.OVN2303, myRule) },
//		})
//	}
//
// Check is rapid.Check (pgregory.net/rapid) over Run: a failing run is
// shrunk to a short sequence of changes and printed; Run fits a caller's
// own rapid.Check. A program of the caller's rules alone keeps each
// recompute cheap; rules.New(myRule) checks them beside the built-in ones.
// Changes of one's own are a Change, over a State; an input of the
// program's own beside the NB changes through SetInput. Ties checks that
// a rule's flows on built-in stages take priorities no built-in flow of
// the stage has. The examples of Run and SetInput (example_test.go) run as
// tests.
package ruletest
