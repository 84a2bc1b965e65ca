package rules

import (
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/schema"
)

// Rule computes one family of logical flows from the NB relations: it
// joins and filters the relations of nb (see relations.NB for which to
// read) and maps each result to a Flow. The built-in rules are exported
// functions (SwitchPortSecurityFlows, RouterNATFlows, ...), listed by
// Builtin; New adds an embedding program's own rules to them, NewFrom
// builds a program of any list (Builtin less some, plus replacements).
// The package documentation's "Writing a rule" says which relations to
// read, and which priorities to take.
type Rule func(nb *relations.NB) engine.Rel[Flow]

// Program is the northd program: the NB tables as input relations, the
// logical flows as output. Feed NB changes through NB.Apply, call Step, read
// Flows.Delta (the change) or Flows.Contents (the whole set). A flow may be
// on a datapath set, whose members are in DatapathSets; FlowsByDatapath
// lists every flow once per datapath. The program reproduces one release's
// northd (Release): Stages numbers its flows' tables. The live northd's SB
// writer keeps the flows itself: its program's Flows keep nothing
// (engine.Output.DropContents).
type Program struct {
	Circuit *engine.Circuit
	NB      *relations.NB
	Release schema.Release
	Stages  *StageTable
	// Features is the program's SB input: the chassis features, all
	// supported until Set otherwise (relations.FeaturesOf).
	Features     *relations.FeatureInput
	Flows        *engine.Output[Flow]
	DatapathSets *engine.Output[DatapathSetMember]
	// The other SB rows northd owns (sb_*.go).
	Datapaths       *engine.Output[Datapath]
	PortBindings    *engine.Output[PortBinding]
	MulticastGroups *engine.Output[MulticastGroup]
	// MulticastGroupMembers are the groups' ports.
	MulticastGroupMembers *engine.Output[MulticastGroupMember]
	Meters                *engine.Output[Meter]
	DNS                   *engine.Output[DNS]
	TemplateVars          *engine.Output[TemplateVar]
	Mirrors               *engine.Output[Mirror]
	PortMirrors           *engine.Output[PortMirror]
	IPMulticast           *engine.Output[IPMulticast]
	StaticMACBindings     *engine.Output[StaticMACBinding]
	BFDs                  *engine.Output[BFD]
	// ACLIDs are the NB _uuids of the ACLs with an SB ACL_ID row
	// (sb_acl_ids.go).
	ACLIDs *engine.Output[string]
	// UsedBFDs are the NB BFD rows that static routes and reroute policies
	// use (their NB status follows: relations.NB.UsedBFDs).
	UsedBFDs *engine.Output[string]
	// NetworkFunctionsActive are the network function groups' active
	// functions, which northd writes to the NB (network_function_active).
	NetworkFunctionsActive *engine.Output[NetworkFunctionActive]
	// AgingThresholds are the routers' MAC binding and the switches' FDB
	// aging thresholds (sb_aging.go).
	AgingThresholds *engine.Output[AgingThreshold]
	// AdvertisedRoutes are the routes dynamic routing advertises
	// (sb_advertised_routes.go).
	AdvertisedRoutes *engine.Output[AdvertisedRoute]
	// AdvertisedMACBindings are the IP neighbours EVPN advertises
	// (sb_advertised_mac_bindings.go).
	AdvertisedMACBindings *engine.Output[AdvertisedMACBinding]
	// ECMPNexthops are the next hops of the symmetric-reply routes
	// (sb_ecmp_nexthops.go).
	ECMPNexthops *engine.Output[ECMPNexthop]
	// RouteLearningPorts are the ports whose Learned_Route rows northd
	// keeps (sb_learned_routes.go).
	RouteLearningPorts *engine.Output[RouteLearningPort]
	// Address_Set and Port_Group rows and their members (ovsdb/sbwriter/sets.go),
	// Load_Balancer and Service_Monitor rows (sb_load_balancers.go).
	AddressSets       *engine.Output[SBNamedSet]
	AddressSetMembers *engine.Output[SBSetMember]
	PortGroups        *engine.Output[SBNamedSet]
	PortGroupMembers  *engine.Output[SBSetMember]
	LoadBalancers     *engine.Output[SBLoadBalancer]
	ServiceMonitors   *engine.Output[SBServiceMonitor]
	// HA_Chassis_Group rows, the port bindings that refer to them and the
	// switches whose bound chassis are their ref_chassis (ovsdb/sbwriter/ha.go).
	HAChassisGroups *engine.Output[HAChassisGroup]
	HAGroupPorts    *engine.Output[HAGroupPort]
	HARefSwitches   *engine.Output[HARefSwitch]
	// Diagnostics are the lines northd logs about the NB's configuration
	// (relations.Diagnostic): a live northd logs each as it appears.
	Diagnostics *engine.Output[relations.Diagnostic]
}

