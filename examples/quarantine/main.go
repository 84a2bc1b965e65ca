// Command quarantine shows how to embed northlog with a rule of your own: it
// computes the logical flows of an NB database file with the built-in rules
// plus QuarantineFlows, which drops every packet from a switch port whose
// external_ids:quarantine is "true", and prints them in canonical form.
//
//	go run ./examples/quarantine NB_DB_FILE
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/rules"
)

// QuarantineFlows: ls_in_check_port_sec, priority 110 (above every built-in
// flow of the stage), drops all traffic from quarantined ports.
func QuarantineFlows(nb *relations.NB) engine.Rel[rules.Flow] {
	quarantined := engine.Filter(nb.PortsOnSwitches, func(sp relations.SwitchPort) bool {
		return sp.Port.ExternalIDs["quarantine"] == "true"
	})
	return engine.Map(quarantined, func(sp relations.SwitchPort) rules.Flow {
		return rules.Flow{
			Datapath: sp.Switch,
			Stage:    rules.LSInCheckPortSec,
			Priority: 110,
			Match:    "inport == " + strconv.Quote(sp.Port.Name),
			Actions:  "drop;",
		}
	})
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: quarantine NB_DB_FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	out, err := ovsdb.ComputeFromFile(flag.Arg(0), QuarantineFlows)
	if err != nil {
		slog.Error("computing flows", "err", err)
		os.Exit(1)
	}
	for _, r := range out.Rejected {
		slog.Warn("skipped malformed NB row", "reason", r)
	}
	for _, line := range out.Canonical() {
		fmt.Println(line)
	}
}
