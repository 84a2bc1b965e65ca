package relations

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// checkAddrs fails unless every address in a is self-consistent: the
// network and broadcast or solicited-node forms follow from the address and
// prefix length, and each string form reads back as its address.
func checkAddrs(t *testing.T, a LPortAddresses) {
	t.Helper()
	for _, x := range a.IPv4 {
		if !x.Addr.Is4() || x.Plen < 0 || x.Plen > 32 {
			t.Fatalf("bad IPv4 %v/%d", x.Addr, x.Plen)
		}
		p := netip.PrefixFrom(x.Addr, x.Plen).Masked()
		if x.Network != p.Addr() {
			t.Fatalf("%v/%d: network %v; want %v", x.Addr, x.Plen, x.Network, p.Addr())
		}
		if !p.Contains(x.Bcast) || (x.Plen < 32 && x.Bcast.Next().IsValid() && p.Contains(x.Bcast.Next())) {
			t.Fatalf("%v/%d: broadcast %v is not the last address", x.Addr, x.Plen, x.Bcast)
		}
		readsBack(t, x.AddrS, x.Addr)
		readsBack(t, x.NetworkS, x.Network)
		readsBack(t, x.BcastS, x.Bcast)
	}
	for _, x := range a.IPv6 {
		if !x.Addr.Is6() || x.Plen < 0 || x.Plen > 128 {
			t.Fatalf("bad IPv6 %v/%d", x.Addr, x.Plen)
		}
		if p := netip.PrefixFrom(x.Addr, x.Plen).Masked(); x.Network != p.Addr() {
			t.Fatalf("%v/%d: network %v; want %v", x.Addr, x.Plen, x.Network, p.Addr())
		}
		sn, ip := x.SNAddr.As16(), x.Addr.As16()
		if !netip.MustParsePrefix("ff02::1:ff00:0/104").Contains(x.SNAddr) || [3]byte(sn[13:]) != [3]byte(ip[13:]) {
			t.Fatalf("%v: solicited-node %v", x.Addr, x.SNAddr)
		}
		readsBack(t, x.AddrS, x.Addr)
		readsBack(t, x.NetworkS, x.Network)
		readsBack(t, x.SNAddrS, x.SNAddr)
	}
}

func readsBack(t *testing.T, s string, want netip.Addr) {
	t.Helper()
	got, err := netip.ParseAddr(s)
	if err != nil || got != want {
		t.Fatalf("%q reads back as %v, %v; want %v", s, got, err, want)
	}
}

// canonical prints a as an addresses entry in the forms northd prints.
func canonical(a LPortAddresses) string {
	parts := []string{a.MAC.String()}
	for _, x := range a.IPv4 {
		parts = append(parts, fmt.Sprintf("%s/%d", x.AddrS, x.Plen))
	}
	for _, x := range a.IPv6 {
		parts = append(parts, fmt.Sprintf("%s/%d", x.AddrS, x.Plen))
	}
	return strings.Join(parts, " ")
}

func FuzzParseLSPAddresses(f *testing.F) {
	for _, s := range []string{
		"0a:00:00:00:00:01", "0a:00:00:00:00:01 10.0.0.1", "0A:0:0:0:0:3 10.0.0.3/24 fd00::1/64",
		"0x0a:00:00:00:00:07 -1.0.0.7", "1:2:3:4:5:6 10.0.0.256", "  0a:00:00:00:00:13   10.0.0.19   ",
		"0a:00:00:00:00:0c 10.0.0.12/255.0.255.0 10.0.0.13", "0a:00:00:00:00:0d 10.0.0.14/33fd00::1",
		"0a:00:00:00:00:0f ::ffff:1.2.3.4 ::1.2.3.4", "0a:00:00:00:00:10 10.0.0.16fd00::10",
		"0a:00:00:00:00:17 fd00::17/ffff:ffff::", "0a:00:00:00:00:15 10.0.0.14/4294967320",
		"0a-00-00-00-00-16 10.0.0.22", "dynamic", "0a:00:00:00:00:01 dynamic", "dynamic 10.0.0.1 fd00::1",
		"unknown", "router", "", "0a:00:00:00:00:01 fd00::1/-1", "0a:00:00:00:00:01 1::2:3:4:5:6:7:8/0:0::",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseLSPAddresses(s)
		IsDynamicAddress(s)
		if err != nil {
			var ae *AddressError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is a %T", err, err)
			}
			if ae.Offset < 0 || ae.Offset > len(ae.Input) || ae.Input != cString(s) {
				t.Fatalf("error %v: offset %d outside %q", err, ae.Offset, ae.Input)
			}
			if ae.Ignored {
				if a.MAC != (EthAddr{}) || a.IPv4 != nil || a.IPv6 != nil {
					t.Fatalf("ignored entry returned %s", summary(a))
				}
				if _, ok := ScanMAC(s); ok {
					t.Fatalf("no MAC reported, but ScanMAC finds one in %q", s)
				}
				return
			}
		}
		if mac, ok := ScanMAC(s); !ok || mac != a.MAC {
			t.Fatalf("MAC %v; ScanMAC says %v, %v", a.MAC, mac, ok)
		}
		checkAddrs(t, a)
		// What northd would print reads back as the same addresses.
		c := canonical(a)
		b, err := ParseLSPAddresses(c)
		if err != nil || summary(b) != summary(a) {
			t.Fatalf("canonical %q reads as %s, %v; want %s", c, summary(b), err, summary(a))
		}
	})
}

