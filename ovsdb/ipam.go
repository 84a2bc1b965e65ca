package ovsdb

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// observeIPAM gives IPAM one NB row change, as the server sent it.
func (f *nbFeed) observeIPAM(c wire.Change) {
	switch c.Table {
	case nb.NBGlobalTable:
		if g, ok := c.New.(*nb.NBGlobal); ok {
			if o, ok := c.Old.(*nb.NBGlobal); ok && o.Options["mac_prefix"] == g.Options["mac_prefix"] {
				break // every --wait=sb bumps nb_cfg: no need to parse the same prefix again
			}
			prefix, ok := scanMACPrefix(g.Options["mac_prefix"])
			if !ok {
				prefix = f.macs.prefix
			}
			f.ipam.SetMACPrefix(prefix)
		}
	case nb.LogicalSwitchTable:
		ls, _ := c.New.(*nb.LogicalSwitch)
		f.ipam.UpdateSwitch(c.UUID, ls)
	case nb.LogicalSwitchPortTable:
		p, _ := c.New.(*nb.LogicalSwitchPort)
		if p == nil {
			delete(f.lspRaw, c.UUID)
		} else {
			f.lspRaw[c.UUID] = p
		}
		f.ipamPending[c.UUID] = true
		f.ipam.UpdateSwitchPort(c.UUID, p)
	case nb.LogicalRouterPortTable:
		p, _ := c.New.(*nb.LogicalRouterPort)
		f.ipam.UpdateRouterPort(c.UUID, p)
	}
}

// withDynamic is the row the program is fed for an NB row: a switch port
// with the dynamic_addresses IPAM gives it, which the NB holds once
// writeIPAM's transaction is through; NB_Global with the random MACs
// northd writes there (so that the first run's flows and SB rows use
// them, as ovn-northd's do); any other row as it is.
func (f *nbFeed) withDynamic(table, uuid string, m model.Model) model.Model {
	if g, ok := m.(*nb.NBGlobal); ok && table == nb.NBGlobalTable {
		cp := *g
		cp.Options = withRandomMACs(g.Options, f.release, f.macs)
		return &cp
	}
	p, ok := m.(*nb.LogicalSwitchPort)
	if !ok || table != nb.LogicalSwitchPortTable {
		return m
	}
	want := f.ipam.Dynamic(uuid)
	if sameOptString(p.DynamicAddresses, want) {
		return m
	}
	cp := *p
	cp.DynamicAddresses = want
	return &cp
}

func sameOptString(a, b *string) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// ipamOps are the operations that set the switch ports' dynamic_addresses
// the NB does not hold yet. Each update waits for the port's addresses and
// dynamic_addresses to be those IPAM read: when someone changed them
// meanwhile, the transaction fails, and the change, which the monitor
// brings, is decided again before the next try.
func (f *nbFeed) ipamOps() []lovsdb.Operation {
	if len(f.ipamPending) == 0 {
		// A map that once held every port (after a cold start) costs
		// its capacity to walk however few it holds: start afresh.
		f.ipamPending = map[string]bool{}
		return nil
	}
	var ops []lovsdb.Operation
	for _, u := range slices.Sorted(maps.Keys(f.ipamPending)) {
		raw := f.lspRaw[u]
		want := f.ipam.Dynamic(u)
		if raw == nil || sameOptString(raw.DynamicAddresses, want) {
			delete(f.ipamPending, u)
			continue
		}
		dyn := wire.OptString("", false)
		if raw.DynamicAddresses != nil {
			dyn = wire.OptString(*raw.DynamicAddresses, true)
		}
		ops = append(ops, wire.VerifyOp(nb.LogicalSwitchPortTable, u, lovsdb.Row{"addresses": wire.StrSet(raw.Addresses), "dynamic_addresses": dyn}))
		newDyn := wire.OptString("", false)
		if want != nil {
			newDyn = wire.OptString(*want, true)
		}
		ops = append(ops, lovsdb.Operation{Op: lovsdb.OperationUpdate, Table: nb.LogicalSwitchPortTable,
			Where: wire.WhereUUID(u), Row: lovsdb.Row{"dynamic_addresses": newDyn}})
	}
	return ops
}

// writeIPAM writes the dynamic_addresses IPAM computed, in an NB
// transaction of their own; a failed one is retried with backoff, or
// sooner when an NB update comes.
func (d *Northd) writeIPAM(ctx context.Context) {
	if d.ipamAgain.Waiting() {
		return
	}
	ops := d.feed.ipamOps()
	if len(ops) == 0 {
		d.ipamAgain.Reset()
		return
	}
	start := time.Now()
	if err := d.nb.Transact(ctx, ops); err != nil {
		if ctx.Err() == nil {
			d.ipamAgain.Failed(d.cfg.MaxBackoff)
			d.log.Warn("NB dynamic_addresses transaction failed; retrying", "ports", len(ops)/2, "err", err, "retry", d.ipamAgain.Delay())
		}
		return
	}
	d.ipamAgain.Reset()
	d.log.Debug("NB dynamic_addresses written", "ports", len(ops)/2, "txn", time.Since(start))
}
