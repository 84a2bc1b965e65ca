package relations

import (
	"errors"
	"fmt"
	"math/bits"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// IPAMConfig is a logical switch's address management configuration, read
// from its other_config as ovn-northd 23.03's init_ipam_info reads it.
type IPAMConfig struct {
	// HasIPv4: other_config:subnet is a readable IPv4 network that is not a
	// host route. Addresses are then given out from Start, the network
	// address plus one, among Total addresses; Start (the router's, by
	// convention) and the last one, the broadcast address, never are.
	HasIPv4      bool
	Start, Total uint32
	// Excluded are other_config:exclude_ips as sorted, disjoint ranges of
	// offsets from Start, clamped to the subnet.
	Excluded []IPRange
	// HasIPv6: other_config:ipv6_prefix is a readable IPv6 address, or
	// network of length 64. IPv6Prefix is its first 64 bits.
	HasIPv6    bool
	IPv6Prefix [16]byte
	// MACOnly is other_config:mac_only, which counts only when neither
	// subnet nor ipv6_prefix is set.
	MACOnly bool
}

// IPRange is the half-open range of offsets [Lo, Hi).
type IPRange struct{ Lo, Hi uint32 }

// Enabled reports whether northd allocates addresses on the switch at all
// (a subnet, an IPv6 prefix or mac_only): on a switch without, it clears
// every port's dynamic_addresses.
func (c *IPAMConfig) Enabled() bool { return c.HasIPv4 || c.HasIPv6 || c.MACOnly }

// excluded reports whether the offset i is in an excluded range.
func (c *IPAMConfig) excluded(i uint32) bool {
	k, _ := slices.BinarySearchFunc(c.Excluded, i, func(r IPRange, i uint32) int {
		switch {
		case r.Hi <= i:
			return -1
		case r.Lo > i:
			return 1
		}
		return 0
	})
	return k < len(c.Excluded) && c.Excluded[k].Lo <= i && i < c.Excluded[k].Hi
}

// ParseIPAMConfig reads a switch's other_config as init_ipam_info does.
// Values northd cannot read are left out of the result and reported, one
// error each, as northd logs them; what it could read counts (exclude_ips
// ranges before a syntax error, for one).
func ParseIPAMConfig(otherConfig map[string]string) (IPAMConfig, error) {
	var c IPAMConfig
	var errs []error
	subnet, hasSubnet := otherConfig["subnet"]
	prefix, hasPrefix := otherConfig["ipv6_prefix"]
	if hasSubnet {
		ip, mask, err := ParseIPv4Masked(subnet)
		switch {
		case err != nil || mask == 0xffffffff || ^mask&(^mask+1) != 0:
			errs = append(errs, fmt.Errorf("bad 'subnet' %s", subnet))
		default:
			c.HasIPv4, c.Start, c.Total = true, ip&mask+1, ^mask
			var err error
			if ex, ok := otherConfig["exclude_ips"]; ok {
				c.Excluded, err = ParseExcludeIPs(ex, c.Start, c.Total)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("bad exclude_ips (%w)", err))
			}
		}
	}
	if hasPrefix {
		var ip [16]byte
		ok := false
		if strings.Contains(prefix, "/") {
			var mask [16]byte
			var err error
			ip, mask, err = ParseIPv6Masked(prefix)
			ok = err == nil && mask == prefixMask128(64)
		} else {
			var a netip.Addr
			a, ok = ParseIPv6(prefix)
			ip = a.As16()
		}
		if ok {
			c.HasIPv6 = true
			copy(c.IPv6Prefix[:8], ip[:8])
		} else {
			errs = append(errs, fmt.Errorf("bad 'ipv6_prefix' %s", prefix))
		}
	}
	c.MACOnly = !hasSubnet && !hasPrefix && SmapBool(otherConfig, "mac_only", false)
	return c, errors.Join(errs...)
}

