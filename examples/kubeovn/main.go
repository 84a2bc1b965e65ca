// Command kubeovn is a northd with a stage of Kube-OVN's: its fork of OVN
// patches northd.c to add ls_in_after_lb after ls_in_lb, where a packet
// that a load balancer DNATed to a pod gets the pod's MAC as eth.dst
// (Kube-OVN's ls_dnat_mod_dl_dst), so that L2 lookup delivers it to the pod
// whatever MAC it was sent to. Here the stage is declared in Go
// (LSInAfterLB), placed in OVN 23.03's stage table (Stages) and filled by a
// rule (AfterLBFlows); the built-in stages after it renumber, and so do the
// tables that built-in flows name in next(pipeline=..., table=N).
//
//	go run ./examples/kubeovn --ovnnb-db=unix:nb.sock --ovnsb-db=unix:sb.sock
//
// OVN 26.03 has no room for it: its switch ingress pipeline already has
// the 34 stages ovn-controller 26.03 runs (Stages says so).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// LSInAfterLB is Kube-OVN's stage, named as its northd names it.
var LSInAfterLB = rules.NewStage(rules.Switch, rules.Ingress, "ls_in_after_lb")

// Stages is release r's stage table with ls_in_after_lb after ls_in_lb.
func Stages(r schema.Release) (*rules.StageTable, error) {
	return rules.StagesOf(r).With(rules.After(rules.LSInLB, LSInAfterLB))
}

// AfterLBFlows fills ls_in_after_lb: on every switch, priority 100 for each
// IPv4 address of each of its ports sets the port's MAC as eth.dst of
// packets to that address (after ls_in_lb's DNAT, to a backend);
// priority 0 passes everything else on.
func AfterLBFlows(n *relations.NB) engine.Rel[rules.Flow] {
	pass := engine.Map(n.Switches.Rows, func(ls *nb.LogicalSwitch) rules.Flow {
		return rules.Flow{Datapath: ls.UUID, Stage: LSInAfterLB, Priority: 0, Match: "1", Actions: "next;"}
	})
	toPort := engine.FlatMap(n.PortsOnSwitches, func(sp relations.SwitchPort) []rules.Flow {
		var flows []rules.Flow
		for _, entry := range sp.Port.Addresses {
			if relations.IsSpecialAddress(entry) {
				continue
			}
			a, err := relations.ParseLSPAddresses(entry)
			if err != nil {
				continue // the built-in rules report it
			}
			for _, ip := range a.IPv4 {
				flows = append(flows, rules.Flow{Datapath: sp.Switch, Stage: LSInAfterLB, Priority: 100,
					Match: "ip4.dst == " + ip.AddrS, Actions: fmt.Sprintf("eth.dst = %s; next;", a.MAC)})
			}
		}
		return flows
	})
	return engine.Union(pass, toPort)
}

// Program is the northd: the built-in rules and AfterLBFlows, numbered by
// stages (Stages).
func Program(stages *rules.StageTable) *rules.Program {
	builtin, err := rules.Builtin()
	if err != nil {
		panic(err) // Builtin fails only on a name it is given
	}
	return rules.NewWith(stages, append(builtin, AfterLBFlows)...)
}

func main() {
	nbDB := flag.String("ovnnb-db", "unix:/var/run/ovn/ovnnb_db.sock", "NB database")
	sbDB := flag.String("ovnsb-db", "unix:/var/run/ovn/ovnsb_db.sock", "SB database")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	stages, err := Stages(schema.OVN2303)
	if err != nil {
		log.Error("cannot place ls_in_after_lb", "err", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d := ovsdb.NewNorthd(ovsdb.Config{NBRemote: *nbDB, SBRemote: *sbDB, Logger: log,
		Program: func() *rules.Program { return Program(stages) }})
	if err := d.Run(ctx); err != nil && ctx.Err() == nil {
		log.Error("northd stopped", "err", err)
		os.Exit(1)
	}
}
