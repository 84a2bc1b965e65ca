package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestRandomTopologyDeterministic(t *testing.T) {
	opts := DefaultTopology()
	distinct := map[string]bool{}
	for seed := range int64(20) {
		a, b := RandomTopology(seed, opts), RandomTopology(seed, opts)
		if a != b {
			t.Fatalf("seed %d: two different scripts:\n%s\n---\n%s", seed, a, b)
		}
		distinct[a] = true
	}
	if len(distinct) < 15 {
		t.Errorf("20 seeds gave only %d distinct topologies", len(distinct))
	}
	big := TopologyOptions{Switches: 5, PortsPerSwitch: 10, Routers: 4, RouterPorts: 5}
	if RandomTopology(1, big) == RandomTopology(1, opts) {
		t.Error("options do not change the topology")
	}
}

// TestRandomTopologyShapes checks that the generator, over a few seeds,
// writes every shape its doc comment promises.
func TestRandomTopologyShapes(t *testing.T) {
	var all strings.Builder
	for seed := range int64(50) {
		all.WriteString(RandomTopology(seed, DefaultTopology()))
	}
	text := all.String()
	for name, re := range map[string]string{
		"MAC only":            `lsp-set-addresses \S+ 0a:[0-9a-f:]+\s`,
		"MAC+IPv4":            `lsp-set-addresses \S+ '0a:[0-9a-f:]+ 10\.[0-9.]+'`,
		"MAC+IPv4+IPv6":       `'0a:[0-9a-f:]+ 10\.[0-9.]+ fd00:[0-9a-f:]+'`,
		"several IPs":         `'0a:[0-9a-f:]+ 10\.[0-9.]+ 10\.[0-9.]+ fd00:[0-9a-f:]+ fd00:[0-9a-f:]+'`,
		"unknown":             `lsp-set-addresses \S+ unknown`,
		"dynamic":             `lsp-set-addresses \S+ dynamic`,
		"MAC dynamic":         `'0a:[0-9a-f:]+ dynamic'`,
		"subnet":              `other_config:subnet=`,
		"ipv6_prefix":         `other_config:ipv6_prefix=`,
		"port security":       `lsp-set-port-security \S+ '0a:[0-9a-f:]+ 10\.`,
		"disabled LSP":        `lsp-set-enabled \S+ disabled`,
		"router LSP":          `lsp-set-addresses \S+ router`,
		"router-port":         `lsp-set-options \S+ router-port=lr\d+-sw\d+`,
		"dual-stack LRP":      `lrp-add lr\d+ \S+ 0a:[0-9a-f:]+ [0-9.]+/\d+ [0-9a-f:]+/64`,
		"unattached LRP":      `lrp-add lr\d+ lr\d+-ext\d+ `,
		"IPv6-only LRP":       `lrp-add lr\d+ \S+ 0a:[0-9a-f:]+ f[0-9a-f:]+/64\n`,
		"disabled router LRP": `lrp-set-enabled \S+ disabled`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no %s (%s) in 50 topologies", name, re)
		}
	}
}

