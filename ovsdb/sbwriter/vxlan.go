package sbwriter

import (
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/rules"
)

// The tunnel keys 23.03 allocates in VXLAN mode, when some chassis has a
// VXLAN encapsulation (is_vxlan_mode): a VXLAN VNI carries 12 bits of
// datapath key (OVN_MAX_DP_VXLAN_KEY) and 12 of port key, the upper half
// of which are multicast groups' (OVN_VXLAN_MIN_MULTICAST).
const (
	maxVXLANDatapathKey = 1<<12 - 1
	maxVXLANPortKey     = 1<<11 - 1
	// maxICVXLANDatapathKey is 26.03's largest datapath key while a switch
	// is in interconnection VXLAN mode (OVN_MAX_DP_VXLAN_KEY_LOCAL), VXLAN
	// mode or not: the keys above are the interconnection's.
	maxICVXLANDatapathKey = 1<<10 - 1
)

// vxlanMode follows whether some chassis has a VXLAN encapsulation.
type vxlanMode struct {
	// encaps are the Encap rows of type vxlan.
	encaps map[string]bool
	// disabled: NB_Global options:vxlan_mode is false, so VXLAN mode is
	// off whatever the encapsulations; ic: a switch is in interconnection
	// VXLAN mode (SetVXLANOptions, 26.03).
	disabled, ic bool
	// dirty says that a chassis, an encapsulation or an option changed
	// since on and dpMax were computed.
	dirty, on bool
	dpMax     int
}

// apply records an SB row change of Chassis or Encap; it reports whether
// the table is Encap, which only it reads.
func (v *vxlanMode) apply(c wire.Change) bool {
	switch c.Table {
	case sb.ChassisTable:
		v.dirty = true
	case sb.EncapTable:
		delete(v.encaps, c.UUID)
		if e, ok := c.New.(*sb.Encap); ok && e.Type == sb.EncapTypeVxlan {
			v.encaps[c.UUID] = true
		}
		v.dirty = true
		return true
	}
	return false
}

func (v *vxlanMode) reset() {
	v.encaps = map[string]bool{}
	v.dirty = true
}

// updateVXLAN recomputes the mode after SB changes and gives the mirror its
// key limits. When the mode changes, every datapath and port is checked
// again: a requested key may become valid or invalid.
func (w *Writer) updateVXLAN() {
	v := &w.house.vxlan
	if !v.dirty {
		return
	}
	v.dirty = false
	on := false
	for _, ch := range w.m.chassis {
		for _, e := range ch.Encaps {
			on = on || v.encaps[e] && !v.disabled
		}
	}
	dpMax, portMax := rules.MaxDatapathKey, rules.MaxPortKey
	if on {
		dpMax, portMax = maxVXLANDatapathKey, maxVXLANPortKey
	}
	if v.ic {
		dpMax = maxICVXLANDatapathKey
	}
	w.m.setKeyLimits(dpMax, portMax)
	if on == v.on && dpMax == v.dpMax {
		return
	}
	v.on, v.dpMax = on, dpMax
	for nb := range w.wantDP {
		w.dirtyDP[nb] = true
	}
	for name := range w.wantPB {
		w.dirtyPB[name] = true
	}
}

// requestedDPKey is the tunnel key a datapath requests; 0 for none, or
// for a key VXLAN mode has no room for (but on an interconnection transit
// switch), as ovn_datapath_assign_requested_tnl_id refuses it.
func (w *Writer) requestedDPKey(want rules.Datapath) int {
	r := want.RequestedKey
	if r > maxVXLANDatapathKey && w.house.vxlan.on {
		if _, ic := want.ExternalIDs.Map()["interconn-ts"]; !ic {
			w.log.Warn("tunnel key for datapath is incompatible with VXLAN", "datapath", want.ExternalIDs.Map()["name"], "key", r)
			return 0
		}
	}
	return r
}

// requestedPortKey is requestedDPKey for a port
// (ovn_port_assign_requested_tnl_id).
func (w *Writer) requestedPortKey(want *rules.PortBinding) int {
	r := want.RequestedKey
	if r > maxVXLANPortKey && w.house.vxlan.on {
		w.log.Warn("tunnel key for port is incompatible with VXLAN", "port", want.Name, "key", r)
		return 0
	}
	return r
}

// SetVXLANOptions sets what 26.03's NB says of VXLAN mode
// (en-global-config.c): NB_Global options:vxlan_mode false disables it,
// and a switch with other_config:ic-vxlan_mode limits datapath keys to
// maxICVXLANDatapathKey. The limits follow at the next ApplySB.
func (w *Writer) SetVXLANOptions(disabled, ic bool) {
	v := &w.house.vxlan
	if v.disabled != disabled || v.ic != ic {
		v.disabled, v.ic, v.dirty = disabled, ic, true
	}
}
