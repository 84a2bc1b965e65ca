package relations

import (
	"fmt"
	"strings"
	"testing"

	"github.com/northlog/northlog/relations/nb"
)

// ipamSwitchWith is an IPAM holding one switch with a subnet and n ports
// asking for dynamic addresses, allocated.
func ipamSwitchWith(tb testing.TB, n int, config map[string]string) (*IPAM, *nb.LogicalSwitch) {
	tb.Helper()
	m := NewIPAM(nil)
	m.SetMACPrefix("0a:00:00")
	ls := &nb.LogicalSwitch{UUID: "sw0", Name: "sw0", OtherConfig: config}
	for i := range n {
		u := fmt.Sprintf("00000000-0000-0000-0000-%012d", i)
		ls.Ports = append(ls.Ports, u)
		m.UpdateSwitchPort(u, &nb.LogicalSwitchPort{UUID: u, Name: fmt.Sprint("p", i), Addresses: []string{"dynamic"}})
	}
	m.UpdateSwitch(ls.UUID, ls)
	m.Run()
	return m, ls
}

func BenchmarkIPAMAddPort(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m, ls := ipamSwitchWith(b, n, map[string]string{"subnet": "10.0.0.0/16"})
			b.ResetTimer()
			for i := range b.N {
				u := fmt.Sprintf("10000000-0000-0000-0000-%012d", i)
				cp := *ls
				cp.Ports = append(ls.Ports[:len(ls.Ports):len(ls.Ports)], u)
				ls = &cp
				m.UpdateSwitchPort(u, &nb.LogicalSwitchPort{UUID: u, Name: u, Addresses: []string{"dynamic"}})
				m.UpdateSwitch(ls.UUID, ls)
				m.Run()
				if len(m.TakeChanged()) == 0 {
					b.Fatal("nothing allocated")
				}
			}
		})
	}
}