// TestRandomTopologySecurityShapes checks that the generator, with address
// sets, port groups, ACLs and load balancers, writes every shape its doc
// comments promise over a few seeds.
func TestRandomTopologySecurityShapes(t *testing.T) {
	opts := DefaultTopology()
	opts.AddressSets, opts.PortGroups, opts.ACLs, opts.LoadBalancers = 3, 3, 4, 4
	var all strings.Builder
	for seed := range int64(50) {
		all.WriteString(RandomTopology(seed, opts))
	}
	text := all.String()
	for name, re := range map[string]string{
		"IPv4 address set":        `create Address_Set name=as\d+ 'addresses="10\.`,
		"IPv6 address set":        `create Address_Set name=as\d+ 'addresses="fd00:`,
		"empty address set":       `create Address_Set name=as\d+\s`,
		"port group":              `pg-add pg\d+ sw\d+-p\d+`,
		"member on no switch":     `create Logical_Switch_Port name=pg\d+-none`,
		"switch ACL":              `add Logical_Switch sw\d+ acls @acl`,
		"port group ACL":          `add Port_Group pg\d+ acls @acl`,
		"from-lport":              `direction=from-lport`,
		"to-lport":                `direction=to-lport`,
		"allow":                   `action=allow\s`,
		"allow-related":           `action=allow-related`,
		"allow-stateless":         `action=allow-stateless`,
		"drop":                    `action=drop`,
		"reject":                  `action=reject`,
		"apply-after-lb":          `options:apply-after-lb=true`,
		"log with name":           `log=true .name="`,
		"severity":                `severity=\w+`,
		"fair meter":              `meter=acl-fair`,
		"absent meter":            `meter=acl-none`,
		"log-related":             `options:log-related=true`,
		"label":                   `label=\d+`,
		"address set match":       `\$as\d+`,
		"port group IPv4 set":     `\$pg\d+_ip4`,
		"port group IPv6 set":     `\$pg\d+_ip6`,
		"port group match":        `@pg\d+`,
		"IPv4 VIP with port":      `vips:"172\.16\.\d+\.\d+:\d+"`,
		"IPv4 VIP without port":   `vips:"172\.16\.\d+\.\d+"=`,
		"VIP in a switch subnet":  `vips:"10\.`,
		"IPv6 VIP with port":      `vips:"\[fd30:[0-9a-f:]+\]:\d+"`,
		"IPv6 VIP without port":   `vips:"fd[0-9a-f:]+"=`,
		"no backends":             `vips:"[^"]+"=""`,
		"several backends":        `vips:"[^"]+"="[^",]+,[^",]+`,
		"udp":                     `protocol=udp`,
		"sctp":                    `protocol=sctp`,
		"selection_fields":        `selection_fields=\w+`,
		"reject on empty":         `options:reject=true`,
		"skip_snat":               `options:skip_snat=true`,
		"affinity_timeout":        `options:affinity_timeout=`,
		"hairpin_snat_ip":         `options:hairpin_snat_ip=`,
		"neighbor_responder":      `options:neighbor_responder=(all|none)`,
		"health check":            `create Load_Balancer_Health_Check .vip="172`,
		"ip_port_mappings":        `ip_port_mappings:"10\.[0-9.]+"="sw\d+-p\d+:`,
		"mapping to no port":      `ip_port_mappings:"10\.[0-9.]+"="no-such-port:`,
		"IPv6 mapping":            `ip_port_mappings:"\[fd00:[0-9a-f:]+\]"="sw\d+-p\d+:`,
		"bad monitor source":      `ip_port_mappings:"[^"]+"="[^"]+:bogus"`,
		"shared ACL":              `acls @acl\d+ \\\n  -- add \S+ \S+ acls @acl`,
		"load balancer group":     `create Load_Balancer_Group name=lbg\d+ load_balancer=@lb`,
		"LB on a switch":          `add Logical_Switch sw\d+ load_balancer @lb`,
		"LB on a router":          `add Logical_Router lr\d+ load_balancer @lb`,
		"group on a switch":       `add Logical_Switch sw\d+ load_balancer_group @lbg`,
		"group on a router":       `add Logical_Router lr\d+ load_balancer_group @lbg`,
		"gateway router":          `set Logical_Router lr\d+ options:chassis=hv1`,
		"distributed gateway":     `lrp-set-gateway-chassis \S+ gw1`,
		"lb_force_snat_ip":        `options:lb_force_snat_ip="172\.16\.99\.1 fd99::1`,
		"lb_force_snat_ip router": `options:lb_force_snat_ip="router_ip`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no %s (%s) in 50 topologies", name, re)
		}
	}
}

// TestRandomTopologyNetworkFunctionShapes checks that the generator, with
// network functions, writes every shape addNetworkFunctionGroup promises
// over a few seeds.
func TestRandomTopologyNetworkFunctionShapes(t *testing.T) {
	opts := DefaultTopology()
	opts.AddressSets, opts.PortGroups, opts.ACLs, opts.LoadBalancers = 3, 3, 4, 4
	opts.NetworkFunctions = true
	var all strings.Builder
	for seed := range int64(50) {
		all.WriteString(RandomTopology(seed, opts))
	}
	text := all.String()
	for name, re := range map[string]string{
		"monitor addresses":   `options:svc_monitor_ip_dst=169\.254\.100\.2`,
		"group":               `create Network_Function_Group name=nfg\d+ id=\d+ mode=inline`,
		"fail-open":           `fallback=fail-open`,
		"fail-close":          `fallback=fail-close`,
		"two functions":       `network_function=@nf\d+,@nf\d+`,
		"group without any":   `mode=inline( fallback=\S+)?\s`,
		"health check":        `health_check=@hcnf\d+`,
		"function ports":      `create Logical_Switch_Port name=nf\d+-in options:is-nf=true options:nf-linked-port=nf\d+-out`,
		"allow-related + nfg": `action=allow-related[^\n]* network_function_group=@nfg`,
		"drop + nfg":          `action=drop[^\n]* network_function_group=@nfg`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no %s (%s) in 50 topologies", name, re)
		}
	}
}

