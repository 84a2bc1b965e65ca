package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/northlog/northlog/internal/unixctl"
	"github.com/northlog/northlog/internal/vlog"
	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/relations/schema"
)

// controlTimeout bounds a command that waits for the northd's goroutine
// (busy with a long SB transaction, or still dialling).
const controlTimeout = 30 * time.Second

// registerCommands adds ovn-northd 23.03's unixctl commands, with its
// texts, to ctl: exit ends the daemon through exit.
func registerCommands(ctl *unixctl.Server, d *ovsdb.Northd, logs *vlog.Vlog, s *settings, threads *threadPool, exit func()) {
	wait := func(f func(context.Context) error) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
		defer cancel()
		return "", f(ctx)
	}
	ctl.Register("exit", "", 0, 0, func([]string) (string, error) {
		exit()
		return "", nil
	})
	ctl.Register("pause", "", 0, 0, func([]string) (string, error) { return wait(d.Pause) })
	ctl.Register("resume", "", 0, 0, func([]string) (string, error) { return wait(d.Resume) })
	ctl.Register("is-paused", "", 0, 0, func([]string) (string, error) {
		return strconv.FormatBool(d.IsPaused()), nil
	})
	// The release follows the NB: known once it has connected.
	ctl.Register("version", "", 0, 0, func([]string) (string, error) {
		r, ok := d.Release()
		if !ok {
			return version(s.program, nil), nil
		}
		return version(s.program, &r), nil
	})
	ctl.Register("status", "", 0, 0, func([]string) (string, error) {
		return "Status: " + d.Status() + "\n", nil
	})
	for _, nb := range []bool{true, false} {
		ctl.Register(map[bool]string{true: "nb", false: "sb"}[nb]+"-cluster-state-reset", "", 0, 0, func([]string) (string, error) {
			d.ResetClusterState(nb)
			return "", nil
		})
	}
	// As 23.03's ovn_conn_show.
	connected := func(cs ovsdb.ConnStatus) (string, error) {
		if cs.Member == "" {
			return "not connected", nil
		}
		return "connected", nil
	}
	ctl.Register("nb-connection-status", "", 0, 0, func([]string) (string, error) { return connected(d.Connections().NB) })
	ctl.Register("sb-connection-status", "", 0, 0, func([]string) (string, error) { return connected(d.Connections().SB) })
	// northlog's own: scripts compare the two commands above with 23.03's
	// one word, so the member each connection is on is told here.
	ctl.Register("connections", "", 0, 0, func([]string) (string, error) {
		return connectionsText(d.Connections()), nil
	})
	ctl.Register("inc-engine/show-stats", "", 0, 2, func(args []string) (string, error) {
		r, ok := d.Release()
		return showStats(d.EngineStats(), cancelCounter(r, ok), args), nil
	})
	ctl.Register("inc-engine/clear-stats", "", 0, 0, func([]string) (string, error) {
		d.ClearEngineStats()
		return "", nil
	})
	ctl.Register("inc-engine/recompute", "", 0, 0, func([]string) (string, error) { return wait(d.Recompute) })

	threads.register(ctl)
	ctl.Register("debug/chassis-features-list", "", 0, 0, func([]string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
		defer cancel()
		f, err := d.Features(ctx)
		if err != nil {
			return "", err
		}
		// The SB schema northlog writes has MAC_Binding's timestamp
		// column, from which 23.03 derives mac_binding_timestamp.
		return fmt.Sprintf("ct_no_masked_label:    %t\nct_lb_related:         %t\nmac_binding_timestamp: %t\n",
			f.CTNoMaskedLabel, f.CTLBRelated, true), nil
	})
	ctl.Register("memory/show", "", 0, 0, func([]string) (string, error) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		rows := 0
		for _, n := range d.Totals() {
			rows += n[0] + n[1] + n[2]
		}
		return fmt.Sprintf("heap-bytes:%d heap-objects:%d sb-rows-written:%d\n", m.HeapAlloc, m.HeapObjects, rows), nil
	})
	ctl.Register("coverage/show", "", 0, 0, func([]string) (string, error) {
		return coverage(d), nil
	})
	logs.Register(ctl)
}

// showStats is inc-engine/show-stats' text: every node's counters, one
// node's, or one counter of one node. cancel is the third counter's name.
func showStats(stats []ovsdb.NodeStats, cancel string, args []string) string {
	var b strings.Builder
	for _, st := range stats {
		if len(args) > 0 && args[0] != st.Name {
			continue
		}
		if len(args) < 2 {
			fmt.Fprintf(&b, "Node: %s\n- recompute: %12d\n- compute:   %12d\n- %-10s %12d\n", st.Name, st.Recompute, st.Compute, cancel+":", st.Cancel)
			continue
		}
		switch args[1] {
		case "recompute":
			fmt.Fprintf(&b, "%d", st.Recompute)
		case "compute":
			fmt.Fprintf(&b, "%d", st.Compute)
		case cancel:
			fmt.Fprintf(&b, "%d", st.Cancel)
		default:
			fmt.Fprintf(&b, "Invalid stat type : %s", args[1])
		}
	}
	return b.String()
}

// cancelCounter is the name show-stats gives the engine's third counter:
// 23.03's abort became cancel.
func cancelCounter(r schema.Release, known bool) string {
	if known && r >= schema.OVN2603 {
		return "cancel"
	}
	return "abort"
}

// coverage is coverage/show's text: the SB rows written per table and
// operation since the start, and the recomputes that differed.
func coverage(d *ovsdb.Northd) string {
	var b strings.Builder
	b.WriteString("Event coverage (totals since start):\n")
	totals := d.Totals()
	for _, table := range slices.Sorted(maps.Keys(totals)) {
		n := totals[table]
		for i, op := range []string{"insert", "update", "delete"} {
			if n[i] > 0 {
				fmt.Fprintf(&b, "%-32s total: %d\n", "sb_"+op+"_"+table, n[i])
			}
		}
	}
	fmt.Fprintf(&b, "%-32s total: %d\n", "recompute_mismatch", d.RecomputeMismatches())
	return b.String()
}

// connectionsText is the connections command's answer: the SB lock, and for
// each database the member in use (or why there is none) and how many
// connections were made.
func connectionsText(c ovsdb.Connections) string {
	var b strings.Builder
	lock := map[bool]string{true: "held", false: "not held"}[c.Active]
	fmt.Fprintf(&b, "SB lock: %s\n", lock)
	for _, db := range []struct {
		name string
		cs   ovsdb.ConnStatus
	}{{"NB", c.NB}, {"SB", c.SB}} {
		if db.cs.Member == "" {
			fmt.Fprintf(&b, "%s: not connected (%d connections made; last error: %s)\n", db.name, db.cs.Connects, cmp.Or(db.cs.LastError, "none"))
			continue
		}
		fmt.Fprintf(&b, "%s: connected to %s (%d connections made)\n", db.name, db.cs.Member, db.cs.Connects)
	}
	return b.String()
}
