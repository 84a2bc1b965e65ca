package ovsdb

import (
	"bytes"
	"encoding/hex"
	"net"
	"path/filepath"
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
	{"ovn-northd", func(t *testing.T, s *servers) { s.start("northd") }},
	{"northlog", func(t *testing.T, s *servers) { runNorthd(t, s) }},
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
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		for i := 1; i < len(packetNorthds); i++ {
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
			seen[i] = body(t, &chassis{servers: s, hv: hv})
			t.Logf("observed:\n%s", strings.Join(seen[i], "\n"))
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

func mac(s string) net.HardwareAddr {
	m, err := net.ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return m
}

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
ovn-nbctl lr-nat-add lr0 snat 192.168.0.1 10.0.0.0/24
ovn-nbctl lr-nat-add lr0 dnat 192.168.0.2 10.0.0.1
ovn-nbctl lb-add lb0 192.168.0.3:80 10.0.0.2:80,10.0.0.3:80 -- lr-lb-add lr0 lb0
ovn-nbctl lb-add lb1 192.168.0.3:8080 10.0.0.2:8080,10.0.0.3:8080 -- lr-lb-add lr0 lb1
`)
		c.waitHV()
		snoop := c.capturePort("snoopvif")
		routerMAC := mac("f0:00:00:00:00:01")
		var seen []string
		for _, phase := range []struct {
			name    string
			options []string
			want    [][]byte
			not     [][]byte
		}{
			{"explicit", []string{"nat-addresses=f0:00:00:00:00:03 192.168.0.4"},
				[][]byte{garp(mac("f0:00:00:00:00:03"), ip4("192.168.0.4"))}, nil},
			{"router", []string{"nat-addresses=router"},
				[][]byte{garp(routerMAC, ip4("192.168.0.1")), garp(routerMAC, ip4("192.168.0.2")), garp(routerMAC, ip4("192.168.0.3"))}, nil},
			{"router-without-lb-vips", []string{"nat-addresses=router", "exclude-lb-vips-from-garp=true"},
				[][]byte{garp(routerMAC, ip4("192.168.0.1")), garp(routerMAC, ip4("192.168.0.2"))},
				[][]byte{garp(routerMAC, ip4("192.168.0.3"))}},
		} {
			// No nat-addresses first, as tests/ovn.at does: an address
			// announced before would wait out its backoff.
			c.run("ovn-nbctl", "--wait=hv", "lsp-set-options", "lrp0-rp", "router-port=lrp0")
			mark(t, snoop)
			c.run("ovn-nbctl", append([]string{"--wait=hv", "lsp-set-options", "lrp0-rp", "router-port=lrp0"}, phase.options...)...)
			got := c.waitPackets(t, phase.name+" GARPs", func(got [][][]byte) bool { return containsAll(got[0], phase.want...) }, snoop)
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
