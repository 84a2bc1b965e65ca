package topology

import (
	"flag"
	"fmt"
)

// Presets are the named sizes the -preset flag accepts.
var Presets = map[string]func() Options{"small": Small, "large": Large, "xlarge": XLarge, "huge": Huge}

// Flags registers -preset (a name in Presets) and one flag per Options field on
// fs. The returned function, called after fs.Parse, gives the preset's
// options with the explicitly set flags applied on top.
func Flags(fs *flag.FlagSet) func() (Options, error) {
	preset := fs.String("preset", "large", "topology size: small (10 nodes × 10 pods, 50 LBs, 20 policies), large (100 × 50, 500, 200), xlarge (250 × 100, 5,000, 1,000) or huge (1,000 × 100, 5,000, 1,000)")
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
			return Options{}, fmt.Errorf("unknown preset %q (want small, large, xlarge or huge)", *preset)
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