// builtinRules are the flow families ovn-northd writes: each group is
// listed in the file of its first stage. A family that changed between
// releases picks its variant by nb.Release (see doc.go).
var builtinRules = slices.Concat(
	switchPortRules,     // ls_port_security.go: port security, FDB, ARP/ND, L2 lookup
	switchStatefulRules, // ls_acl.go: ACL, QoS, LB, hairpin and stateful stages; DHCP, DNS
	routerRules,         // lr_admission.go: the router pipeline
	loadBalancerRules,   // ls_lb_vips.go: load balancer VIPs on switches and routers
	routerNATRules,      // lr_nat.go: gateway routers, distributed gateway ports, NAT
)

// datapathSets are the datapath sets the built-in rules write flows on.
var datapathSets = []func(*relations.NB) engine.Rel[DatapathSetMember]{
	SwitchLBSets, // ls_lb_vips.go
	RouterLBSets, // lr_lb.go
}

// RuleName is a rule's name: its function's, without the package
// ("SwitchPortSecurityFlows").
func RuleName(r Rule) string {
	name := runtime.FuncForPC(reflect.ValueOf(r).Pointer()).Name()
	return name[strings.LastIndex(name, ".")+1:]
}

// Builtin is the built-in rules (the flow families ovn-northd 23.03
// writes), less those named in except (RuleName). A name that is no
// built-in rule is an error, so that a rule renamed in a later version is
// noticed rather than left in.
func Builtin(except ...string) ([]Rule, error) {
	skip := map[string]bool{}
	for _, name := range except {
		skip[name] = true
	}
	var out []Rule
	for _, r := range builtinRules {
		if name := RuleName(r); skip[name] {
			delete(skip, name)
		} else {
			out = append(out, r)
		}
	}
	if len(skip) > 0 {
		return nil, fmt.Errorf("rules: no built-in rule named %s", strings.Join(slices.Sorted(maps.Keys(skip)), ", "))
	}
	return out, nil
}

// New builds the program for OVN 23.03 (NewFor).
func New(extra ...Rule) *Program { return NewFor(schema.OVN2303, extra...) }

// NewFor builds the program that reproduces release r's northd: the
// built-in rules plus extra, whose flows are added to the same output.
func NewFor(r schema.Release, extra ...Rule) *Program {
	return NewFrom(r, slices.Concat(builtinRules, extra)...)
}

// NewFrom builds the program for release r with exactly the rules rs: the
// built-in rules (Builtin) less those an embedding program removes, plus
// its own. The other SB rows (datapaths, port bindings, ...) are always
// computed. A flow on a stage that r does not have is left out: a family
// that r's northd writes elsewhere, or not at all, has no flows there yet;
// so is a flow on an embedding program's stage that the program did not
// place (NewWith).
func NewFrom(r schema.Release, rs ...Rule) *Program { return NewWith(StagesOf(r), rs...) }

