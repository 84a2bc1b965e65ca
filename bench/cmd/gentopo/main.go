// Command gentopo writes an ovn-kubernetes-like Northbound database as OVSDB
// transactions, one per line, for loading with stock tools:
//
//	go run ./bench/cmd/gentopo -preset small > topo.jsonl
//	while read -r t; do ovsdb-client transact "$OVN_NB_DB" "$t" >/dev/null; done < topo.jsonl
//
// Each line is at most 120 kB, under Linux's limit for one argument. Rows
// carry explicit UUIDs, so loading the file into two databases gives
// identical rows. A summary of the rows goes to stderr.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/northlog/northlog/bench/topology"
)

func main() {
	opts := topology.Flags(flag.CommandLine)
	out := flag.String("o", "-", "output file (- for stdout)")
	flag.Parse()
	if err := run(opts, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gentopo:", err)
		os.Exit(1)
	}
}

func run(opts func() (topology.Options, error), out string) error {
	o, err := opts()
	if err != nil {
		return err
	}
	t, err := topology.Generate(o)
	if err != nil {
		return err
	}
	f := os.Stdout
	if out != "-" {
		if f, err = os.Create(out); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(f)
	if err := t.WriteJSONLines(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%+v: %d transactions\n", o, len(t.Transactions))
	for _, table := range slices.Sorted(maps.Keys(t.Rows)) {
		fmt.Fprintf(os.Stderr, "  %-28s %6d rows\n", table, t.Rows[table])
	}
	return nil
}
