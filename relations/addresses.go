package relations

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// EthAddr is an Ethernet address.
type EthAddr [6]byte

// String prints the address as northd does (ETH_ADDR_FMT):
// "0a:00:00:00:00:01", lowercase, two digits per octet.
func (e EthAddr) String() string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 17)
	for k, o := range e {
		if k > 0 {
			b = append(b, ':')
		}
		b = append(b, hex[o>>4], hex[o&15])
	}
	return string(b)
}

// IPv6LLA is the IPv6 link-local address northd derives from a router port's
// MAC (in6_generate_lla): fe80::/64 with the modified EUI-64 interface
// identifier, e.g. 0a:00:00:00:00:ff -> fe80::800:ff:fe00:ff.
func (e EthAddr) IPv6LLA() netip.Addr {
	return netip.AddrFrom16([16]byte{
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		e[0] ^ 0x02, e[1], e[2], 0xff, 0xfe, e[3], e[4], e[5],
	})
}

// IPv4NetAddr is one IPv4 address of a port with its prefix length
// (ovn-util.h struct ipv4_netaddr). The *S fields are the forms northd
// prints in flows.
type IPv4NetAddr struct {
	Addr    netip.Addr // 192.168.10.123
	Plen    int        // 24
	Network netip.Addr // 192.168.10.0
	Bcast   netip.Addr // 192.168.10.255

	AddrS, NetworkS, BcastS string
}

// newIPv4NetAddr computes the network and broadcast forms of ip/plen.
func newIPv4NetAddr(ip uint32, plen int) IPv4NetAddr {
	mask := prefixMask32(plen)
	a := IPv4NetAddr{
		Addr:    addr4(ip),
		Plen:    plen,
		Network: addr4(ip & mask),
		Bcast:   addr4(ip | ^mask),
	}
	a.AddrS = a.Addr.String()
	// A host address (/32, most ports') is its own network and broadcast:
	// its one string serves the three.
	form := func(x netip.Addr) string {
		if x == a.Addr {
			return a.AddrS
		}
		return x.String()
	}
	a.NetworkS, a.BcastS = form(a.Network), form(a.Bcast)
	return a
}

func addr4(ip uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], ip)
	return netip.AddrFrom4(b)
}

// IPv6NetAddr is one IPv6 address of a port with its prefix length
// (ovn-util.h struct ipv6_netaddr). The *S fields are the forms northd
// prints in flows (glibc inet_ntop, see FormatIPv6).
type IPv6NetAddr struct {
	Addr    netip.Addr // fc00::1
	Plen    int        // 64
	Network netip.Addr // fc00::
	SNAddr  netip.Addr // solicited-node multicast address, ff02::1:ff00:1

	AddrS, NetworkS, SNAddrS string
}

// SolicitedNode is the solicited-node multicast address of ip,
// ff02::1:ffXX:XXXX with its last 24 bits (in6_addr_solicited_node).
func SolicitedNode(ip [16]byte) netip.Addr {
	return netip.AddrFrom16([16]byte{0xff, 0x02, 11: 0x01, 12: 0xff, 13: ip[13], 14: ip[14], 15: ip[15]})
}

// newIPv6NetAddr computes the network and solicited-node forms of ip/plen.
func newIPv6NetAddr(ip [16]byte, plen int) IPv6NetAddr {
	mask := prefixMask128(plen)
	var network [16]byte
	for k := range network {
		network[k] = ip[k] & mask[k]
	}
	a := IPv6NetAddr{
		Addr:    netip.AddrFrom16(ip),
		Plen:    plen,
		Network: netip.AddrFrom16(network),
		SNAddr:  SolicitedNode(ip),
	}
	a.AddrS, a.NetworkS, a.SNAddrS = FormatIPv6(a.Addr), FormatIPv6(a.Network), FormatIPv6(a.SNAddr)
	return a
}

// LPortAddresses is what northd reads from one entry of a logical switch
// port's addresses or port_security, or from a router port's mac and
// networks (ovn-util.h struct lport_addresses): a MAC and its IPv4 and IPv6
// addresses, each list in input order.
type LPortAddresses struct {
	MAC  EthAddr
	IPv4 []IPv4NetAddr
	IPv6 []IPv6NetAddr
}

// AddressError says where and why an address string does not follow the
// syntax northd reads.
type AddressError struct {
	Field  string // what the string is, e.g. "addresses", "mac", "networks[2]"
	Input  string // the string
	Offset int    // byte offset in Input where reading stopped
	Reason string // what was wrong there
	// Ignored is true when northd drops the whole value (the port entry, or
	// for "mac" the router port). When false, northd logs the problem and
	// keeps what it read, which is the value returned beside this error.
	Ignored bool
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("%s %q: %s at offset %d", e.Field, e.Input, e.Reason, e.Offset)
}