// NewWith builds the program with exactly the rules rs whose flows are
// numbered by stage table stages: a release's (StagesOf) with the
// embedding program's own stages placed (StageTable.With). Its flows on
// those stages are written like the built-in ones, with the stage's name;
// the tables the built-in rules' actions name follow the renumbering.
func NewWith(stages *StageTable, rs ...Rule) *Program {
	c := engine.NewCircuit()
	r := stages.Release()
	nb := relations.NewNB(c, r)
	nb.Stages = stages
	var flows []engine.Rel[Flow]
	for _, r := range rs {
		flows = append(flows, r(nb))
	}
	var sets []engine.Rel[DatapathSetMember]
	for _, s := range datapathSets {
		sets = append(sets, s(nb))
	}
	members := engine.Union(sets...)
	written := writtenFlows(nb, stages, flows, members)
	addrSets, addrMembers := SBAddressSets(nb)
	pgs, pgMembers := SBPortGroups(nb)
	mcs, mcMembers := SBMulticastGroups(nb)
	haGroups, haPorts, haRefs := SBHAChassisGroups(nb)
	return &Program{
		Circuit:      c,
		NB:           nb,
		Release:      r,
		Stages:       stages,
		Features:     nb.ChassisFeatures,
		Flows:        engine.NewOutput(written, CompareFlows),
		DatapathSets: engine.NewOutput(members, CompareDatapathSetMembers),

		Datapaths:              engine.NewOutput(SBDatapaths(nb), CompareDatapaths),
		PortBindings:           engine.NewOutput(SBPortBindings(nb), ComparePortBindings),
		MulticastGroups:        engine.NewOutput(mcs, CompareMulticastGroups),
		MulticastGroupMembers:  engine.NewOutput(mcMembers, CompareMulticastGroupMembers),
		Meters:                 engine.NewOutput(SBMeters(nb), CompareMeters),
		DNS:                    engine.NewOutput(SBDNS(nb), CompareDNS),
		TemplateVars:           engine.NewOutput(SBTemplateVars(nb), CompareTemplateVars),
		Mirrors:                engine.NewOutput(SBMirrors(nb), CompareMirrors),
		PortMirrors:            engine.NewOutput(SBPortMirrors(nb), ComparePortMirrors),
		IPMulticast:            engine.NewOutput(SBIPMulticast(nb), CompareIPMulticast),
		StaticMACBindings:      engine.NewOutput(SBStaticMACBindings(nb), CompareStaticMACBindings),
		BFDs:                   engine.NewOutput(SBBFDs(nb), CompareBFDs),
		ACLIDs:                 engine.NewOutput(SBACLIDs(nb), strings.Compare),
		UsedBFDs:               engine.NewOutput(nb.UsedBFDs, strings.Compare),
		NetworkFunctionsActive: engine.NewOutput(NetworkFunctionsActive(nb), CompareNetworkFunctionsActive),
		AgingThresholds:        engine.NewOutput(SBAgingThresholds(nb), CompareAgingThresholds),
		AdvertisedRoutes:       engine.NewOutput(SBAdvertisedRoutes(nb), CompareAdvertisedRoutes),
		AdvertisedMACBindings:  engine.NewOutput(SBAdvertisedMACBindings(nb), CompareAdvertisedMACBindings),
		ECMPNexthops:           engine.NewOutput(SBECMPNexthops(nb), CompareECMPNexthops),
		RouteLearningPorts:     engine.NewOutput(SBRouteLearningPorts(nb), CompareRouteLearningPorts),

		AddressSets:       engine.NewOutput(addrSets, CompareSBNamedSets),
		AddressSetMembers: engine.NewOutput(addrMembers, CompareSBSetMembers),
		PortGroups:        engine.NewOutput(pgs, CompareSBNamedSets),
		PortGroupMembers:  engine.NewOutput(pgMembers, CompareSBSetMembers),
		LoadBalancers:     engine.NewOutput(SBLoadBalancers(nb), CompareSBLoadBalancers),
		ServiceMonitors:   engine.NewOutput(SBServiceMonitors(nb), CompareSBServiceMonitors),

		HAChassisGroups: engine.NewOutput(haGroups, CompareHAChassisGroups),
		HAGroupPorts:    engine.NewOutput(haPorts, CompareHAGroupPorts),
		HARefSwitches:   engine.NewOutput(haRefs, CompareHARefSwitches),

		Diagnostics: engine.NewOutput(nb.Diagnostics(), relations.CompareDiagnostics),
	}
}

// writtenFlows is the flows of the families as northd writes them: those
// on a stage of the release, with the BFD flows of routes added
// (bfdRouteFlows) and the settings that change flows of every family
// applied, drop sampling (withDebugDrops) and CoPP (withControllerMeters).
// Most flows are on a stage of the release and neither drop, punt to the
// controller nor route: those settings leave them as they are, so each
// family's are kept apart from the rest on their own, and only the rest
// go through the settings' operators. A cold start then spends a pass over
// every flow in each family's operators, which run side by side, instead
// of a chain of passes over all of them, one after the other.
func writtenFlows(nb *relations.NB, stages *StageTable, families []engine.Rel[Flow], members engine.Rel[DatapathSetMember]) engine.Rel[Flow] {
	plain := func(f Flow) bool { return !drops(f) && !metered(f) && !routeFlow(f) }
	var out, rest []engine.Rel[Flow]
	for _, flows := range families {
		// One operator splits the family: as the last reader of its
		// change it takes it for the plain flows, the most, and moves
		// the others out (engine.Partition). A change of a family's
		// plain flows alone (a port's) runs no operator of the rest.
		kept, others := engine.Partition(flows, func(f Flow) bool { return stages.Has(f.Stage) && plain(f) })
		rest = append(rest, engine.Filter(others, func(f Flow) bool { return stages.Has(f.Stage) }))
		out = append(out, kept)
	}
	others := engine.Union(rest...)
	others = engine.Union(others, bfdRouteFlows(nb, others))
	return engine.Union(append(out, withControllerMeters(nb, withDebugDrops(nb, others), members))...)
}

// Step computes the consequences of the NB changes fed since the last Step.
// It returns the NB rows the rules rejected (malformed values), which
// contributed no flows; everything else was applied.
func (p *Program) Step() []*engine.Rejected {
	return p.Circuit.Step()
}

// FlowsByDatapath is the flows with every flow on a datapath set written
// once per member (FlowsByDatapath).
func (p *Program) FlowsByDatapath() []Flow {
	return FlowsByDatapath(p.Flows.Contents(), p.DatapathSets.Contents())
}

// FlowsOnEachDatapath is the flows as FlowsOnEachDatapath lists them.
func (p *Program) FlowsOnEachDatapath() []Flow {
	return FlowsOnEachDatapath(p.Flows.Contents(), p.DatapathSets.Contents())
}
