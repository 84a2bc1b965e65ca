package rules

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// Datapath is one SB Datapath_Binding row as ovn-northd 23.03 writes it
// (northd.c build_datapaths, ovn_datapath_update_external_ids): one per
// logical switch and per enabled logical router. The tunnel key is left to
// whoever writes the SB, which allocates it and keeps it stable.
type Datapath struct {
	// NB is the _uuid of the Logical_Switch or Logical_Router, the value of
	// external_ids:logical-switch or logical-router.
	NB   string
	Kind DatapathKind
	// ExternalIDs: logical-switch or logical-router, name, name2 (from
	// neutron:network_name or neutron:router_name), interconn-ts for
	// switches, snat-ct-zone and always_learn_from_arp_request=false for
	// routers; in 26.03 also ct-zone-limit, fdb_age_threshold and the EVPN
	// settings for switches and disable_garp_rarp and routerSettingsInSB's
	// for routers.
	ExternalIDs Smap
	// RequestedKey is other_config:requested-tnl-key (switches) or
	// options:requested-tnl-key (routers), 0 when absent or not a valid
	// datapath tunnel key.
	RequestedKey int
}

// MaxDatapathKey is the largest datapath tunnel key ovn-northd allocates
// outside VXLAN mode (OVN_MAX_DP_KEY_LOCAL: keys above it are reserved for
// interconnection).
const MaxDatapathKey = 1<<24 - 1 - (1<<16 - 1)

// CompareDatapaths orders datapaths by NB _uuid, then contents.
func CompareDatapaths(a, b Datapath) int {
	return cmp.Or(cmp.Compare(a.NB, b.NB), cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.ExternalIDs, b.ExternalIDs), cmp.Compare(a.RequestedKey, b.RequestedKey))
}

// SBDatapaths computes the Datapath_Binding rows. A switch or router row
// update that leaves these columns alone (a port added, say) yields the same
// tuple, which cancels.
func SBDatapaths(n *relations.NB) engine.Rel[Datapath] {
	switches := engine.Map(n.Switches.Rows, func(ls *nb.LogicalSwitch) Datapath {
		ids := map[string]string{"logical-switch": ls.UUID, "name": ls.Name}
		if name2 := ls.ExternalIDs["neutron:network_name"]; name2 != "" {
			ids["name2"] = name2
		}
		if ts, ok := ls.OtherConfig["interconn-ts"]; ok {
			ids["interconn-ts"] = ts
		}
		if datapathLimitsInSB(n.Release) {
			addCTZoneLimit(ids, ls.OtherConfig)
			if age := relations.SmapUint(ls.OtherConfig, "fdb_age_threshold", 0); age > 0 {
				ids["fdb_age_threshold"] = strconv.FormatUint(uint64(age), 10)
			}
		}
		if relations.ReadsDynamicRouting(n.Release) {
			addEVPNExternalIDs(ids, ls.OtherConfig)
		}
		return Datapath{NB: ls.UUID, Kind: Switch, ExternalIDs: SmapOf(ids),
			RequestedKey: requestedKey(ls.OtherConfig, MaxDatapathKey)}
	})
	enabled := engine.Filter(n.Routers.Rows, func(lr *nb.LogicalRouter) bool { return lr.Enabled == nil || *lr.Enabled })
	routers := engine.Map(enabled, func(lr *nb.LogicalRouter) Datapath {
		ids := map[string]string{"logical-router": lr.UUID, "name": lr.Name}
		if name2 := lr.ExternalIDs["neutron:router_name"]; name2 != "" {
			ids["name2"] = name2
		}
		if datapathLimitsInSB(n.Release) {
			addCTZoneLimit(ids, lr.Options)
		}
		if zone := relations.SmapInt(lr.Options, "snat-ct-zone", -1); zone >= 0 {
			ids["snat-ct-zone"] = strconv.Itoa(zone)
		}
		if !relations.SmapBool(lr.Options, "always_learn_from_arp_request", true) {
			ids["always_learn_from_arp_request"] = "false"
		}
		// 26.03 tells ovn-controller whether to send GARPs/RARPs, always
		// (en-datapath-logical-router.c).
		if n.Release >= schema.OVN2603 {
			ids["disable_garp_rarp"] = strconv.FormatBool(relations.SmapBool(lr.Options, "disable_garp_rarp", false))
		}
		if routerSettingsInSB(n.Release) {
			addRouterSettings(ids, lr.Options)
		}
		return Datapath{NB: lr.UUID, Kind: Router, ExternalIDs: SmapOf(ids),
			RequestedKey: requestedKey(lr.Options, MaxDatapathKey)}
	})
	return engine.Union(switches, routers)
}

