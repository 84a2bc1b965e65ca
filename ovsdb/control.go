package ovsdb

import (
	"context"
	"fmt"
	"reflect"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/ovsdb/enginestats"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// What an operator asks a running northd (ovn-northd's unixctl commands):
// each request runs on the northd's goroutine between two iterations, so
// it sees and changes the state the iterations use, and the iteration that
// follows acts on it at once.

// control runs f on the northd's goroutine and waits until it has run. It
// fails when ctx ends first (Run is not running, or is busy dialling).
func (d *Northd) control(ctx context.Context, f func()) error {
	done := make(chan struct{})
	select {
	case d.ctl <- func() { f(); close(done) }:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Update runs f with the program the northd runs, on the northd's
// goroutine between two iterations; the next iteration steps the program
// and writes what f changed, even when neither database changed. It is
// how an embedding program feeds inputs of its own (an engine.Input that
// its rules added to the NB's circuit, found with engine.InputOf on
// p.Circuit, filled from Kubernetes objects, say) beside the NB. f must
// not keep p. p.Flows keeps no contents (the SB writer keeps the flows).
func (d *Northd) Update(ctx context.Context, f func(p *rules.Program)) error {
	return d.control(ctx, func() { f(d.prog); d.inputsChanged = true })
}

// Pause stops the northd writing to either database and releases the SB
// lock, so that a standby northd takes over; it keeps following both
// databases and computing. Resume undoes it.
func (d *Northd) Pause(ctx context.Context) error {
	return d.control(ctx, func() {
		d.setPaused(true)
		if d.sb != nil {
			if err := d.sb.Unlock(ctx); err != nil {
				d.log.Warn("cannot release the SB lock", "err", err)
			}
		}
	})
}

// Resume asks for the SB lock again after Pause; once it holds it, the
// northd writes what the databases lack, as on any lock acquisition.
func (d *Northd) Resume(ctx context.Context) error {
	return d.control(ctx, func() {
		if !d.IsPaused() {
			return
		}
		d.setPaused(false)
		if d.sb != nil {
			if err := d.sb.Lock(ctx, LockName); err != nil {
				d.log.Warn("cannot ask for the SB lock", "err", err)
			}
		}
	})
}

func (d *Northd) setPaused(p bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paused = p
}

// IsPaused reports whether the northd is paused (Pause, or Config.Paused).
func (d *Northd) IsPaused() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.paused
}

// Status is ovn-northd's status word: "paused", "active" (it holds the SB
// lock) or "standby".
func (d *Northd) Status() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.paused:
		return "paused"
	case d.isActive:
		return "active"
	}
	return "standby"
}

// Features are the chassis features the flows are computed for.
func (d *Northd) Features(ctx context.Context) (relations.Features, error) {
	var f relations.Features
	err := d.control(ctx, func() { f = d.prog.Features.Get() })
	return f, err
}

// NodeStats counts the iterations of one of ovn-northd's engine nodes,
// as its inc-engine/show-stats shows them: Recompute those that redid the
// node's whole output, Compute those that changed it incrementally,
// Cancel those that gave up half-way (23.03 calls it abort).
type NodeStats struct {
	Name                       string
	Recompute, Compute, Cancel uint64
}

// engineNodes2303 are the 23.03 engine nodes that EngineStats gives
// counters for, in 23.03's order. northlog's program has no such nodes;
// each counts the iterations that, in 23.03, would have run it:
//
//   - northd and lflow: a recompute for an iteration after a new NB
//     connection, the SB lock acquired, or Recompute; a compute for any
//     other iteration that changed the program's NB inputs.
//   - sync_to_sb_addr_set: the same recomputes, and one for an iteration
//     with any NB change but the addresses of existing Address_Set rows;
//     a compute for an iteration that changed those addresses alone
//     (23.03 handles that case alone incrementally).
//
// 26.03's nodes are package enginestats' model of its engine.
var engineNodes2303 = []string{"northd", "lflow", "sync_to_sb_addr_set"}

// EngineStats returns the counters of the engine nodes of the release
// the northd reproduces, in the order its show-stats lists them.
func (d *Northd) EngineStats() []NodeStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.engine != nil {
		var out []NodeStats
		for _, name := range d.engine.Names() {
			s, _ := d.engine.Stats(name)
			out = append(out, NodeStats{Name: name, Recompute: s.Recompute, Compute: s.Compute, Cancel: s.Cancel})
		}
		return out
	}
	out := make([]NodeStats, len(engineNodes2303))
	for i, name := range engineNodes2303 {
		out[i] = d.nodeStats[i]
		out[i].Name = name
	}
	return out
}

// ClearEngineStats sets every counter of EngineStats to 0.
func (d *Northd) ClearEngineStats() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nodeStats = [3]NodeStats{}
	if d.engine != nil {
		d.engine.Clear()
	}
}

