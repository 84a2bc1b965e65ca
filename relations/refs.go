package relations

import (
	"unsafe"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
)

// Ref says that row Owner lists Target (a row _uuid, or any string) in one of
// its set columns.
type Ref struct {
	Owner  string
	Target string
}

// refsOf adds to c an input relation holding a Ref for every element of one
// set column of table. It is fed with set differences as the table's rows
// change, so rewriting a large set (a switch's ports when one port is added)
// costs one map diff, not a retraction and re-insertion of every element.
func refsOf[M any](c *engine.Circuit, n *NB, table string, id func(*M) string, column func(*M) []string) engine.Rel[Ref] {
	in, refs := engine.NewInput[Ref](c, table+" refs")
	rowFeed := n.feeds[table]
	n.feeds[table] = func(old, new model.Model) error {
		if err := rowFeed(old, new); err != nil {
			return err
		}
		var before, after []string
		var owner string
		if o, ok := old.(*M); ok {
			before, owner = column(o), id(o)
		}
		if nw, ok := new.(*M); ok {
			after, owner = column(nw), id(nw)
		}
		before, after = TrimCommon(before, after)
		stays := make(map[string]bool, len(after))
		for _, t := range after {
			stays[t] = true
		}
		for _, t := range before {
			if !stays[t] {
				in.Delete(Ref{owner, t})
			}
			delete(stays, t)
		}
		for t := range stays {
			in.Insert(Ref{owner, t})
		}
		return nil
	}
	return refs
}

// TrimCommon drops the common prefix and suffix of two versions of a set
// column. OVSDB sends sets sorted, so one element added or removed leaves a
// difference of one element to look at.
func TrimCommon(a, b []string) ([]string, []string) {
	n := min(len(a), len(b))
	i := 0
	for i < n && sameString(a[i], b[i]) {
		i++
	}
	a, b = a[i:], b[i:]
	j, k := len(a), len(b)
	for j > 0 && k > 0 && sameString(a[j-1], b[k-1]) {
		j, k = j-1, k-1
	}
	return a[:j], b[:k]
}

// sameString is x == y, first checked on the string headers: the two
// versions of a row mostly share their strings' bytes, and this check makes
// the scan of a 10k-element column 3-4 times cheaper than calling the
// runtime's comparison for each element.
func sameString(x, y string) bool {
	return len(x) == len(y) && (unsafe.StringData(x) == unsafe.StringData(y) || x == y)
}

// Refs are the elements of the NB set columns that can be large, one
// relation per column. Rules read these columns through Refs, never with a
// FlatMap over the owning table's rows, which would cost the whole set on
// every update of the row: all of a switch's ACLs when a port is added to
// it, a port group's thousands of ports when an ACL is added to it. The
// switches' rows do not even hold theirs (newSwitchTable).
type Refs struct {
	SwitchPorts     engine.Rel[Ref] // Logical_Switch ports
	SwitchACLs      engine.Rel[Ref] // Logical_Switch acls
	SwitchLBs       engine.Rel[Ref] // Logical_Switch load_balancer
	SwitchLBGroups  engine.Rel[Ref] // Logical_Switch load_balancer_group
	RouterPorts     engine.Rel[Ref] // Logical_Router ports
	RouterRoutes    engine.Rel[Ref] // Logical_Router static_routes
	RouterPolicies  engine.Rel[Ref] // Logical_Router policies
	RouterNATs      engine.Rel[Ref] // Logical_Router nat
	RouterLBs       engine.Rel[Ref] // Logical_Router load_balancer
	RouterLBGroups  engine.Rel[Ref] // Logical_Router load_balancer_group
	PortGroupPorts  engine.Rel[Ref] // Port_Group ports
	PortGroupACLs   engine.Rel[Ref] // Port_Group acls
	LBGroupLBs      engine.Rel[Ref] // Load_Balancer_Group load_balancer
	SwitchFwdGroups engine.Rel[Ref] // Logical_Switch forwarding_groups
	MeterBands      engine.Rel[Ref] // Meter bands
	// AddressSetAddresses are Address_Set addresses: Targets are
	// addresses, not row UUIDs.
	AddressSetAddresses engine.Rel[Ref]
}

// Listed joins the elements of a reference column, refs, to the rows of
// table they name: f makes a tuple of each listing row's _uuid and listed
// row. A reference to a row that does not exist gives nothing.
func Listed[M any, O comparable](refs engine.Rel[Ref], table Table[M], f func(owner string, row *M) O) engine.Rel[O] {
	return engine.Join(
		engine.IndexBy(refs, func(r Ref) string { return r.Target }),
		table.ByUUID(),
		func(_ string, r Ref, row *M) O { return f(r.Owner, row) })
}

func newRefs(c *engine.Circuit, n *NB) Refs {
	ls := func(column func(*nb.LogicalSwitch) []string) engine.Rel[Ref] {
		return refsOf(c, n, nb.LogicalSwitchTable, func(ls *nb.LogicalSwitch) string { return ls.UUID }, column)
	}
	lr := func(column func(*nb.LogicalRouter) []string) engine.Rel[Ref] {
		return refsOf(c, n, nb.LogicalRouterTable, func(lr *nb.LogicalRouter) string { return lr.UUID }, column)
	}
	pg := func(column func(*nb.PortGroup) []string) engine.Rel[Ref] {
		return refsOf(c, n, nb.PortGroupTable, func(pg *nb.PortGroup) string { return pg.UUID }, column)
	}
	return Refs{
		SwitchPorts:     ls(func(ls *nb.LogicalSwitch) []string { return ls.Ports }),
		SwitchACLs:      ls(func(ls *nb.LogicalSwitch) []string { return ls.ACLs }),
		SwitchLBs:       ls(func(ls *nb.LogicalSwitch) []string { return ls.LoadBalancer }),
		SwitchLBGroups:  ls(func(ls *nb.LogicalSwitch) []string { return ls.LoadBalancerGroup }),
		SwitchFwdGroups: ls(func(ls *nb.LogicalSwitch) []string { return ls.ForwardingGroups }),
		RouterPorts:     lr(func(lr *nb.LogicalRouter) []string { return lr.Ports }),
		RouterRoutes:    lr(func(lr *nb.LogicalRouter) []string { return lr.StaticRoutes }),
		RouterPolicies:  lr(func(lr *nb.LogicalRouter) []string { return lr.Policies }),
		RouterNATs:      lr(func(lr *nb.LogicalRouter) []string { return lr.Nat }),
		RouterLBs:       lr(func(lr *nb.LogicalRouter) []string { return lr.LoadBalancer }),
		RouterLBGroups:  lr(func(lr *nb.LogicalRouter) []string { return lr.LoadBalancerGroup }),
		PortGroupPorts:  pg(func(pg *nb.PortGroup) []string { return pg.Ports }),
		PortGroupACLs:   pg(func(pg *nb.PortGroup) []string { return pg.ACLs }),
		LBGroupLBs: refsOf(c, n, nb.LoadBalancerGroupTable,
			func(g *nb.LoadBalancerGroup) string { return g.UUID },
			func(g *nb.LoadBalancerGroup) []string { return g.LoadBalancer }),
		MeterBands: refsOf(c, n, nb.MeterTable,
			func(m *nb.Meter) string { return m.UUID },
			func(m *nb.Meter) []string { return m.Bands }),
		AddressSetAddresses: refsOf(c, n, nb.AddressSetTable,
			func(as *nb.AddressSet) string { return as.UUID },
			func(as *nb.AddressSet) []string { return as.Addresses }),
	}
}
