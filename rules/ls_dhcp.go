package rules

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

const regDHCPOptsResult = "reg0[3]"

// SwitchDHCPDNSDefaultFlows: ls_in_dhcp_options, ls_in_dhcp_response,
// ls_in_dns_lookup, ls_in_dns_response and ls_in_external_port, priority 0
// (northd.c build_lswitch_dhcp_and_dns_defaults).
func SwitchDHCPDNSDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.SwitchDatapaths, func(sw relations.Switch) []Flow {
		dp := on(sw.UUID)
		return []Flow{
			dp.flow(LSInDHCPOptions, 0, "1", "next;"),
			dp.flow(LSInDHCPResponse, 0, "1", "next;"),
			dp.flow(LSInDNSLookup, 0, "1", "next;"),
			dp.flow(LSInDNSResponse, 0, "1", "next;"),
			dp.flow(LSInExternalPort, 0, "1", "next;"),
		}
	})
}

// dhcpServer is a port's DHCP_Options as northd reads them to answer on its
// behalf: the network offer addresses must lie in and the server identity.
type dhcpServer struct {
	relations.PortDHCP
	// Net and Mask are the cidr column: IPv4 in the first four bytes, or IPv6.
	Net, Mask [16]byte
	ServerMAC string // server_mac (IPv4) or server_id (IPv6), as written
	ServerIP  string // server_id (IPv4) or the link-local address of ServerMAC (IPv6)
}

// dhcpServerOf reads the DHCP_Options of a port (northd.c
// build_dhcpv4_action, build_dhcpv6_action). A cidr that does not parse,
// or options without the server's identity, give the port no DHCP flows.
func dhcpServerOf(p relations.PortDHCP) (dhcpServer, error) {
	s, err := readDHCPServer(p)
	if err != nil {
		return s, fmt.Errorf("port %s, DHCP_Options %s: %w", jsonKey(p.Port.Name), p.Options.UUID, err)
	}
	return s, nil
}

func readDHCPServer(p relations.PortDHCP) (dhcpServer, error) {
	s := dhcpServer{PortDHCP: p}
	o := p.Options.Options
	if !p.IPv6 {
		ip, mask, err := relations.ParseIPv4Masked(p.Options.Cidr)
		if err != nil {
			return s, err
		}
		binary.BigEndian.PutUint32(s.Net[:], ip)
		binary.BigEndian.PutUint32(s.Mask[:], mask)
		id, hasID := o["server_id"]
		mac, hasMAC := o["server_mac"]
		if _, hasLease := o["lease_time"]; !hasID || !hasMAC || !hasLease {
			return s, errors.New("DHCPv4 options need server_id, server_mac and lease_time")
		}
		s.ServerMAC, s.ServerIP = mac, id
		return s, nil
	}
	var err error
	if s.Net, s.Mask, err = relations.ParseIPv6Masked(p.Options.Cidr); err != nil {
		return s, err
	}
	ea, err := relations.ParseMAC(o["server_id"])
	if err != nil {
		return s, errors.New("DHCPv6 option server_id is missing or not a MAC address")
	}
	s.ServerMAC, s.ServerIP = o["server_id"], relations.FormatIPv6(ea.IPv6LLA())
	return s, nil
}

// inNet reports whether the 4- or 16-byte address ip lies in s's network.
func (s dhcpServer) inNet(ip []byte) bool {
	for k := range ip {
		if (ip[k]^s.Net[k])&s.Mask[k] != 0 {
			return false
		}
	}
	return true
}

// dhcpAddrs is one address entry of a port with DHCP options: an entry of
// its addresses column, or its dynamic addresses (op->lsp_addrs).
type dhcpAddrs struct {
	Server dhcpServer
	Addrs  *relations.LPortAddresses
}

// dhcpInport is where the DHCP requests of one address entry come in: the
// port itself, or for an external port each localnet port of its switch
// (the external port itself in 26.03, externalInportRewrite, once a
// localnet port is there).
type dhcpInport struct {
	dhcpAddrs
	Name string // the inport's name
	Key  string // Name as a JSON string
	// Resident is, for an external port, its own JSON name: the flows only
	// run on the chassis that binds it.
	Resident string
}

