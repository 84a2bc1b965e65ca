package relations

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// summary prints parsed addresses compactly: the MAC, then each address as
// ADDR/PLEN(NETWORK,BCAST) for IPv4 and ADDR/PLEN(NETWORK,SOLICITED-NODE)
// for IPv6, using the string forms northd prints.
func summary(a LPortAddresses) string {
	var b strings.Builder
	b.WriteString(a.MAC.String())
	for _, x := range a.IPv4 {
		fmt.Fprintf(&b, " %s/%d(%s,%s)", x.AddrS, x.Plen, x.NetworkS, x.BcastS)
	}
	for _, x := range a.IPv6 {
		fmt.Fprintf(&b, " %s/%d(%s,%s)", x.AddrS, x.Plen, x.NetworkS, x.SNAddrS)
	}
	return b.String()
}

// The expected values come from ovn-northd 23.03.1: each entry was set with
// `ovn-nbctl set Logical_Switch_Port qN addresses='"..."'` and the flows it
// wrote were read with ovn-ref. The MAC shows in ls_in_l2_lkup (table 25),
//
//	sp|ingress|25|50|eth.dst == 01:02:03:04:05:06|outport = "q3"; output;
//
// the IPv4 addresses in ls_in_arp_rsp (table 19),
//
//	sp|ingress|19|100|arp.tpa == 10.0.0.0 && arp.op == 1 && inport == "q3"|next;
//
// and the IPv6 addresses with their solicited-node address there too,
//
//	sp|ingress|19|100|nd_ns && ip6.dst == {::1.2.3.4, ff02::1:ff02:304} && nd.target == ::1.2.3.4 && inport == "q12"|next;
//
// A port whose entry northd rejected ("No MAC address found") has no
// l2_lkup flow. The comment on each case quotes what the flows showed.
func TestParseLSPAddresses(t *testing.T) {
	tests := []struct {
		in      string
		want    string // summary of the value northd uses; "" when it drops the entry
		errAt   int    // offset reported, or -1 for no error
		ignored bool
	}{
		// eth.dst == 0a:00:00:00:00:02; arp.tpa == 10.0.0.2
		{"0a:00:00:00:00:02 10.0.0.2", "0a:00:00:00:00:02 10.0.0.2/32(10.0.0.2,10.0.0.2)", -1, false},
		// eth.dst == 0a:00:00:00:00:03 (upper case, one-digit octets); arp.tpa == 10.0.0.3
		{"0A:0:0:0:0:3 10.0.0.3/24", "0a:00:00:00:00:03 10.0.0.3/24(10.0.0.0,10.0.0.255)", -1, false},
		// eth.dst == 01:02:03:04:05:06; arp.tpa == 10.0.0.0 (an octet keeps its low 8 bits)
		{"1:2:3:4:5:6 10.0.0.256", "01:02:03:04:05:06 10.0.0.0/32(10.0.0.0,10.0.0.0)", -1, false},
		// eth.dst == 0a:00:00:00:00:07 ("0x" accepted); arp.tpa == 255.0.0.7 (-1 wraps)
		{"0x0a:00:00:00:00:07 -1.0.0.7", "0a:00:00:00:00:07 255.0.0.7/32(255.0.0.7,255.0.0.7)", -1, false},
		// arp.tpa == 10.0.0.8
		{"0a:00:00:00:00:08 +10.0.0.8", "0a:00:00:00:00:08 10.0.0.8/32(10.0.0.8,10.0.0.8)", -1, false},
		// arp.tpa == 10.0.0.9 (spaces before an octet are skipped)
		{"0a:00:00:00:00:09 10. 0.0.9", "0a:00:00:00:00:09 10.0.0.9/32(10.0.0.9,10.0.0.9)", -1, false},
		// arp.tpa == 10.0.0.10 only; northd logs "invalid syntax ... in address"
		{"0a:00:00:00:00:0a 10.0.0.10 bogus 10.0.0.11", "0a:00:00:00:00:0a 10.0.0.10/32(10.0.0.10,10.0.0.10)", 27, false},
		// arp.tpa == 10.0.0.11 (netmask form)
		{"0a:00:00:00:00:0b 10.0.0.11/255.255.0.0", "0a:00:00:00:00:0b 10.0.0.11/16(10.0.0.0,10.0.255.255)", -1, false},
		// eth.dst == 0a:00:00:00:00:0c, no arp_rsp flow: a non-CIDR mask stops reading
		{"0a:00:00:00:00:0c 10.0.0.12/255.0.255.0 10.0.0.13", "0a:00:00:00:00:0c", 17, false},
		// eth.dst == 0a:00:00:00:00:0d, no arp_rsp flow
		{"0a:00:00:00:00:0d 10.0.0.14/33", "0a:00:00:00:00:0d", 17, false},
		// ip6.dst == {fd00::e, ff02::1:ff00:e}; ip6.dst == {fd00::f, ff02::1:ff00:f}
		{"0a:00:00:00:00:0e fd00::e/64 FD00:0:0:0:0:0:0:F", "0a:00:00:00:00:0e fd00::e/64(fd00::,ff02::1:ff00:e) fd00::f/128(fd00::f,ff02::1:ff00:f)", -1, false},
		// ip6.dst == {::ffff:1.2.3.4, ff02::1:ff02:304}; ip6.dst == {::1.2.3.4, ff02::1:ff02:304}
		{"0a:00:00:00:00:0f ::ffff:1.2.3.4 ::1.2.3.4", "0a:00:00:00:00:0f ::ffff:1.2.3.4/128(::ffff:1.2.3.4,ff02::1:ff02:304) ::1.2.3.4/128(::1.2.3.4,ff02::1:ff02:304)", -1, false},
		// arp.tpa == 10.0.0.16; ip6.dst == {fd00::10, ff02::1:ff00:10} (no space needed)
		{"0a:00:00:00:00:10 10.0.0.16fd00::10", "0a:00:00:00:00:10 10.0.0.16/32(10.0.0.16,10.0.0.16) fd00::10/128(fd00::10,ff02::1:ff00:10)", -1, false},
		// eth.dst == 00:00:00:00:00:11
		{"100:00:00:00:00:11 10.0.0.17", "00:00:00:00:00:11 10.0.0.17/32(10.0.0.17,10.0.0.17)", -1, false},
		// eth.dst == 0a:00:00:00:00:12
		{"0a:00:00:00:00:12", "0a:00:00:00:00:12", -1, false},
		// arp.tpa == 10.0.0.19; northd logs "invalid syntax '  0a:00:00:00:00:13   10.0.0.19   ' in address"
		{"  0a:00:00:00:00:13   10.0.0.19   ", "0a:00:00:00:00:13 10.0.0.19/32(10.0.0.19,10.0.0.19)", 31, false},
		// arp.tpa == 10.0.0.1
		{"0a:00:00:00:00:14 10.0.0.1.5", "0a:00:00:00:00:14 10.0.0.1/32(10.0.0.1,10.0.0.1)", 26, false},
		// arp.tpa == 10.0.0.14 (prefix length 4294967320 is 24 as a C int)
		{"0a:00:00:00:00:15 10.0.0.14/4294967320", "0a:00:00:00:00:15 10.0.0.14/24(10.0.0.0,10.0.0.255)", -1, false},
		// no flows; northd logs "invalid syntax '0a-00-00-00-00-16 10.0.0.22' in
		// logical switch port addresses. No MAC address found"
		{"0a-00-00-00-00-16 10.0.0.22", "", 0, true},
		// ip6.dst == {fd00::17, ff02::1:ff00:17}
		{"0a:00:00:00:00:17 fd00::17/ffff:ffff::", "0a:00:00:00:00:17 fd00::17/32(fd00::,ff02::1:ff00:17)", -1, false},
		// arp.tpa == 10.0.0.24
		{"0a:00:00:00:00:18 4294967306.0.0.24", "0a:00:00:00:00:18 10.0.0.24/32(10.0.0.24,10.0.0.24)", -1, false},
		// eth.dst == 0a:00:00:00:00:19 and no nd flow: nine groups
		{"0a:00:00:00:00:19 fd00:0:0:0:0:0:0:0:19", "0a:00:00:00:00:19", 17, false},
		// arp.tpa == 10.0.0.26 only
		{"0a:00:00:00:00:1a 10.0.0.26,10.0.0.27", "0a:00:00:00:00:1a 10.0.0.26/32(10.0.0.26,10.0.0.26)", 27, false},
		// arp.tpa == 10.0.0.27 (leading zeros are decimal)
		{"0a:00:00:00:00:1b 010.0.0.027", "0a:00:00:00:00:1b 10.0.0.27/32(10.0.0.27,10.0.0.27)", -1, false},
		// Not from northd (OVSDB strings carry no NUL): like C, reading stops at one.
		{"0a:00:00:00:00:1c\x0010.0.0.28", "0a:00:00:00:00:1c", -1, false},
	}
	for _, tt := range tests {
		got, err := ParseLSPAddresses(tt.in)
		if tt.want == "" {
			if !Ignored(err) {
				t.Errorf("ParseLSPAddresses(%q) = %s, %v; want an Ignored error", tt.in, summary(got), err)
			}
			continue
		}
		if s := summary(got); s != tt.want {
			t.Errorf("ParseLSPAddresses(%q) = %s; want %s", tt.in, s, tt.want)
		}
		checkAddrErr(t, tt.in, err, tt.errAt, tt.ignored)
	}
}

