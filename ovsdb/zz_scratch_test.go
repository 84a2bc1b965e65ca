package ovsdb

import (
	"fmt"
	"testing"

	"github.com/northlog/northlog/bench/topology"
	"github.com/northlog/northlog/relations/schema"
)

func BenchmarkZZOps(b *testing.B) {
	topo, _ := topology.Generate(func() topology.Options { o := topology.Large(); o.Nodes = 20; return o }())
	p, switches := loadTopology(b, topo, schema.OVN2603)
	p.Step()
	p.Circuit.CountOps()
	apply := func(table string, old, new any) { p.NB.Apply(table, old, new) }
	ls, lsp, with := sparePortChange(topo, switches, 0)
	applyPortAdd(apply, ls, lsp, with)
	p.Step()
	for _, s := range p.Circuit.OpStats() {
		fmt.Printf("%-10s %d in %d out  %s\n", s.Op, s.In, s.Out, s.Site)
	}
}