// SwitchDHCPFlows: ls_in_dhcp_options and ls_in_dhcp_response, priority 100
// (northd.c build_lswitch_dhcp_options_and_response). For each address
// entry of an enabled, non-router port with DHCP options (its dynamic
// addresses included), the first address in the options' network gets
// DHCP answered by ovn-controller: put_dhcp_opts/put_dhcpv6_opts fill in
// the reply, which goes back out of the port. External ports are served
// through the switch's localnet ports, on the chassis that binds them,
// when they have an HA chassis group. A switch that relays DHCP (26.03,
// relations.RelaySwitch) answers none itself.
func SwitchDHCPFlows(nb *relations.NB) engine.Rel[Flow] {
	served := engine.AntiJoin(engine.IndexBy(engine.Filter(nb.SwitchPortDHCP, func(p relations.PortDHCP) bool {
		return p.Enabled() && p.Port.Type != relations.LSPTypeRouter &&
			(p.Port.Type != relations.LSPTypeExternal || p.Port.HaChassisGroup != nil)
	}), func(p relations.PortDHCP) string { return p.Switch }),
		engine.IndexBy(nb.RelaySwitches, func(s relations.RelaySwitch) string { return s.Switch }))
	servers := engine.TryMap(served, "DHCP_Options", dhcpServerOf)
	static := engine.FlatMap(servers, func(s dhcpServer) []dhcpAddrs {
		out := make([]dhcpAddrs, len(s.Addrs.Static))
		for i := range s.Addrs.Static {
			out[i] = dhcpAddrs{Server: s, Addrs: &s.Addrs.Static[i]}
		}
		return out
	})
	dynamic := engine.Join(
		engine.IndexBy(servers, func(s dhcpServer) string { return s.Port.UUID }),
		engine.IndexBy(nb.LSPDynamicAddrs, func(d relations.LSPDynamic) string { return d.LSP.Port.UUID }),
		func(_ string, s dhcpServer, d relations.LSPDynamic) dhcpAddrs {
			return dhcpAddrs{Server: s, Addrs: d.Addrs}
		})
	entries := engine.Union(static, dynamic)
	direct := engine.FlatMap(entries, func(e dhcpAddrs) []dhcpInport {
		if e.Server.Port.Type == relations.LSPTypeExternal {
			return nil
		}
		return []dhcpInport{{dhcpAddrs: e, Name: e.Server.Port.Name, Key: jsonKey(e.Server.Port.Name)}}
	})
	external := engine.Filter(entries, func(e dhcpAddrs) bool { return e.Server.Port.Type == relations.LSPTypeExternal })
	localnets := engine.Filter(conntrackSkipPorts(nb), func(p conntrackSkipPort) bool { return p.Kind == skipLocalnetPort })
	rewrite := externalInportRewrite(nb)
	viaLocalnet := engine.Join(
		engine.IndexBy(external, func(e dhcpAddrs) string { return e.Server.Switch }),
		engine.IndexBy(localnets, func(p conntrackSkipPort) string { return p.Switch }),
		func(_ string, e dhcpAddrs, ln conntrackSkipPort) dhcpInport {
			ext := jsonKey(e.Server.Port.Name)
			if rewrite {
				return dhcpInport{dhcpAddrs: e, Name: e.Server.Port.Name, Key: ext, Resident: ext}
			}
			return dhcpInport{dhcpAddrs: e, Name: ln.Name, Key: ln.Key, Resident: ext}
		})
	style := dhcpStyleOf(nb)
	return engine.FlatMap(engine.Union(direct, viaLocalnet), func(in dhcpInport) []Flow {
		if in.Server.IPv6 {
			return dhcpv6Flows(in, style)
		}
		return dhcpv4Flows(in, style)
	})
}

// dhcpStyle is how a release writes the DHCP flows of a port.
type dhcpStyle struct {
	// OneRequest: a DHCPv4 first request and a renewal match in one flow;
	// Mcast: a DHCPv6 solicitation matches ip6.mcast too; ReplyACL: the
	// reply from ovn-controller is allowed in ls_out_acl_eval (34000) with
	// the offer, for the port and not for an external port's localnet
	// (SwitchDHCPReplyACLFlows otherwise).
	OneRequest, Mcast, ReplyACL bool
}

// dhcpStyleOf: 26.03's style (northd.c build_dhcpv4_options_flows,
// build_dhcpv6_options_flows); 23.03's is the zero one.
func dhcpStyleOf(nb *relations.NB) dhcpStyle {
	r26 := nb.Release >= schema.OVN2603
	return dhcpStyle{OneRequest: r26, Mcast: r26, ReplyACL: r26}
}