// countIteration adds an iteration to the engine counters. full says it
// compared everything (new NB connection, lock acquired, Recompute);
// nbBatches and sbBatches are what the databases sent. It reports whether
// 26.03's sync_to_sb_lb recomputed, which brings back the SB
// Load_Balancer rows others changed. A northd paused or on standby counts
// nothing: ovn-northd's engine does not run then, and recomputes
// everything once active (followLock's full iteration).
func (d *Northd) countIteration(full bool, nbBatches, sbBatches []wire.Batch) (lbSyncRecomputed bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if engineModel2603(d.release) {
		if d.engine == nil {
			nbSchema, sbSchema := d.release.NBSchema(), d.release.SBSchema()
			d.engine = enginestats.NewNorthd2603(&nbSchema, &sbSchema)
		}
		if !d.active {
			d.engine.Hold(nbBatches, sbBatches)
			return false
		}
		before, _ := d.engine.Stats(lbSyncNode2603)
		if d.w.TakeFlowLostGroup() {
			d.engine.NoteStaleSBFlow()
		}
		d.engine.Iterate(nbBatches, sbBatches, d.feed.row, full)
		after, _ := d.engine.Stats(lbSyncNode2603)
		return after.Recompute > before.Recompute
	}
	d.engine = nil
	nbChanged, addrOnly := nbChangeKind(nbBatches)
	if !d.active || !full && !nbChanged {
		return
	}
	for i := range d.nodeStats {
		s := &d.nodeStats[i]
		switch {
		case full, engineNodes2303[i] == "sync_to_sb_addr_set" && !addrOnly:
			s.Recompute++
		default:
			s.Compute++
		}
	}
	return false
}

// lbSyncNode2603 is 26.03's engine node that writes SB Load_Balancer.
const lbSyncNode2603 = "sync_to_sb_lb"

// wantNBOptions tells the engine model the NB_Global options the northd
// wants the NB to hold.
func (d *Northd) wantNBOptions(options map[string]string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.engine != nil {
		d.engine.SetNBOptions(options)
	}
}

// engineModel2603: 26.03's show-stats has its engine's nodes, modelled
// by package enginestats.
func engineModel2603(r schema.Release) bool { return r >= schema.OVN2603 }

// nbChangeKind tells whether batches change the NB, and whether only the
// addresses of existing Address_Set rows.
func nbChangeKind(bs []wire.Batch) (changed, addrOnly bool) {
	addrOnly = true
	for _, b := range bs {
		for _, c := range b.Changes {
			changed = true
			if b.Initial || c.Table != nb.AddressSetTable || c.Old == nil || c.New == nil {
				addrOnly = false
			}
		}
	}
	return changed, changed && addrOnly
}

// Recompute computes the whole output again with a new program fed the NB
// as the northd holds it, and compares it with the incrementally kept
// one; a difference is a bug, logged at error level and counted
// (RecomputeMismatches). Then, as after 23.03's inc-engine/recompute, the
// whole SB is compared with what it should hold.
func (d *Northd) Recompute(ctx context.Context) error {
	return d.control(ctx, func() {
		d.setProcs(d.procsFor(true))
		fresh := d.newProgram()
		fresh.Flows.DropContents()
		fresh.Features.Set(d.prog.Features.Get())
		for _, name := range d.w.RemoteChassisFed() {
			fresh.NB.SetRemoteChassisName(name, true)
		}
		for table, rows := range d.feed.rows {
			for _, row := range rows {
				if err := fresh.NB.Apply(table, nil, row); err != nil {
					d.log.Error("recompute: cannot apply an NB row", "table", table, "err", err)
				}
			}
		}
		d.step(fresh)
		diff := programDiff(d.prog, fresh)
		if !d.w.WantsFlowsOf(fresh) {
			diff += " Flows"
		}
		if diff != "" {
			d.mu.Lock()
			d.mismatches++
			d.mu.Unlock()
			d.log.Error("recompute differs from the incremental state", "outputs", diff)
		} else {
			d.log.Info("recompute matches the incremental state", "flows", d.w.DesiredFlows())
		}
		d.w.MarkAll()
		d.upAll = true
		d.fullNext = true
	})
}

// RecomputeMismatches is the number of Recompute calls whose result
// differed from the incremental state.
func (d *Northd) RecomputeMismatches() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mismatches
}

// programDiff names the outputs of a and b whose contents differ ("" when
// none do), with the size of each: every field of Program that has a
// Contents method, but Flows, whose contents the live northd keeps in its
// SB writer alone (Writer.WantsFlowsOf compares them).
func programDiff(a, b *rules.Program) string {
	diff := ""
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		ma := va.Field(i).MethodByName("Contents")
		if !ma.IsValid() || va.Type().Field(i).Name == "Flows" {
			continue
		}
		ca, cb := ma.Call(nil)[0], vb.Field(i).MethodByName("Contents").Call(nil)[0]
		if !reflect.DeepEqual(ca.Interface(), cb.Interface()) {
			diff += fmt.Sprintf(" %s(%d vs %d)", va.Type().Field(i).Name, ca.Len(), cb.Len())
		}
	}
	return diff
}

// ResetClusterState forgets the cluster index seen of the NB (nb true) or
// the SB (ovn-northd's nb-cluster-state-reset and sb-cluster-state-reset),
// so that members of a cluster made again from scratch, whose index is
// lower, are accepted.
func (d *Northd) ResetClusterState(nb bool) {
	if nb {
		d.log.Info("Resetting northbound database cluster state")
		d.nbS.Index.Reset()
		return
	}
	d.log.Info("Resetting southbound database cluster state")
	d.sbS.Index.Reset()
}

// SetThreads sets how many goroutines the northd's next large step may
// run on (Config.Threads), as ovn-northd's parallel-build/set-n-threads
// resizes its pool; it may be called from any goroutine.
func (d *Northd) SetThreads(n int) { d.threads.Store(int64(max(n, 1))) }

// step steps p on as many goroutines as SetThreads allows.
func (d *Northd) step(p *rules.Program) []*engine.Rejected {
	p.Circuit.Workers(int(d.threads.Load()))
	return p.Step()
}
