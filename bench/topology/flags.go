package topology

import (
	"flag"
	"fmt"
)

// Presets are the named sizes the -preset flag accepts.
var Presets = map[string]func() Options{"issue": Issue, "small": Small}

// Flags registers -preset (issue or small) and one flag per Options field on
// fs. The returned function, called after fs.Parse, gives the preset's
// options with the explicitly set flags applied on top.
func Flags(fs *flag.FlagSet) func() (Options, error) {
	preset := fs.String("preset", "issue", "topology size: issue (100 nodes × 50 pods, 500 LBs, 200 policies) or small (10 × 10, 50, 20)")
	var set Options
	fs.IntVar(&set.Nodes, "nodes", 0, "nodes (overrides the preset)")
	fs.IntVar(&set.PodsPerNode, "pods", 0, "pods per node (overrides the preset)")
	fs.IntVar(&set.Namespaces, "namespaces", 0, "namespaces (overrides the preset)")
	fs.IntVar(&set.LoadBalancers, "lbs", 0, "load balancers (overrides the preset)")
	fs.IntVar(&set.Backends, "backends", 0, "backends per load balancer (overrides the preset)")
	fs.IntVar(&set.Policies, "policies", 0, "network policies (overrides the preset)")
	fs.IntVar(&set.PolicyPods, "policy-pods", 0, "pods per network policy (overrides the preset)")
	fs.Uint64Var(&set.Seed, "seed", 0, "random seed (overrides the preset)")
	return func() (Options, error) {
		base, ok := Presets[*preset]
		if !ok {
			return Options{}, fmt.Errorf("unknown preset %q (want issue or small)", *preset)
		}
		o := base()
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "nodes":
				o.Nodes = set.Nodes
			case "pods":
				o.PodsPerNode = set.PodsPerNode
			case "namespaces":
				o.Namespaces = set.Namespaces
			case "lbs":
				o.LoadBalancers = set.LoadBalancers
			case "backends":
				o.Backends = set.Backends
			case "policies":
				o.Policies = set.Policies
			case "policy-pods":
				o.PolicyPods = set.PolicyPods
			case "seed":
				o.Seed = set.Seed
			}
		})
		return o, nil
	}
}
