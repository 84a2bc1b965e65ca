package sbwriter

import (
	"math/rand/v2"

	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
)

// BFD source ports (RFC 5881 4): 49152 to 65534, each session its own.
const (
	bfdFirstSrcPort = 49152
	bfdLastSrcPort  = 65534
)

// bfdTable keeps SB BFD, keyed by logical_port and dst_ip (northd.c
// build_bfd_table).
type bfdTable struct {
	*keyedTable[rules.BFD]
	// inserted are the source ports of the rows the transaction being
	// built inserts.
	inserted map[int]bool
}

func newBFDTable() *bfdTable {
	b := &bfdTable{}
	b.keyedTable = newKeyedTable(sb.BFDTable, func(m model.Model) (string, bool) {
		r := m.(*sb.BFD)
		return bfdKey(r.LogicalPort, r.DstIP), true
	}, b.write)
	return b
}

func bfdKey(port, dstIP string) string { return port + "\x00" + dstIP }

func (b *bfdTable) reconcile(t *Txn) {
	b.inserted = map[int]bool{}
	b.keyedTable.reconcile(t)
}

// write inserts a session's row with the lowest free source port and a
// random discriminator, or brings a row's settings to the NB's. The status
// of a row goes to the NB's only when either is admin_down: otherwise it
// is ovn-controller's report, which 23.03 copies to the NB.
func (b *bfdTable) write(t *Txn, want rules.BFD, uuid string, row model.Model) {
	c := newChangedRow(uuid)
	r, _ := row.(*sb.BFD)
	if r == nil {
		port := b.freeSrcPort()
		if port == 0 {
			return
		}
		b.inserted[port] = true
		c.set("src_port", false, port)
		c.set("disc", false, 1+int(rand.Uint32()))
		c.set("status", false, want.Status)
		r = &sb.BFD{}
	} else if r.Status != want.Status && (r.Status == sb.BFDStatusAdminDown || want.Status == sb.BFDStatusAdminDown) {
		c.set("status", false, want.Status)
	}
	c.set("logical_port", r.LogicalPort == want.LogicalPort, want.LogicalPort)
	c.set("dst_ip", r.DstIP == want.DstIP, want.DstIP)
	c.set("min_tx", r.MinTx == want.MinTx, want.MinTx)
	c.set("min_rx", r.MinRx == want.MinRx, want.MinRx)
	c.set("detect_mult", r.DetectMult == want.DetectMult, want.DetectMult)
	if len(c.row) > 0 {
		c.commit(t, sb.BFDTable)
	}
}

// freeSrcPort is the lowest source port no row uses, 0 when none is left.
func (b *bfdTable) freeSrcPort() int {
	used := map[int]bool{}
	for _, m := range b.rows {
		used[m.(*sb.BFD).SrcPort] = true
	}
	for p := bfdFirstSrcPort; p <= bfdLastSrcPort; p++ {
		if !used[p] && !b.inserted[p] {
			return p
		}
	}
	return 0
}
