package relations

// The low-level scanners here reproduce, character for character, how
// ovn-northd 23.03 (through Open vSwitch's lib/util.c ovs_scan and
// lib/packets.c, and glibc's inet_pton/inet_ntop) reads and prints MAC and IP
// addresses. Exactness matters more than strictness: northd accepts
// "10.0.0.300" as 10.0.0.44 (an octet keeps its low 8 bits), "+10", "-1",
// " 10. 0.0.1" and "0x0a" in a MAC, and the flows it writes show the result.

import (
	"encoding/binary"
	"net/netip"
	"strconv"
)

// isCSpace reports whether c is a space for C's isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// skipSpaces returns the index of the first non-space byte of s at or after i.
func skipSpaces(s string, i int) int {
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	return i
}

// hexitValue is the value of c as a hexadecimal digit, or -1.
func hexitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// scanInt reads one integer conversion of ovs_scan ("%d", "%hhu", "%hhx"...)
// from s at i: leading spaces, an optional sign, for base 16 an optional
// "0x", then at least one digit. The value wraps modulo 2^64 and a negative
// sign negates it modulo 2^64; callers keep the low bits their C type holds.
func scanInt(s string, i, base int) (value uint64, next int, ok bool) {
	i = skipSpaces(s, i)
	negative := i < len(s) && s[i] == '-'
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	if base == 16 && i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		i += 2
	}
	start := i
	for i < len(s) {
		d := hexitValue(s[i])
		if d < 0 || d >= base {
			break
		}
		value = value*uint64(base) + uint64(d)
		i++
	}
	if i == start {
		return 0, 0, false
	}
	if negative {
		value = -value
	}
	return value, i, true
}

// scanEthAddr reads ETH_ADDR_SCAN_FMT ("%hhx:%hhx:%hhx:%hhx:%hhx:%hhx") from
// s at i.
func scanEthAddr(s string, i int) (ea EthAddr, next int, ok bool) {
	for k := range ea {
		if k > 0 {
			if i >= len(s) || s[i] != ':' {
				return EthAddr{}, 0, false
			}
			i++
		}
		var v uint64
		if v, i, ok = scanInt(s, i, 16); !ok {
			return EthAddr{}, 0, false
		}
		ea[k] = byte(v)
	}
	return ea, i, true
}

// scanIPv4 reads IP_SCAN_FMT ("%hhu.%hhu.%hhu.%hhu") from s at i.
func scanIPv4(s string, i int) (ip [4]byte, next int, ok bool) {
	for k := range ip {
		if k > 0 {
			if i >= len(s) || s[i] != '.' {
				return ip, 0, false
			}
			i++
		}
		var v uint64
		if v, i, ok = scanInt(s, i, 10); !ok {
			return ip, 0, false
		}
		ip[k] = byte(v)
	}
	return ip, i, true
}

// scanPrefixLen reads "/%d" from s at i; the value is C's int, the low 32
// bits of what was read.
func scanPrefixLen(s string, i int) (plen int, next int, ok bool) {
	if i >= len(s) || s[i] != '/' {
		return 0, 0, false
	}
	v, next, ok := scanInt(s, i+1, 10)
	return int(int32(uint32(v))), next, ok
}

// ipv6ScanLen is IPV6_SCAN_LEN, the most characters "%46[...]" takes.
const ipv6ScanLen = 46

// scanIPv6Chars reads IPV6_SCAN_FMT ("%46[0123456789abcdefABCDEF:.]") from s
// at i: one to 46 characters of that set.
func scanIPv6Chars(s string, i int) (token string, next int, ok bool) {
	j := i
	for j < len(s) && j-i < ipv6ScanLen && (hexitValue(s[j]) >= 0 || s[j] == ':' || s[j] == '.') {
		j++
	}
	return s[i:j], j, j > i
}

// parseError is the reason a scanner stopped, with the offset it refers to.
type parseError struct {
	offset int
	reason string
}

