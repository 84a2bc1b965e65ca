package relations_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations"
)

var (
	northdCases = flag.Int("northd.cases", 150, "random address strings per kind checked against ovn-northd")
	northdSeed  = flag.Uint64("northd.seed", 1, "seed of the random address strings checked against ovn-northd")
)

// gen draws address strings biased towards what ovs_scan and inet_pton
// treat oddly: out-of-range and signed octets, "0x" prefixes, masks that are
// not CIDR, prefix lengths that wrap, IPv4-mapped IPv6, junk between
// addresses.
type gen struct{ r *rand.Rand }

func (g gen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g gen) hex8() string { return fmt.Sprintf("%02x", g.r.IntN(256)) }

func (g gen) mac() string {
	octets := make([]string, 6)
	for k := range octets {
		octets[k] = g.hex8()
	}
	switch g.r.IntN(12) {
	case 0:
		octets[g.r.IntN(6)] = g.pick("0x1f", "+a", "-1", "100", "0X", "fff", "A", " 3")
	case 1:
		return strings.ToUpper(strings.Join(octets, ":"))
	case 2:
		return strings.Join(octets, "-")
	case 3:
		return strings.Join(octets[:5], ":")
	}
	return strings.Join(octets, ":")
}

func (g gen) octet() string {
	if g.r.IntN(6) > 0 {
		return fmt.Sprint(g.r.IntN(256))
	}
	return g.pick("256", "300", "-1", "+7", "010", " 9", "4294967306", "0")
}

func (g gen) ipv4() string {
	s := g.octet() + "." + g.octet() + "." + g.octet() + "." + g.octet()
	if g.r.IntN(2) == 0 {
		return s
	}
	return s + g.pick("/24", "/0", "/32", "/8", "/33", "/-1", "/255.255.255.0", "/255.0.255.0",
		"/4294967320", "/ 16", ".5", "x", "/255.255.255.255")
}

func (g gen) ipv6() string {
	s := g.pick("fd00::"+g.hex8(), "FD00:0:0:0:0:0:"+g.hex8()+":1", "2001:db8::"+g.hex8()+":0:1",
		"::ffff:10.0.0."+fmt.Sprint(g.r.IntN(256)), "::1.2.3."+fmt.Sprint(g.r.IntN(256)), "fe80::1",
		"1:0:0:2:0:0:3:4", "0:0:1::", "1:2:3:4:5:6:7:8:9", ":::", "fd00::1.2.3.04", "::")
	if g.r.IntN(2) == 0 {
		return s
	}
	return s + g.pick("/64", "/128", "/0", "/129", "/ffff:ffff::", "/ffff::ff", "/48", "/-3")
}

func (g gen) addressToken() string {
	switch g.r.IntN(10) {
	case 0:
		return g.pick("bogus", ",", "/", ".", "x1", "0")
	case 1, 2, 3:
		return g.ipv6()
	}
	return g.ipv4()
}

func (g gen) sep() string { return g.pick(" ", " ", " ", "  ", "\t", "") }

func (g gen) lspAddresses() string {
	s := g.pick("", "", "", " ") + g.mac()
	for range g.r.IntN(4) {
		s += g.sep() + g.addressToken()
	}
	return s + g.pick("", "", "", " ")
}

func (g gen) lrpNetworks() []string {
	nets := make([]string, 1+g.r.IntN(3))
	for k := range nets {
		n := g.ipv4()
		if g.r.IntN(3) == 0 {
			n = g.ipv6()
		}
		nets[k] = g.pick("", "", "", " ") + n + g.pick("", "", "", "", " ")
	}
	return sortedSet(nets) // a set column: no duplicates
}