func checkAddrErr(t *testing.T, in string, err error, at int, ignored bool) {
	t.Helper()
	if at < 0 {
		if err != nil {
			t.Errorf("%q: unexpected error %v", in, err)
		}
		return
	}
	ae, ok := err.(*AddressError)
	if !ok {
		t.Errorf("%q: error %v (%T); want *AddressError at %d", in, err, err, at)
		return
	}
	if ae.Offset != at || ae.Ignored != ignored {
		t.Errorf("%q: error %v at %d ignored=%v; want at %d ignored=%v", in, err, ae.Offset, ae.Ignored, at, ignored)
	}
}

// Router ports from ovn-northd 23.03.1, each on its own router (created
// with `ovn-nbctl create Logical_Router_Port mac=... networks=...`). The
// networks show in lr_in_ip_routing (table 13) as network/plen and the
// port's address,
//
//	rp2|ingress|13|50|ip4.dst == 10.2.0.0/16|...; reg1 = 10.2.0.1; eth.src = 0a:00:00:00:01:02; ...
//
// the broadcast addresses in lr_in_ip_input (table 3),
//
//	rp9|ingress|3|100|ip4.src == {0.0.0.1, 0.255.255.255, 10.9.0.1, 10.9.0.1} && reg9[0] == 0|drop;
//
// and every IPv6 address, link-local included, with its solicited-node
// address in the ND responder of table 3:
//
//	rp1|ingress|3|90|inport == "rpp1" && ip6.dst == {fe80::800:ff:fe00:101, ff02::1:ff00:101} && nd_ns && nd.target == fe80::800:ff:fe00:101|nd_na_router {...}
//
// rp1 has only an IPv4 network and still gets the link-local address.
func TestParseLRPNetworks(t *testing.T) {
	tests := []struct {
		mac      string
		networks []string
		want     string // "" when northd skips the port ("bad 'mac'")
		badNets  []int  // networks reported in the error
	}{
		// ip4.dst == 10.1.0.0/24 ... reg1 = 10.1.0.1; ip4.src == {10.1.0.1, 10.1.0.255}
		{"0a:00:00:00:01:01", []string{"10.1.0.1/24"}, "0a:00:00:00:01:01 10.1.0.1/24(10.1.0.0,10.1.0.255) fe80::800:ff:fe00:101/64(fe80::,ff02::1:ff00:101)", nil},
		// ip6.dst == fd02::/64 ... xxreg1 = fd02::1; ip6.dst == {fd02::1, ff02::1:ff00:1}
		{"0A:00:00:00:01:02", []string{"10.2.0.1/255.255.0.0", "fd02::1/64"}, "0a:00:00:00:01:02 10.2.0.1/16(10.2.0.0,10.2.255.255) fd02::1/64(fd02::,ff02::1:ff00:1) fe80::800:ff:fe00:102/64(fe80::,ff02::1:ff00:102)", nil},
		// northd|WARN|bad 'mac' 0a:00:00:00:01:03 junk
		{"0a:00:00:00:01:03 junk", []string{"10.3.0.1/24"}, "", nil},
		// ovn_util|WARN|bad 'networks' 0.0.0.0/24; only 10.4.0.0/24 routed
		{"0a:00:00:00:01:04", []string{"0.0.0.0/24", "10.4.0.1/24"}, "0a:00:00:00:01:04 10.4.0.1/24(10.4.0.0,10.4.0.255) fe80::800:ff:fe00:104/64(fe80::,ff02::1:ff00:104)", []int{0}},
		// ovn_util|INFO|invalid syntax '10.5.0.1/24 ' in networks; only
		// ip6.dst == fd05::/16 ... xxreg1 = fd05:1::1 routed
		{"0a:00:00:00:01:05", []string{"10.5.0.1/24 ", "10.5.1.1/33", "fd05::1/129", "fd05:1::1/ffff::"}, "0a:00:00:00:01:05 fd05:1::1/16(fd05::,ff02::1:ff00:1) fe80::800:ff:fe00:105/64(fe80::,ff02::1:ff00:105)", []int{0, 1, 2}},
		{"bogus", []string{"10.7.0.1/24"}, "", nil},
		// ip4.dst == 10.8.1.0/24 ... reg1 = 10.8.1.44
		{"0a:00:00:00:01:08", []string{" 10.8.0.1/24", "10.8.1.300/24"}, "0a:00:00:00:01:08 10.8.0.1/24(10.8.0.0,10.8.0.255) 10.8.1.44/24(10.8.1.0,10.8.1.255) fe80::800:ff:fe00:108/64(fe80::,ff02::1:ff00:108)", nil},
		// ip4.dst == 10.9.0.1/32, ip6.dst == fd09::1/128, ip4.dst == 0.0.0.0/8 ... reg1 = 0.0.0.1
		{"0a:00:00:00:01:09", []string{"10.9.0.1", "fd09::1", "0.0.0.1/8"}, "0a:00:00:00:01:09 10.9.0.1/32(10.9.0.1,10.9.0.1) 0.0.0.1/8(0.0.0.0,0.255.255.255) fd09::1/128(fd09::1,ff02::1:ff00:1) fe80::800:ff:fe00:109/64(fe80::,ff02::1:ff00:109)", nil},
		// ip6.dst == 1:0:0:2::/64 ... xxreg1 = 1::2:0:0:3:4; ip6.dst == 0:0:1::/48 ... xxreg1 = 0:0:1::;
		// ip6.dst == 1:0:2:3:4:5:6:7/128; ip6.dst == {0:0:1::, ff02::1:ff00:0}
		{"0a:00:00:00:01:0a", []string{"1:0:0:2:0:0:3:4/64", "0:0:1::/48", "1:0:2:3:4:5:6:7/128"}, "0a:00:00:00:01:0a 1::2:0:0:3:4/64(1:0:0:2::,ff02::1:ff03:4) 0:0:1::/48(0:0:1::,ff02::1:ff00:0) 1:0:2:3:4:5:6:7/128(1:0:2:3:4:5:6:7,ff02::1:ff06:7) fe80::800:ff:fe00:10a/64(fe80::,ff02::1:ff00:10a)", nil},
		// ip4.dst == 0.0.0.0/0 ... reg1 = 10.11.0.1; ip4.src == {10.11.0.1, 255.255.255.255}; ip6.dst == ::/0
		{"0a:00:00:00:01:0b", []string{"fd0b::1/0", "10.11.0.1/0"}, "0a:00:00:00:01:0b 10.11.0.1/0(0.0.0.0,255.255.255.255) fd0b::1/0(::,ff02::1:ff00:1) fe80::800:ff:fe00:10b/64(fe80::,ff02::1:ff00:10b)", nil},
		// eth.src = 0a:00:00:00:02:01 (leading space), 0a:00:00:00:02:02 ("0x"), 0a:00:00:00:02:04 (signs)
		{" 0a:00:00:00:02:01", []string{"10.21.0.1/24"}, "0a:00:00:00:02:01 10.21.0.1/24(10.21.0.0,10.21.0.255) fe80::800:ff:fe00:201/64(fe80::,ff02::1:ff00:201)", nil},
		{"0x0a:00:00:00:02:02", []string{"10.22.0.1/24"}, "0a:00:00:00:02:02 10.22.0.1/24(10.22.0.0,10.22.0.255) fe80::800:ff:fe00:202/64(fe80::,ff02::1:ff00:202)", nil},
		{"+a:-0:00:00:02:04", []string{"10.24.0.1/24"}, "0a:00:00:00:02:04 10.24.0.1/24(10.24.0.0,10.24.0.255) fe80::800:ff:fe00:204/64(fe80::,ff02::1:ff00:204)", nil},
		// northd|WARN|bad 'mac' 0a:00:00:00:02:03<TAB>
		{"0a:00:00:00:02:03\t", []string{"10.23.0.1/24"}, "", nil},
		// no routes for these networks, only the link-local one
		{"0a:00:00:00:02:05", []string{"10.25.0.1/24/24", "fd26::1/64 "}, "0a:00:00:00:02:05 fe80::800:ff:fe00:205/64(fe80::,ff02::1:ff00:205)", []int{0, 1}},
		// ip4.dst == ::ffff:10.27.0.0/120 ... reg1 = ::ffff:10.27.0.1; ip6.dst == {::ffff:10.27.0.1, ff02::1:ff1b:1}
		{"0a:00:00:00:02:07", []string{"::ffff:10.27.0.1/120"}, "0a:00:00:00:02:07 ::ffff:10.27.0.1/120(::ffff:10.27.0.0,ff02::1:ff1b:1) fe80::800:ff:fe00:207/64(fe80::,ff02::1:ff00:207)", nil},
	}
	for _, tt := range tests {
		got, err := ParseLRPNetworks(tt.mac, tt.networks)
		if tt.want == "" {
			if !Ignored(err) {
				t.Errorf("ParseLRPNetworks(%q, %q) = %s, %v; want an Ignored error", tt.mac, tt.networks, summary(got), err)
			}
			continue
		}
		if s := summary(got); s != tt.want {
			t.Errorf("ParseLRPNetworks(%q, %q) = %s; want %s", tt.mac, tt.networks, s, tt.want)
		}
		if Ignored(err) {
			t.Errorf("ParseLRPNetworks(%q, %q): error %v is Ignored; the port is kept", tt.mac, tt.networks, err)
		}
		var bad []int
		if err != nil {
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var k int
				if _, serr := fmt.Sscanf(e.(*AddressError).Field, "networks[%d]", &k); serr != nil {
					t.Fatalf("error field %q: %v", e.(*AddressError).Field, serr)
				}
				bad = append(bad, k)
			}
		}
		if fmt.Sprint(bad) != fmt.Sprint(tt.badNets) {
			t.Errorf("ParseLRPNetworks(%q, %q): bad networks %v (%v); want %v", tt.mac, tt.networks, bad, err, tt.badNets)
		}
	}
}

