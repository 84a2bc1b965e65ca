package rules

import (
	"fmt"
	"slices"
	"testing"

	"github.com/northlog/northlog/internal/cputime"
	"github.com/northlog/northlog/relations/nb"
)

// switchWithPorts builds a program holding one switch with n VIF ports
// (MAC+IPv4 addresses, port security) and computes its flows.
func switchWithPorts(b *testing.B, n int) (*Program, *nb.LogicalSwitch) {
	b.Helper()
	p := New()
	ls := &nb.LogicalSwitch{UUID: "ls-uuid", Name: "ls"}
	for i := range n {
		lsp := benchPort(i)
		ls.Ports = append(ls.Ports, lsp.UUID)
		if err := p.NB.Apply(nb.LogicalSwitchPortTable, nil, lsp); err != nil {
			b.Fatal(err)
		}
	}
	if err := p.NB.Apply(nb.LogicalSwitchTable, nil, ls); err != nil {
		b.Fatal(err)
	}
	p.Step()
	return p, ls
}

func benchPort(i int) *nb.LogicalSwitchPort {
	addr := fmt.Sprintf("0a:00:00:%02x:%02x:%02x 10.%d.%d.%d", i>>16&0xff, i>>8&0xff, i&0xff, i>>16&0xff, i>>8&0xff, i&0xff)
	return &nb.LogicalSwitchPort{
		UUID:         fmt.Sprintf("lsp-%d", i),
		Name:         fmt.Sprintf("p%d", i),
		Addresses:    []string{addr},
		PortSecurity: []string{addr},
	}
}

// BenchmarkSwitchAddPort measures one NB change on a big switch: a port is
// added (a new Logical_Switch_Port row and the switch's ports column
// rewritten, as ovn-nbctl lsp-add does), a step computes its flows, then the
// port is removed again in a second step. ns/op covers both steps.
func BenchmarkSwitchAddPort(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint("ports=", n), func(b *testing.B) {
			p, ls := switchWithPorts(b, n)
			lsp := benchPort(n)
			with := *ls
			with.Ports = append(slices.Clone(ls.Ports), lsp.UUID)
			changed := 0
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cputime.Process()
			for b.Loop() {
				must(b, p.NB.Apply(nb.LogicalSwitchPortTable, nil, lsp))
				must(b, p.NB.Apply(nb.LogicalSwitchTable, ls, &with))
				p.Step()
				changed += len(p.Flows.Delta())
				must(b, p.NB.Apply(nb.LogicalSwitchTable, &with, ls))
				must(b, p.NB.Apply(nb.LogicalSwitchPortTable, lsp, nil))
				p.Step()
				changed += len(p.Flows.Delta())
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(2*b.N), "cpu-ns/step")
			b.ReportMetric(float64(changed)/float64(2*b.N), "flows/step")
		})
	}
}

func must(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}
