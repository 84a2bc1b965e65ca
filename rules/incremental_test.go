package rules_test

import (
	"testing"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/northlog/northlog/rules/ruletest"
)

// The property tests of the program, on the public test kit: random NB
// changes, several per step; after every step the outputs maintained
// incrementally equal a full recompute of the current NB, and each step's
// delta is exactly the difference from the previous contents.

// TestIncrementalEqualsRecompute draws from every group of NB changes.
func TestIncrementalEqualsRecompute(t *testing.T) {
	ruletest.Check(t, ruletest.Config{Changes: ruletest.Changes(), Steps: 12, ChangesPerStep: 4})
}

// topology is what most of the tests below build on.
var topology = []string{"topology/addSwitch", "topology/addRouter", "topology/addRouterPort", "topology/delRouter"}

// TestRouterIncrementalEqualsRecompute is restricted to the changes that
// build routers, their ports, peers, routes and policies, so that random
// sequences reach the interesting states (a route resolved through a port
// that then goes away, an ECMP group that loses a member) often.
func TestRouterIncrementalEqualsRecompute(t *testing.T) {
	ruletest.Check(t, ruletest.Config{Changes: ruletest.Select([]ruletest.Group{ruletest.Routers}, topology...), Steps: 20, ChangesPerStep: 3})
}

// TestNATIncrementalEqualsRecompute is restricted to the changes that build
// routers with gateway ports, switches and NAT rules, so that random
// sequences often reach states such as a NAT rule whose gateway port moves
// or goes away, or two rules sharing an external IP of which the first is
// removed.
func TestNATIncrementalEqualsRecompute(t *testing.T) {
	names := append([]string{"router/setPortNetworks", "router/delRouterPort", "router/connectSwitch", "router/peerRouterPorts"}, topology...)
	ruletest.Check(t, ruletest.Config{Changes: ruletest.Select([]ruletest.Group{ruletest.NAT}, names...), Steps: 20, ChangesPerStep: 3})
}

// TestCTCommitAll2603Incremental: 26.03's program over routers that
// start and stop committing all their traffic (options:ct-commit-all, in
// nat/setRouterNATOptions) as their NAT rules, gateway ports, force-SNAT
// addresses and load balancers, what makes them stateful, come and go,
// and chassis gain and lose the conntrack zone features.
func TestCTCommitAll2603Incremental(t *testing.T) {
	names := append([]string{"router/setPortNetworks", "router/delRouterPort", "router/connectSwitch",
		"acl/addLB", "acl/setVIPs"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.NAT, ruletest.LoadBalancers, ruletest.Features}, names...),
		Steps:   20, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
	})
}

// TestDHCPRelay2603Incremental: 26.03's program over router ports that
// gain and lose DHCP relays (servers missing, with a port, unreadable)
// and switches that name and unname their relay port, as ports, peers
// and networks come and go.
func TestDHCPRelay2603Incremental(t *testing.T) {
	names := append([]string{"router/setDHCPRelay", "router/setSwitchRelayPort", "router/setPortNetworks", "router/delRouterPort",
		"router/connectSwitch", "topology/addPort", "topology/setAddresses"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.Routers}, names...),
		Steps:   20, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
	})
}

// TestLBIncrementalEqualsRecompute is restricted to the load balancer
// changes and those that build switches, routers, their ports and links,
// and NAT rules, so that random sequences often reach states such as a
// load balancer in a group and on a datapath of its own, a group that
// loses its last switch or goes away, a switch that takes its routers'
// load balancers, or a VIP that is a NAT or router port address.
func TestLBIncrementalEqualsRecompute(t *testing.T) {
	names := append([]string{"topology/delSwitch", "router/connectSwitch", "router/setPortNetworks", "nat/addNAT", "nat/delNAT"}, topology...)
	ruletest.Check(t, ruletest.Config{Changes: ruletest.Select([]ruletest.Group{ruletest.LoadBalancers}, names...), Steps: 20, ChangesPerStep: 3})
}

