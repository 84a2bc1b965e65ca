package rules

import (
	"cmp"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// StaticMACBinding is one NB Static_MAC_Binding row, which ovn-northd 23.03
// copies to the SB Static_MAC_Binding row of the same logical_port and ip
// when logical_port names a router port (northd.c
// build_static_mac_binding_table). No logical flow comes from it:
// ovn-controller reads the SB row.
type StaticMACBinding struct {
	LogicalPort, IP, MAC string
	OverrideDynamicMAC   bool
	NB                   string // the NB row's _uuid, which 26.03's SB row takes
}

// CompareStaticMACBindings orders static MAC bindings by port, IP, then
// contents.
func CompareStaticMACBindings(a, b StaticMACBinding) int {
	return cmp.Or(cmp.Compare(a.LogicalPort, b.LogicalPort), cmp.Compare(a.IP, b.IP), cmp.Compare(a.MAC, b.MAC),
		cmp.Compare(strconv.FormatBool(a.OverrideDynamicMAC), strconv.FormatBool(b.OverrideDynamicMAC)), cmp.Compare(a.NB, b.NB))
}

// SBStaticMACBindings computes the static MAC bindings: the NB rows as
// they are, whether their port exists or not, since an SB row with no NB
// row of its port and IP is deleted while one whose port is no router port
// is left alone (the writer tells the two apart).
func SBStaticMACBindings(n *relations.NB) engine.Rel[StaticMACBinding] {
	return engine.Map(n.StaticMACBindings.Rows, func(m *nb.StaticMACBinding) StaticMACBinding {
		return StaticMACBinding{LogicalPort: m.LogicalPort, IP: m.IP, MAC: m.MAC, OverrideDynamicMAC: m.OverrideDynamicMAC, NB: m.UUID}
	})
}