// ipParseMaskedLen follows ip_parse_masked_len: "IP/MASK", "IP/PLEN" or "IP"
// at s[i:]. On a prefix length out of range it fails with next already past
// the prefix, as the C code leaves its scan offset there.
func ipParseMaskedLen(s string, i int) (ip, mask uint32, next int, err *parseError) {
	if a, j, ok := scanIPv4(s, i); ok && j < len(s) && s[j] == '/' {
		if m, k, ok := scanIPv4(s, j+1); ok {
			return binary.BigEndian.Uint32(a[:]), binary.BigEndian.Uint32(m[:]), k, nil
		}
	}
	if a, j, ok := scanIPv4(s, i); ok {
		if plen, k, ok := scanPrefixLen(s, j); ok {
			if plen < 0 || plen > 32 {
				return 0, 0, k, &parseError{i, "IPv4 network prefix bits not between 0 and 32, inclusive"}
			}
			return binary.BigEndian.Uint32(a[:]), prefixMask32(plen), k, nil
		}
		return binary.BigEndian.Uint32(a[:]), ^uint32(0), j, nil
	}
	return 0, 0, i, &parseError{i, "invalid IP address"}
}

// prefixMask32 is the IPv4 netmask of plen leading one bits.
func prefixMask32(plen int) uint32 {
	if plen == 0 {
		return 0
	}
	return ^uint32(0) << (32 - plen)
}

// ipParseCIDRLen follows ip_parse_cidr_len: ipParseMaskedLen whose mask must
// be a CIDR mask, returned as a prefix length.
func ipParseCIDRLen(s string, i int) (ip uint32, plen int, next int, err *parseError) {
	ip, mask, next, err := ipParseMaskedLen(s, i)
	if err != nil {
		return 0, 0, next, err
	}
	if x := ^mask; x&(x+1) != 0 {
		return 0, 0, next, &parseError{i, "CIDR network required"}
	}
	return ip, cidrBits32(mask), next, nil
}

// cidrBits32 is the number of leading one bits of a CIDR netmask.
func cidrBits32(mask uint32) int {
	n := 0
	for ; mask != 0; mask <<= 1 {
		n++
	}
	return n
}

// ipv6ParseMaskedLen follows ipv6_parse_masked_len: "IPV6/PLEN",
// "IPV6/MASK" or "IPV6" at s[i:], leading spaces allowed. Like the C code, a
// failure after the address was scanned leaves next past what was scanned.
func ipv6ParseMaskedLen(s string, i int) (ip, mask [16]byte, next int, err *parseError) {
	tok, j, ok := scanIPv6Chars(s, skipSpaces(s, i))
	if !ok {
		return ip, mask, i, &parseError{i, "invalid IPv6 address"}
	}
	if ip, ok = inetPton6(tok); !ok {
		return ip, mask, j, &parseError{i, "invalid IPv6 address"}
	}
	if plen, k, ok := scanPrefixLen(s, j); ok {
		if plen < 0 || plen > 128 {
			return ip, mask, k, &parseError{i, "IPv6 network prefix bits not between 0 and 128, inclusive"}
		}
		return ip, prefixMask128(plen), k, nil
	}
	if j < len(s) && s[j] == '/' {
		if tok, k, ok := scanIPv6Chars(s, j+1); ok {
			if mask, ok = inetPton6(tok); !ok {
				return ip, mask, k, &parseError{i, "invalid IPv6 mask"}
			}
			return ip, mask, k, nil
		}
	}
	return ip, prefixMask128(128), j, nil
}

// prefixMask128 is the IPv6 netmask of plen leading one bits.
func prefixMask128(plen int) (m [16]byte) {
	for k := range m {
		switch {
		case plen >= 8:
			m[k] = 0xff
			plen -= 8
		case plen > 0:
			m[k] = 0xff << (8 - plen)
			plen = 0
		}
	}
	return m
}

// ipv6ParseCIDRLen follows ipv6_parse_cidr_len: ipv6ParseMaskedLen whose
// mask must be a CIDR mask, returned as a prefix length.
func ipv6ParseCIDRLen(s string, i int) (ip [16]byte, plen int, next int, err *parseError) {
	ip, mask, next, err := ipv6ParseMaskedLen(s, i)
	if err != nil {
		return ip, 0, next, err
	}
	for _, b := range mask {
		if b != 0xff {
			plen += cidrBits32(uint32(b) << 24)
			break
		}
		plen += 8
	}
	if mask != prefixMask128(plen) {
		return ip, 0, next, &parseError{i, "IPv6 CIDR network required"}
	}
	return ip, plen, next, nil
}