// TestLB2603IncrementalEqualsRecompute is TestLBIncrementalEqualsRecompute
// on 26.03's program, where load balancers may be distributed and their
// routers then stop centralizing their gateway ports.
func TestLB2603IncrementalEqualsRecompute(t *testing.T) {
	names := append([]string{"topology/delSwitch", "router/connectSwitch", "router/setPortNetworks", "nat/addNAT", "nat/delNAT"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.LoadBalancers}, names...), Steps: 20, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
	})
}

// TestStatelessNAT2603Incremental is TestLB2603IncrementalEqualsRecompute
// from StatelessNATSetup's router with two distributed gateway ports and
// rejecting stateless-NAT load balancer, so that its DNAT flows often lose
// or gain their targets, and with them the router CoPP's reject meter.
func TestStatelessNAT2603Incremental(t *testing.T) {
	names := append([]string{"topology/delSwitch", "topology/addPort", "topology/delPort", "router/connectSwitch"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.LoadBalancers}, names...), Steps: 16, ChangesPerStep: 3,
		Setup:   ruletest.StatelessNATSetup,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
	})
}

// TestFeaturesIncrementalEqualsRecompute is restricted to feature flips
// mixed with the changes that build what reads the features (stateful
// ACLs, load balancers, ECMP symmetric routes, NAT), so that a flip often
// meets switches and routers that just gained or lost them.
func TestFeaturesIncrementalEqualsRecompute(t *testing.T) {
	names := append([]string{"topology/delSwitch", "topology/addPort", "acl/addACL", "acl/delACL", "acl/editACL",
		"acl/addPortGroup", "acl/setGroupPorts", "acl/addLB", "acl/setVIPs"}, topology...)
	groups := []ruletest.Group{ruletest.Features, ruletest.Routers, ruletest.NAT}
	ruletest.Check(t, ruletest.Config{Changes: ruletest.Select(groups, names...), Steps: 20, ChangesPerStep: 3})
}

// TestVirtualParentIncremental is restricted to virtual ports, their
// claims by parents (an SB input), ports claimed twice and the switches,
// routers and addresses around them, so that a claim often meets a virtual IP in a router port's
// network, a parent on another switch, or a parent that changes or goes.
func TestVirtualParentIncremental(t *testing.T) {
	names := append([]string{"topology/addPort", "topology/delPort", "topology/setAddresses", "router/connectSwitch", "router/setPortNetworks"}, topology...)
	ruletest.Check(t, ruletest.Config{Changes: ruletest.Select([]ruletest.Group{ruletest.DuplicatePorts}, names...), Steps: 20, ChangesPerStep: 3,
		Setup: ruletest.VirtualPortSetup})
}

// TestSBRowsIncremental: the Meter, DNS, Chassis_Template_Var, Mirror,
// Port_Binding mirror_rules and IP_Multicast outputs.
func TestSBRowsIncremental(t *testing.T) {
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.SBRows}, "topology/addSwitch", "topology/delSwitch", "topology/addPort"),
		Steps:   12, ChangesPerStep: 4,
		Outputs: []ruletest.Output{
			ruletest.OutputOf("Meter", func(p *rules.Program) *engine.Output[rules.Meter] { return p.Meters }),
			ruletest.OutputOf("DNS", func(p *rules.Program) *engine.Output[rules.DNS] { return p.DNS }),
			ruletest.OutputOf("Chassis_Template_Var", func(p *rules.Program) *engine.Output[rules.TemplateVar] { return p.TemplateVars }),
			ruletest.OutputOf("Mirror", func(p *rules.Program) *engine.Output[rules.Mirror] { return p.Mirrors }),
			ruletest.OutputOf("Port_Binding mirror_rules", func(p *rules.Program) *engine.Output[rules.PortMirror] { return p.PortMirrors }),
			ruletest.OutputOf("IP_Multicast", func(p *rules.Program) *engine.Output[rules.IPMulticast] { return p.IPMulticast }),
		},
	})
}