// ParseExcludeIPs reads other_config:exclude_ips ("10.0.0.4
// 10.0.0.10..10.0.0.20 ...") with OVN's lexer as init_ipam_ipv4 does, for
// the subnet of total addresses from start: each address or range is
// clamped to the subnet and returned as offsets from start, sorted and
// merged. A token that is not an address (or an integer: OVN's lexer reads
// 10, 0x0a000005, a MAC or an IPv6 address as integers too, and the
// subnet keeps their low 32 bits) stops the reading with an error, keeping
// what came before; a range outside the subnet is an error that does not.
// Only the first error is returned.
func ParseExcludeIPs(s string, start, total uint32) ([]IPRange, error) {
	var out []IPRange
	var first error
	fail := func(err error) {
		if first == nil {
			first = err
		}
	}
	l := exLexer{s: cString(s)}
	tok := l.next()
	for tok.kind != exEnd {
		if tok.kind != exInteger {
			fail(tok.errorf("expecting address"))
			break
		}
		lo := tok.value
		hi := lo + 1
		tok = l.next()
		if tok.kind == exEllipsis {
			if tok = l.next(); tok.kind != exInteger {
				fail(tok.errorf("expecting address range"))
				break
			}
			hi = tok.value + 1
			tok = l.next()
		}
		// The C code's unsigned 32-bit arithmetic, wrap-arounds included.
		lo, hi = max(start, lo), min(start+total, hi)
		if hi > lo {
			out = append(out, IPRange{lo - start, hi - start})
		} else {
			fail(errors.New("excluded addresses not in subnet"))
		}
	}
	slices.SortFunc(out, func(a, b IPRange) int { return int64Cmp(int64(a.Lo), int64(b.Lo)) })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r.Lo <= merged[n-1].Hi {
			merged[n-1].Hi = max(merged[n-1].Hi, r.Hi)
			continue
		}
		merged = append(merged, r)
	}
	return merged, first
}