// inetPton4 follows glibc's inet_pton(AF_INET): exactly four decimal octets
// of at most 255, no leading zeros, nothing else.
func inetPton4(s string) (ip [4]byte, ok bool) {
	octets, sawDigit, k := 0, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			v := uint(ip[k])*10 + uint(c-'0')
			if sawDigit && ip[k] == 0 || v > 255 {
				return ip, false
			}
			ip[k] = byte(v)
			if !sawDigit {
				if octets++; octets > 4 {
					return ip, false
				}
				sawDigit = true
			}
		case c == '.' && sawDigit:
			if octets == 4 {
				return ip, false
			}
			k++
			sawDigit = false
		default:
			return ip, false
		}
	}
	return ip, octets == 4
}

// inetPton6 follows glibc's inet_pton(AF_INET6), including an embedded
// dotted-quad IPv4 tail.
func inetPton6(s string) (ip [16]byte, ok bool) {
	if s == "" {
		return ip, false
	}
	i := 0
	if s[0] == ':' {
		if len(s) < 2 || s[1] != ':' {
			return ip, false
		}
		i = 1
	}
	var tmp [16]byte
	tp, colonp := 0, -1
	curtok, digits, val := i, 0, uint(0)
	for i < len(s) {
		c := s[i]
		i++
		if d := hexitValue(c); d >= 0 {
			if digits == 4 {
				return ip, false
			}
			val = val<<4 | uint(d)
			digits++
			continue
		}
		if c == ':' {
			curtok = i
			if digits == 0 {
				if colonp >= 0 {
					return ip, false
				}
				colonp = tp
				continue
			} else if i == len(s) || tp+2 > 16 {
				return ip, false
			}
			tmp[tp], tmp[tp+1] = byte(val>>8), byte(val)
			tp += 2
			digits, val = 0, 0
			continue
		}
		if c == '.' && tp+4 <= 16 {
			if v4, ok := inetPton4(s[curtok:]); ok {
				copy(tmp[tp:], v4[:])
				tp += 4
				digits = 0
				break
			}
		}
		return ip, false
	}
	if digits > 0 {
		if tp+2 > 16 {
			return ip, false
		}
		tmp[tp], tmp[tp+1] = byte(val>>8), byte(val)
		tp += 2
	}
	if colonp >= 0 {
		if tp == 16 {
			return ip, false
		}
		n := tp - colonp
		copy(tmp[16-n:], tmp[colonp:tp])
		clear(tmp[colonp : 16-n])
		tp = 16
	}
	return tmp, tp == 16
}

// FormatIPv6 prints an IPv6 address as glibc's inet_ntop does, and so as
// ovn-northd writes it in flows: RFC 5952 compression of the first longest
// run of two or more zero groups, and a dotted-quad tail for IPv4-mapped
// (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses.
func FormatIPv6(a netip.Addr) string {
	b := a.As16()
	var words [8]uint16
	for k := range words {
		words[k] = binary.BigEndian.Uint16(b[2*k:])
	}
	bestBase, bestLen, curBase, curLen := -1, 0, -1, 0
	for k, w := range words {
		if w == 0 {
			if curBase < 0 {
				curBase, curLen = k, 0
			}
			curLen++
			if bestBase < 0 || curLen > bestLen {
				bestBase, bestLen = curBase, curLen
			}
		} else {
			curBase = -1
		}
	}
	if bestLen < 2 {
		bestBase = -1
	}
	out := make([]byte, 0, 46)
	for k := 0; k < 8; k++ {
		if bestBase >= 0 && k >= bestBase && k < bestBase+bestLen {
			if k == bestBase {
				out = append(out, ':')
			}
			continue
		}
		if k != 0 {
			out = append(out, ':')
		}
		if k == 6 && bestBase == 0 && (bestLen == 6 || bestLen == 5 && words[5] == 0xffff) {
			out = netip.AddrFrom4([4]byte(b[12:])).AppendTo(out)
			return string(out)
		}
		out = strconv.AppendUint(out, uint64(words[k]), 16)
	}
	if bestBase >= 0 && bestBase+bestLen == 8 {
		out = append(out, ':')
	}
	return string(out)
}
