package relations

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// portClaim is a port that a datapath's ports column lists and that
// join_logical_ports would make a port of: every switch port, and a router
// port of an enabled router whose MAC northd can read (one it cannot read is
// skipped before its name is looked at, so it claims nothing).
type portClaim struct {
	Name     string
	Datapath string // NB _uuid of the switch or router
	Port     string // NB _uuid of the port row
	LSP      *nb.LogicalSwitchPort
	LRP      LRP // when LSP is nil
}

func (c portClaim) kind() string {
	if c.LSP != nil {
		return "switch"
	}
	return "router"
}

// String names the claim in logs.
func (c portClaim) String() string {
	return fmt.Sprintf("%s port %q (%s) on %s %s", c.kind(), c.Name, c.Port, c.kind(), c.Datapath)
}

// placedClaim is a claim of a contested name with the table its datapath
// is walked in (Walk, 0 first) and the hash bucket it falls in there.
type placedClaim struct {
	portClaim
	Walk   int
	Bucket uint32
}

// claimOutcome is a claim of a contested name, won or lost; Winner is the
// claim that won.
type claimOutcome struct {
	portClaim
	Won    bool
	Winner portClaim
}

// datapathHash is northd's uuid_hash of a datapath's NB _uuid: its first
// 32 bits, the first eight hex digits read as a number. An _uuid that does
// not start with eight hex digits (none does in a real NB) hashes to 0.
func datapathHash(uuid string) uint32 {
	if len(uuid) < 8 {
		return 0
	}
	h, err := strconv.ParseUint(uuid[:8], 16, 32)
	if err != nil {
		return 0
	}
	return uint32(h)
}

// hmapMask is the bucket mask of an OVS hmap into which n nodes were
// inserted one by one (lib/hmap.c): hmap_insert expands the table when
// n/2 > mask, to calc_mask(n), which is the largest power of two <= n,
// minus one, but at least 3 once the table has grown. So 1 bucket for up to
// one datapath, 4 for two to seven, then the largest power of two <= n.
func hmapMask(n int) uint32 {
	if n < 2 {
		return 0
	}
	mask := uint32(3)
	for mask+1 <= uint32(n)/2 {
		mask = mask<<1 | 1
	}
	return mask
}

// DatapathBucket is the bucket of northd's datapaths table that holds the
// datapath with NB _uuid uuid when the table has datapaths entries. Two
// claims of a port name whose datapaths share the lowest bucket are bound
// by an order the NB does not tell (see compareClaims).
func DatapathBucket(uuid string, datapaths int) uint32 {
	return datapathHash(uuid) & hmapMask(datapaths)
}

// compareClaims orders the claims of one name as join_logical_ports meets
// them: datapaths in the order HMAP_FOR_EACH walks northd's datapath
// tables (26.03: the routers' before the switches'; in each, ascending
// bucket), then each datapath's ports column in its IDL order,
// sorted by _uuid (the NB schema's name indexes keep a name from appearing
// twice in one datapath; the port order only makes the choice total for
// NBs that skip them). Within one bucket the walk order depends on the order
// the datapaths were inserted (the SB Datapath_Binding table's own hash
// order, reversed at each resize), which the NB does not tell: northlog
// takes the datapaths of a bucket by ascending NB _uuid.
func compareClaims(a, b placedClaim) int {
	return cmp.Or(
		cmp.Compare(a.Walk, b.Walk),
		cmp.Compare(a.Bucket, b.Bucket),
		strings.Compare(a.Datapath, b.Datapath),
		strings.Compare(a.Port, b.Port))
}

type unit struct{}

func toUnit[T any](T) unit { return unit{} }

// routersClaimFirst: 26.03 keeps switches and routers in tables of their
// own and walks the routers' first (join_logical_ports), so a router
// port's claim of a name beats a switch port's; 23.03 walks one table of
// both.
func routersClaimFirst(r schema.Release) bool { return r >= schema.OVN2603 }

// claimMasks are the bucket masks of the datapath tables northd walks: a
// switch's and a router's, the same one's in 23.03.
type claimMasks struct{ Switch, Router uint32 }

// deriveClaimMasks computes the bucket masks of northd's datapath tables:
// one tuple, from the number of switches and enabled routers. Adding a
// datapath costs a count, not a pass over all of them, and changes the
// masks, and so what reads them, only at powers of two.
func deriveClaimMasks(n *NB, routers engine.Rel[RouterConfig]) engine.Rel[claimMasks] {
	split := routersClaimFirst(n.Release)
	type datapath struct {
		UUID     string
		InRouter bool // counted in the routers' table
	}
	all := engine.Union(
		engine.Map(n.Switches.Rows, func(ls *nb.LogicalSwitch) datapath { return datapath{ls.UUID, false} }),
		engine.Map(routers, func(r RouterConfig) datapath { return datapath{r.UUID, split} }))
	counts := engine.Count(engine.IndexBy(all, func(d datapath) bool { return d.InRouter }))
	return engine.GroupBy(engine.IndexBy(counts, toUnit), func(_ unit, cs []engine.KV[bool, int]) []claimMasks {
		var switches, routers int
		for _, c := range cs {
			if c.Key {
				routers = c.Value
			} else {
				switches = c.Value
			}
		}
		if !split {
			return []claimMasks{{hmapMask(switches), hmapMask(switches)}}
		}
		return []claimMasks{{hmapMask(switches), hmapMask(routers)}}
	})
}

