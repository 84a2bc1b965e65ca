package ovsdb

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

// logLines is a slog.Handler that keeps every record as "LEVEL|text",
// the text being the message and its attributes as key=value.
type logLines struct {
	mu    *sync.Mutex
	lines *[]string
	attrs []slog.Attr
}

func newLogLines() *logLines { return &logLines{mu: &sync.Mutex{}, lines: &[]string{}} }

func (h *logLines) Enabled(context.Context, slog.Level) bool { return true }

func (h *logLines) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.lines = append(*h.lines, vlogLevel(r.Level)+"|"+b.String())
	return nil
}

func (h *logLines) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logLines{mu: h.mu, lines: h.lines, attrs: append(slices.Clip(h.attrs), attrs...)}
}

func (h *logLines) WithGroup(string) slog.Handler { return h }

// all is a copy of the lines kept so far.
func (h *logLines) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(*h.lines)
}

// vlogLevel names an slog level as vlog does.
func vlogLevel(l slog.Level) string {
	switch {
	case l < slog.LevelInfo:
		return "DBG"
	case l < slog.LevelWarn:
		return "INFO"
	case l < slog.LevelError:
		return "WARN"
	}
	return "ERR"
}

// logProblem is a kind of bad NB input that a northd reports: ref matches
// 23.03's line for it, northlog northlog's. A line is of the first kind
// that matches it.
type logProblem struct {
	kind          string
	ref, northlog *regexp.Regexp
}

var logProblems = []logProblem{
	// Before switch port addresses: northlog reports both with one
	// operator.
	{"port security", regexp.MustCompile(`invalid syntax '.*' in port security`),
		regexp.MustCompile(`reason=switch port addresses: .*port_security`)},
	{"switch port addresses", regexp.MustCompile(`invalid syntax '.*' in (logical switch port )?addresses`),
		regexp.MustCompile(`reason=switch port addresses: `)},
	{"unreadable router port network", regexp.MustCompile(`invalid syntax '.*' in networks`),
		regexp.MustCompile(`reason=router port networks: `)},
	{"router port network 0.0.0.0", regexp.MustCompile(`bad 'networks' 0\.0\.0\.0`),
		regexp.MustCompile(`reason=router port network 0\.0\.0\.0: `)},
	{"duplicate port tunnel key", regexp.MustCompile(`port \S+ requests same tunnel key \d+ as another LSP or LRP`),
		regexp.MustCompile(`port requests a tunnel key another one holds`)},
	{"duplicate datapath tunnel key", regexp.MustCompile(`requests same tunnel key \d+ as another logical switch or router`),
		regexp.MustCompile(`datapath requests a tunnel key another one holds`)},
	{"port tunnel key beyond VXLAN's", regexp.MustCompile(`Tunnel key \d+ for port \S+ is incompatible with VXLAN`),
		regexp.MustCompile(`tunnel key for port is incompatible with VXLAN`)},
	{"datapath tunnel key beyond VXLAN's", regexp.MustCompile(`Tunnel key \d+ for datapath \S+ is incompatible with VXLAN`),
		regexp.MustCompile(`tunnel key for datapath is incompatible with VXLAN`)},
	{"unknown requested-chassis", regexp.MustCompile(`Unknown chassis '.*' set in options:requested-chassis`),
		regexp.MustCompile(`unknown chassis in options:requested-chassis`)},
	{"RA address mode", regexp.MustCompile(`Invalid address mode \[.*\] defined`),
		regexp.MustCompile(`invalid address_mode`)},
	{"SCTP health check", regexp.MustCompile(`SCTP load balancers do not currently support health checks`),
		regexp.MustCompile(`SCTP load balancers do not support health checks`)},
}

// problemSet reads lines "LEVEL|text" as the set of "LEVEL kind" of the
// problems they report, with match telling a line of the kind. Lines of
// no kind count as themselves at WARN and above, and not at all below:
// those are a northd's progress, which differs between the two.
func problemSet(lines []string, match func(logProblem) *regexp.Regexp) []string {
	set := map[string]bool{}
	for _, l := range lines {
		level, text, _ := strings.Cut(l, "|")
		i := slices.IndexFunc(logProblems, func(p logProblem) bool { return match(p).MatchString(text) })
		switch {
		case i >= 0:
			set[level+" "+logProblems[i].kind] = true
		case level == "WARN" || level == "ERR" || level == "EMER":
			set[l] = true
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for k := range set {
			if !yield(k) {
				return
			}
		}
	})
}

// refLogLines reads a vlog file's lines "TIME|SEQ|MODULE|LEVEL|text" as
// "LEVEL|text".
func refLogLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for l := range strings.Lines(string(b)) {
		if f := strings.SplitN(strings.TrimSpace(l), "|", 5); len(f) == 5 {
			lines = append(lines, f[3]+"|"+f[4])
		}
	}
	return lines
}

