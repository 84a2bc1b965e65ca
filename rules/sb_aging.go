package rules

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
)

// AgingThreshold says how long the rows of one datapath in an SB table
// that ovn-controller timestamps (MAC_Binding for a router, FDB for a
// switch) live before northd deletes them (aging.c). Config is the
// threshold in the canonical form of ThresholdConfig.String; datapaths
// whose thresholds are all 0 (never) have none.
type AgingThreshold struct {
	Datapath string // NB _uuid
	Table    string // sb.MACBindingTable or sb.FDBTable
	Config   string
}

// CompareAgingThresholds orders thresholds by datapath, table, then
// configuration.
func CompareAgingThresholds(a, b AgingThreshold) int {
	return cmp.Or(cmp.Compare(a.Datapath, b.Datapath), cmp.Compare(a.Table, b.Table), cmp.Compare(a.Config, b.Config))
}

// agingThresholdByCIDR: 26.03 reads a router's mac_binding_age_threshold
// as "[CIDR:]SECONDS" entries separated by semicolons (aging.c
// parse_aging_threshold) where 23.03 reads one number (smap_get_uint).
func agingThresholdByCIDR(rel schema.Release) bool { return rel >= schema.OVN2603 }

// fdbAging: 26.03 deletes the FDB rows of a switch older than its
// other_config:fdb_age_threshold (en_fdb_aging_run); 23.03 ages no FDB
// row.
func fdbAging(rel schema.Release) bool { return rel >= schema.OVN2603 }

// SBAgingThresholds computes the routers' MAC binding thresholds and, from
// 26.03, the switches' FDB ones. From 26.03 an unreadable router option
// logs its first bad entry, the way every aging run does.
func SBAgingThresholds(n *relations.NB) engine.Rel[AgingThreshold] {
	routers := engine.FlatMap(n.Routers.Rows, func(lr *nb.LogicalRouter) []AgingThreshold {
		return agingThreshold(lr.UUID, sb.MACBindingTable, macBindingAgeThreshold(n.Release, lr.Options))
	})
	if !agingThresholdByCIDR(n.Release) {
		return routers
	}
	n.Diagnose(engine.FlatMap(n.Routers.Rows, func(lr *nb.LogicalRouter) []relations.Diagnostic {
		if _, bad, ok := ParseAgingThreshold(lr.Options["mac_binding_age_threshold"]); !ok {
			return []relations.Diagnostic{relations.Warning(fmt.Sprintf("Parsing aging threshold '%s' failed.", bad))}
		}
		return nil
	}))
	if !fdbAging(n.Release) {
		return routers
	}
	switches := engine.FlatMap(n.Switches.Rows, func(ls *nb.LogicalSwitch) []AgingThreshold {
		return agingThreshold(ls.UUID, sb.FDBTable, ThresholdConfig{Default: relations.SmapUint(ls.OtherConfig, "fdb_age_threshold", 0)})
	})
	return engine.Union(routers, switches)
}

// macBindingAgeThreshold is a router's mac_binding_age_threshold as its
// release reads it (agingThresholdByCIDR); none when unreadable.
func macBindingAgeThreshold(rel schema.Release, options map[string]string) ThresholdConfig {
	if !agingThresholdByCIDR(rel) {
		return ThresholdConfig{Default: relations.SmapUint(options, "mac_binding_age_threshold", 0)}
	}
	c, _, _ := ParseAgingThreshold(options["mac_binding_age_threshold"])
	return c
}

// agingThreshold is the threshold of table's rows on datapath dp, if c
// ages any.
func agingThreshold(dp, table string, c ThresholdConfig) []AgingThreshold {
	if c.Min() == 0 {
		return nil
	}
	return []AgingThreshold{{Datapath: dp, Table: table, Config: c.String()}}
}

// ThresholdConfig is a parsed aging threshold (aging.c struct
// threshold_config): the thresholds in seconds of IPv4 and IPv6 networks,
// longest prefix first, and of the other addresses; 0 is never.
type ThresholdConfig struct {
	V4, V6  []ThresholdPrefix
	Default uint32
}

