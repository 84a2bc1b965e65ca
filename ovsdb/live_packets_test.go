package ovsdb

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/internal/reference"
)

// The packet tests: what only packets show (gratuitous ARPs, periodic
// router advertisements, mirrored copies), seen through the real
// ovn-controller 23.03 and ovs-vswitchd on the dummy datapath, as OVN's own
// tests/ovn.at sees them, with the SB written by the real ovn-northd 23.03
// and by northlog's: the same test body runs with each, and both must
// observe the same packets.

// packetNorthd is a northd the packet tests run with.
type packetNorthd struct {
	name  string
	start func(t *testing.T, s *servers)
}

// packetNorthds are the real ovn-northd 23.03 and northlog's.
var packetNorthds = []packetNorthd{
	{name: "ovn-northd", start: func(t *testing.T, s *servers) { s.start("northd") }},
	{name: "northlog", start: func(t *testing.T, s *servers) { runNorthd(t, s) }},
}

// chassis is one northd's NB and SB with the simulated hypervisor hv1 on
// them.
type chassis struct {
	*servers
	hv *reference.Hypervisor
}

// onBothNorthds runs body once with each of packetNorthds, as parallel
// subtests, each on servers of its own with the hypervisor hv1 (encapIP on
// its br-phys), and fails unless both observed the same: body returns what
// it observed as lines.
func onBothNorthds(t *testing.T, encapIP string, body func(t *testing.T, c *chassis) []string) {
	t.Helper()
	reference.Require(t)
	reference.RequireHypervisor(t)
	seen := make([][]string, len(packetNorthds))
	ran := make([]bool, len(packetNorthds))
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		for i := 1; i < len(packetNorthds); i++ {
			if !ran[i] {
				continue
			}
			if d := cmp.Diff(seen[0], seen[i]); d != "" {
				t.Errorf("%s and %s observed different packets (-%[1]s +%[2]s):\n%s", packetNorthds[0].name, packetNorthds[i].name, d)
			}
		}
	})
	for i, nd := range packetNorthds {
		t.Run(nd.name, func(t *testing.T) {
			t.Parallel()
			s := startServers(t)
			nd.start(t, s)
			hv, err := reference.StartHypervisor(t.Context(), filepath.Join(s.Path, "hv1"), "hv1", s.SBRemote(), encapIP)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(hv.Close)
			seen[i], ran[i] = body(t, &chassis{servers: s, hv: hv}), true
		})
	}
}

// must fails the test on err.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// waitHV waits until ovn-controller has acted on the SB as it is now.
func (c *chassis) waitHV() {
	c.t.Helper()
	c.run("ovn-nbctl", "--timeout=30", "--wait=hv", "sync")
}

// waitUp waits until ovn-controller has claimed the switch port lsp and
// the northd has set it up.
func (c *chassis) waitUp(lsp string) {
	c.t.Helper()
	c.run("ovn-nbctl", "--timeout=30", "wait-until", "Logical_Switch_Port", lsp, "up=true")
	c.waitHV()
}

// packetWait bounds how long a test waits for packets: a periodic RA comes
// 3 to 4 s after the previous one, a GARP 1 s after its address appears.
const packetWait = 20 * time.Second

// port is a dummy port of hv1 whose sent packets a test reads.
type port struct {
	name string
	*reference.Capture
}

// capturePort reads what the hypervisor's port name sends (added by
// Hypervisor.AddPort).
func (c *chassis) capturePort(name string) port {
	return port{name, reference.NewCapture(c.hv.TxPcap(name))}
}