func int64Cmp(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// exLexer is the part of OVN's lexer (lib/lex.c) that exclude_ips needs:
// integers in all their forms, "..", and the rest only as "not those".
type exLexer struct {
	s string
	i int
}

type exKind int

const (
	exEnd exKind = iota
	exInteger
	exEllipsis
	exOther // any other token, or a lexical error
)

type exToken struct {
	kind  exKind
	value uint32 // an integer's low 32 bits
	text  string // the token, for messages
	err   string // a lexical error
}

func (t exToken) errorf(what string) error {
	switch {
	case t.err != "":
		return errors.New(t.err)
	case t.kind == exEnd:
		return fmt.Errorf("Syntax error at end of input %s", what)
	}
	return fmt.Errorf("Syntax error at `%s' %s", t.text, what)
}

// next reads the next token (lex_token_parse).
func (l *exLexer) next() exToken {
	s := l.s
	for {
		for l.i < len(s) && isCSpace(s[l.i]) {
			l.i++
		}
		switch {
		case strings.HasPrefix(s[l.i:], "//"):
			for l.i < len(s) && s[l.i] != '\n' {
				l.i++
			}
			continue
		case strings.HasPrefix(s[l.i:], "/*"):
			end := strings.Index(s[l.i+2:], "*/")
			nl := strings.IndexByte(s[l.i+2:], '\n')
			if end < 0 || nl >= 0 && nl < end {
				return exToken{kind: exOther, err: "`/*' without matching `*/'."}
			}
			l.i += 2 + end + 2
			continue
		}
		break
	}
	start := l.i
	if start == len(s) {
		return exToken{kind: exEnd}
	}
	c := s[start]
	switch {
	case c == '.':
		if strings.HasPrefix(s[start:], "..") {
			l.i += 2
			return exToken{kind: exEllipsis, text: ".."}
		}
		l.i++
		return exToken{kind: exOther, err: "`.' is only valid as part of `..' or a number."}
	case c >= '0' && c <= '9', c == ':' && strings.HasPrefix(s[start:], "::"):
		return l.integer()
	case hexitValue(c) >= 0:
		// A MAC or IPv6 address starts with hex digits and a colon; an
		// identifier never does.
		j := start
		for j < len(s) && hexitValue(s[j]) >= 0 {
			j++
		}
		if j < len(s) && s[j] == ':' {
			return l.integer()
		}
	}
	// Anything else ends exclude_ips: its exact extent does not matter.
	l.i = len(s)
	return exToken{kind: exOther, text: s[start:]}
}

// integer reads an integer token (lex_parse_integer): its extent, then
// its value as a MAC, a decimal, a hexadecimal, an IPv4 or an IPv6
// constant; a "/" after it makes it a masked integer, which exclude_ips
// does not accept.
func (l *exLexer) integer() exToken {
	s := l.s
	start, end, sawDot := l.i, l.i, false
	for end < len(s) {
		c := s[end]
		ok := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			c == ':' && !sawDot || c == '.' && !(end+1 < len(s) && s[end+1] == '.')
		if !ok {
			break
		}
		sawDot = sawDot || c == '.'
		end++
	}
	l.i = end
	text := s[start:end]
	t := exToken{kind: exInteger, text: text}
	fail := func(msg string) exToken { return exToken{kind: exOther, text: text, err: msg} }
	switch {
	case len(text) == 17 && func() bool { _, n, ok := scanEthAddr(text, 0); return ok && n == 17 }():
		ea, _, _ := scanEthAddr(text, 0)
		t.value = uint32(ea[2])<<24 | uint32(ea[3])<<16 | uint32(ea[4])<<8 | uint32(ea[5])
	case strings.Trim(text, "0123456789") == "":
		v, err := strconv.ParseUint(text, 10, 64)
		switch {
		case text[0] == '0' && len(text) > 1:
			return fail("Decimal constants must not have leading zeros.")
		case err != nil:
			return fail("Decimal constants must be less than 2**64.")
		}
		t.value = uint32(v)
	case len(text) >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'):
		digits := text[2:]
		if digits == "" {
			return fail("Hex digits expected following 0" + text[1:2] + ".")
		}
		for k := range len(digits) {
			d := hexitValue(digits[len(digits)-1-k])
			switch {
			case d < 0:
				return fail("Invalid syntax in hexadecimal constant.")
			case d > 0 && k/2 >= 128:
				return fail("Hexadecimal constant requires more than 1024 bits.")
			case k < 8:
				t.value |= uint32(d) << (4 * k)
			}
		}
	case len(text) < 46:
		if ip, ok := inetPton4(text); ok {
			t.value = uint32(ip[0])<<24 | uint32(ip[1])<<16 | uint32(ip[2])<<8 | uint32(ip[3])
		} else if ip6, ok := inetPton6(text); ok {
			t.value = uint32(ip6[12])<<24 | uint32(ip6[13])<<16 | uint32(ip6[14])<<8 | uint32(ip6[15])
		} else {
			return fail("Invalid numeric constant.")
		}
	default:
		return fail("Invalid numeric constant.")
	}
	if end < len(s) && s[end] == '/' {
		l.i = len(s)
		return exToken{kind: exOther, text: s[start:]}
	}
	return t
}

// DynamicRequest is the dynamic entry of a switch port's addresses that
// northd serves, read as build_ipam's ovs_scan calls read it: each form
// separately, since northd tries them in different orders in different
// places ("dynamic 1.2.3.4::1" is both "dynamic IPV6" and "dynamic IP
// IPV6"). IPv4 addresses have ovs_scan's octets (low 8 bits kept); IPv6
// texts are IPV6_SCAN_FMT's characters, not necessarily an address.
type DynamicRequest struct {
	Entry string
	// "MAC dynamic"
	MAC    EthAddr
	HasMAC bool
	// "dynamic IP"
	IPv4    uint32
	HasIPv4 bool
	// "dynamic IPV6"
	IPv6    string
	HasIPv6 bool
	// "dynamic IP IPV6"
	BothIPv4 uint32
	BothIPv6 string
	HasBoth  bool
}

// ParseDynamicRequest reads an addresses entry for which IsDynamicAddress
// holds.
func ParseDynamicRequest(entry string) DynamicRequest {
	s := cString(entry)
	r := DynamicRequest{Entry: entry}
	if ea, n, ok := scanEthAddr(s, 0); ok {
		if rest, ok := strings.CutPrefix(s[skipSpaces(s, n):], "dynamic"); ok && rest == "" {
			r.MAC, r.HasMAC = ea, true
		}
	}
	rest, ok := strings.CutPrefix(s, "dynamic")
	if !ok {
		return r
	}
	// The format's space after "dynamic", and %hhu itself, skip any number
	// of spaces, none included; %[ skips none.
	if ip, n, ok := scanIPv4(rest, 0); ok {
		v := uint32(ip[0])<<24 | uint32(ip[1])<<16 | uint32(ip[2])<<8 | uint32(ip[3])
		r.IPv4, r.HasIPv4 = v, n == len(rest)
		if tok, m, ok := scanIPv6Chars(rest, skipSpaces(rest, n)); ok && m == len(rest) {
			r.BothIPv4, r.BothIPv6, r.HasBoth = v, tok, true
		}
		if !r.HasIPv4 {
			r.IPv4 = 0
		}
	}
	if tok, m, ok := scanIPv6Chars(rest, skipSpaces(rest, 0)); ok && m == len(rest) {
		r.IPv6, r.HasIPv6 = tok, true
	}
	return r
}

// FormatIPv6Mapped prints an IPv6 address as OVS's ipv6_string_mapped
// does: an IPv4-mapped address as its dotted IPv4 address, any other as
// inet_ntop does.
func FormatIPv6Mapped(a netip.Addr) string {
	if a.Is4In6() {
		return a.Unmap().String()
	}
	return FormatIPv6(a)
}

// eui64 is the address of prefix's first 64 bits and the modified EUI-64
// interface identifier of mac (in6_generate_eui64).
func eui64(mac EthAddr, prefix [16]byte) [16]byte {
	ip := prefix
	copy(ip[8:], []byte{mac[0] ^ 0x02, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]})
	return ip
}