// Which entries northd 23.03.1 treats as dynamic: on a switch with
// other_config:subnet=10.50.0.0/24 it allocates dynamic_addresses for
// exactly these (e.g. "dynamicabc" got "32:08:4a:32:00:03 10.50.0.2",
// "dynamic junk" got []).
func TestIsDynamicAddress(t *testing.T) {
	for in, want := range map[string]bool{
		"dynamic":                       true,
		"dynamic 10.50.0.77":            true,
		"dynamic fd00::5":               true,
		"dynamic 10.50.0.78 fd00::6":    true,
		"dynamicabc":                    true,
		"dynamic 10.50.0.79 ::::":       true,
		"dynamic junk":                  false,
		"0a:00:00:00:05:01 dynamic":     true,
		"0a:00:00:00:05:02dynamic":      false,
		"0a:00:00:00:05:03  dynamic":    true,
		"0a:00:00:00:05:04 dynamic ":    false,
		" dynamic":                      false,
		"dynamic 10.50.0.80 10.50.0.81": true,
		"0a:00:00:00:05:05 10.50.0.5":   false,
	} {
		if got := IsDynamicAddress(in); got != want {
			t.Errorf("IsDynamicAddress(%q) = %v; want %v", in, got, want)
		}
		if got := IsSpecialAddress(in); got != want {
			t.Errorf("IsSpecialAddress(%q) = %v; want %v", in, got, want)
		}
	}
	for _, in := range []string{"unknown", "router"} {
		if !IsSpecialAddress(in) {
			t.Errorf("IsSpecialAddress(%q) = false", in)
		}
	}
}

