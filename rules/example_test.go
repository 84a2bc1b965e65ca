package rules_test

import (
	"fmt"

	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// lsInAfterLB is Kube-OVN's stage, which its fork of ovn-northd puts after
// ls_in_lb.
var lsInAfterLB = rules.NewStage(rules.Switch, rules.Ingress, "ls_in_after_lb")

// A stage of one's own placed in 23.03's switch ingress pipeline: it takes
// the table after ls_in_lb, and every later stage moves one table on (so
// do the next(pipeline=ingress, table=N) actions that name them). A
// program built with the table (rules.NewWith) writes the stage's flows
// with its name. 26.03's switch ingress pipeline is full.
func ExampleStageTable_With() {
	stages, err := rules.StagesOf(schema.OVN2303).With(rules.After(rules.LSInLB, lsInAfterLB))
	if err != nil {
		panic(err)
	}
	for _, s := range []rules.Stage{rules.LSInLB, lsInAfterLB, rules.LSInL2Lkup} {
		fmt.Printf("%s: table %d (was %d)\n", s, stages.Table(s), rules.StagesOf(schema.OVN2303).Table(s))
	}
	_, err = rules.StagesOf(schema.OVN2603).With(rules.After(rules.LSInLB, lsInAfterLB))
	fmt.Println(err != nil)
	// Output:
	// ls_in_lb: table 12 (was 12)
	// ls_in_after_lb: table 13 (was -1)
	// ls_in_l2_lkup: table 26 (was 25)
	// true
}