// ipBitmap is the used-address bitmap of a switch's subnet, one bit per
// offset, grown as bits are set, with a summary of its full words so that
// the first clear bit is found without scanning the words before it.
type ipBitmap struct {
	words []uint64
	full  []uint64 // bit w: words[w] is all ones
}

func (b *ipBitmap) get(i uint32) bool {
	w := int(i / 64)
	return w < len(b.words) && b.words[w]&(1<<(i%64)) != 0
}

func (b *ipBitmap) set(i uint32, v bool) {
	w := int(i / 64)
	if w >= len(b.words) {
		if !v {
			return
		}
		b.words = append(b.words, make([]uint64, w+1-len(b.words))...)
		if n := (len(b.words) + 63) / 64; n > len(b.full) {
			b.full = append(b.full, make([]uint64, n-len(b.full))...)
		}
	}
	if v {
		b.words[w] |= 1 << (i % 64)
	} else {
		b.words[w] &^= 1 << (i % 64)
	}
	if b.words[w] == ^uint64(0) {
		b.full[w/64] |= 1 << (w % 64)
	} else {
		b.full[w/64] &^= 1 << (w % 64)
	}
}

// setRange sets the bits [lo, hi).
func (b *ipBitmap) setRange(lo, hi uint32) {
	for i := lo; i < hi; {
		if i%64 == 0 && hi-i >= 64 {
			b.set(i+63, true) // grows the words
			b.words[i/64] = ^uint64(0)
			w := i / 64
			b.full[w/64] |= 1 << (w % 64)
			i += 64
			continue
		}
		b.set(i, true)
		i++
	}
}

// firstClear is the lowest clear bit (bitmap_scan for 0).
func (b *ipBitmap) firstClear() uint64 {
	for k, f := range b.full {
		if f == ^uint64(0) {
			continue
		}
		w := k*64 + bits.TrailingZeros64(^f)
		if w >= len(b.words) {
			return uint64(w) * 64
		}
		return uint64(w)*64 + uint64(bits.TrailingZeros64(^b.words[w]))
	}
	return uint64(len(b.full)) * 64 * 64
}