// Ignored reports whether err, as returned by this package's parsers, means
// northd drops the whole value (see AddressError.Ignored). A nil err is not.
func Ignored(err error) bool {
	if err == nil {
		// Without the errors.As, whose target escapes: no allocation.
		return false
	}
	var ae *AddressError
	return errors.As(err, &ae) && ae.Ignored
}

// cString is s as C code sees it: up to its first NUL byte.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// parseAddressList follows ovn-util.c parse_and_store_addresses: an optional
// leading MAC, then IPv4 or IPv6 addresses, each with an optional /plen or
// CIDR mask, until the first thing that is neither. It returns the offset of
// that first unread byte and the reason reading stopped there.
func parseAddressList(s string, withMAC bool) (a LPortAddresses, end int, stop *parseError, ok bool) {
	i := 0
	if withMAC {
		ea, next, ok := scanEthAddr(s, 0)
		if !ok {
			return LPortAddresses{}, 0, &parseError{0, "no MAC address"}, false
		}
		a.MAC, i = ea, next
	}
	for i < len(s) {
		ip4, plen, n, err := ipParseCIDRLen(s, i)
		if err == nil {
			a.IPv4 = append(a.IPv4, newIPv4NetAddr(ip4, plen))
			i = n
			continue
		}
		// ip_parse_cidr_len may have advanced past an IPv4 address with a
		// bad prefix; the IPv6 attempt starts from there, as in the C code.
		ip6, plen, n, err6 := ipv6ParseCIDRLen(s, n)
		if err6 != nil {
			return a, i, &parseError{i, stopReason(err, err6)}, true
		}
		a.IPv6 = append(a.IPv6, newIPv6NetAddr(ip6, plen))
		i = n
	}
	return a, i, nil, true
}

// stopReason says why neither an IPv4 nor an IPv6 address could be read:
// the more specific of the two scanners' reasons.
func stopReason(err4, err6 *parseError) string {
	switch {
	case err4.reason != "invalid IP address":
		return err4.reason
	case err6.reason != "invalid IPv6 address":
		return err6.reason
	}
	return "not an IPv4 or IPv6 address"
}

// ParseLSPAddresses reads one entry of a logical switch port's addresses or
// port_security column ("MAC [IP...]", e.g. "0a:00:00:00:00:01 10.0.0.1/24
// fd00::1") as northd's extract_lsp_addresses does. An entry without a
// leading MAC is an error that Ignored reports. Anything after the last
// address that is not an address (even trailing spaces) is an error, but
// northd keeps the MAC and the addresses before it: so does the returned
// value. The special entries ("unknown", "router", the dynamic forms) are not
// addresses; check them with IsSpecialAddress first.
func ParseLSPAddresses(s string) (LPortAddresses, error) {
	s = cString(s)
	a, end, stop, ok := parseAddressList(s, true)
	if !ok {
		return LPortAddresses{}, &AddressError{Field: "addresses", Input: s, Reason: stop.reason, Ignored: true}
	}
	if stop != nil {
		return a, &AddressError{Field: "addresses", Input: s, Offset: end, Reason: stop.reason}
	}
	return a, nil
}

// ExtractAddresses reads a leading "MAC [IP...]" from s as northd's
// extract_addresses does and returns the offset of what follows it (for
// values such as nat-addresses "MAC IP... is_chassis_resident(...)"). It
// fails only when s does not start with a MAC.
func ExtractAddresses(s string) (LPortAddresses, int, error) {
	s = cString(s)
	a, end, stop, ok := parseAddressList(s, true)
	if !ok {
		return LPortAddresses{}, 0, &AddressError{Field: "address", Input: s, Reason: stop.reason, Ignored: true}
	}
	return a, end, nil
}

// ParseIPAddresses reads "IP [IP...]" (no MAC) as northd's
// extract_ip_addresses does, for values such as a NAT's external_ip. It
// fails, Ignored, when s does not start with an IPv4 or IPv6 address; unread
// trailing content is not reported, as northd does not check for it.
func ParseIPAddresses(s string) (LPortAddresses, error) {
	s = cString(s)
	a, _, stop, _ := parseAddressList(s, false)
	if len(a.IPv4) == 0 && len(a.IPv6) == 0 {
		reason := "no IP address"
		if stop != nil {
			reason = stop.reason
		}
		return LPortAddresses{}, &AddressError{Field: "ip addresses", Input: s, Reason: reason, Ignored: true}
	}
	return a, nil
}

// ParseMAC reads s as a whole MAC address as eth_addr_from_string does:
// leading spaces and hex octets of any length (the low 8 bits kept) are
// accepted, anything after the sixth octet is not.
func ParseMAC(s string) (EthAddr, error) {
	s = cString(s)
	ea, end, ok := scanEthAddr(s, 0)
	if !ok || end != len(s) {
		return EthAddr{}, &AddressError{Field: "mac", Input: s, Offset: end, Reason: "not a MAC address", Ignored: true}
	}
	return ea, nil
}

