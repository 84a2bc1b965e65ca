package rules

import (
	"cmp"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// BFD is the part of an SB BFD row that ovn-northd 23.03 copies from the NB
// BFD row of the same logical_port and dst_ip (northd.c build_bfd_table),
// with the defaults of the timers it leaves unset. The SB writer picks the
// row's UDP source port and discriminator when it inserts it.
type BFD struct {
	LogicalPort, DstIP       string
	MinTx, MinRx, DetectMult int
	// Status is the NB's, admin_down when unset (23.03 writes that to the
	// NB): a new row gets it; an existing one gets it only when either is
	// admin_down, and otherwise keeps the state ovn-controller reports.
	Status string
}

// Defaults of BFD timers (northd.c BFD_DEF_*): milliseconds and packets.
const (
	bfdDefaultMinTx      = 1000
	bfdDefaultMinRx      = 1000
	bfdDefaultDetectMult = 5
)

// CompareBFDs orders BFD rows by port, address, then contents.
func CompareBFDs(a, b BFD) int {
	return cmp.Or(cmp.Compare(a.LogicalPort, b.LogicalPort), cmp.Compare(a.DstIP, b.DstIP),
		cmp.Compare(a.MinTx, b.MinTx), cmp.Compare(a.MinRx, b.MinRx), cmp.Compare(a.DetectMult, b.DetectMult),
		cmp.Compare(a.Status, b.Status))
}

// SBBFDs computes the SB BFD rows: one per NB row, whether its port exists
// or not.
func SBBFDs(n *relations.NB) engine.Rel[BFD] {
	return engine.Map(n.BFD.Rows, func(b *nb.BFD) BFD {
		orDefault := func(v *int, def int) int {
			if v == nil {
				return def
			}
			return *v
		}
		status := nb.BFDStatusAdminDown
		if b.Status != nil {
			status = *b.Status
		}
		return BFD{LogicalPort: b.LogicalPort, DstIP: b.DstIP, MinTx: orDefault(b.MinTx, bfdDefaultMinTx),
			MinRx: orDefault(b.MinRx, bfdDefaultMinRx), DetectMult: orDefault(b.DetectMult, bfdDefaultDetectMult), Status: status}
	})
}