// TestSBHAIncremental: the HA chassis group outputs, over the topology
// (switches, routers, their ports and links).
func TestSBHAIncremental(t *testing.T) {
	names := append([]string{"topology/delSwitch", "topology/addPort", "topology/delPort",
		"router/delRouterPort", "router/connectSwitch", "router/peerRouterPorts"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.HA}, names...),
		Steps:   16, ChangesPerStep: 4,
		Setup: ruletest.HASetup,
		Outputs: []ruletest.Output{
			ruletest.OutputOf("HA_Chassis_Group", func(p *rules.Program) *engine.Output[rules.HAChassisGroup] { return p.HAChassisGroups }),
			ruletest.OutputOf("Port_Binding ha_chassis_group", func(p *rules.Program) *engine.Output[rules.HAGroupPort] { return p.HAGroupPorts }),
			ruletest.OutputOf("ref_chassis switches", func(p *rules.Program) *engine.Output[rules.HARefSwitch] { return p.HARefSwitches }),
		},
	})
}

// TestTransitRouters2603Incremental: 26.03's program over remote chassis
// coming and going and router ports requesting them, with the HA changes
// (gateway routers and chassis, whose ports requesting a chassis stay
// plain) and the topology: the flows (ARP and ND flooded to remote
// chassis) and the bindings (type remote).
func TestTransitRouters2603Incremental(t *testing.T) {
	names := append([]string{"topology/delSwitch", "topology/addPort", "router/delRouterPort", "router/connectSwitch",
		"router/peerRouterPorts", "router/setPortNetworks"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.HA}, names...),
		Steps:   16, ChangesPerStep: 3,
		Setup:   ruletest.HASetup,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
		Outputs: append(ruletest.DefaultOutputs(),
			ruletest.OutputOf("Port_Binding", func(p *rules.Program) *engine.Output[rules.PortBinding] { return p.PortBindings })),
	})
}

// TestSampling2603Incremental: 26.03's program over ACL sampling mixed
// with the ACL changes, so that samples, collectors and applications
// often change under ACLs of every action on switches with and without
// stateful ACLs, chassis come and go that sample from registers, and
// debug drop sampling (NB_Global) meets the drop Sampling_App.
func TestSampling2603Incremental(t *testing.T) {
	names := append([]string{"acl/addACL", "acl/delACL", "acl/editACL", "acl/detachACL", "acl/addPortGroup",
		"acl/setGroupPorts", "acl/addLB", "acl/setGlobal", "topology/addPort"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.Sampling, ruletest.Features}, names...),
		Steps:   20, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
	})
}

// TestACLIDs2603Incremental: 26.03's program over ACLs that start and stop
// persisting established connections (acl/addACL, acl/editACL) as they
// change action, move and go, and chassis that gain and lose
// ct-label-flush: the flows and the ACL_ID output.
func TestACLIDs2603Incremental(t *testing.T) {
	names := append([]string{"acl/addACL", "acl/delACL", "acl/editACL", "acl/detachACL", "acl/addPortGroup",
		"acl/setGroupPorts", "topology/addPort"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.Features}, names...),
		Steps:   20, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
		Outputs: append(ruletest.DefaultOutputs(),
			ruletest.OutputOf("ACL_ID", func(p *rules.Program) *engine.Output[string] { return p.ACLIDs })),
	})
}

// TestNetworkFunctions2603Incremental: 26.03's program over network
// functions mixed with the ACL and switch port changes, so that groups,
// their functions, the functions' ports (children too), health checks and
// their monitors' status change under ACLs of every action on switches
// with and without stateful ACLs.
func TestNetworkFunctions2603Incremental(t *testing.T) {
	names := append([]string{"acl/addACL", "acl/delACL", "acl/editACL", "acl/detachACL", "acl/addPortGroup",
		"acl/setGroupPorts", "topology/addPort", "topology/delPort"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.NetworkFunctions}, names...),
		Steps:   20, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
	})
}