// nbctl runs ovn-nbctl against the reference NB.
func nbctl(t *testing.T, ref *reference.Instance, args ...string) {
	t.Helper()
	if out, err := exec.Command("ovn-nbctl", append([]string{"--db=" + ref.NBRemote()}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("ovn-nbctl: %v\n%s", err, out)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// sortedSet returns the distinct strings of s, sorted.
func sortedSet(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// TestLSPAddressesAgainstNorthd puts random addresses entries on switch
// ports of the real ovn-northd and checks that ParseLSPAddresses reads the
// MAC, IPv4 and IPv6 addresses (with solicited-node addresses) that northd's
// flows show: ls_in_l2_lkup "eth.dst == MAC", and the ls_in_arp_rsp
// priority-100 flows "arp.tpa == IP ... inport == PORT" and "nd_ns &&
// ip6.dst == {IP, SN} && nd.target == IP && inport == PORT".
func TestLSPAddressesAgainstNorthd(t *testing.T) {
	ref := reference.Start(t)
	g := gen{rand.New(rand.NewPCG(*northdSeed, 1))}
	entries := make([]string, *northdCases)
	args := []string{"ls-add", "sp"}
	for k := range entries {
		for entries[k] = g.lspAddresses(); relations.IsSpecialAddress(entries[k]); {
			entries[k] = g.lspAddresses()
		}
		port := fmt.Sprintf("q%d", k)
		args = append(args, "--", "lsp-add", "sp", port, "--", "set", "Logical_Switch_Port", port, "addresses="+jsonString(entries[k]))
	}
	nbctl(t, ref, args...)
	if err := ref.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	flows, err := ref.Flows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	l2 := regexp.MustCompile(`^sp\|ingress\|\d+\|50\|eth\.dst == (\S+)\|outport = "(q\d+)"; output;$`)
	arp := regexp.MustCompile(`^sp\|ingress\|\d+\|100\|arp\.tpa == (\S+) && arp\.op == 1 && inport == "(q\d+)"\|next;$`)
	nd := regexp.MustCompile(`^sp\|ingress\|\d+\|100\|nd_ns && ip6\.dst == \{(\S+), (\S+)\} && nd\.target == \S+ && inport == "(q\d+)"\|next;$`)
	type seen struct{ macs, v4, v6 []string }
	got := map[string]*seen{}
	port := func(p string) *seen {
		if got[p] == nil {
			got[p] = &seen{}
		}
		return got[p]
	}
	for _, f := range flows {
		if m := l2.FindStringSubmatch(f); m != nil {
			port(m[2]).macs = append(port(m[2]).macs, m[1])
		} else if m := arp.FindStringSubmatch(f); m != nil {
			port(m[2]).v4 = append(port(m[2]).v4, m[1])
		} else if m := nd.FindStringSubmatch(f); m != nil {
			port(m[3]).v6 = append(port(m[3]).v6, m[1]+" "+m[2])
		}
	}
	mismatches := 0
	for k, entry := range entries {
		var want seen
		a, err := relations.ParseLSPAddresses(entry)
		if !relations.Ignored(err) {
			want.macs = []string{a.MAC.String()}
			for _, x := range a.IPv4 {
				want.v4 = append(want.v4, x.AddrS)
			}
			for _, x := range a.IPv6 {
				want.v6 = append(want.v6, x.AddrS+" "+x.SNAddrS)
			}
		}
		have := port(fmt.Sprintf("q%d", k))
		for _, c := range []struct {
			what      string
			want, got []string
		}{{"MAC", want.macs, have.macs}, {"IPv4", want.v4, have.v4}, {"IPv6", want.v6, have.v6}} {
			if w, g := sortedSet(c.want), sortedSet(c.got); !slices.Equal(w, g) {
				mismatches++
				t.Errorf("addresses %q: %s %q, northd's flows show %q (parse error: %v)", entry, c.what, w, g, err)
			}
		}
	}
	var n struct{ macs, v4, v6 int }
	for _, p := range got {
		n.macs, n.v4, n.v6 = n.macs+len(p.macs), n.v4+len(p.v4), n.v6+len(p.v6)
	}
	t.Logf("%d entries: northd shows %d MACs, %d IPv4 and %d IPv6 addresses; %d mismatches", len(entries), n.macs, n.v4, n.v6, mismatches)
}

// TestLRPNetworksAgainstNorthd puts random mac and networks on router ports
// of the real ovn-northd and checks ParseLRPNetworks against its flows:
// every network, the link-local one included, shows in lr_in_ip_routing as
// "ip4.dst == NETWORK/PLEN" (or ip6) with "reg1 = ADDR; eth.src = MAC" (or
// xxreg1); the IPv4 addresses and broadcasts, in order, in lr_in_ip_input's
// "ip4.src == {ADDR, BCAST, ...}"; and each IPv6 address with its
// solicited-node address in the ND responder.
func TestLRPNetworksAgainstNorthd(t *testing.T) {
	ref := reference.Start(t)
	g := gen{rand.New(rand.NewPCG(*northdSeed, 2))}
	type lrp struct {
		mac  string
		nets []string
	}
	ports := make([]lrp, *northdCases)
	var args []string
	for k := range ports {
		mac := g.mac()
		if g.r.IntN(4) > 0 {
			mac = strings.Join([]string{"0a", g.hex8(), g.hex8(), g.hex8(), g.hex8(), g.hex8()}, ":")
		}
		ports[k] = lrp{mac, g.lrpNetworks()}
		quoted := make([]string, len(ports[k].nets))
		for i, n := range ports[k].nets {
			quoted[i] = jsonString(n)
		}
		args = append(args, "--", "lr-add", fmt.Sprintf("rp%d", k),
			"--", fmt.Sprintf("--id=@p%d", k), "create", "Logical_Router_Port", fmt.Sprintf("name=rpp%d", k), "mac="+jsonString(mac),
			"networks=["+strings.Join(quoted, ",")+"]",
			"--", "add", "Logical_Router", fmt.Sprintf("rp%d", k), "ports", fmt.Sprintf("@p%d", k))
	}
	nbctl(t, ref, args[1:]...)
	if err := ref.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	flows, err := ref.Flows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	route := regexp.MustCompile(`^(rp\d+)\|ingress\|\d+\|\d+\|(?:inport == "rpp\d+" && )?ip[46]\.dst == (\S+)\|ip\.ttl--; reg8\[0\.\.15\] = 0; x?x?reg0 = ip[46]\.dst; x?x?reg1 = (\S+); eth\.src = (\S+); outport = "rpp\d+"; flags\.loopback = 1; next;$`)
	bcast := regexp.MustCompile(`^(rp\d+)\|ingress\|\d+\|100\|ip4\.src == \{([^}]*)\} && reg9\[0\] == 0\|drop;$`)
	nd := regexp.MustCompile(`^(rp\d+)\|ingress\|\d+\|90\|inport == "rpp\d+" && ip6\.dst == \{(\S+), (\S+)\} && nd_ns && nd\.target == \S+\|nd_na_router`)
	type seen struct {
		routes, nd []string
		bcast      string
	}
	got := map[string]*seen{}
	router := func(r string) *seen {
		if got[r] == nil {
			got[r] = &seen{}
		}
		return got[r]
	}
	for _, f := range flows {
		if m := route.FindStringSubmatch(f); m != nil {
			router(m[1]).routes = append(router(m[1]).routes, m[2]+" "+m[3]+" "+m[4])
		} else if m := bcast.FindStringSubmatch(f); m != nil {
			router(m[1]).bcast = m[2]
		} else if m := nd.FindStringSubmatch(f); m != nil {
			router(m[1]).nd = append(router(m[1]).nd, m[2]+" "+m[3])
		}
	}
	mismatches := 0
	for k, p := range ports {
		var want seen
		// networks is a set column: northd reads it sorted, as OVSDB orders it.
		a, err := relations.ParseLRPNetworks(p.mac, slices.Sorted(slices.Values(p.nets)))
		if !relations.Ignored(err) {
			var bc []string
			for _, x := range a.IPv4 {
				want.routes = append(want.routes, fmt.Sprintf("%s/%d %s %s", x.NetworkS, x.Plen, x.AddrS, a.MAC))
				bc = append(bc, x.AddrS, x.BcastS)
			}
			want.bcast = strings.Join(bc, ", ")
			for _, x := range a.IPv6 {
				want.routes = append(want.routes, fmt.Sprintf("%s/%d %s %s", x.NetworkS, x.Plen, x.AddrS, a.MAC))
				want.nd = append(want.nd, x.AddrS+" "+x.SNAddrS)
			}
		}
		have := router(fmt.Sprintf("rp%d", k))
		if w, g := sortedSet(want.routes), sortedSet(have.routes); !slices.Equal(w, g) || want.bcast != have.bcast ||
			!slices.Equal(sortedSet(want.nd), sortedSet(have.nd)) {
			mismatches++
			t.Errorf("mac %q networks %q:\n parsed routes %q bcast %q nd %q\n northd routes %q bcast %q nd %q\n (parse error: %v)",
				p.mac, p.nets, w, want.bcast, sortedSet(want.nd), g, have.bcast, sortedSet(have.nd), err)
		}
	}
	var n struct{ routes, nd int }
	for _, r := range got {
		n.routes, n.nd = n.routes+len(r.routes), n.nd+len(r.nd)
	}
	t.Logf("%d router ports: northd shows %d routes and %d ND responders; %d mismatches", len(ports), n.routes, n.nd, mismatches)
}
