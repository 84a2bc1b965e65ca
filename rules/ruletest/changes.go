package ruletest

import (
	"fmt"
	"maps"
	"slices"
)

// A Group is a family of random NB changes, each reaching the inputs of
// some flows. A change's name is its group's, a slash, and its own:
// "router/addRoute".
type Group string

// The groups of changes.
const (
	// Topology adds and deletes switches, their ports, routers and
	// router ports, and rewrites port addresses.
	Topology Group = "topology"
	// SwitchPorts changes port types and options, router links, NAT rules,
	// gateway ports, switch and global options, dynamic addresses and
	// forwarding groups: the facts the switch port rules read.
	SwitchPorts Group = "switch-ports"
	// Routers changes router and router port options and networks, peers,
	// static routes and policies.
	Routers Group = "router"
	// NAT adds and removes NAT rules, changes their options and the
	// router settings they depend on, and moves gateway chassis.
	NAT Group = "nat"
	// LoadBalancers changes load balancers, their groups, health checks,
	// and the options the load balancer flows read.
	LoadBalancers Group = "lb"
	// ACLs changes ACLs, port groups, address sets, DHCP options, DNS,
	// QoS and NB_Global options: the inputs of the switch conntrack, DHCP
	// and DNS stages.
	ACLs Group = "acl"
	// DuplicatePorts makes port names claimed twice and datapaths whose
	// _uuid hashes to varied buckets.
	DuplicatePorts Group = "duplicate-ports"
	// IGMP learns and forgets SB IGMP_Group entries.
	IGMP Group = "igmp"
	// Features flips the SB chassis features.
	Features Group = "features"
	// SBRows changes the rows the SB Meter, DNS, Chassis_Template_Var,
	// Mirror, Port_Binding mirror_rules and IP_Multicast outputs read.
	SBRows Group = "sb-rows"
	// HA changes gateway chassis, HA chassis groups and what refers to
	// them, remote chassis and the router ports that request them. Its
	// changes use the rows HASetup makes.
	HA Group = "ha"
	// Sampling changes ACL sampling's collectors, samples, the ACLs'
	// samples and the sampling applications (26.03's NB).
	Sampling Group = "sampling"
	// NetworkFunctions changes network functions, their groups and health
	// checks, the ACLs that use them and the SB monitors' status (26.03's
	// NB).
	NetworkFunctions Group = "network-functions"
	// DynamicRouting changes the routers' dynamic routing options and the
	// SB Learned_Route rows (26.03).
	DynamicRouting Group = "dynamic-routing"
	// Mirrors changes lport mirrors, their Mirror_Rules and the ports
	// attached to them (26.03's NB).
	Mirrors Group = "mirrors"
)

var groups = map[Group]map[string]Change{
	Topology:         topologyChanges,
	SwitchPorts:      switchPortChanges,
	Routers:          routerChanges,
	NAT:              natChanges,
	LoadBalancers:    lbChanges,
	ACLs:             aclChanges,
	DuplicatePorts:   duplicatePortChanges,
	IGMP:             igmpChanges,
	Features:         featureChanges,
	SBRows:           sbRowChanges,
	HA:               haChanges,
	Sampling:         samplingChanges,
	NetworkFunctions: nfChanges,
	DynamicRouting:   dynamicRoutingChanges,
	Mirrors:          mirrorChanges,
}

// Groups are all the groups, sorted.
func Groups() []Group { return slices.Sorted(maps.Keys(groups)) }

// Changes are the changes of the groups given, or with none of every
// group, by name.
func Changes(gs ...Group) map[string]Change {
	if len(gs) == 0 {
		gs = Groups()
	}
	out := map[string]Change{}
	for _, g := range gs {
		for name, c := range groups[g] {
			out[string(g)+"/"+name] = c
		}
	}
	return out
}

// Select is the changes named ("topology/addSwitch"), added to those of
// the groups gs. It panics on a name no change has, a mistake in the
// test that calls it.
func Select(gs []Group, names ...string) map[string]Change {
	all, out := Changes(), Changes(gs...)
	for _, name := range names {
		c, ok := all[name]
		if !ok {
			panic(fmt.Sprintf("ruletest: no change named %q", name))
		}
		out[name] = c
	}
	return out
}