// TestLiveLogBadRows: for NB rows 23.03 reports as bad (or passes over in
// silence), northlog logs a line of the same kind at the same level as the
// real ovn-northd 23.03 on the same NB, and nothing where it says nothing.
func TestLiveLogBadRows(t *testing.T) {
	t.Parallel()
	logs := newLogLines()
	ref, s, _ := startWithReference(t, func(c *Config) { c.Logger = slog.New(logs) })
	applyBoth(t, ref, s, `ovn-nbctl set NB_Global . options:mac_prefix=zz:junk
ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- set Logical_Switch_Port p1 addresses='"00:00:00:00:00:01 10.0.0.1" "junk 10.0.0.2"'
ovn-nbctl lsp-add sw0 p2 -- lsp-set-options p2 requested-tnl-key=5
ovn-nbctl lsp-add sw0 p3 -- lsp-set-options p3 requested-tnl-key=5
ovn-nbctl lsp-add sw0 p4 -- lsp-set-options p4 requested-tnl-key=junk
ovn-nbctl ls-add sw1 -- set Logical_Switch sw1 other_config:requested-tnl-key=7
ovn-nbctl ls-add sw2 -- set Logical_Switch sw2 other_config:requested-tnl-key=7
ovn-nbctl lsp-add sw0 p5 -- lsp-set-options p5 requested-chassis=nohost
ovn-nbctl set Logical_Switch sw0 other_config:mcast_snoop=true other_config:mcast_idle_timeout=abc other_config:mcast_table_size=-5 other_config:mcast_eth_src=junk other_config:mcast_ip4_src=junk other_config:mcast_query_interval=x
ovn-nbctl lr-add r0 -- lrp-add r0 rp0 00:00:00:00:01:01 fd00::1/64 -- set Logical_Router_Port rp0 ipv6_ra_configs:address_mode=bogus ipv6_ra_configs:send_periodic=true
ovn-nbctl lsp-add sw0 sw0-rp0 -- lsp-set-type sw0-rp0 router -- lsp-set-addresses sw0-rp0 router -- lsp-set-options sw0-rp0 router-port=rp0
ovn-nbctl lrp-add r0 rp1 00:00:00:00:01:02 10.1.0.1/24 -- set Logical_Router_Port rp1 peer=p1
ovn-nbctl set Logical_Router_Port rp0 options:mcast_flood=junk -- set Logical_Router r0 options:mcast_relay=junk
d=$(ovn-nbctl create DNS records='"bad name"="not-an-ip"' records:x.org='10.0.0.9 junk')
ovn-nbctl add Logical_Switch sw0 dns_records $d
ovn-nbctl create Static_MAC_Binding logical_port=nothing ip=junk mac=junk
ovn-nbctl create Static_MAC_Binding logical_port=rp1 ip=10.1.0.5 mac=junk
ovn-nbctl lb-add lb0 10.0.0.10:80 10.0.0.2:80 sctp -- ls-lb-add sw0 lb0
ovn-nbctl -- --id=@hc create Load_Balancer_Health_Check vip='"10.0.0.10:80"' -- add Load_Balancer lb0 health_check @hc
ovn-nbctl lsp-add sw0 p7 -- lsp-set-addresses p7 "00:00:00:00:00:07 10.0.0.7" -- set Logical_Switch_Port p7 port_security='"junk 10.0.0.7"'
ovn-nbctl lrp-add r0 rp2 00:00:00:00:01:03 10.2.0.1/24 -- set Logical_Router_Port rp2 networks='"10.2.0.1/24" junk'
ovn-nbctl lrp-add r0 rp3 00:00:00:00:01:04 10.3.0.1/24 -- set Logical_Router_Port rp3 networks='"0.0.0.0/24" "10.3.0.1/24"'
ovn-nbctl lsp-add sw0 p6 -- lsp-set-options p6 requested-tnl-key=3000
ovn-nbctl ls-add sw3 -- set Logical_Switch sw3 other_config:requested-tnl-key=5000
ovn-sbctl chassis-add hv1 vxlan 192.0.2.1`)
	refLines := refLogLines(t, ref.Dir()+"/northd.log")
	want := problemSet(refLines, func(p logProblem) *regexp.Regexp { return p.ref })
	got := problemSet(logs.all(), func(p logProblem) *regexp.Regexp { return p.northlog })
	for _, p := range logProblems {
		if !slices.ContainsFunc(want, func(w string) bool { return strings.HasSuffix(w, " "+p.kind) }) {
			t.Errorf("23.03 logged no %s: the NB above does not have it", p.kind)
		}
	}
	if r := reference.Compare(want, got); !r.Equal() {
		t.Errorf("logged problems differ (- 23.03 only, + northlog only):\n%s\n23.03's log:\n%s\nnorthlog's log:\n%s",
			rowDiff(r), strings.Join(refLines, "\n"), strings.Join(logs.all(), "\n"))
	}
}