// replyACL is the ls_out_acl_eval flow that lets the reply of DHCP server s
// reach the port (dhcpStyle.ReplyACL), none for an external port.
func (in dhcpInport) replyACL(style dhcpStyle) []Flow {
	s := in.Server
	if !style.ReplyACL || s.Port.Type == relations.LSPTypeExternal {
		return nil
	}
	match := "outport == " + in.Key + " && eth.src == " + s.ServerMAC + " && ip4.src == " + s.ServerIP + " && udp && udp.src == 67 && udp.dst == 68"
	if s.IPv6 {
		match = "outport == " + in.Key + " && eth.src == " + s.ServerMAC + " && ip6.src == " + s.ServerIP + " && udp && udp.src == 547 && udp.dst == 546"
	}
	return []Flow{onPort{s.Switch, in.Name}.from(s.Options.UUID).flow(LSOutACLEval, 34000, match, regACLVerdictAllow+" = 1; next;")}
}

// withResident adds the chassis residency check of an external port.
func (in dhcpInport) withResident(match string) string {
	if in.Resident == "" {
		return match
	}
	return match + " && is_chassis_resident(" + in.Resident + ")"
}

// dhcpv4Flows: the first IPv4 address of the entry in the options' network is
// offered.
func dhcpv4Flows(in dhcpInport, style dhcpStyle) []Flow {
	s, addrs := in.Server, in.Addrs
	for _, a := range addrs.IPv4 {
		ip := a.Addr.As4()
		if !s.inNet(ip[:]) {
			continue
		}
		opts := maps.Clone(s.Options.Options)
		// server_mac is not a DHCP option; the netmask comes from the cidr.
		delete(opts, "server_mac")
		netmask := relations.FormatIPv4(binary.BigEndian.Uint32(s.Mask[:4]))
		if h, ok := s.Port.Options["hostname"]; ok {
			opts["hostname"] = h
		}
		// northd adds its netmask to the options even when they have one;
		// its own sorts first (smap_add puts it ahead in the hash bucket
		// and the sort is stable).
		list := append([]dhcpOption{{"netmask", netmask}}, dhcpOptionList(opts)...)
		slices.SortStableFunc(list, func(x, y dhcpOption) int { return cmp.Compare(x.key, y.key) })
		actions := regDHCPOptsResult + " = put_dhcp_opts(offerip = " + a.AddrS + ", " + joinDHCPOptions(list) + "); next;"
		dp, mac := onPort{s.Switch, in.Name}.from(s.Options.UUID), addrs.MAC.String()
		base := "inport == " + in.Key + " && eth.src == " + mac
		response := dp.flow(LSInDHCPResponse, 100, in.withResident(base+" && ip4 && udp.src == 68 && udp.dst == 67 && "+regDHCPOptsResult),
			"eth.dst = eth.src; eth.src = "+s.ServerMAC+"; ip4.src = "+s.ServerIP+
				"; udp.src = 67; udp.dst = 68; outport = inport; flags.loopback = 1; output;")
		if style.OneRequest {
			return append(in.replyACL(style),
				dp.flow(LSInDHCPOptions, 100, in.withResident(base+" && (ip4.src == {"+a.AddrS+", 0.0.0.0} && ip4.dst == {"+
					s.ServerIP+", 255.255.255.255}) && udp.src == 68 && udp.dst == 67"), actions),
				response)
		}
		return []Flow{
			dp.flow(LSInDHCPOptions, 100, in.withResident(base+
				" && ip4.src == 0.0.0.0 && ip4.dst == 255.255.255.255 && udp.src == 68 && udp.dst == 67"), actions),
			// Renewals come from the offered address, to the server or broadcast.
			dp.flow(LSInDHCPOptions, 100, in.withResident(base+" && ip4.src == "+a.AddrS+
				" && ip4.dst == {"+s.ServerIP+", 255.255.255.255} && udp.src == 68 && udp.dst == 67"), actions),
			response,
		}
	}
	return nil
}

