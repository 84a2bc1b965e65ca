package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/relations/schema"
)

// thresholdCases are options and what 26.03.2's parse_aging_threshold
// makes of them, read from aging.c: the configuration in String's form,
// or the entry it fails on.
var thresholdCases = []struct {
	opt, want, bad string
}{
	{opt: "", want: "0"},
	{opt: "10", want: "10"},
	// The last unprefixed entry is the default; empty entries are
	// skipped (strtok_r).
	{opt: "10;20", want: "20"},
	{opt: ";;10;;", want: "10"},
	// Networks are sorted longest first, per family.
	{opt: "10.0.0.0/8:5;fd00::/8:9;10.1.0.0/16:7;fd00:1::/32:11;60",
		want: "10.1.0.0/16:7;10.0.0.0/8:5;fd00:1::/32:11;fd00::/8:9;60"},
	// A network of one length keeps its place (glibc's merge sort).
	{opt: "10.0.0.0/8:5;10.0.0.0/8:7", want: "10.0.0.0/8:5;10.0.0.0/8:7;0"},
	// An address is a /32 or /128; a /0 network is the default.
	{opt: "10.0.0.1:5", want: "10.0.0.1/32:5;0"},
	{opt: "0.0.0.0/0:7;3", want: "3"},
	{opt: "3;::/0:8", want: "8"},
	// A mask, if a CIDR one, is a prefix length.
	{opt: "10.0.0.0/255.0.0.0:5", want: "10.0.0.0/8:5;0"},
	{opt: "10.0.0.0/255.0.255.0:5", bad: "10.0.0.0/255.0.255.0:5"},
	// The threshold is after the last colon: an IPv6 address's last
	// group is not.
	{opt: "fe80::1:2:3", want: "fe80::1:2/128:3;0"},
	// Host bits stay as written.
	{opt: "10.0.0.1/8:5", want: "10.0.0.1/8:5;0"},
	// str_to_uint: a whole unsigned int, leading spaces and a sign.
	{opt: " 5", want: "5"},
	{opt: "+5", want: "5"},
	{opt: "4294967295", want: "4294967295"},
	{opt: "4294967296", bad: "4294967296"},
	{opt: "-1", bad: "-1"},
	{opt: "5 ", bad: "5 "},
	{opt: "0x10", bad: "0x10"},
	// One bad entry spoils the option.
	{opt: "10;x;20", bad: "x"},
	{opt: "10.0.0.0/8:x", bad: "10.0.0.0/8:x"},
	{opt: "10.0.0.0/33:5", bad: "10.0.0.0/33:5"},
	// sscanf's %hhu keeps a byte's worth of each number.
	{opt: "300.0.0.0/8:5", want: "44.0.0.0/8:5;0"},
	{opt: ":5", bad: ":5"},
	{opt: "10.0.0.0/8:", bad: "10.0.0.0/8:"},
	// The network, leading spaces allowed, is cut at 127 characters.
	{opt: strings.Repeat(" ", 117) + "10.0.0.0/8x:5", want: "10.0.0.0/8:5;0"},
	{opt: strings.Repeat(" ", 116) + "10.0.0.0/8x:5", bad: strings.Repeat(" ", 116) + "10.0.0.0/8x:5"},
}

// TestParseAgingThreshold: each of thresholdCases parses as 26.03.2 does
// and reads back the same from its String.
func TestParseAgingThreshold(t *testing.T) {
	for _, c := range thresholdCases {
		got, bad, ok := ParseAgingThreshold(c.opt)
		if c.bad != "" {
			if ok || bad != c.bad {
				t.Errorf("%q: %v, bad entry %q; want failure on %q", c.opt, got, bad, c.bad)
			}
			continue
		}
		if !ok || got.String() != c.want {
			t.Errorf("%q: %q (bad %q); want %q", c.opt, got.String(), bad, c.want)
			continue
		}
		checkRoundTrip(t, got)
	}
}

// checkRoundTrip requires c.String to parse back to c.
func checkRoundTrip(t *testing.T, c ThresholdConfig) {
	t.Helper()
	again, bad, ok := ParseAgingThreshold(c.String())
	if !ok || !slices.Equal(again.V4, c.V4) || !slices.Equal(again.V6, c.V6) || again.Default != c.Default {
		t.Errorf("%q reads back as %v (bad %q), not %v", c.String(), again, bad, c)
	}
}