// diagnostics2603 matches the lines 26.03.2 logs about NB configurations
// it works around rather than skips (relations.Diagnostic).
var diagnostics2603 = regexp.MustCompile(`Bad configuration: |contains "discard" route`)

// TestLive2603Diagnostics: northlog logs, word for word and at the same
// level, the lines 26.03.2's ovn-northd logs about a switch port of type
// "router" on a router port that names a peer of its own (ovn-northd.at
// "LSP using LRP with peer"), about discard routes in ECMP groups
// ("Static routes - ECMP with discard"), and about peers that do not pair
// up: a router port naming a switch port, switch ports of type "switch"
// naming a router port or a switch port that names another or none
// (26.03.2's line for none, "(null)", checked by hand: its rate limit
// shows only one of these lines). 26.03.2 logs at most one ECMP line a
// minute, so one group is checked.
func TestLive2603Diagnostics(t *testing.T) {
	t.Parallel()
	logs := newLogLines()
	ref, s, _ := startWithReferenceOf(t, reference.BuildOf(schema.OVN2603), func(c *Config) { c.Logger = slog.New(logs) })
	applyBoth(t, ref, s, `ovn-nbctl lr-add lr -- ls-add ls
ovn-nbctl lrp-add lr lrp0 00:00:00:01:ff:01 192.168.1.1/24 peer=lrp1 -- lrp-add lr lrp1 00:00:00:01:ff:02 192.168.1.2/24 peer=lrp0
ovn-nbctl lsp-add ls ls-lrp1 -- lsp-set-type ls-lrp1 router -- lsp-set-options ls-lrp1 router-port=lrp1
ovn-nbctl lrp-add lr lr-sw1 00:00:00:00:10:01 10.0.10.1/24 -- lrp-add lr lr-sw2 00:00:00:00:20:01 10.0.20.1/24
ovn-nbctl --ecmp lr-route-add lr 192.168.10.0/24 10.0.10.10 -- --ecmp lr-route-add lr 192.168.10.0/24 10.0.20.10
ovn-nbctl lr-route-add lr 10.99.0.0/16 discard
ovn-nbctl set Logical_Router_Static_Route $(ovn-nbctl --bare --columns=_uuid find Logical_Router_Static_Route nexthop=10.0.20.10) nexthop=discard
ovn-nbctl lsp-add ls vm -- lsp-set-addresses vm "00:00:00:00:00:01 192.168.1.10" -- lrp-add lr lr-vm 00:00:00:00:30:01 10.0.30.1/24 peer=vm
ovn-nbctl lsp-add ls sp-r -- lsp-set-type sp-r switch peer=lr-sw1
ovn-nbctl lsp-add ls sp-a -- lsp-set-type sp-a switch peer=sp-b -- lsp-add ls sp-b -- lsp-set-type sp-b switch peer=sp-r
ovn-nbctl lsp-add ls sp-c -- lsp-set-type sp-c switch peer=sp-d -- lsp-add ls sp-d -- lsp-set-type sp-d switch`)
	pick := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			if diagnostics2603.MatchString(l) {
				out = append(out, l)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	want, got := pick(refLogLines(t, ref.Dir()+"/northd.log")), pick(logs.all())
	if len(want) < 4 {
		t.Fatalf("26.03.2 logged %d of the lines looked for, not 4:\n%s", len(want), strings.Join(want, "\n"))
	}
	// 26.03.2 logs the switch port peer lines through one rate limit with
	// a burst of one: of those only the first, in hash order, shows here.
	shown := slices.DeleteFunc(slices.Clone(got), func(l string) bool {
		return switchPortPeerLine.MatchString(l) && !slices.Contains(want, l)
	})
	if r := reference.Compare(want, shown); !r.Equal() {
		t.Errorf("logged lines differ (- 26.03.2 only, + northlog only):\n%s", rowDiff(r))
	}
	if !slices.ContainsFunc(want, switchPortPeerLine.MatchString) || !slices.Contains(got,
		"WARN|Bad configuration: 'sp-c' is a switch port with peer 'sp-d', but 'sp-d' is a switch port with peer '(null)'") {
		t.Errorf("no switch port peer line from 26.03.2, or not every one from northlog:\n%s", strings.Join(got, "\n"))
	}
}

// switchPortPeerLine matches the lines of 26.03.2's rate limit for
// switch ports of type "switch" whose peer does not pair up.
var switchPortPeerLine = regexp.MustCompile(`Bad configuration: ('\S+' is a switch port with peer|The peer of switch port \S+ is a router port)`)
