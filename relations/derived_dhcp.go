package relations

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
)

// PortDHCP is a switch port with one of its DHCP_Options rows: the row its
// dhcpv4_options (IPv6 false) or dhcpv6_options (IPv6 true) refers to.
type PortDHCP struct {
	LSP
	Options *nb.DHCPOptions
	IPv6    bool
}

// ListedPortDHCP is a port a switch's ports column lists, whether or not
// northd binds it there, with one of its DHCP_Options rows, for the flows
// northd builds from the column itself.
type ListedPortDHCP struct {
	SwitchPort
	Options *nb.DHCPOptions
	IPv6    bool
}

// deriveSwitchPortDHCP joins bound switch ports to the DHCP_Options rows
// they refer to.
func deriveSwitchPortDHCP(n *NB) engine.Rel[PortDHCP] {
	return joinDHCPOptions(n, n.LSPs, func(p LSP) *nb.LogicalSwitchPort { return p.Port },
		func(p LSP, o *nb.DHCPOptions, v6 bool) PortDHCP { return PortDHCP{LSP: p, Options: o, IPv6: v6} })
}

// deriveListedPortDHCP joins listed switch ports to the DHCP_Options rows
// they refer to.
func deriveListedPortDHCP(n *NB) engine.Rel[ListedPortDHCP] {
	return joinDHCPOptions(n, n.ListedSwitchPorts, func(p SwitchPort) *nb.LogicalSwitchPort { return p.Port },
		func(p SwitchPort, o *nb.DHCPOptions, v6 bool) ListedPortDHCP {
			return ListedPortDHCP{SwitchPort: p, Options: o, IPv6: v6}
		})
}

// joinDHCPOptions computes with, for every port of ports and DHCP_Options
// row its dhcpv4_options or dhcpv6_options column refers to.
func joinDHCPOptions[P, O comparable](n *NB, ports engine.Rel[P], lsp func(P) *nb.LogicalSwitchPort,
	with func(P, *nb.DHCPOptions, bool) O) engine.Rel[O] {
	type optionsRef struct {
		Options string // DHCP_Options _uuid
		IPv6    bool
		Port    P
	}
	refs := engine.FlatMap(ports, func(p P) []optionsRef {
		var out []optionsRef
		if id := lsp(p).Dhcpv4Options; id != nil {
			out = append(out, optionsRef{Options: *id, Port: p})
		}
		if id := lsp(p).Dhcpv6Options; id != nil {
			out = append(out, optionsRef{Options: *id, IPv6: true, Port: p})
		}
		return out
	})
	return engine.Join(
		engine.IndexBy(refs, func(r optionsRef) string { return r.Options }),
		n.DHCPOptions.ByUUID(),
		func(_ string, r optionsRef, o *nb.DHCPOptions) O { return with(r.Port, o, r.IPv6) })
}

// ParseIPv4Masked reads "IP", "IP/PLEN" or "IP/MASK" as OVS's
// ip_parse_masked does (a DHCP_Options cidr, for one): the address and the
// netmask, which need not be a CIDR mask. Nothing may follow.
func ParseIPv4Masked(s string) (ip, mask uint32, err error) {
	s = cString(s)
	ip, mask, n, perr := ipParseMaskedLen(s, 0)
	if perr == nil && n != len(s) {
		perr = &parseError{n, "invalid IP address"}
	}
	if perr != nil {
		return 0, 0, &AddressError{Field: "IPv4 network", Input: s, Offset: perr.offset, Reason: perr.reason, Ignored: true}
	}
	return ip, mask, nil
}

// ParseIPv6Masked reads "IPV6", "IPV6/PLEN" or "IPV6/MASK" as OVS's
// ipv6_parse_masked does: the address and the mask. Nothing may follow.
func ParseIPv6Masked(s string) (ip, mask [16]byte, err error) {
	s = cString(s)
	ip, mask, n, perr := ipv6ParseMaskedLen(s, 0)
	if perr == nil && n != len(s) {
		perr = &parseError{n, "invalid IPv6 address"}
	}
	if perr != nil {
		return ip, mask, &AddressError{Field: "IPv6 network", Input: s, Offset: perr.offset, Reason: perr.reason, Ignored: true}
	}
	return ip, mask, nil
}

// FormatIPv4 prints an IPv4 address held in a uint32 (network order) as
// northd's IP_FMT does.
func FormatIPv4(ip uint32) string {
	return addr4(ip).String()
}