// TestAgingThresholdFor: the threshold of an address is that of the
// longest network of its family holding it, else the default
// (find_threshold_for_ip).
func TestAgingThresholdFor(t *testing.T) {
	c, _, _ := ParseAgingThreshold("10.0.0.0/8:5;10.1.0.0/16:7;10.2.0.1/16:8;fd00::/8:9;fd00:1::/32:0;60")
	for ip, want := range map[string]uint32{
		"10.1.2.3": 7, "10.2.0.1": 5, "11.0.0.1": 60,
		"fd00::1": 9, "fd00:1::1": 0, "fe80::1": 60,
		// An IPv4-mapped IPv6 address is IPv6; no address reads as none.
		"::ffff:10.1.2.3": 60, "": 60, "10.1.2": 60, "10.1.2.3/32": 60,
	} {
		if got := c.For(ip); got != want {
			t.Errorf("For(%q) = %d, want %d", ip, got, want)
		}
	}
}

// TestAgingThresholdMin: Min is min_mac_binding_age_threshold's smallest
// positive threshold, 0 for none.
func TestAgingThresholdMin(t *testing.T) {
	for opt, want := range map[string]uint32{
		"": 0, "0": 0, "10.0.0.0/8:0": 0, "10.0.0.0/8:3;0": 3, "10.0.0.0/8:0;20;fd00::/8:5": 5,
		"10.0.0.0/8:30;20": 20, "x;5": 0,
	} {
		c, _, _ := ParseAgingThreshold(opt)
		if got := c.Min(); got != want {
			t.Errorf("Min of %q = %d, want %d", opt, got, want)
		}
	}
}

// TestMACBindingAgeThreshold: 23.03 reads one number, 26.03 the CIDR
// form.
func TestMACBindingAgeThreshold(t *testing.T) {
	for _, c := range []struct {
		rel  schema.Release
		opt  string
		want string
	}{
		{schema.OVN2303, "10", "10"},
		{schema.OVN2303, "10;", "0"},
		{schema.OVN2303, "10.0.0.0/8:5", "0"},
		{schema.OVN2603, "10;", "10"},
		{schema.OVN2603, "10.0.0.0/8:5", "10.0.0.0/8:5;0"},
		{schema.OVN2603, "10.0.0.0/8:5;x", "0"},
	} {
		if got := macBindingAgeThreshold(c.rel, map[string]string{"mac_binding_age_threshold": c.opt}).String(); got != c.want {
			t.Errorf("%v %q: %q, want %q", c.rel, c.opt, got, c.want)
		}
	}
}

// FuzzParseAgingThreshold: any option parses without panicking; what
// parses has its networks in their families, longest first, reads back
// the same from its String, and Min is at most each positive threshold;
// what fails names one of the option's entries (a C string's).
func FuzzParseAgingThreshold(f *testing.F) {
	for _, c := range thresholdCases {
		f.Add(c.opt, "10.1.2.3")
	}
	f.Add("fd00::/8:9;1", "fd00::1")
	f.Fuzz(func(t *testing.T, opt, ip string) {
		c, bad, ok := ParseAgingThreshold(opt)
		if !ok {
			// Entries end at a NUL, as C strings do.
			text, _, _ := strings.Cut(opt, "\x00")
			if bad == "" || !slices.Contains(strings.Split(text, ";"), bad) {
				t.Fatalf("%q fails on %q, no entry of it", opt, bad)
			}
			return
		}
		for v4, ps := range map[bool][]ThresholdPrefix{true: c.V4, false: c.V6} {
			if !slices.IsSortedFunc(ps, func(a, b ThresholdPrefix) int { return b.Plen - a.Plen }) {
				t.Fatalf("%q: networks not longest first: %v", opt, ps)
			}
			for _, p := range ps {
				if p.Plen == 0 || p.Addr.Is4() != v4 {
					t.Fatalf("%q: %v misplaced", opt, p)
				}
			}
		}
		checkRoundTrip(t, c)
		least, th := c.Min(), c.For(ip)
		if th > 0 && least > th {
			t.Fatalf("%q: Min %d above %q's threshold %d", opt, least, ip, th)
		}
	})
}
