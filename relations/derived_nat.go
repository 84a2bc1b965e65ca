package relations

import (
	"fmt"
	"math/bits"
	"net/netip"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// RouterNAT is a NAT rule listed by an enabled router (Logical_Router.nat),
// with what northd's init_nat_entries reads of it.
type RouterNAT struct {
	Router string // NB _uuid of the router
	NAT    *nb.NAT
	// AllowedSet and ExemptedSet are the names of the address sets that
	// allowed_ext_ips and exempted_ext_ips refer to ("" for none).
	AllowedSet, ExemptedSet string
	// ExtIP is the external_ip's one address as northd prints it (addr_s)
	// when extract_ip_addresses reads exactly one address from it
	// (nat_entry_is_valid), and "" otherwise; ExtV6 tells its family.
	ExtIP string
	ExtV6 bool
	// ExtSN is the solicited-node multicast address of an IPv6 ExtIP.
	ExtSN string
}

// Valid reports whether northd could read one external address
// (nat_entry_is_valid): only such rules get ARP/ND responders.
func (r RouterNAT) Valid() bool { return r.ExtIP != "" }

// Type is the rule's type: "snat", "dnat" or "dnat_and_snat".
func (r RouterNAT) Type() string { return r.NAT.Type }

// IsSNAT reports whether the rule is a snat rule.
func (r RouterNAT) IsSNAT() bool { return r.NAT.Type == nb.NATTypeSNAT }

// Stateless reports whether the rule is a dnat_and_snat rule with
// options:stateless=true (lrouter_dnat_and_snat_is_stateless): its
// translations are plain field rewrites without conntrack.
func (r RouterNAT) Stateless() bool {
	return r.NAT.Type == nb.NATTypeDNATAndSNAT && SmapBool(r.NAT.Options, "stateless", false)
}

// DistributedConfig reports whether the rule is a dnat_and_snat rule that
// names a logical port and an external MAC (northd's has_distributed_nat
// test; the MAC is read later).
func (r RouterNAT) DistributedConfig() bool {
	return r.NAT.Type == nb.NATTypeDNATAndSNAT && r.NAT.LogicalPort != nil && r.NAT.ExternalMAC != nil
}

// NATRule is a NAT rule that passes northd's lrouter_check_nat_entry on a
// gateway router or a router with distributed gateway ports: the rules
// whose translation flows northd writes.
type NATRule struct {
	RouterNAT
	// GW is the router's gateway facts.
	GW RouterGateway
	// DGP is the distributed gateway port the rule applies on (unset on a
	// gateway router): the one its gateway_port names, the router's only
	// one, or the first in _uuid order whose networks hold external_ip.
	DGP DGP
	// V6 is the family lrouter_check_nat_entry reads external_ip in.
	V6 bool
	// CIDRBits is the prefix length of logical_ip's mask as northd counts
	// it (ip_count_cidr_bits, ipv6_count_cidr_bits).
	CIDRBits int
	// Distributed is true when the rule is applied on the chassis of its
	// logical port with its external MAC (a dnat_and_snat rule with
	// logical_port and external_mac on a router with distributed gateway
	// ports), and MAC is that MAC.
	Distributed bool
	MAC         EthAddr
}

// RouterSNATIP is an address a router SNATs to (od->snat_ips): the
// external IP of a snat rule northd could read, or an address of
// options:dnat_force_snat_ip or lb_force_snat_ip. Traffic to such an
// address of a router port is not dropped before unSNAT.
type RouterSNATIP struct {
	Router string
	IP     string // as northd prints it (addr_s)
}

// RouterForceSNAT is a router's options:dnat_force_snat_ip and
// lb_force_snat_ip as northd reads them (get_force_snat_ip, init_nat_entries):
// one tuple per enabled router that sets either.
type RouterForceSNAT struct {
	Router string
	// DNAT4, DNAT6, LB4 and LB6 are the IPv4 and IPv6 addresses of each
	// option ("" when absent or unreadable).
	DNAT4, DNAT6, LB4, LB6 string
	// LBRouterIP is lb_force_snat_ip=router_ip on a gateway router
	// (od->lb_force_snat_router_ip): load-balanced traffic is SNATed to the
	// address of the port it leaves through.
	LBRouterIP bool
}

// natRow is a NAT row listed by an enabled router, with the names of the
// address sets it refers to.
type natRow struct {
	Router                  string
	NAT                     *nb.NAT
	AllowedSet, ExemptedSet string
}

// withAddressSet fills in, for rows whose ref column names an address set,
// the set's name; rows that name none pass as they are.
func withAddressSet(rows engine.Rel[natRow], sets engine.Index[string, *nb.AddressSet],
	ref func(*nb.NAT) *string, set func(*natRow, string)) engine.Rel[natRow] {
	named := engine.Join(
		engine.IndexBy(engine.Filter(rows, func(r natRow) bool { return ref(r.NAT) != nil }),
			func(r natRow) string { return *ref(r.NAT) }),
		sets,
		func(_ string, r natRow, as *nb.AddressSet) natRow {
			set(&r, as.Name)
			return r
		})
	return engine.Union(engine.Filter(rows, func(r natRow) bool { return ref(r.NAT) == nil }), named)
}

func deriveRouterNATs(n *NB) engine.Rel[RouterNAT] {
	refs := engine.SemiJoin(engine.IndexBy(n.Refs.RouterNATs, func(r Ref) string { return r.Owner }),
		engine.IndexBy(n.RouterConfigs, func(r RouterConfig) string { return r.UUID }))
	rows := engine.Join(
		engine.IndexBy(refs, func(r Ref) string { return r.Target }),
		n.NATs.ByUUID(),
		func(_ string, r Ref, nat *nb.NAT) natRow { return natRow{Router: r.Owner, NAT: nat} })
	sets := n.AddressSets.ByUUID()
	rows = withAddressSet(rows, sets, func(nat *nb.NAT) *string { return nat.AllowedExtIPs },
		func(r *natRow, name string) { r.AllowedSet = name })
	rows = withAddressSet(rows, sets, func(nat *nb.NAT) *string { return nat.ExemptedExtIPs },
		func(r *natRow, name string) { r.ExemptedSet = name })
	nats := engine.Map(rows, func(r natRow) RouterNAT {
		nat := RouterNAT{Router: r.Router, NAT: r.NAT, AllowedSet: r.AllowedSet, ExemptedSet: r.ExemptedSet}
		a, err := ParseIPAddresses(r.NAT.ExternalIP)
		switch {
		case err != nil:
		case len(a.IPv4) == 1 && len(a.IPv6) == 0:
			nat.ExtIP = a.IPv4[0].AddrS
		case len(a.IPv4) == 0 && len(a.IPv6) == 1:
			nat.ExtIP, nat.ExtV6, nat.ExtSN = a.IPv6[0].AddrS, true, a.IPv6[0].SNAddrS
		}
		return nat
	})
	engine.Report(engine.Filter(nats, func(r RouterNAT) bool { return !r.Valid() }), "NAT",
		func(r RouterNAT) error {
			return fmt.Errorf("NAT %s: bad ip address %q in nat configuration", r.NAT.UUID, r.NAT.ExternalIP)
		})
	return nats
}

// natCandidate is a NAT rule of a router where NAT applies, with the
// distributed gateway port chosen for it, or why none could be.
type natCandidate struct {
	RouterNAT
	GW     RouterGateway
	DGP    DGP
	noPort string
}

// chooseDGP picks the distributed gateway port of a NAT rule on a router
// with several or one (lrouter_check_nat_entry).
func chooseDGP(c natCandidate, dgps []DGP) natCandidate {
	nat := c.NAT
	if nat.GatewayPort != nil {
		d, ok := firstDGPFor(dgps, func(d DGP) bool { return d.LRP.Port.UUID == *nat.GatewayPort })
		if !ok {
			c.noPort = fmt.Sprintf("gateway_port %s is not a valid distributed gateway port of the router", *nat.GatewayPort)
		}
		c.DGP = d
		return c
	}
	if len(dgps) == 1 {
		c.DGP = dgps[0]
		return c
	}
	ip, ok := ParseIPByDot(nat.ExternalIP)
	d, found := firstDGPFor(dgps, func(d DGP) bool {
		_, in := MemberIP(d.LRP.Net, ip)
		return ok && in
	})
	if !found {
		c.noPort = fmt.Sprintf("unable to determine gateway_port for external_ip %s among %d distributed gateway ports", nat.ExternalIP, len(dgps))
	}
	c.DGP = d
	return c
}

// checkNAT is the rest of lrouter_check_nat_entry: the external IP must be
// one whole address, the logical IP an address (or, for snat, a network)
// of the same family, and a distributed rule's external MAC readable.
func checkNAT(c natCandidate) (NATRule, error) {
	nat := c.NAT
	r := NATRule{RouterNAT: c.RouterNAT, GW: c.GW, DGP: c.DGP}
	if nat.AllowedExtIPs != nil && nat.ExemptedExtIPs != nil {
		return r, fmt.Errorf("NAT %s: not applied, both allowed and exempt external ips set", nat.UUID)
	}
	if _, v4 := ParseIPv4Host(nat.ExternalIP); !v4 {
		ext := cString(nat.ExternalIP)
		_, mask6, next6, err6 := ipv6ParseMaskedLen(ext, 0)
		if err6 != nil || next6 != len(ext) || mask6 != prefixMask128(128) {
			return r, fmt.Errorf("NAT %s: bad external ip %s", nat.UUID, nat.ExternalIP)
		}
		r.V6 = true
	}
	if c.noPort != "" {
		return r, fmt.Errorf("NAT %s: %s", nat.UUID, c.noPort)
	}
	var err error
	if r.CIDRBits, err = logicalIPBits(nat, r.V6); err != nil {
		return r, err
	}
	if c.GW.DGPs > 0 && c.DistributedConfig() {
		mac, err := ParseMAC(*nat.ExternalMAC)
		if err != nil {
			return r, fmt.Errorf("NAT %s: bad mac %s for dnat", nat.UUID, *nat.ExternalMAC)
		}
		r.Distributed, r.MAC = true, mac
	}
	return r, nil
}

// ParseIPv4Host reads s as OVS's ip_parse_masked does (each octet read as
// by scanf's %hhu, so 10.0.0.300 is 10.0.0.44) and accepts it only as a
// whole host address, with no mask or an all-ones one.
func ParseIPv4Host(s string) (netip.Addr, bool) {
	s = cString(s)
	ip, mask, next, err := ipParseMaskedLen(s, 0)
	if err != nil || next != len(s) || mask != ^uint32(0) {
		return netip.Addr{}, false
	}
	return addr4(ip), true
}

// checkValidNAT is 26.03's check of a NAT rule, made for the rules of
// every router (en-lr-nat.c lr_nat_record_init): one external address,
// with a mask or not (extract_ip_addresses); a readable external MAC,
// whatever the rule's type; not both allowed and exempted external IPs; a
// logical IP of the external address's family, a whole address unless
// snat; and a distributed gateway port it can pick or that its
// gateway_port names.
func checkValidNAT(c natCandidate) (NATRule, error) {
	nat := c.NAT
	r := NATRule{RouterNAT: c.RouterNAT, GW: c.GW, DGP: c.DGP, V6: c.ExtV6}
	if !c.Valid() {
		return r, fmt.Errorf("NAT %s: bad ip address %q in nat configuration", nat.UUID, nat.ExternalIP)
	}
	var mac EthAddr
	if nat.ExternalMAC != nil {
		var err error
		if mac, err = ParseMAC(*nat.ExternalMAC); err != nil {
			return r, fmt.Errorf("NAT %s: bad mac %s for dnat", nat.UUID, *nat.ExternalMAC)
		}
	}
	if nat.AllowedExtIPs != nil && nat.ExemptedExtIPs != nil {
		return r, fmt.Errorf("NAT %s: not applied, both allowed and exempt external ips set", nat.UUID)
	}
	var err error
	if r.CIDRBits, err = logicalIPBits(nat, r.V6); err != nil {
		return r, err
	}
	if c.noPort != "" {
		return r, fmt.Errorf("NAT %s: %s", nat.UUID, c.noPort)
	}
	if c.GW.DGPs > 0 && c.DistributedConfig() {
		r.Distributed, r.MAC = true, mac
	}
	return r, nil
}

// logicalIPBits reads a NAT rule's logical IP in the family of its
// external IP: the prefix length of its mask as northd counts it
// (ip_count_cidr_bits, ipv6_count_cidr_bits), which must be a whole
// address's unless the rule is snat.
func logicalIPBits(nat *nb.NAT, v6 bool) (int, error) {
	logical := cString(nat.LogicalIP)
	var n int
	var exact bool
	if v6 {
		_, mask, next, err := ipv6ParseMaskedLen(logical, 0)
		if err != nil || next != len(logical) {
			return 0, badLogicalIP(nat)
		}
		n, exact = ipv6CountCIDRBits(mask), mask == prefixMask128(128)
	} else {
		_, mask, next, err := ipParseMaskedLen(logical, 0)
		if err != nil || next != len(logical) {
			return 0, badLogicalIP(nat)
		}
		n, exact = 32-bits.TrailingZeros32(mask), mask == ^uint32(0)
	}
	if nat.Type != nb.NATTypeSNAT && !exact {
		return 0, badLogicalIP(nat)
	}
	return n, nil
}

func badLogicalIP(nat *nb.NAT) error {
	what := "ip"
	if nat.Type == nb.NATTypeSNAT {
		what = "ip network or ip"
	}
	return fmt.Errorf("NAT %s: bad %s %s for %s", nat.UUID, what, nat.LogicalIP, nat.Type)
}

// ipv6CountCIDRBits is OVS's ipv6_count_cidr_bits: the leading all-ones
// bytes count 8 each, the first other byte up to its lowest one bit.
func ipv6CountCIDRBits(mask [16]byte) int {
	n := 0
	for _, b := range mask {
		if b != 0xff {
			if b != 0 {
				n += 8 - bits.TrailingZeros8(b)
			}
			break
		}
		n += 8
	}
	return n
}

// checksNATsOfEveryRouter: 26.03 checks the NAT rules of every router
// (en-lr-nat.c), not only of those where NAT applies, and keeps only the
// rules that pass for its other NAT flows.
func checksNATsOfEveryRouter(r schema.Release) bool { return r >= schema.OVN2603 }

// deriveNATRules checks the NAT rules of the routers northd checks, and
// gives the rules whose translation flows it writes (NB.NATRules) and the
// rules it keeps (NB.ValidNATRules).
func deriveNATRules(n *NB, nats engine.Rel[RouterNAT]) (written, valid engine.Rel[NATRule]) {
	everyRouter := checksNATsOfEveryRouter(n.Release)
	checked := engine.Filter(n.RouterGateways, func(g RouterGateway) bool { return everyRouter || g.NATCapable() })
	candidates := engine.Join(engine.IndexBy(nats, func(r RouterNAT) string { return r.Router }),
		engine.IndexBy(checked, func(g RouterGateway) string { return g.Router }),
		func(_ string, r RouterNAT, g RouterGateway) natCandidate { return natCandidate{RouterNAT: r, GW: g} })
	// Without a distributed gateway port, a gateway_port names none.
	onGateway := engine.Map(engine.Filter(candidates, func(c natCandidate) bool { return c.GW.DGPs == 0 }),
		func(c natCandidate) natCandidate {
			if c.NAT.GatewayPort != nil {
				c.noPort = fmt.Sprintf("gateway_port %s is not a valid distributed gateway port of the router", *c.NAT.GatewayPort)
			}
			return c
		})
	type pair struct {
		c natCandidate
		d DGP
	}
	pairs := engine.Join(
		engine.IndexBy(engine.Filter(candidates, func(c natCandidate) bool { return c.GW.DGPs > 0 }),
			func(c natCandidate) string { return c.Router }),
		engine.IndexBy(n.DGPs, func(d DGP) string { return d.LRP.Router }),
		func(_ string, c natCandidate, d DGP) pair { return pair{c, d} })
	onDGP := engine.GroupBy(engine.IndexBy(pairs, func(p pair) natCandidate { return p.c }),
		func(c natCandidate, ps []pair) []natCandidate {
			dgps := make([]DGP, len(ps))
			for i, p := range ps {
				dgps[i] = p.d
			}
			return []natCandidate{chooseDGP(c, dgps)}
		})
	if !everyRouter {
		written = engine.TryMap(engine.Union(onGateway, onDGP), "NAT", checkNAT)
		return written, written
	}
	valid = centralizeBehindRedirectedPeers(engine.TryMap(engine.Union(onGateway, onDGP), "NAT", checkValidNAT), n.PeerRedirects)
	return engine.Filter(valid, func(r NATRule) bool { return r.GW.NATCapable() }), valid
}

// centralizeBehindRedirectedPeers: a rule of a distributed gateway port
// whose peer switch port has a chassisredirect port (NB.PeerRedirects) is
// not distributed, since routing to the port's networks is centralized on
// its gateway chassis (en-lr-nat.c lr_nat_entry_set_dgw_port).
func centralizeBehindRedirectedPeers(rules engine.Rel[NATRule], peers engine.Rel[LRPSwitchPeer]) engine.Rel[NATRule] {
	distributed := engine.IndexBy(engine.Filter(rules, func(r NATRule) bool { return r.Distributed }),
		func(r NATRule) string { return r.DGP.LRP.Port.UUID })
	redirected := engine.IndexBy(peers, func(p LRPSwitchPeer) string { return p.LRP.Port.UUID })
	return engine.Union(
		engine.Filter(rules, func(r NATRule) bool { return !r.Distributed }),
		engine.AntiJoin(distributed, redirected),
		engine.Map(engine.SemiJoin(distributed, redirected), func(r NATRule) NATRule {
			r.Distributed, r.MAC = false, EthAddr{}
			return r
		}))
}

// extractIPAddress is ovn-util's extract_ip_address: at most one IPv4 and
// one IPv6 host address.
func extractIPAddress(s string) (v4, v6 string, ok bool) {
	a, err := ParseIPAddresses(s)
	if err != nil || len(a.IPv4) > 1 || len(a.IPv6) > 1 ||
		len(a.IPv4) == 1 && a.IPv4[0].Plen != 32 || len(a.IPv6) == 1 && a.IPv6[0].Plen != 128 {
		return "", "", false
	}
	if len(a.IPv4) == 1 {
		v4 = a.IPv4[0].AddrS
	}
	if len(a.IPv6) == 1 {
		v6 = a.IPv6[0].AddrS
	}
	return v4, v6, true
}

// readForceSNAT reads a router's force SNAT options, with an error when
// northd cannot read dnat_force_snat_ip.
func readForceSNAT(lr *nb.LogicalRouter) (RouterForceSNAT, error) {
	f := RouterForceSNAT{Router: lr.UUID}
	var err error
	if s, ok := lr.Options["dnat_force_snat_ip"]; ok {
		var good bool
		if f.DNAT4, f.DNAT6, good = extractIPAddress(s); !good {
			err = fmt.Errorf("router %s: bad ip %s in options:dnat_force_snat_ip", lr.UUID, s)
		}
	}
	// The load balancer relations report an unreadable lb_force_snat_ip.
	_, gateway := lr.Options["chassis"]
	if lb, ok := lr.Options["lb_force_snat_ip"]; ok && lb == "router_ip" && gateway {
		f.LBRouterIP = true
	} else if ok {
		f.LB4, f.LB6, _ = extractIPAddress(lb)
	}
	return f, err
}

func deriveRouterForceSNATs(n *NB) engine.Rel[RouterForceSNAT] {
	routers := engine.SemiJoin(
		engine.IndexBy(engine.Filter(n.Routers.Rows, func(lr *nb.LogicalRouter) bool {
			_, dnat := lr.Options["dnat_force_snat_ip"]
			_, lb := lr.Options["lb_force_snat_ip"]
			return dnat || lb
		}), func(lr *nb.LogicalRouter) string { return lr.UUID }),
		engine.IndexBy(n.RouterConfigs, func(r RouterConfig) string { return r.UUID }))
	engine.Report(routers, "router options", func(lr *nb.LogicalRouter) error {
		_, err := readForceSNAT(lr)
		return err
	})
	return engine.FlatMap(routers, func(lr *nb.LogicalRouter) []RouterForceSNAT {
		f, _ := readForceSNAT(lr)
		if f == (RouterForceSNAT{Router: lr.UUID}) {
			return nil
		}
		return []RouterForceSNAT{f}
	})
}

func deriveRouterSNATIPs(nats engine.Rel[RouterNAT], force engine.Rel[RouterForceSNAT]) engine.Rel[RouterSNATIP] {
	snat := engine.Map(engine.Filter(nats, RouterNAT.IsSNAT),
		func(r RouterNAT) RouterSNATIP { return RouterSNATIP{r.Router, r.ExtIP} })
	forced := engine.FlatMap(force, func(f RouterForceSNAT) []RouterSNATIP {
		var out []RouterSNATIP
		for _, ip := range []string{f.DNAT4, f.DNAT6, f.LB4, f.LB6} {
			if ip != "" {
				out = append(out, RouterSNATIP{f.Router, ip})
			}
		}
		return out
	})
	return engine.Distinct(engine.Union(snat, forced))
}

// deriveNATRelations computes the NAT relations of n.
func (n *NB) deriveNATRelations() {
	n.RouterNATs = deriveRouterNATs(n)
	n.NATRules, n.ValidNATRules = deriveNATRules(n, n.RouterNATs)
	if checksNATsOfEveryRouter(n.Release) {
		n.ValidNATs = engine.Map(n.ValidNATRules, func(r NATRule) RouterNAT { return r.RouterNAT })
	} else {
		n.ValidNATs = engine.Filter(n.RouterNATs, RouterNAT.Valid)
	}
	n.RouterForceSNATs = deriveRouterForceSNATs(n)
	n.RouterSNATIPs = deriveRouterSNATIPs(n.ValidNATs, n.RouterForceSNATs)
	n.RoutersWithDistributedNAT = engine.Distinct(engine.Map(
		engine.Filter(n.ValidNATs, RouterNAT.DistributedConfig),
		func(r RouterNAT) string { return r.Router }))
}