func FuzzParseLRPNetworks(f *testing.F) {
	for _, c := range [][3]string{
		{"0a:00:00:00:01:01", "10.1.0.1/24", "fd00::1/64"},
		{"0A:00:00:00:01:02", "10.2.0.1/255.255.0.0", "0.0.0.0/24"},
		{"0a:00:00:00:01:03 junk", "10.3.0.1/24", ""},
		{" 0x0a:+0:-1:00:01:05", "10.5.0.1/24 ", "fd05:1::1/ffff::"},
		{"0a:00:00:00:01:09", "0.0.0.1/8", "::ffff:10.27.0.1/120"},
		{"0a:00:00:00:01:0b", "fd0b::1/0", "10.11.0.1/0"},
	} {
		f.Add(c[0], c[1], c[2])
	}
	f.Fuzz(func(t *testing.T, mac, n1, n2 string) {
		a, err := ParseLRPNetworks(mac, []string{n1, n2})
		if Ignored(err) {
			if _, merr := ParseMAC(mac); merr == nil {
				t.Fatalf("port ignored (%v) but its MAC %q parses", err, mac)
			}
			return
		}
		if ea, merr := ParseMAC(mac); merr != nil || ea != a.MAC {
			t.Fatalf("MAC %v; ParseMAC says %v, %v", a.MAC, ea, merr)
		}
		checkAddrs(t, a)
		if len(a.IPv6) == 0 || a.IPv6[len(a.IPv6)-1].Addr != a.MAC.IPv6LLA() || a.IPv6[len(a.IPv6)-1].Plen != 64 {
			t.Fatalf("link-local address missing or not last: %s", summary(a))
		}
		nbad := 0
		if err != nil {
			nbad = len(err.(interface{ Unwrap() []error }).Unwrap())
		}
		if kept := len(a.IPv4) + len(a.IPv6) - 1; kept+nbad != 2 {
			t.Fatalf("%d networks kept and %d reported (%v) of 2", kept, nbad, err)
		}
		// Each kept network, printed as northd prints it, reads back alone.
		for _, x := range a.IPv4 {
			b, err := ParseLRPNetworks(a.MAC.String(), []string{fmt.Sprintf("%s/%d", x.AddrS, x.Plen)})
			if err != nil || len(b.IPv4) != 1 || b.IPv4[0] != x {
				t.Fatalf("%s/%d reads back as %s, %v", x.AddrS, x.Plen, summary(b), err)
			}
		}
		for _, x := range a.IPv6 {
			b, err := ParseLRPNetworks(a.MAC.String(), []string{fmt.Sprintf("%s/%d", x.AddrS, x.Plen)})
			if err != nil || len(b.IPv6) != 2 || b.IPv6[0] != x {
				t.Fatalf("%s/%d reads back as %s, %v", x.AddrS, x.Plen, summary(b), err)
			}
		}
	})
}

// inetPton6 must accept what Go's parser accepts and read the same address,
// for strings of the characters northd passes to inet_pton.
func FuzzInetPton6(f *testing.F) {
	for _, s := range []string{"::", "::1", "fe80::1", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "1::2::3", "::1.2.3.04", "12345::", "1:2:3:4:5:6:1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := inetPton6(s)
		if strings.Trim(s, "0123456789abcdefABCDEF:.") != "" {
			return
		}
		want, err := netip.ParseAddr(s)
		if wantOK := err == nil && want.Is6(); ok != wantOK || ok && got != want.As16() {
			t.Fatalf("inetPton6(%q) = %v, %v; Go: %v, %v", s, netip.AddrFrom16(got), ok, want, err)
		}
	})
}

// FormatIPv6 prints what Go prints except for IPv4-compatible addresses
// (::a.b.c.d), which glibc prints with a dotted quad; both read back.
func FuzzFormatIPv6(f *testing.F) {
	f.Add([]byte{0xfe, 0x80, 15: 1})
	f.Add([]byte{10: 0xff, 11: 0xff, 12: 1, 13: 2, 14: 3, 15: 4})
	f.Add([]byte{12: 1, 13: 2, 14: 3, 15: 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) != 16 {
			return
		}
		a := netip.AddrFrom16([16]byte(b))
		s := FormatIPv6(a)
		readsBack(t, s, a)
		compat := [12]byte(b) == [12]byte{} && b[12]|b[13] != 0
		if !compat && s != a.String() {
			t.Fatalf("FormatIPv6(%v) = %s", a, s)
		}
	})
}