// ScanMAC reads a MAC address at the start of s and ignores what follows, as
// northd's ovs_scan(s, ETH_ADDR_SCAN_FMT) does when it looks for the MAC of
// an addresses entry (ls_in_l2_lkup) or of dynamic_addresses.
func ScanMAC(s string) (EthAddr, bool) {
	ea, _, ok := scanEthAddr(cString(s), 0)
	return ea, ok
}

// zeroNetworkReason is the Reason of a router port network of IPv4 address
// 0.0.0.0, which 23.03 warns about, where it logs the unreadable ones at
// INFO (extract_lrp_networks).
const zeroNetworkReason = "IPv4 address 0.0.0.0"

// splitNetworkErrors splits an error of ParseLRPNetworks into that of its
// networks of address 0.0.0.0 and that of the unreadable ones, each nil
// when there are none.
func splitNetworkErrors(err error) (zero, unreadable error) {
	var zeros, others []error
	for _, e := range unjoin(err) {
		if a, ok := e.(*AddressError); ok && a.Reason == zeroNetworkReason {
			zeros = append(zeros, e)
		} else {
			others = append(others, e)
		}
	}
	return errors.Join(zeros...), errors.Join(others...)
}

// unjoin is the errors errors.Join joined into err, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// ParseLRPNetworks reads a logical router port's mac and networks as
// northd's extract_lrp_networks does. A bad MAC is an error that Ignored
// reports (northd skips the port). Each network must be a whole "IP/PLEN"
// (or "IP/MASK", or a bare IP for a host prefix); one that is not, or an IPv4
// network whose address is 0.0.0.0, is left out and reported in the returned
// error (joined, one *AddressError each), the rest kept. The port's IPv6
// link-local address, derived from the MAC with prefix length 64, is always
// appended last to IPv6, whatever the networks are. Networks are read in the
// order given: pass the column as the nb model holds it (sorted, as OVSDB
// orders a set and northd sees it), since the order shows in flows such as
// lr_in_ip_input's "ip4.src == {ADDR, BCAST, ...}".
func ParseLRPNetworks(mac string, networks []string) (LPortAddresses, error) {
	ea, err := ParseMAC(mac)
	if err != nil {
		return LPortAddresses{}, err
	}
	a := LPortAddresses{MAC: ea}
	var errs []error
	for k, raw := range networks {
		n := cString(raw)
		field := fmt.Sprintf("networks[%d]", k)
		ip4, plen4, end4, err4 := ipParseCIDRLen(n, 0)
		if err4 == nil && end4 == len(n) {
			if ip4 == 0 {
				errs = append(errs, &AddressError{Field: field, Input: n, Reason: zeroNetworkReason})
				continue
			}
			a.IPv4 = append(a.IPv4, newIPv4NetAddr(ip4, plen4))
			continue
		}
		ip6, plen6, end6, err6 := ipv6ParseCIDRLen(n, 0)
		if err6 == nil && end6 == len(n) {
			a.IPv6 = append(a.IPv6, newIPv6NetAddr(ip6, plen6))
			continue
		}
		reason, at := "trailing characters after the address", 0
		switch {
		case err4 == nil:
			at = end4
		case err6 == nil:
			at = end6
		default:
			reason = stopReason(err4, err6)
		}
		errs = append(errs, &AddressError{Field: field, Input: n, Offset: at, Reason: reason})
	}
	a.IPv6 = append(a.IPv6, newIPv6NetAddr(ea.IPv6LLA().As16(), 64))
	return a, errors.Join(errs...)
}

// IsSpecialAddress reports whether an entry of a logical switch port's
// addresses column is one of the words northd handles apart from
// "MAC [IP...]" entries: "unknown", "router", or a dynamic form (see
// IsDynamicAddress).
func IsSpecialAddress(s string) bool {
	return s == "unknown" || s == "router" || IsDynamicAddress(s)
}

// IsDynamicAddress reports whether an addresses entry asks northd to
// allocate addresses (is_dynamic_lsp_address): "dynamic", "dynamic IPV4",
// "dynamic IPV6", "dynamic IPV4 IPV6" or "MAC dynamic". Like northd, it
// checks only the characters used, not that the IPv6 part is an address.
func IsDynamicAddress(s string) bool {
	s = cString(s)
	if rest, ok := strings.CutPrefix(s, "dynamic"); ok {
		if rest == "" {
			return true
		}
		// Like the C code, a "dynamic IPV4" prefix that is not the whole
		// string leaves the IPv6 scan to start after it.
		n := 0
		if _, next, ok := scanIPv4(rest, 0); ok {
			if next == len(rest) {
				return true
			}
			n = next
		}
		_, next, ok := scanIPv6Chars(rest, skipSpaces(rest, n))
		return ok && next == len(rest)
	}
	_, next, ok := scanEthAddr(s, 0)
	if !ok {
		return false
	}
	rest, ok := strings.CutPrefix(s[skipSpaces(s, next):], "dynamic")
	return ok && rest == ""
}