// waitPackets polls the ports until done holds for the packets each sent
// since its Mark, then returns them; packets sent in the same burst as the
// awaited ones are given a moment to arrive. It fails the test after
// packetWait.
func (c *chassis) waitPackets(t *testing.T, what string, done func(got [][][]byte) bool, ports ...port) [][][]byte {
	t.Helper()
	read := func() [][][]byte {
		got := make([][][]byte, len(ports))
		for i, p := range ports {
			var err error
			got[i], err = p.Packets()
			must(t, err)
		}
		return got
	}
	deadline := time.Now().Add(packetWait)
	for {
		if got := read(); done(got) {
			time.Sleep(300 * time.Millisecond)
			return read()
		}
		if err := c.hv.Died(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %v; sent:\n%s", what, packetWait, strings.Join(packetLines("", ports, read()), "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// mark marks each port's capture (Capture.Mark).
func mark(t testing.TB, ports ...port) {
	t.Helper()
	for _, p := range ports {
		must(t, p.Mark())
	}
}

// packetLines are the distinct packets each port sent, as sorted lines
// "PHASE PORT HEX".
func packetLines(phase string, ports []port, got [][][]byte) []string {
	var lines []string
	for i, packets := range got {
		for _, p := range packets {
			lines = append(lines, phase+" "+ports[i].name+" "+hex.EncodeToString(p))
		}
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// containsAll reports whether packets hold each of want.
func containsAll(packets [][]byte, want ...[]byte) bool {
	for _, w := range want {
		if !slices.ContainsFunc(packets, func(p []byte) bool { return bytes.Equal(p, w) }) {
			return false
		}
	}
	return true
}

// mac parses a MAC address written in a test.
func mac(s string) net.HardwareAddr {
	m, err := net.ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return m
}

// ip4 parses an IPv4 address written in a test, as its 4 bytes.
func ip4(s string) net.IP { return net.ParseIP(s).To4() }

// garp is the gratuitous ARP request ovn-controller broadcasts for ip at
// mac.
func garp(mac net.HardwareAddr, ip net.IP) []byte {
	return slices.Concat([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, mac, []byte{0x08, 0x06},
		[]byte{0, 1, 0x08, 0x00, 6, 4, 0, 1}, mac, []byte(ip), make([]byte, 6), []byte(ip))
}

// TestLivePacketsGARP: a gateway router's switch port with
// options:nat-addresses, an explicit list or "router" (the router's NAT
// and load-balancer addresses, the latter left out with
// exclude-lb-vips-from-garp), makes ovn-controller send gratuitous ARPs for
// those addresses out of the switch's localnet port (tests/ovn.at "send
// gratuitous arp for nat ips in localnet", "... with nat-addresses router
// in localnet").
func TestLivePacketsGARP(t *testing.T) {
	t.Parallel()
	onBothNorthds(t, "172.31.0.1", func(t *testing.T, c *chassis) []string {
		ctx := t.Context()
		_, err := c.hv.Vsctl(ctx, "add-br", "br-eth0", "--", "set", "Open_vSwitch", ".", "external-ids:ovn-bridge-mappings=physnet1:br-eth0")
		must(t, err)
		must(t, c.hv.AddPort(ctx, "br-eth0", "snoopvif"))
		c.script(`
ovn-nbctl ls-add ls0
ovn-nbctl create Logical_Router name=lr0 options:chassis=hv1
ovn-nbctl lrp-add lr0 lrp0 f0:00:00:00:00:01 192.168.0.1/24
ovn-nbctl lsp-add ls0 lrp0-rp -- set Logical_Switch_Port lrp0-rp type=router options:router-port=lrp0 addresses='"f0:00:00:00:00:01"'
ovn-nbctl lsp-add ls0 ln_port -- lsp-set-addresses ln_port unknown -- lsp-set-type ln_port localnet -- lsp-set-options ln_port network_name=physnet1
ovn-nbctl lr-nat-add lr0 snat 192.168.0.5 10.0.0.0/24
ovn-nbctl lr-nat-add lr0 dnat 192.168.0.2 10.0.0.1
ovn-nbctl lb-add lb0 192.168.0.3:80 10.0.0.2:80,10.0.0.3:80 -- lr-lb-add lr0 lb0
ovn-nbctl lb-add lb1 192.168.0.3:8080 10.0.0.2:8080,10.0.0.3:8080 -- lr-lb-add lr0 lb1
`)
		c.waitHV()
		snoop := c.capturePort("snoopvif")
		routerMAC := mac("f0:00:00:00:00:01")
		// The router port's own address is announced whatever
		// nat-addresses says (a gateway router's port on a switch with a
		// localnet port), then again on its backoff (1 s doubling to
		// 16 s), which falls into the later phases by timing only.
		own := garp(routerMAC, ip4("192.168.0.1"))
		var seen []string
		for _, phase := range []struct {
			name    string
			options []string // lrp0-rp's, none for the first phase
			want    [][]byte
			not     [][]byte
		}{
			{"router-port", nil, [][]byte{own}, nil},
			{"explicit", []string{"nat-addresses=f0:00:00:00:00:03 192.168.0.4"},
				[][]byte{garp(mac("f0:00:00:00:00:03"), ip4("192.168.0.4"))}, nil},
			{"router", []string{"nat-addresses=router"},
				[][]byte{garp(routerMAC, ip4("192.168.0.5")), garp(routerMAC, ip4("192.168.0.2")), garp(routerMAC, ip4("192.168.0.3"))}, nil},
			{"router-without-lb-vips", []string{"nat-addresses=router", "exclude-lb-vips-from-garp=true"},
				[][]byte{garp(routerMAC, ip4("192.168.0.5")), garp(routerMAC, ip4("192.168.0.2"))},
				[][]byte{garp(routerMAC, ip4("192.168.0.3"))}},
		} {
			if phase.options != nil {
				// No nat-addresses first, as tests/ovn.at does: an
				// address still announced would wait out its backoff.
				c.run("ovn-nbctl", "--wait=hv", "lsp-set-options", "lrp0-rp", "router-port=lrp0")
				mark(t, snoop)
				c.run("ovn-nbctl", append([]string{"--wait=hv", "lsp-set-options", "lrp0-rp", "router-port=lrp0"}, phase.options...)...)
			}
			got := c.waitPackets(t, phase.name+" GARPs", func(got [][][]byte) bool { return containsAll(got[0], phase.want...) }, snoop)
			if phase.options != nil {
				got[0] = slices.DeleteFunc(got[0], func(p []byte) bool { return bytes.Equal(p, own) })
			}
			for _, p := range phase.not {
				if containsAll(got[0], p) {
					t.Errorf("%s: unexpected GARP %x", phase.name, p)
				}
			}
			seen = append(seen, packetLines(phase.name, []port{snoop}, got)...)
		}
		return seen
	})
}

// ipv6RA is a router advertisement's source MAC and options (type → each
// option's bytes, type and length included), or ok false for any other
// packet.
func ipv6RA(p []byte) (src net.HardwareAddr, options map[byte][][]byte, ok bool) {
	// Ethernet (14), IPv6 (40, no extension headers from pinctrl), then
	// ICMPv6 type 134 with 16 bytes before its options.
	const icmp, optionsAt = 14 + 40, 14 + 40 + 16
	if len(p) < optionsAt || p[12] != 0x86 || p[13] != 0xdd || p[20] != 58 || p[icmp] != 134 {
		return nil, nil, false
	}
	options = map[byte][][]byte{}
	for o := p[optionsAt:]; len(o) >= 8; {
		n := int(o[1]) * 8
		if n == 0 || n > len(o) {
			break
		}
		options[o[0]] = append(options[o[0]], o[:n])
		o = o[n:]
	}
	return net.HardwareAddr(p[6:12]), options, true
}

// raWith reports whether packets hold a router advertisement from src
// that carries each of has's options (matched on its type and bytes).
func raWith(packets [][]byte, src net.HardwareAddr, has ...func(options map[byte][][]byte) bool) bool {
	return slices.ContainsFunc(packets, func(p []byte) bool {
		from, options, ok := ipv6RA(p)
		if !ok || !bytes.Equal(from, src) {
			return false
		}
		for _, h := range has {
			if !h(options) {
				return false
			}
		}
		return true
	})
}

// raPrefix holds for options with a prefix information option for prefix
// (RFC 4861 4.6.2: the prefix is its last 16 bytes).
func raPrefix(prefix string) func(map[byte][][]byte) bool {
	_, n, err := net.ParseCIDR(prefix)
	if err != nil {
		panic(err)
	}
	ones, _ := n.Mask.Size()
	return func(options map[byte][][]byte) bool {
		return slices.ContainsFunc(options[3], func(o []byte) bool {
			return len(o) == 32 && int(o[2]) == ones && bytes.Equal(o[16:], n.IP.To16())
		})
	}
}

// raMTU holds for options with an MTU option of mtu.
func raMTU(mtu uint32) func(map[byte][][]byte) bool {
	return func(options map[byte][][]byte) bool {
		return slices.ContainsFunc(options[5], func(o []byte) bool {
			return len(o) == 8 && binary.BigEndian.Uint32(o[4:]) == mtu
		})
	}
}

// TestLivePacketsPeriodicRA: a router port with ipv6_ra_configs
// send_periodic makes ovn-controller send router advertisements to the
// ports of its switch on the chassis, with the port's prefixes and, once
// set, its MTU (tests/ovn.at "IPv6 periodic RA").
func TestLivePacketsPeriodicRA(t *testing.T) {
	t.Parallel()
	onBothNorthds(t, "172.31.0.1", func(t *testing.T, c *chassis) []string {
		must(t, c.hv.AddPort(t.Context(), "br-int", "vif1", "external-ids:iface-id=sw-p1"))
		c.script(`
ovn-nbctl lr-add ro -- lrp-add ro ro-sw 00:00:00:00:00:01 aef0::1/64
ovn-nbctl ls-add sw
ovn-nbctl lsp-add sw sw-ro -- lsp-set-type sw-ro router -- lsp-set-options sw-ro router-port=ro-sw -- lsp-set-addresses sw-ro 00:00:00:00:00:01
ovn-nbctl lsp-add sw sw-p1 -- lsp-set-addresses sw-p1 "00:00:00:00:00:02 aef0::200:ff:fe00:2"
ovn-nbctl set Logical_Router_Port ro-sw ipv6_ra_configs:send_periodic=true ipv6_ra_configs:address_mode=slaac \
    ipv6_ra_configs:max_interval=4 ipv6_ra_configs:min_interval=3
`)
		c.waitUp("sw-p1")
		vif := c.capturePort("vif1")
		routerMAC := mac("00:00:00:00:00:01")
		var seen []string
		for _, phase := range []struct {
			name   string
			change []string
			has    []func(map[byte][][]byte) bool
		}{
			{"slaac", nil, []func(map[byte][][]byte) bool{raPrefix("aef0::/64")}},
			{"mtu", []string{"set", "Logical_Router_Port", "ro-sw", "ipv6_ra_configs:mtu=1500"},
				[]func(map[byte][][]byte) bool{raPrefix("aef0::/64"), raMTU(1500)}},
		} {
			if phase.change != nil {
				c.run("ovn-nbctl", append([]string{"--wait=hv"}, phase.change...)...)
				mark(t, vif)
			}
			got := c.waitPackets(t, phase.name+" RA", func(got [][][]byte) bool { return raWith(got[0], routerMAC, phase.has...) }, vif)
			seen = append(seen, packetLines(phase.name, []port{vif}, got)...)
		}
		return seen
	})
}

// checksum is the Internet checksum (RFC 1071) of b.
func checksum(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// icmpEcho is an ICMP echo request from srcMAC/src to dstMAC/dst with 56
// bytes of data, its checksums set.
func icmpEcho(srcMAC, dstMAC net.HardwareAddr, src, dst net.IP) []byte {
	icmp := []byte{8, 0, 0, 0, 0x5f, 0xbf, 0, 1}
	for i := range 56 {
		icmp = append(icmp, byte(i+1))
	}
	binary.BigEndian.PutUint16(icmp[2:], checksum(icmp))
	ip := slices.Concat([]byte{0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 1, 0, 0}, []byte(src), []byte(dst))
	binary.BigEndian.PutUint16(ip[2:], uint16(len(ip)+len(icmp)))
	binary.BigEndian.PutUint16(ip[10:], checksum(ip))
	return slices.Concat([]byte(dstMAC), []byte(srcMAC), []byte{0x08, 0x00}, ip, icmp)
}

// tunnelledTo reports whether p is a GRE packet (ERSPAN too) to remote.
func tunnelledTo(p []byte, remote net.IP) bool {
	return len(p) >= 14+20 && p[12] == 0x08 && p[13] == 0x00 && p[14+9] == 47 && bytes.Equal(p[14+16:14+20], remote)
}

// TestLivePacketsMirror: a switch port with an NB Mirror (gre or erspan,
// to-lport or from-lport) makes ovn-controller mirror the port's packets
// through a tunnel to the mirror's sink: a ping to the router, whose reply
// (to-lport) or request (from-lport) is copied out of the underlay bridge
// (tests/ovn.at "Mirror").
func TestLivePacketsMirror(t *testing.T) {
	t.Parallel()
	sink := ip4("192.168.1.12")
	onBothNorthds(t, "192.168.1.11", func(t *testing.T, c *chassis) []string {
		ctx := t.Context()
		_, err := c.hv.Vsctl(ctx, "set", "bridge", "br-phys", `other-config:hwaddr="00:00:00:01:02:00"`,
			"--", "set", "Open_vSwitch", ".", "external-ids:ovn-bridge-mappings=public:br-phys")
		must(t, err)
		// The sink's MAC, as OVN_POPULATE_ARP sets it, so that the tunnel
		// sends at once.
		_, err = c.hv.Appctl(ctx, "tnl/neigh/set", "br-phys", sink.String(), "00:00:00:02:02:00")
		must(t, err)
		must(t, c.hv.AddPort(ctx, "br-phys", "uplink"))
		must(t, c.hv.AddPort(ctx, "br-int", "vif1", "external-ids:iface-id=ls1-lp1"))
		c.script(`
ovn-nbctl lr-add R1
ovn-nbctl ls-add ls1 -- ls-add ls2
ovn-nbctl lrp-add R1 ls1 00:00:00:01:02:f1 192.168.1.1/24
ovn-nbctl lsp-add ls1 rp-ls1 -- set Logical_Switch_Port rp-ls1 type=router options:router-port=ls1 addresses=\"00:00:00:01:02:f1\"
ovn-nbctl lrp-add R1 ls2 00:00:00:01:02:f2 172.16.1.1/24
ovn-nbctl lsp-add ls2 rp-ls2 -- set Logical_Switch_Port rp-ls2 type=router options:router-port=ls2 addresses=\"00:00:00:01:02:f2\"
ovn-nbctl lsp-add ls1 ls1-lp1 -- lsp-set-addresses ls1-lp1 "00:00:00:01:02:03 192.168.1.2"
ovn-nbctl lsp-add ls2 ls2-lp1 -- lsp-set-addresses ls2-lp1 "00:00:00:01:02:04 172.16.1.2"
ovn-nbctl lsp-add ls1 ln-public -- lsp-set-type ln-public localnet -- lsp-set-addresses ln-public unknown -- lsp-set-options ln-public network_name=public
ovn-nbctl mirror-add mirror0 gre 0 to-lport 192.168.1.12 -- lsp-attach-mirror ls1-lp1 mirror0
`)
		c.waitUp("ls1-lp1")
		vif, uplink := c.capturePort("vif1"), c.capturePort("uplink")
		ping := icmpEcho(mac("00:00:00:01:02:03"), mac("00:00:00:01:02:f1"), ip4("192.168.1.2"), ip4("172.16.1.1"))
		var seen []string
		for _, phase := range []struct {
			name   string
			change []string
		}{
			{"gre-to-lport", nil},
			{"erspan-from-lport", []string{"set", "Mirror", ".", "type=erspan", "filter=from-lport"}},
		} {
			if phase.change != nil {
				c.run("ovn-nbctl", append([]string{"--wait=hv"}, phase.change...)...)
			}
			mark(t, vif, uplink)
			must(t, c.hv.Receive(ctx, "vif1", ping))
			got := c.waitPackets(t, phase.name+" mirrored copy", func(got [][][]byte) bool {
				copied := ping // from-lport
				if phase.name == "gre-to-lport" {
					if len(got[0]) == 0 {
						return false
					}
					copied = got[0][0] // the reply
				}
				return slices.ContainsFunc(got[1], func(p []byte) bool { return tunnelledTo(p, sink) && bytes.HasSuffix(p, copied) })
			}, vif, uplink)
			// What else the underlay sends (ovn-controller's GARPs for
			// vif1's address, on their backoff) is no part of the test.
			got[1] = slices.DeleteFunc(got[1], func(p []byte) bool { return !tunnelledTo(p, sink) })
			seen = append(seen, packetLines(phase.name, []port{vif, uplink}, got)...)
		}
		return seen
	})
}

// arpRequestFor reports whether p is an ARP request for ip.
func arpRequestFor(p []byte, ip net.IP) bool {
	return len(p) >= 42 && p[12] == 0x08 && p[13] == 0x06 && p[21] == 1 && bytes.Equal(p[38:42], ip)
}

// TestLivePacketsVirtualParent: a virtual port claimed by its parent. A
// ping routed to the virtual IP while no chassis has claimed the virtual
// port makes the router ask for it (ARP); once the parent's GARP for the
// virtual IP has made ovn-controller bind it (Port_Binding
// virtual_parent), the router sends to the parent's MAC (tests/ovn.at
// "virtual ports").
func TestLivePacketsVirtualParent(t *testing.T) {
	t.Parallel()
	vip := ip4("10.0.0.10")
	parentMAC, routerMAC := mac("50:54:00:00:00:03"), mac("00:00:00:00:ff:02")
	onBothNorthds(t, "172.31.0.1", func(t *testing.T, c *chassis) []string {
		ctx := t.Context()
		must(t, c.hv.AddPort(ctx, "br-int", "vif1", "external-ids:iface-id=sw0-p1"))
		must(t, c.hv.AddPort(ctx, "br-int", "vif2", "external-ids:iface-id=sw1-p1"))
		c.script(`
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 sw0-vir -- lsp-set-addresses sw0-vir "50:54:00:00:00:10 10.0.0.10" \
    -- lsp-set-port-security sw0-vir "50:54:00:00:00:10 10.0.0.10" -- lsp-set-type sw0-vir virtual \
    -- set logical_switch_port sw0-vir options:virtual-ip=10.0.0.10 options:virtual-parents=sw0-p1
ovn-nbctl lsp-add sw0 sw0-p1 -- lsp-set-addresses sw0-p1 "50:54:00:00:00:03 10.0.0.3" \
    -- lsp-set-port-security sw0-p1 "50:54:00:00:00:03 10.0.0.3 10.0.0.10"
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 sw1-p1 -- lsp-set-addresses sw1-p1 "40:54:00:00:00:03 20.0.0.3"
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-sw0 00:00:00:00:ff:01 10.0.0.1/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 00:00:00:00:ff:01 -- lsp-set-options sw0-lr0 router-port=lr0-sw0
ovn-nbctl lrp-add lr0 lr0-sw1 00:00:00:00:ff:02 20.0.0.1/24
ovn-nbctl lsp-add sw1 sw1-lr0 -- lsp-set-type sw1-lr0 router -- lsp-set-addresses sw1-lr0 00:00:00:00:ff:02 -- lsp-set-options sw1-lr0 router-port=lr0-sw1
`)
		c.waitUp("sw0-p1")
		c.waitUp("sw1-p1")
		vif1 := c.capturePort("vif1")
		ping := icmpEcho(mac("40:54:00:00:00:03"), routerMAC, ip4("20.0.0.3"), vip)
		var seen []string
		// Unclaimed: the router resolves the virtual IP to
		// 00:00:00:00:00:00 and asks for it.
		mark(t, vif1)
		must(t, c.hv.Receive(ctx, "vif2", ping))
		got := c.waitPackets(t, "ARP request for the virtual IP", func(got [][][]byte) bool {
			return slices.ContainsFunc(got[0], func(p []byte) bool { return arpRequestFor(p, vip) })
		}, vif1)
		seen = append(seen, packetLines("unclaimed", []port{vif1}, got)...)
		// The parent announces the virtual IP; ovn-controller binds the
		// virtual port to the chassis with the parent as virtual_parent.
		must(t, c.hv.Receive(ctx, "vif1", garp(parentMAC, vip)))
		c.run("ovn-sbctl", "--timeout=30", "wait-until", "Port_Binding", "sw0-vir", "virtual_parent=sw0-p1")
		c.waitUp("sw0-vir")
		mark(t, vif1)
		must(t, c.hv.Receive(ctx, "vif2", ping))
		got = c.waitPackets(t, "ping to the virtual IP at its parent's MAC", func(got [][][]byte) bool {
			return slices.ContainsFunc(got[0], func(p []byte) bool {
				return bytes.HasPrefix(p, parentMAC) && len(p) >= 34 && bytes.Equal(p[30:34], vip)
			})
		}, vif1)
		seen = append(seen, packetLines("claimed", []port{vif1}, got)...)
		return seen
	})
}

// openFlows are the OpenFlow flows ovn-controller installed on br-int,
// sorted, without their counters and cookies (a logical flow's row UUID),
// and with the conntrack zones ovn-controller loads into registers 11 to
// 13 as ZONE: it numbers them in the order it meets ports and datapaths.
func (c *chassis) openFlows(t *testing.T) []string {
	t.Helper()
	out, err := c.hv.Ofctl(t.Context(), "--no-stats", "dump-flows", "br-int")
	must(t, err)
	var flows []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		l = flowCookie.ReplaceAllString(strings.TrimSpace(l), "")
		flows = append(flows, zoneLoad.ReplaceAllString(l, "load:ZONE->$1"))
	}
	slices.Sort(flows)
	return flows
}

var (
	flowCookie = regexp.MustCompile(`cookie=0x[0-9a-f]+, ?`)
	zoneLoad   = regexp.MustCompile(`load:0x[0-9a-f]+->(NXM_NX_REG1[123]\[\])`)
)

// TestLivePacketsTunnelKeyReuse: a switch deleted and created again gets
// its tunnel key back, the lowest free one, as 23.03 allocates datapath
// keys, and a port created again on a kept switch the key after its
// switch's last; ovn-controller's OpenFlow flows, which carry the keys,
// are then the same with both northds.
func TestLivePacketsTunnelKeyReuse(t *testing.T) {
	t.Parallel()
	onBothNorthds(t, "172.31.0.1", func(t *testing.T, c *chassis) []string {
		ctx := t.Context()
		must(t, c.hv.AddPort(ctx, "br-int", "vif1", "external-ids:iface-id=sw0-p1"))
		must(t, c.hv.AddPort(ctx, "br-int", "vif2", "external-ids:iface-id=sw1-p1"))
		var seen []string
		for _, step := range []struct{ name, script string }{
			// svc_monitor_mac, random unless set, shows in flows.
			{"created", `
ovn-nbctl set NB_Global . options:svc_monitor_mac="0a:00:00:00:00:fe"
ovn-nbctl ls-add sw0 -- lsp-add sw0 sw0-p1 -- lsp-set-addresses sw0-p1 "50:54:00:00:00:03 10.0.0.3"
ovn-nbctl ls-add sw1 -- lsp-add sw1 sw1-p1 -- lsp-set-addresses sw1-p1 "40:54:00:00:00:03 20.0.0.3"
`},
			{"switch-recreated", `
ovn-nbctl ls-del sw0
ovn-nbctl --wait=sb sync
ovn-nbctl ls-add sw0 -- lsp-add sw0 sw0-p1 -- lsp-set-addresses sw0-p1 "50:54:00:00:00:03 10.0.0.3"
`},
			{"port-recreated", `
ovn-nbctl lsp-del sw1-p1
ovn-nbctl --wait=sb sync
ovn-nbctl lsp-add sw1 sw1-p1 -- lsp-set-addresses sw1-p1 "40:54:00:00:00:03 20.0.0.3"
`},
		} {
			c.script(step.script)
			c.waitUp("sw0-p1")
			c.waitUp("sw1-p1")
			for _, l := range sbRows(t, c.SBRemote(), true) {
				seen = append(seen, step.name+" "+l)
			}
			for _, f := range c.openFlows(t) {
				seen = append(seen, step.name+" "+f)
			}
		}
		return seen
	})
}