// ThresholdPrefix is the threshold of the addresses in a network.
type ThresholdPrefix struct {
	// Addr is the address as written: a network whose address has bits
	// past its prefix matches no address (find_threshold_for_ip compares
	// it with a masked address).
	Addr      netip.Addr
	Plen      int
	Threshold uint32
}

// ParseAgingThreshold reads opt as "ENTRY[;ENTRY...]", ENTRY
// "[CIDR:]SECONDS" split at its last colon, CIDR an IPv4 or IPv6 network
// of at most 127 characters; the last entry without a prefix, or with a
// /0 one, is the default (parse_aging_threshold). Empty entries are
// skipped. With an unreadable entry it returns that entry and false.
func ParseAgingThreshold(opt string) (c ThresholdConfig, bad string, ok bool) {
	if i := strings.IndexByte(opt, 0); i >= 0 {
		opt = opt[:i]
	}
	for entry := range strings.SplitSeq(opt, ";") {
		if entry == "" {
			continue
		}
		p, ok := parseThresholdEntry(entry)
		switch {
		case !ok:
			return ThresholdConfig{}, entry, false
		case p.Plen == 0:
			c.Default = p.Threshold
		case p.Addr.Is4():
			c.V4 = append(c.V4, p)
		default:
			c.V6 = append(c.V6, p)
		}
	}
	// glibc's qsort is a merge sort: entries of one length keep their
	// order.
	longestFirst := func(a, b ThresholdPrefix) int { return cmp.Compare(b.Plen, a.Plen) }
	slices.SortStableFunc(c.V4, longestFirst)
	slices.SortStableFunc(c.V6, longestFirst)
	return c, "", true
}

// parseThresholdEntry reads one "[CIDR:]SECONDS" (parse_threshold_entry);
// Plen is 0 without a CIDR.
func parseThresholdEntry(entry string) (ThresholdPrefix, bool) {
	cidr, seconds, prefixed := "", entry, false
	if i := strings.LastIndexByte(entry, ':'); i >= 0 {
		cidr, seconds, prefixed = entry[:min(i, 127)], entry[i+1:], true
	}
	t, ok := relations.ParseUint(seconds)
	if !ok {
		return ThresholdPrefix{}, false
	}
	p := ThresholdPrefix{Threshold: t}
	if prefixed {
		if p.Addr, p.Plen, ok = relations.ParseCIDR(cidr); !ok {
			return ThresholdPrefix{}, false
		}
	}
	return p, true
}

// For is the threshold of the row of address ip, "" for a row without
// one (an FDB row): that of the longest network of ip's family holding
// it, else the default (find_threshold_for_ip).
func (c ThresholdConfig) For(ip string) uint32 {
	prefixes := c.V6
	addr, ok := relations.ParseIPv4(ip)
	if ok {
		prefixes = c.V4
	} else if addr, ok = relations.ParseIPv6(ip); !ok {
		return c.Default
	}
	for _, p := range prefixes {
		if masked, err := addr.Prefix(p.Plen); err == nil && masked.Addr() == p.Addr {
			return p.Threshold
		}
	}
	return c.Default
}

// Min is the smallest positive threshold, 0 when there is none
// (min_mac_binding_age_threshold).
func (c ThresholdConfig) Min() uint32 {
	least := c.Default
	for _, p := range slices.Concat(c.V4, c.V6) {
		if p.Threshold > 0 && (least == 0 || p.Threshold < least) {
			least = p.Threshold
		}
	}
	return least
}

// String writes c in the form ParseAgingThreshold reads back as c: the
// networks longest first, then the default.
func (c ThresholdConfig) String() string {
	var entries []string
	for _, p := range slices.Concat(c.V4, c.V6) {
		entries = append(entries, fmt.Sprintf("%s/%d:%d", p.Addr, p.Plen, p.Threshold))
	}
	return strings.Join(append(entries, strconv.FormatUint(uint64(c.Default), 10)), ";")
}