// bindPorts computes which claim of each port name northd binds
// (join_logical_ports): the first one its walk over the datapaths meets
// (routersClaimFirst);
// later claims of the name are skipped with a "duplicate logical port"
// (or "duplicate logical router port") warning, reported by Step once per
// skipped claim. Only names with more than one claim read the datapath
// masks, so a new switch or router costs the names it contests, not a pass
// over every port.
func bindPorts(switchPorts engine.Rel[SwitchPort], lrps engine.Rel[LRP], masks engine.Rel[claimMasks], routersFirst bool) engine.Rel[portClaim] {
	claims := engine.Union(
		engine.Map(switchPorts, func(sp SwitchPort) portClaim {
			return portClaim{Name: sp.Port.Name, Datapath: sp.Switch, Port: sp.Port.UUID, LSP: sp.Port}
		}),
		engine.Map(lrps, func(p LRP) portClaim {
			return portClaim{Name: p.Port.Name, Datapath: p.Router, Port: p.Port.UUID, LRP: p}
		}))
	byName := engine.IndexBy(claims, func(c portClaim) string { return c.Name })
	contested := engine.IndexBy(
		engine.Map(engine.Filter(engine.Count(byName), func(kv engine.KV[string, int]) bool { return kv.Value > 1 }),
			func(kv engine.KV[string, int]) string { return kv.Key }),
		func(name string) string { return name })
	single := engine.AntiJoin(byName, contested)
	placed := engine.Join(
		engine.IndexBy(engine.SemiJoin(byName, contested), toUnit),
		engine.IndexBy(masks, toUnit),
		func(_ unit, c portClaim, m claimMasks) placedClaim {
			if c.LSP == nil {
				return placedClaim{c, 0, datapathHash(c.Datapath) & m.Router}
			}
			walk := 0
			if routersFirst {
				walk = 1
			}
			return placedClaim{c, walk, datapathHash(c.Datapath) & m.Switch}
		})
	outcomes := engine.GroupBy(engine.IndexBy(placed, func(c placedClaim) string { return c.Name }),
		func(_ string, cs []placedClaim) []claimOutcome {
			slices.SortFunc(cs, compareClaims)
			out := make([]claimOutcome, len(cs))
			for i, c := range cs {
				out[i] = claimOutcome{portClaim: c.portClaim, Won: i == 0, Winner: cs[0].portClaim}
			}
			return out
		})
	engine.Report(engine.Filter(outcomes, func(o claimOutcome) bool { return !o.Won }), "port ownership",
		func(o claimOutcome) error {
			what := "logical port"
			if o.LSP == nil {
				what = "logical router port"
			}
			return fmt.Errorf("duplicate %s %s: bound on %s %s", what, o.Name, o.Winner.kind(), o.Winner.Datapath)
		})
	won := engine.Map(engine.Filter(outcomes, func(o claimOutcome) bool { return o.Won }),
		func(o claimOutcome) portClaim { return o.portClaim })
	return engine.Union(single, won)
}

// deriveBoundPorts sets PortsOnSwitches and LRPs to the switch and router
// ports northd binds (bindPorts) among those the datapaths list.
func (n *NB) deriveBoundPorts() {
	lrpClaims := deriveLRPs(n, n.RouterConfigs)
	n.datapathMasks = deriveClaimMasks(n, n.RouterConfigs)
	bound := bindPorts(n.ListedSwitchPorts, lrpClaims, n.datapathMasks, routersClaimFirst(n.Release))
	n.PortsOnSwitches = engine.Map(engine.Filter(bound, func(c portClaim) bool { return c.LSP != nil }),
		func(c portClaim) SwitchPort { return SwitchPort{Switch: c.Datapath, Port: c.LSP} })
	n.LRPs = engine.Map(engine.Filter(bound, func(c portClaim) bool { return c.LSP == nil }),
		func(c portClaim) LRP { return c.LRP })
}

// PortsOnSwitchesByName is PortsOnSwitches arranged by port name, one
// arrangement for the rules that look a bound switch port up by name.
func (n *NB) PortsOnSwitchesByName() engine.Index[string, SwitchPort] {
	return arranged(&n.portsOnSwitchesByName, n.PortsOnSwitches, func(sp SwitchPort) string { return sp.Port.Name })
}

// PortsOnSwitchesOfType are the bound switch ports of type t: the rules
// that read one type read it from one split of PortsOnSwitches, and do not
// run for a port of another.
func (n *NB) PortsOnSwitchesOfType(t string) engine.Rel[SwitchPort] {
	if n.portsOnSwitchesByType == nil {
		n.portsOnSwitchesByType = engine.SplitBy(n.PortsOnSwitches, func(sp SwitchPort) string { return sp.Port.Type })
	}
	return n.portsOnSwitchesByType.Of(t)
}

// EnabledPortsByName is the same of the enabled ports (options:enabled
// unset or true).
func (n *NB) EnabledPortsByName() engine.Index[string, SwitchPort] {
	if n.enabledPortsByName == (engine.Index[string, SwitchPort]{}) {
		n.enabledPortsByName = engine.IndexBy(engine.Filter(n.PortsOnSwitches, func(sp SwitchPort) bool {
			return sp.Port.Enabled == nil || *sp.Port.Enabled
		}), func(sp SwitchPort) string { return sp.Port.Name })
	}
	return n.enabledPortsByName
}