// TestRandomTopology2603Shapes checks that the generator, with 26.03's
// load balancer features and dynamic routing, writes every shape
// addLB2603Options, remoteZone, addSecondGatewayPort, addSwitchEVPN and
// addRouterDynamicRouting promise over a hundred seeds (a remote IPv6
// backend is rare).
func TestRandomTopology2603Shapes(t *testing.T) {
	opts := DefaultTopology()
	opts.AddressSets, opts.PortGroups, opts.ACLs, opts.LoadBalancers = 3, 3, 4, 4
	opts.LB2603, opts.DynamicRouting = true, true
	var all strings.Builder
	for seed := range int64(100) {
		all.WriteString(RandomTopology(seed, opts))
	}
	text := all.String()
	for name, re := range map[string]string{
		"stateless NAT":                  `create Load_Balancer [^\n]*options:use_stateless_nat=true`,
		"distributed":                    `set Load_Balancer lb\d+ options:distributed=true`,
		"mapping to a port alone":        `ip_port_mappings:"[^"]+"="sw\d+-p\d+"'`,
		"IPv6 mapping, bracketed source": `ip_port_mappings:"\[fd00:[0-9a-f:]+\]"="sw\d+-p\d+:\[fd00:[0-9a-f]+::fe\]"'`,
		"remote backend":                 `ip_port_mappings:"[^"]+"="[^"]+:10\.\d+\.0\.254:az[12]"`,
		"remote IPv6 backend":            `ip_port_mappings:"[^"]+"="[^"]+:\[fd00:[0-9a-f]+::fe\]:az[12]"`,
		"second gateway port":            `lrp-set-gateway-chassis \S+ gw1 20`,
		"dynamic routing":                `set Logical_Router lr\d+ options:dynamic-routing=true`,
		"redistribute alone":             `set Logical_Router lr\d+ options:dynamic-routing-redistribute=`,
		"connected":                      `dynamic-routing-redistribute=connected[,\s]`,
		"static":                         `dynamic-routing-redistribute=\S*static`,
		"nat":                            `dynamic-routing-redistribute=\S*nat`,
		"lb":                             `dynamic-routing-redistribute=\S*lb`,
		"connected-as-host":              `dynamic-routing-redistribute=\S*connected-as-host`,
		"VRF name":                       `options:dynamic-routing-vrf-name=vrf-lr\d+`,
		"no learning":                    `options:dynamic-routing-no-learning=true`,
		"local only":                     `options:dynamic-routing-redistribute-local-only=true`,
		"port redistribute":              `set Logical_Router_Port \S+ options:dynamic-routing-redistribute=`,
		"port name":                      `options:dynamic-routing-port-name=eth\d+`,
		"maintain VRF":                   `options:dynamic-routing-maintain-vrf=true`,
		"EVPN switch":                    `set Logical_Switch sw\d+ other_config:dynamic-routing-vni=10[01] `,
		"VNI out of range":               `other_config:dynamic-routing-vni=16777216`,
		"fdb":                            `other_config:dynamic-routing-redistribute=fdb\s`,
		"ip":                             `other_config:dynamic-routing-redistribute=ip\s`,
		"fdb and ip":                     `other_config:dynamic-routing-redistribute=fdb,ip`,
		"FDB prefer local":               `other_config:dynamic-routing-fdb-prefer-local=true`,
		"ARP prefer local":               `other_config:dynamic-routing-arp-prefer-local=true`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no %s (%s) in 100 topologies", name, re)
		}
	}
}

var datapathNames = regexp.MustCompile(`(?:ls|lr)-add (\S+)`)

// TestRandomTopologyAccepted applies the topologies of seeds 1..20: every
// script runs, northd logs no warning or error about it, every switch and
// router has flows, and the stage names Compare infers are those northd
// writes (external_ids:stage-name).
func TestRandomTopologyAccepted(t *testing.T) {
	t.Parallel()
	ref := Start(t)
	ctx := t.Context()
	for seed := int64(1); seed <= 20; seed++ {
		script := RandomTopology(seed, DefaultTopology())
		lines, err := ref.Run(ctx, script)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, script)
		}
		var want []string
		for _, m := range datapathNames.FindAllStringSubmatch(script, -1) {
			want = append(want, m[1])
		}
		slices.Sort(want)
		if got := datapathsOf(lines); !slices.Equal(got, want) {
			t.Errorf("seed %d: flows on %q, want %q", seed, got, want)
		}
		if names, err := stageNames(ctx, ref); err != nil {
			t.Fatal(err)
		} else {
			var inferred []string
			for _, s := range Compare(lines, nil).Stages {
				inferred = append(inferred, fmt.Sprintf("%s %d %s", s.Pipeline, s.Table, s.Name))
			}
			slices.Sort(inferred)
			if !slices.Equal(inferred, names) {
				t.Errorf("seed %d: Compare's stages\n%q\nnorthd's\n%q", seed, inferred, names)
			}
		}
	}
	log, err := os.ReadFile(ref.Dir() + "/northd.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, "|WARN|") || strings.Contains(l, "|ERR|") {
			t.Errorf("northd: %s", l)
		}
	}
}