func TestExtractAddresses(t *testing.T) {
	const in = "0a:00:00:00:00:01 10.0.0.1 fd00::1 is_chassis_resident(\"p\")"
	a, end, err := ExtractAddresses(in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summary(a), "0a:00:00:00:00:01 10.0.0.1/32(10.0.0.1,10.0.0.1) fd00::1/128(fd00::1,ff02::1:ff00:1)"; got != want {
		t.Errorf("addresses %s; want %s", got, want)
	}
	if got, want := in[end:], " is_chassis_resident(\"p\")"; got != want {
		t.Errorf("rest %q; want %q", got, want)
	}
	if _, _, err := ExtractAddresses("10.0.0.1"); !Ignored(err) {
		t.Errorf("no MAC: err %v; want Ignored", err)
	}
}

func TestParseIPAddresses(t *testing.T) {
	a, err := ParseIPAddresses("172.16.0.1 fd00::1/64")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summary(a), "00:00:00:00:00:00 172.16.0.1/32(172.16.0.1,172.16.0.1) fd00::1/64(fd00::,ff02::1:ff00:1)"; got != want {
		t.Errorf("got %s; want %s", got, want)
	}
	if _, err := ParseIPAddresses("x172.16.0.1"); !Ignored(err) {
		t.Errorf("no IP: err %v; want Ignored", err)
	}
}

func TestScanMAC(t *testing.T) {
	if ea, ok := ScanMAC("0A:00:00:00:00:01 dynamic"); !ok || ea.String() != "0a:00:00:00:00:01" {
		t.Errorf("ScanMAC = %v, %v", ea, ok)
	}
	if _, ok := ScanMAC("dynamic"); ok {
		t.Error("ScanMAC(dynamic) found a MAC")
	}
}

// FormatIPv6 must print what glibc's inet_ntop prints; the expected strings
// are northd's (see TestParseLRPNetworks) or glibc's documented behaviour.
func TestFormatIPv6(t *testing.T) {
	for in, want := range map[string]string{
		"::":                       "::",
		"::1":                      "::1",
		"1:0:0:2:0:0:3:4":          "1::2:0:0:3:4",
		"0:0:1::":                  "0:0:1::",
		"1:0:2:3:4:5:6:7":          "1:0:2:3:4:5:6:7",
		"::ffff:1.2.3.4":           "::ffff:1.2.3.4",
		"::1.2.3.4":                "::1.2.3.4",
		"::0.0.1.2":                "::102",
		"::ffff:0:0":               "::ffff:0.0.0.0",
		"fe80::800:ff:fe00:ff":     "fe80::800:ff:fe00:ff",
		"1:2:3:4:5:6:7:8":          "1:2:3:4:5:6:7:8",
		"1::":                      "1::",
		"ff02::1:ff00:1":           "ff02::1:ff00:1",
		"0:0:0:0:1:0:0:0":          "::1:0:0:0",
		"1:0:0:0:1:0:0:0":          "1::1:0:0:0",
		"abcd:ef01:2345::6789:0:0": "abcd:ef01:2345::6789:0:0",
	} {
		if got := FormatIPv6(netip.MustParseAddr(in)); got != want {
			t.Errorf("FormatIPv6(%s) = %s; want %s", in, got, want)
		}
	}
}

func TestInetPton6(t *testing.T) {
	for in, want := range map[string]bool{
		"::":                    true,
		":":                     false,
		":::":                   false,
		"1::2::3":               false,
		"1:2:3:4:5:6:7:8":       true,
		"1:2:3:4:5:6:7:8:9":     false,
		"1:2:3:4:5:6:7::":       true,
		"1:2:3:4:5:6:7:8::":     false,
		"12345::":               false,
		"1::2:":                 false,
		"::1.2.3.4":             true,
		"::1.2.3.04":            false,
		"::1.2.3.256":           false,
		"::1.2.3":               false,
		"1:2:3:4:5:6:1.2.3.4":   true,
		"1:2:3:4:5:6:7:1.2.3.4": false,
	} {
		if _, got := inetPton6(in); got != want {
			t.Errorf("inetPton6(%q) = %v; want %v", in, got, want)
		}
	}
}