// TestDynamicRouting2603Incremental: 26.03's program under dynamic
// routing changes (routers and ports redistributing, routes learnt and
// withdrawn, learnt ECMP groups, switches in and out of an EVPN domain)
// mixed with those that build routers, their ports, links, networks,
// static routes, NAT rules, gateway ports, load balancers and ACLs, so that learnt routes often meet ports that
// come, go or change networks and routers that stop routing dynamically;
// the flows, advertised routes and MAC bindings, learning ports, datapath
// and port bindings are checked.
func TestDynamicRouting2603Incremental(t *testing.T) {
	names := append([]string{"router/setPortNetworks", "router/delRouterPort", "router/connectSwitch", "router/peerRouterPorts",
		"router/addRoute", "router/delRoute", "topology/addPort", "topology/delPort", "router/setRouterOptions", "acl/addACL",
		"nat/addNAT", "nat/moveGatewayChassis", "lb/lbAdd", "lb/lbAttach", "lb/lbDetach"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.DynamicRouting}, names...),
		Steps:   20, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
		Outputs: append(ruletest.DefaultOutputs(),
			ruletest.OutputOf("Advertised_Route", func(p *rules.Program) *engine.Output[rules.AdvertisedRoute] { return p.AdvertisedRoutes }),
			ruletest.OutputOf("Advertised_MAC_Binding", func(p *rules.Program) *engine.Output[rules.AdvertisedMACBinding] { return p.AdvertisedMACBindings }),
			ruletest.OutputOf("RouteLearningPorts", func(p *rules.Program) *engine.Output[rules.RouteLearningPort] { return p.RouteLearningPorts }),
			ruletest.OutputOf("Datapath_Binding", func(p *rules.Program) *engine.Output[rules.Datapath] { return p.Datapaths }),
			ruletest.OutputOf("Port_Binding", func(p *rules.Program) *engine.Output[rules.PortBinding] { return p.PortBindings })),
	})
}

// TestECMPNexthops2603Incremental: 26.03's program under the router
// changes (ports, networks, peers, static routes, some with
// ecmp_symmetric_reply or an output port) while the next hop monitoring
// goes on and off: the flows and the ECMP_Nexthop rows.
func TestECMPNexthops2603Incremental(t *testing.T) {
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.Routers}, topology...),
		Steps:   20, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
		Outputs: append(ruletest.DefaultOutputs(),
			ruletest.OutputOf("ECMP_Nexthop", func(p *rules.Program) *engine.Output[rules.ECMPNexthop] { return p.ECMPNexthops })),
	})
}

// TestMirror2603Incremental: 26.03's program over lport mirrors, their
// rules and the ports attached, while switches and ports (sinks among
// them) come and go: the flows and the serving ports' bindings.
func TestMirror2603Incremental(t *testing.T) {
	names := append([]string{"topology/addPort", "topology/delPort", "topology/delSwitch"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.Mirrors}, names...),
		Steps:   16, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
		Outputs: append(ruletest.DefaultOutputs(),
			ruletest.OutputOf("Port_Binding", func(p *rules.Program) *engine.Output[rules.PortBinding] { return p.PortBindings })),
	})
}

// TestSwitchPeers2603Incremental: 26.03's program over switches patched
// together by ports of type "switch", whose peers come, go and name
// other ports, while ports change type and addresses (the switch port
// changes) and switches gain ACLs and load balancers: the flows and the
// bindings.
func TestSwitchPeers2603Incremental(t *testing.T) {
	names := append([]string{"topology/addPort", "topology/delPort", "topology/delSwitch", "topology/setAddresses",
		"acl/addACL", "acl/addLB"}, topology...)
	ruletest.Check(t, ruletest.Config{
		Changes: ruletest.Select([]ruletest.Group{ruletest.SwitchPorts}, names...),
		Steps:   16, ChangesPerStep: 3,
		Program: func() *rules.Program { return rules.NewFor(schema.OVN2603) },
		Outputs: append(ruletest.DefaultOutputs(),
			ruletest.OutputOf("Port_Binding", func(p *rules.Program) *engine.Output[rules.PortBinding] { return p.PortBindings })),
	})
}

// TestParallelIncrementalEqualsRecompute runs every step of both
// releases' programs, the incremental one and each recompute, with
// independent operators concurrently (engine.Circuit.ParallelFrom(0)), as
// a cold start's step runs them: the rules' functions must be safe to call
// from several goroutines at once (`go test -race` checks what they share).
func TestParallelIncrementalEqualsRecompute(t *testing.T) {
	for _, r := range []schema.Release{schema.OVN2303, schema.OVN2603} {
		t.Run(r.String(), func(t *testing.T) {
			ruletest.Check(t, ruletest.Config{Changes: ruletest.Changes(), Steps: 12, ChangesPerStep: 4,
				Program: func() *rules.Program {
					p := rules.NewFor(r)
					p.Circuit.ParallelFrom(0)
					return p
				}})
		})
	}
}