// stageNames returns the distinct "PIPELINE TABLE STAGE-NAME" of the SB's
// logical flows, sorted, from the stage-name northd writes in each flow's
// external_ids.
func stageNames(ctx context.Context, ref *Instance) ([]string, error) {
	res, err := ref.transact(ctx, ref.SBRemote(), []any{"OVN_Southbound", map[string]any{
		"op": "select", "table": "Logical_Flow", "where": []any{},
		"columns": []string{"pipeline", "table_id", "external_ids"}}})
	if err != nil {
		return nil, err
	}
	var sel struct{ Rows []row }
	if err := json.Unmarshal(res[0], &sel); err != nil {
		return nil, err
	}
	var p parser
	var names []string
	for _, r := range sel.Rows {
		names = append(names, fmt.Sprintf("%s %s %s", p.str(r, "pipeline"), p.integer(r, "table_id"), p.smap(r, "external_ids")["stage-name"]))
	}
	slices.Sort(names)
	return slices.Compact(names), p.err
}

// TestScriptSteps: a topology's steps are its ovn-nbctl invocations, whole
// and in order, and nothing else.
func TestScriptSteps(t *testing.T) {
	opts := TopologyOptions{Switches: 4, PortsPerSwitch: 5, Routers: 3, RouterPorts: 3, Routes: 2, Policies: 2,
		NATs: 2, AddressSets: 2, PortGroups: 2, ACLs: 3, LoadBalancers: 3}
	for seed := range int64(10) {
		script := RandomTopology(seed, opts)
		var commands strings.Builder
		invocations := 0
		for line := range strings.Lines(script) {
			if !strings.HasPrefix(line, "#") {
				commands.WriteString(line)
			}
			if strings.HasPrefix(line, "ovn-nbctl") {
				invocations++
			}
		}
		steps := ScriptSteps(script)
		if len(steps) != invocations || invocations < 2 {
			t.Fatalf("seed %d: %d steps for %d invocations", seed, len(steps), invocations)
		}
		for i, s := range steps {
			if !strings.HasPrefix(s, "ovn-nbctl ") || strings.Count(s, "ovn-nbctl") != 1 || !strings.HasSuffix(s, "\n") {
				t.Errorf("seed %d: step %d is not one invocation:\n%s", seed, i, s)
			}
		}
		if got := strings.Join(steps, ""); got != commands.String() {
			t.Errorf("seed %d: the steps make\n%s\nthe script\n%s", seed, got, commands.String())
		}
	}
}

// TestRandomTopologyOwnStreams: the 26.03 features drawn from streams of
// their own only add commands, and words to commands (an ACL's samples
// and network function group, a load balancer's options and mappings, a
// remote backend's zone), so that a topology is the one drawn without
// them.
func TestRandomTopologyOwnStreams(t *testing.T) {
	remoteZone := regexp.MustCompile(`:az\d`)
	commands := func(script string) [][]string {
		var cmds [][]string
		for _, step := range ScriptSteps(script) {
			for _, c := range strings.Split(strings.TrimPrefix(step, "ovn-nbctl "), " \\\n  -- ") {
				cmds = append(cmds, strings.Fields(remoteZone.ReplaceAllString(c, "")))
			}
		}
		return cmds
	}
	// within reports whether the words of a are a subsequence of b's.
	within := func(a, b []string) bool {
		i := 0
		for _, w := range b {
			if i < len(a) && w == a[i] {
				i++
			}
		}
		return i == len(a)
	}
	base := TopologyOptions{Switches: 4, PortsPerSwitch: 5, Routers: 3, RouterPorts: 3, Routes: 2, Policies: 2,
		NATs: 2, AddressSets: 2, PortGroups: 2, ACLs: 3, LoadBalancers: 3}
	all := base
	all.ACLSampling, all.NetworkFunctions, all.LB2603, all.DynamicRouting = true, true, true, true
	for seed := range int64(50) {
		without, with := commands(RandomTopology(seed, base)), commands(RandomTopology(seed, all))
		i := 0
		for _, c := range with {
			if i < len(without) && c[0] == without[i][0] && within(without[i], c) {
				i++
			}
		}
		if i < len(without) {
			t.Errorf("seed %d: command %q of the topology without the 26.03 features is not in it with them", seed, without[i])
		}
	}
}
