package rules

import (
	"cmp"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouteLearningPort is a router port whose SB Learned_Route rows northd
// keeps (ovn_port_must_learn_route): a port of a router with dynamic
// routing. DGP says it is a distributed gateway port, whose rows are kept
// only while its chassisredirect port is bound to a chassis, which the
// writer reads from the SB. The rows of any other port are deleted
// (en-learned-route-sync.c routes_table_sync): they refer to their port's
// binding, which could not go otherwise.
type RouteLearningPort struct {
	Name string
	DGP  bool
}

// CompareRouteLearningPorts orders learning ports by name, then kind.
func CompareRouteLearningPorts(a, b RouteLearningPort) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(strconv.FormatBool(a.DGP), strconv.FormatBool(b.DGP)))
}

// SBRouteLearningPorts computes the ports of the routers with dynamic
// routing.
func SBRouteLearningPorts(n *relations.NB) engine.Rel[RouteLearningPort] {
	return engine.FlatMap(n.LRPRedistributes, func(p relations.LRPRedistribute) []RouteLearningPort {
		if !p.Dynamic {
			return nil
		}
		return []RouteLearningPort{{Name: p.LRP.Name(), DGP: p.LRP.DGP()}}
	})
}