func TestParseExcludeIPs(t *testing.T) {
	// 10.0.0.0/24: offsets from 10.0.0.1, 255 of them.
	const start, total = 0x0a000001, 255
	for _, c := range []struct {
		in   string
		want []IPRange
		err  bool
	}{
		{"10.0.0.4 10.0.0.10..10.0.0.20", []IPRange{{3, 4}, {9, 20}}, false},
		{"10.0.0.10..10.0.0.20 10.0.0.15..10.0.0.30", []IPRange{{9, 30}}, false},
		// Clamped to the subnet; a range wholly outside is an error that
		// does not stop the reading.
		{"9.0.0.0..10.0.0.2 10.1.0.0 10.0.0.200..10.0.1.5", []IPRange{{0, 2}, {199, 255}}, true},
		// Integers in the lexer's other forms: their low 32 bits.
		{"167772165 0x0a000006 ::a00:7 00:00:0a:00:00:08", []IPRange{{4, 8}}, false},
		// A token that is not an address stops the reading.
		{"10.0.0.4, 10.0.0.9", []IPRange{{3, 4}}, true},
		{"10.0.0.4 foo 10.0.0.9", []IPRange{{3, 4}}, true},
		{"10.0.0.4..", nil, true},
		{"10.0.0.4/30 10.0.0.9", nil, true},
		{"010.0.0.4", nil, true},
		{"10.0.0.4 /* comment */ 10.0.0.9 // end", []IPRange{{3, 4}, {8, 9}}, false},
		{"", nil, false},
	} {
		got, err := ParseExcludeIPs(c.in, start, total)
		if fmt.Sprint(got) != fmt.Sprint(c.want) || (err != nil) != c.err {
			t.Errorf("ParseExcludeIPs(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseDynamicRequest(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"dynamic", "{Entry:dynamic MAC:00:00:00:00:00:00 HasMAC:false IPv4:0 HasIPv4:false IPv6: HasIPv6:false BothIPv4:0 BothIPv6: HasBoth:false}"},
		{"0a:00:00:00:00:01 dynamic", "{Entry:0a:00:00:00:00:01 dynamic MAC:0a:00:00:00:00:01 HasMAC:true IPv4:0 HasIPv4:false IPv6: HasIPv6:false BothIPv4:0 BothIPv6: HasBoth:false}"},
		{"dynamic 10.0.0.5", "{Entry:dynamic 10.0.0.5 MAC:00:00:00:00:00:00 HasMAC:false IPv4:167772165 HasIPv4:true IPv6:10.0.0.5 HasIPv6:true BothIPv4:0 BothIPv6: HasBoth:false}"},
		// An octet keeps its low 8 bits; "10.0.0.5" is also IPV6_SCAN_FMT's
		// characters.
		{"dynamic 10.0.0.261", "{Entry:dynamic 10.0.0.261 MAC:00:00:00:00:00:00 HasMAC:false IPv4:167772165 HasIPv4:true IPv6:10.0.0.261 HasIPv6:true BothIPv4:0 BothIPv6: HasBoth:false}"},
		{"dynamic fd00::5", "{Entry:dynamic fd00::5 MAC:00:00:00:00:00:00 HasMAC:false IPv4:0 HasIPv4:false IPv6:fd00::5 HasIPv6:true BothIPv4:0 BothIPv6: HasBoth:false}"},
		{"dynamic 10.0.0.5 fd00::5", "{Entry:dynamic 10.0.0.5 fd00::5 MAC:00:00:00:00:00:00 HasMAC:false IPv4:0 HasIPv4:false IPv6: HasIPv6:false BothIPv4:167772165 BothIPv6:fd00::5 HasBoth:true}"},
		// Both "dynamic IPV6" and "dynamic IP IPV6".
		{"dynamic 1.2.3.4::1", "{Entry:dynamic 1.2.3.4::1 MAC:00:00:00:00:00:00 HasMAC:false IPv4:0 HasIPv4:false IPv6:1.2.3.4::1 HasIPv6:true BothIPv4:16909060 BothIPv6:::1 HasBoth:true}"},
	} {
		if got := fmt.Sprintf("%+v", ParseDynamicRequest(c.in)); got != c.want {
			t.Errorf("ParseDynamicRequest(%q) =\n%s\nwant\n%s", c.in, got, c.want)
		}
	}
}

// TestIPAMVisitOrder: ports needing addresses in the same run get them in
// _uuid order; a static address added later takes a dynamic port's address
// from it, and a port whose request cannot be served gets the lowest free
// address each time the switch changes.
func TestIPAMVisitOrder(t *testing.T) {
	m, ls := ipamSwitchWith(t, 3, map[string]string{"subnet": "10.0.0.0/24", "exclude_ips": "10.0.0.3"})
	dyn := func(u string) string {
		if d := m.Dynamic(u); d != nil {
			return *d
		}
		return "none"
	}
	u := func(i int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", i) }
	for i, want := range []string{"0a:00:00:00:00:03 10.0.0.2", "0a:00:00:00:00:05 10.0.0.4", "0a:00:00:00:00:06 10.0.0.5"} {
		if got := dyn(u(i)); got != want {
			t.Errorf("port %d: %q, want %q", i, got, want)
		}
	}
	m.UpdateSwitchPort("static", &nb.LogicalSwitchPort{UUID: "static", Name: "s", Addresses: []string{"0a:00:00:00:00:05 10.0.0.4"}})
	cp := *ls
	cp.Ports = append(cp.Ports, "static")
	m.UpdateSwitch(cp.UUID, &cp)
	m.Run()
	// The MAC, still of the prefix, stays.
	if got, want := dyn(u(1)), "0a:00:00:00:00:05 10.0.0.6"; got != want {
		t.Errorf("port 1 after a static 10.0.0.4: %q, want %q", got, want)
	}
	m.UpdateSwitchPort(u(2), &nb.LogicalSwitchPort{UUID: u(2), Name: "p2", Addresses: []string{"dynamic 192.168.0.1"}, DynamicAddresses: m.Dynamic(u(2))})
	m.Run()
	// Reallocated, to the lowest free address: its own.
	if got, want := dyn(u(2)), "0a:00:00:00:00:06 10.0.0.5"; got != want {
		t.Errorf("port 2 with an unservable request: %q, want %q", got, want)
	}
	// Port 0 goes: port 2, reallocated in every run, takes 10.0.0.2.
	m.UpdateSwitchPort(u(0), nil)
	m.Run()
	if got, want := dyn(u(2)), "0a:00:00:00:00:06 10.0.0.2"; got != want {
		t.Errorf("port 2 once 10.0.0.2 is free: %q, want %q", got, want)
	}
	if changed := m.TakeChanged(); len(changed) == 0 {
		t.Error("no change reported")
	}
}

func FuzzParseExcludeIPs(f *testing.F) {
	for _, s := range []string{"10.0.0.4 10.0.0.10..10.0.0.20", "0x0a000005..::1", "1.2.3.4:5", "/* x */ 7 // y", "00:11:22:33:44:55..10.0.0.9/24"} {
		f.Add(s, uint32(0x0a000001), uint32(255))
	}
	f.Fuzz(func(t *testing.T, s string, start, total uint32) {
		rs, _ := ParseExcludeIPs(s, start, total)
		for k, r := range rs {
			if r.Lo >= r.Hi || uint64(r.Hi) > uint64(total) || k > 0 && r.Lo <= rs[k-1].Hi {
				t.Fatalf("%q: ranges %v not sorted, disjoint and within %d", s, rs, total)
			}
		}
	})
}

func FuzzParseDynamicRequest(f *testing.F) {
	for _, s := range []string{"dynamic", "dynamic 10.0.0.5", "dynamic  fd00::1", "dynamic 10.0.0.5 fd00::1", "0a:00:00:00:00:01 dynamic", "dynamic1.2.3.4::1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := ParseDynamicRequest(s)
		if (r.HasMAC || r.HasIPv4 || r.HasIPv6 || r.HasBoth || s == "dynamic") && !IsDynamicAddress(s) {
			t.Fatalf("%q read as a request %+v but is not a dynamic address", s, r)
		}
		if r.HasIPv4 && r.HasBoth {
			t.Fatalf("%q: both \"dynamic IP\" and \"dynamic IP IPV6\"", s)
		}
	})
}

// TestIPAMPortUpAlone: a switch port row that changed in no column IPAM
// reads (up) is not decided again; one whose addresses changed is.
func TestIPAMPortUpAlone(t *testing.T) {
	m, ls := ipamSwitchWith(t, 3, map[string]string{"subnet": "10.0.0.0/24"})
	u := ls.Ports[1]
	row := *m.ports[u].row
	row.DynamicAddresses = m.Dynamic(u)
	m.UpdateSwitchPort(u, &row) // the NB's echo of the addresses written
	m.Run()
	m.TakeChanged()
	up := row
	up.Up = new(true)
	m.UpdateSwitchPort(u, &up)
	if len(m.dirty) != 0 || m.ports[u].row != &up {
		t.Errorf("up alone: %d ports to decide again, row kept %v", len(m.dirty), m.ports[u].row == &up)
	}
	moved := up
	moved.Addresses = []string{"dynamic 10.0.0.200"}
	m.UpdateSwitchPort(u, &moved)
	m.Run()
	if got := m.Dynamic(u); got == nil || !strings.HasSuffix(*got, " 10.0.0.200") {
		t.Errorf("addresses changed: dynamic %v, want 10.0.0.200", got)
	}
}
