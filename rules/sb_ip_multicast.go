package rules

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// IPMulticast is one SB IP_Multicast row as ovn-northd 23.03 writes it
// (northd.c build_ip_mcast, init_mcast_info_for_switch_datapath): one per
// logical switch, its IGMP/MLD snooping configuration read from
// other_config:mcast_*.
type IPMulticast struct {
	Switch                    string // NB _uuid
	Enabled, Querier          bool
	TableSize, IdleTimeout    int
	QueryInterval, MaxResp    int
	EthSrc, IP4Src, IP6Src    string
	HasEthSrc, HasIP4, HasIP6 bool // the option is set (northd never clears the column)
}

// CompareIPMulticast orders rows by switch, then contents.
func CompareIPMulticast(a, b IPMulticast) int {
	return cmp.Or(cmp.Compare(a.Switch, b.Switch), cmp.Compare(strconv.Quote(a.String()), strconv.Quote(b.String())))
}

// String writes every field, for ordering.
func (m IPMulticast) String() string {
	return strings.Join([]string{strconv.FormatBool(m.Enabled), strconv.FormatBool(m.Querier),
		strconv.Itoa(m.TableSize), strconv.Itoa(m.IdleTimeout), strconv.Itoa(m.QueryInterval), strconv.Itoa(m.MaxResp),
		strconv.FormatBool(m.HasEthSrc), m.EthSrc, strconv.FormatBool(m.HasIP4), m.IP4Src,
		strconv.FormatBool(m.HasIP6), m.IP6Src}, "|")
}

// The IP multicast limits and defaults of 23.03 (lib/ip-mcast-index.h).
const (
	mcastMinIdleTimeout   = 15
	mcastMaxIdleTimeout   = 3600
	mcastDefIdleTimeout   = 300
	mcastMinQueryInterval = 1
	mcastMaxQueryInterval = mcastMaxIdleTimeout
	mcastDefMaxResp       = 1
	mcastDefTableSize     = 2048
)

// SBIPMulticast computes the IP_Multicast rows.
func SBIPMulticast(n *relations.NB) engine.Rel[IPMulticast] {
	return engine.Map(n.Switches.Rows, func(ls *nb.LogicalSwitch) IPMulticast {
		oc := ls.OtherConfig
		// Both timers are read into 32-bit variables before they are
		// bounded.
		idle := clamp(int(uint32(smapULL(oc, "mcast_idle_timeout", mcastDefIdleTimeout))), mcastMinIdleTimeout, mcastMaxIdleTimeout)
		query := clamp(int(uint32(smapULL(oc, "mcast_query_interval", uint64(idle/2)))), mcastMinQueryInterval, mcastMaxQueryInterval)
		m := IPMulticast{
			Switch:        ls.UUID,
			Enabled:       relations.SmapBool(oc, "mcast_snoop", false),
			Querier:       relations.SmapBool(oc, "mcast_querier", true),
			TableSize:     int(int64(smapULL(oc, "mcast_table_size", mcastDefTableSize))),
			IdleTimeout:   idle,
			QueryInterval: query,
			MaxResp:       int(int64(smapULL(oc, "mcast_query_max_response", mcastDefMaxResp))),
		}
		m.EthSrc, m.HasEthSrc = oc["mcast_eth_src"]
		m.IP4Src, m.HasIP4 = oc["mcast_ip4_src"]
		m.IP6Src, m.HasIP6 = oc["mcast_ip6_src"]
		return m
	})
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

// smapULL reads an option as OVS's smap_get_ullong does: strtoull in base
// 10 of the whole value (leading white space and a sign allowed, a minus
// sign negating modulo 2^64), else def.
func smapULL(m map[string]string, key string, def uint64) uint64 {
	v, ok := m[key]
	if !ok {
		return def
	}
	s := strings.TrimLeft(v, " \t\n\v\f\r")
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return def
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return def
	}
	if neg {
		return -n
	}
	return n
}