// dhcpv6Flows: the first IPv6 address of the entry in the options' network is
// offered (unless the options are stateless).
func dhcpv6Flows(in dhcpInport, style dhcpStyle) []Flow {
	s, addrs := in.Server, in.Addrs
	for _, a := range addrs.IPv6 {
		ip := a.Addr.As16()
		if !s.inNet(ip[:]) {
			continue
		}
		opts := maps.Clone(s.Options.Options)
		stateless := relations.SmapBool(opts, "dhcpv6_stateless", false)
		delete(opts, "dhcpv6_stateless")
		text := joinDHCPOptions(dhcpOptionList(opts))
		if !stateless {
			text = "ia_addr = " + ipv6StringMapped(a) + ", " + text
		}
		dp := onPort{s.Switch, in.Name}.from(s.Options.UUID)
		mcast := ""
		if style.Mcast {
			mcast = " && ip6.mcast"
		}
		match := in.withResident("inport == " + in.Key + " && eth.src == " + addrs.MAC.String() +
			mcast + " && ip6.dst == ff02::1:2 && udp.src == 546 && udp.dst == 547")
		return append(in.replyACL(style),
			dp.flow(LSInDHCPOptions, 100, match, regDHCPOptsResult+" = put_dhcpv6_opts("+strings.TrimSuffix(text, ", ")+"); next;"),
			dp.flow(LSInDHCPResponse, 100, match+" && "+regDHCPOptsResult,
				"eth.dst = eth.src; eth.src = "+s.ServerMAC+"; ip6.dst = ip6.src; ip6.src = "+s.ServerIP+
					"; udp.src = 547; udp.dst = 546; outport = inport; flags.loopback = 1; output;"))
	}
	return nil
}

// ipv6StringMapped prints an address as OVS's ipv6_string_mapped does: an
// IPv4-mapped address as its IPv4 address.
func ipv6StringMapped(a relations.IPv6NetAddr) string {
	if a.Addr.Is4In6() {
		return a.Addr.Unmap().String()
	}
	return a.AddrS
}

type dhcpOption struct{ key, value string }

// dhcpOptionList is opts sorted by key, as northd's smap_sort orders them.
func dhcpOptionList(opts map[string]string) []dhcpOption {
	list := make([]dhcpOption, 0, len(opts))
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		list = append(list, dhcpOption{k, opts[k]})
	}
	return list
}

// joinDHCPOptions prints options as "k = v, k = v".
func joinDHCPOptions(list []dhcpOption) string {
	parts := make([]string, len(list))
	for i, o := range list {
		parts[i] = o.key + " = " + o.value
	}
	return strings.Join(parts, ", ")
}

// SwitchDHCPReplyACLFlows: ls_out_acl, priority 34000 (northd.c build_acls):
// DHCP replies ovn-controller sends on behalf of the DHCP server pass the
// egress ACLs of every non-external port with usable DHCP options (whatever
// its cidr), committed to conntrack on a stateful switch. northd walks the
// switch's ports column here, so a port bound on another switch (a
// duplicate) gets the flow too.
func SwitchDHCPReplyACLFlows(nb *relations.NB) engine.Rel[Flow] {
	type portFacts struct {
		Port  relations.ListedPortDHCP
		Facts relations.SwitchACLFacts
	}
	ports := engine.Join(
		engine.IndexBy(engine.Filter(nb.ListedPortDHCP, func(p relations.ListedPortDHCP) bool { return p.Port.Type != relations.LSPTypeExternal }),
			func(p relations.ListedPortDHCP) string { return p.Switch }),
		switchFactsBySwitch(nb),
		func(_ string, p relations.ListedPortDHCP, f relations.SwitchACLFacts) portFacts {
			return portFacts{p, f}
		})
	// dhcpStyle.ReplyACL: SwitchDHCPFlows writes the flows.
	own := !dhcpStyleOf(nb).ReplyACL
	return engine.FlatMap(ports, func(x portFacts) []Flow {
		if !own {
			return nil
		}
		actions := "next;"
		if x.Facts.Stateful() {
			actions = "ct_commit; next;"
		}
		outport := `outport == "` + x.Port.Port.Name + `"`
		o := x.Port.Options.Options
		if !x.Port.IPv6 {
			id, hasID := o["server_id"]
			mac, hasMAC := o["server_mac"]
			if _, hasLease := o["lease_time"]; !hasID || !hasMAC || !hasLease {
				return nil
			}
			return []Flow{onPort{x.Port.Switch, x.Port.Port.Name}.from(x.Port.Options.UUID).flow(LSOutACL, 34000,
				outport+" && eth.src == "+mac+" && ip4.src == "+id+" && udp && udp.src == 67 && udp.dst == 68", actions)}
		}
		mac := o["server_id"]
		ea, err := relations.ParseMAC(mac)
		if err != nil {
			return nil
		}
		return []Flow{onPort{x.Port.Switch, x.Port.Port.Name}.from(x.Port.Options.UUID).flow(LSOutACL, 34000,
			outport+" && eth.src == "+mac+" && ip6.src == "+relations.FormatIPv6(ea.IPv6LLA())+
				" && udp && udp.src == 547 && udp.dst == 546", actions)}
	})
}