// datapathLimitsInSB: 26.03 passes a datapath's conntrack zone limit
// (ct-zone-limit) and a switch's FDB aging threshold (fdb_age_threshold)
// on to ovn-controller in the Datapath_Binding's external_ids
// (en-datapath-logical-switch.c, en-datapath-logical-router.c).
func datapathLimitsInSB(rel schema.Release) bool { return rel >= schema.OVN2603 }

// routerSettingsInSB: 26.03 hands ovn-controller, in a router's
// Datapath_Binding external_ids, its smallest MAC binding age (for
// refreshing timestamps in time), its VRF id and the next hops of its
// advertised prefixes (en-datapath-logical-router.c gather_external_ids).
func routerSettingsInSB(rel schema.Release) bool { return rel >= schema.OVN2603 }

// addRouterSettings copies into ids a router's settings of
// routerSettingsInSB: the smallest positive threshold of
// mac_binding_age_threshold, a positive dynamic-routing-vrf-id and the
// non-empty dynamic-routing-v4-prefix-nexthop and -v6-prefix-nexthop.
func addRouterSettings(ids, options map[string]string) {
	if c, _, _ := ParseAgingThreshold(options["mac_binding_age_threshold"]); c.Min() > 0 {
		ids["mac_binding_age_threshold"] = strconv.FormatUint(uint64(c.Min()), 10)
	}
	if vrf := relations.SmapLlong(options, "dynamic-routing-vrf-id", -1); vrf > 0 {
		ids["dynamic-routing-vrf-id"] = strconv.FormatInt(vrf, 10)
	}
	for _, key := range []string{"dynamic-routing-v4-prefix-nexthop", "dynamic-routing-v6-prefix-nexthop"} {
		if nh := options[key]; nh != "" {
			ids[key] = nh
		}
	}
}

// addCTZoneLimit copies a positive ct-zone-limit of options into ids.
func addCTZoneLimit(ids, options map[string]string) {
	if limit := relations.SmapLlong(options, "ct-zone-limit", -1); limit > 0 {
		ids["ct-zone-limit"] = strconv.FormatInt(limit, 10)
	}
}

// evpnOptions are the EVPN settings of a switch's other_config that 26.03
// hands to ovn-controller in its Datapath_Binding's external_ids, and
// whether each is a list of device names (en-datapath-logical-switch.c
// gather_external_ids).
var evpnOptions = []struct {
	key     string
	devices bool
	list    bool
}{
	{"dynamic-routing-bridge-ifname", true, false},
	{"dynamic-routing-vxlan-ifname", true, true},
	{"dynamic-routing-advertise-ifname", true, false},
	{"dynamic-routing-redistribute", false, false},
	{"dynamic-routing-arp-prefer-local", false, false},
}

// ifNameSize is the longest device name Linux takes (IFNAMSIZ); northd
// compares the name's length with it, terminating NUL aside.
const ifNameSize = 16

// addEVPNExternalIDs copies a switch's EVPN settings into ids: with
// dynamic-routing-vni set (to any value), the VNI and each setting
// present, a device name only if no longer than ifNameSize (each of a
// comma-separated list).
func addEVPNExternalIDs(ids, otherConfig map[string]string) {
	vni, ok := otherConfig["dynamic-routing-vni"]
	if !ok {
		return
	}
	ids["dynamic-routing-vni"] = vni
	for _, o := range evpnOptions {
		v, ok := otherConfig[o.key]
		if !ok {
			continue
		}
		names := []string{v}
		if o.list {
			names = strings.Split(v, ",")
		}
		if o.devices && slices.ContainsFunc(names, func(name string) bool { return len(name) > ifNameSize }) {
			continue
		}
		ids[o.key] = v
	}
}

// requestedKey reads options:requested-tnl-key as smap_get_int does; 0 when
// absent, unreadable or outside 1..max (northd would send the bad key to the
// SB, which refuses the whole transaction).
func requestedKey(options map[string]string, max int) int {
	k := relations.SmapInt(options, "requested-tnl-key", 0)
	if k < 1 || k > max {
		return 0
	}
	return k
}
