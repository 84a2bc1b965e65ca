package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterNDRAFlows: lr_in_nd_ra_options and lr_in_nd_ra_response, the flows
// every router has (northd.c build_ND_RA_flows_for_lrouter): packets that
// are not router solicitations a port answers go on.
func RouterNDRAFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterConfigs, func(r relations.RouterConfig) []Flow {
		dp := on(r.UUID)
		return []Flow{
			dp.flow(LRInNDRAOptions, 0, "1", "next;"),
			dp.flow(LRInNDRAResponse, 0, "1", "next;"),
		}
	})
}

// RouterPortNDRAFlows: lr_in_nd_ra_options and lr_in_nd_ra_response for a
// router port connected to a switch with ipv6_ra_configs:address_mode set
// (northd.c build_ND_RA_flows_for_lrouter_port): router solicitations
// arriving on the port get a router advertisement built by
// put_nd_ra_opts() from the port's configuration and global IPv6 prefixes.
// A port without a global IPv6 network advertises nothing; an unknown
// address mode is logged and ignored.
func RouterPortNDRAFlows(nb *relations.NB) engine.Rel[Flow] {
	configured := engine.Filter(nb.LRPSwitchPeers, func(sp relations.LRPSwitchPeer) bool {
		_, ok := sp.LRP.Port.Ipv6RaConfigs["address_mode"]
		return ok && sp.LRP.Port.Peer == nil
	})
	ports := engine.TryMap(configured, "router port ipv6_ra_configs", func(sp relations.LRPSwitchPeer) (relations.LRP, error) {
		switch mode := sp.LRP.Port.Ipv6RaConfigs["address_mode"]; mode {
		case "slaac", "dhcpv6_stateful", "dhcpv6_stateless":
			return sp.LRP, nil
		default:
			return relations.LRP{}, fmt.Errorf("router port %s: invalid address_mode %q", sp.LRP.Name(), mode)
		}
	})
	return engine.FlatMap(ports, func(p relations.LRP) []Flow {
		ra := p.Port.Ipv6RaConfigs
		mode := ra["address_mode"]
		var prefixes []string
		for _, a := range p.Net.IPv6 {
			if !isLinkLocal(a.Network) {
				prefixes = append(prefixes, fmt.Sprintf(", prefix = %s/%d", a.NetworkS, a.Plen))
			}
		}
		if len(prefixes) == 0 {
			return nil
		}
		opts := fmt.Sprintf("reg0[5] = put_nd_ra_opts(addr_mode = \"%s\", slla = %s", mode, p.Net.MAC)
		// RFC 2460: 1280 is the smallest IPv6 MTU.
		if mtu := cAtoi(ra["mtu"]); mtu >= 1280 {
			opts += fmt.Sprintf(", mtu = %d", mtu)
		}
		if prf, ok := ra["router_preference"]; ok && prf != "MEDIUM" {
			opts += fmt.Sprintf(", router_preference = \"%s\"", prf)
		}
		if v, ok := ra["rdnss"]; ok {
			opts += ", rdnss = " + v
		}
		if v, ok := ra["dnssl"]; ok {
			opts += fmt.Sprintf(", dnssl = \"%s\"", v)
		}
		if v, ok := ra["route_info"]; ok {
			opts += fmt.Sprintf(", route_info = \"%s\"", v)
		}
		opts += strings.Join(prefixes, "") + "); next;"
		dp, key := onLRP(p), jsonKey(p.Name())
		return []Flow{
			dp.flow(LRInNDRAOptions, 50, "inport == "+key+" && ip6.dst == ff02::2 && nd_rs", opts),
			dp.flow(LRInNDRAResponse, 50, "inport == "+key+" && ip6.dst == ff02::2 && nd_ra && reg0[5]",
				fmt.Sprintf("eth.dst = eth.src; eth.src = %s; ip6.dst = ip6.src; ip6.src = %s; "+
					"outport = inport; flags.loopback = 1; output;",
					p.Net.MAC, relations.FormatIPv6(p.Net.MAC.IPv6LLA()))),
		}
	})
}

// cAtoi is C's atoi: leading spaces, an optional sign, then decimal digits
// up to the first other character; 0 when there are none. Values beyond
// the range of a C long are clamped as glibc's strtol does before atoi
// narrows them to int.
func cAtoi(s string) int {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v int64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if v > (math.MaxInt64-int64(s[i]-'0'))/10 {
			v = math.MaxInt64
			if neg {
				v = math.MinInt64
			}
			return int(int32(v))
		}
		v = v*10 + int64(s[i]-'0')
	}
	if neg {
		v = -v
	}
	return int(int32(v))
}
