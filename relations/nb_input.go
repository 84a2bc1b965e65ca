package relations

import (
	"fmt"
	"reflect"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/ovn-org/libovsdb/model"
)

// Table is one NB table inside a circuit. Its tuples are the table's rows as
// pointers to libovsdb models, which are immutable once fed: a row update
// replaces the pointer (a retract of the old row and an insert of the new),
// as DDlog's interned `&nb::Table` references did.
type Table[M any] struct {
	in *engine.Input[*M]
	// Rows is the table's current contents.
	Rows engine.Rel[*M]
	// byUUID is Rows arranged by _uuid once ByUUID is asked for.
	byUUID *engine.Index[string, *M]
	uuid   func(*M) string
}

func newTable[M any, PM interface {
	*M
	GetUUID() string
}](c *engine.Circuit, name string, inputs nbInputs) Table[M] {
	in, rows := engine.NewInput[*M](c, name)
	t := Table[M]{in: in, Rows: rows, byUUID: new(engine.Index[string, *M]),
		uuid: func(row *M) string { return PM(row).GetUUID() }}
	inputs.tables[reflect.TypeFor[*M]()] = name
	inputs.feeds[name] = func(old, new model.Model) error {
		o, n, err := rowsOf[M](name, old, new)
		if err == nil {
			t.replace(o, n)
		}
		return err
	}
	return t
}

// rowsOf is a row change of table name as its model: o nil for an insert,
// n nil for a delete.
func rowsOf[M any](name string, old, new model.Model) (o, n *M, err error) {
	o, okOld := old.(*M)
	n, okNew := new.(*M)
	if old != nil && !okOld || new != nil && !okNew || old == nil && new == nil {
		return nil, nil, fmt.Errorf("relations: NB table %s fed %T -> %T", name, old, new)
	}
	return o, n, nil
}

// ByUUID is the table's rows arranged by _uuid, one arrangement for every
// rule that joins a reference to the rows it names.
func (t Table[M]) ByUUID() engine.Index[string, *M] {
	return arranged(t.byUUID, t.Rows, t.uuid)
}

// Shared returns build(n), made by the first call with key and returned
// by the later ones: a relation that several rules derive alike is then
// computed, and its arrangements kept, once.
func Shared[T any](n *NB, key string, build func(*NB) T) T {
	if r, ok := n.shared[key].(T); ok {
		return r
	}
	r := build(n)
	if n.shared == nil {
		n.shared = map[string]any{}
	}
	n.shared[key] = r
	return r
}

// arranged returns *memo, made by IndexBy(r, key) on the first call: the
// arrangement every rule reading r by that key shares, made only if one
// does.
func arranged[K, T comparable](memo *engine.Index[K, T], r engine.Rel[T], key func(T) K) engine.Index[K, T] {
	if *memo == (engine.Index[K, T]{}) {
		*memo = engine.IndexBy(r, key)
	}
	return *memo
}

// replace replaces row o by n at the next Step: o nil inserts n, n nil
// deletes o.
func (t Table[M]) replace(o, n *M) {
	switch {
	case o == nil:
		t.in.Insert(n)
	case n == nil:
		t.in.Delete(o)
	default:
		t.in.Update(o, n)
	}
}

// feedWithout makes table name's feed give t each row without the
// columns without clears (in a copy: a fed row is not changed), and each
// row change whole to also, for an input of those columns of its own: a
// change of those columns alone then feeds t nothing, so nothing that reads
// the table runs for it. It keeps the rows it fed by _uuid, to give a row
// whose other columns are unchanged its tuple of before.
func feedWithout[M any, PM interface {
	*M
	GetUUID() string
	Equals(*M) bool
}](t Table[M], name string, inputs nbInputs, without func(*M) *M, also func(o, n *M)) {
	fed := map[string]*M{}
	inputs.feeds[name] = func(old, new model.Model) error {
		o, n, err := rowsOf[M](name, old, new)
		if err != nil {
			return err
		}
		var prev, next *M
		if o != nil {
			prev = fed[PM(o).GetUUID()]
			delete(fed, PM(o).GetUUID())
		}
		if n != nil {
			next = without(n)
			if prev != nil && PM(prev).Equals(next) {
				next = prev
			}
			fed[PM(n).GetUUID()] = next
		}
		if prev != next {
			t.replace(prev, next)
		}
		also(o, n)
		return nil
	}
}

// feed applies one row change to its table's input.
type feed func(old, new model.Model) error

// nbInputs are, per NB table, how a row change is fed to its input and
// which Go type holds its rows.
type nbInputs struct {
	feeds  map[string]feed
	tables map[reflect.Type]string // *nb.LoadBalancer: "Load_Balancer"
	// current is, per table, the rows last fed by _uuid, so that Upsert
	// and Delete need no previous version from the caller.
	current map[string]map[string]model.Model
}

// NB holds one input relation per Northbound table. Feed it with Apply; the
// circuit's next Step computes the consequences.
type NB struct {
	// Release is the OVN release whose northd the rules reproduce: the
	// stage table they number flows by and the variants of the flow
	// families that changed between releases (rules/doc.go).
	Release schema.Release
	// Stages is the stage table of the program that reads NB (a
	// *rules.StageTable: Release's, with an embedding program's own
	// stages), set when the program is built; rules.StagesFor reads it.
	Stages any
	// Circuit is the circuit the NB inputs feed: a rule adds inputs of its
	// own there (engine.NewInput), which engine.InputOf finds again.
	Circuit *engine.Circuit

	Global                   Table[nb.NBGlobal]
	Switches                 Table[nb.LogicalSwitch]     // without the columns of Refs: SwitchPortsLength
	SwitchPorts              Table[nb.LogicalSwitchPort] // without up: SwitchPortsUp
	Routers                  Table[nb.LogicalRouter]
	RouterPorts              Table[nb.LogicalRouterPort]
	StaticRoutes             Table[nb.LogicalRouterStaticRoute]
	Policies                 Table[nb.LogicalRouterPolicy]
	NATs                     Table[nb.NAT]
	ACLs                     Table[nb.ACL]
	AddressSets              Table[nb.AddressSet]
	PortGroups               Table[nb.PortGroup]
	LoadBalancers            Table[nb.LoadBalancer]
	LoadBalancerGroups       Table[nb.LoadBalancerGroup]
	LoadBalancerChecks       Table[nb.LoadBalancerHealthCheck]
	DHCPOptions              Table[nb.DHCPOptions]
	DHCPRelayRows            Table[nb.DHCPRelay] // 26.03
	DNS                      Table[nb.DNS]
	GatewayChassis           Table[nb.GatewayChassis]
	HAChassisGroups          Table[nb.HAChassisGroup]
	HAChassis                Table[nb.HAChassis]
	Meters                   Table[nb.Meter]
	MeterBands               Table[nb.MeterBand]
	StaticMACBindings        Table[nb.StaticMACBinding]
	QoS                      Table[nb.QoS]
	ForwardingGroups         Table[nb.ForwardingGroup]
	BFD                      Table[nb.BFD]
	Copp                     Table[nb.Copp]
	Mirrors                  Table[nb.Mirror]
	MirrorRules              Table[nb.MirrorRule] // 26.03
	ChassisTemplateVars      Table[nb.ChassisTemplateVar]
	Samples                  Table[nb.Sample]                       // 26.03
	SampleCollectors         Table[nb.SampleCollector]              // 26.03
	SamplingAppRows          Table[nb.SamplingApp]                  // 26.03
	NetworkFunctionRows      Table[nb.NetworkFunction]              // 26.03
	NetworkFunctionGroupRows Table[nb.NetworkFunctionGroup]         // 26.03
	NetworkFunctionChecks    Table[nb.NetworkFunctionHealthCheck]   // 26.03
	SwitchPortChecks         Table[nb.LogicalSwitchPortHealthCheck] // 26.03

	// SwitchPortsUp are the _uuid of the switch ports whose up column is
	// true, which SwitchPorts' rows leave out (nb_columns.go).
	SwitchPortsUp engine.Rel[string]
	// SwitchPortsLength is, by switch _uuid, the length of its ports
	// column, which Switches' rows leave out with the other columns that
	// Refs holds (nb_columns.go).
	SwitchPortsLength engine.Rel[engine.KV[string, int]]

	// MonitorsDown are the service monitors that are down, fed from the
	// SB with SetMonitorDown (sb_input.go).
	MonitorsDown engine.Rel[ServiceMonitorKey]
	monitorsDown *engine.Input[ServiceMonitorKey]
	// MonitorsOnline are the service monitors that are online, fed from
	// the SB with SetMonitorOnline (sb_input.go).
	MonitorsOnline engine.Rel[ServiceMonitorKey]
	monitorsOnline *engine.Input[ServiceMonitorKey]
	// IGMPEntries are the ports of the SB IGMP_Group rows, fed with
	// SetIGMPEntry (sb_input.go).
	IGMPEntries engine.Rel[IGMPEntry]
	igmpEntries *engine.Input[IGMPEntry]
	// VirtualParents are the virtual ports their parents claim, fed from
	// the SB with SetVirtualParent (sb_input.go).
	VirtualParents engine.Rel[VirtualParent]
	virtualParents *engine.Input[VirtualParent]
	// LearnedRouteRows are the SB Learned_Route rows, fed with
	// SetLearnedRoute (sb_input.go).
	LearnedRouteRows engine.Rel[LearnedRoute]
	learnedRoutes    *engine.Input[LearnedRoute]
	// BoundQueueIDs are the qdisc_queue_ids the switch ports' SB bindings
	// hold, fed with SetBoundQueueID (sb_input.go).
	BoundQueueIDs engine.Rel[BoundQueueID]
	boundQueueIDs *engine.Input[BoundQueueID]
	// RemoteChassisNames are the names under which northd finds a remote
	// SB Chassis, fed with SetRemoteChassisName (sb_input.go).
	RemoteChassisNames engine.Rel[string]
	remoteChassisNames *engine.Input[string]

	Refs Refs // the elements of large set columns (refs.go)

	// Features holds one tuple, the chassis features flows may rely on
	// (features.go). It is SB input, not an NB table: ChassisFeatures sets
	// it, where the release reads the chassis' features.
	Features        engine.Rel[Features]
	ChassisFeatures *FeatureInput
	featuresByOne   engine.Index[struct{}, Features] // for WithFeatures

	// Derived relations that many rules share, each computed once.
	SwitchDatapaths engine.Rel[Switch]
	RouterDatapaths engine.Rel[Router]
	// ListedSwitchPorts are the switch ports as the switches' ports columns
	// list them; PortsOnSwitches those northd binds (derived_ports.go): a
	// name claimed twice is bound once.
	ListedSwitchPorts engine.Rel[SwitchPort]
	PortsOnSwitches   engine.Rel[SwitchPort]
	// portsOnSwitchesByName and enabledPortsByName are PortsOnSwitches
	// arranged by port name (PortsOnSwitchesByName, EnabledPortsByName).
	portsOnSwitchesByName, enabledPortsByName engine.Index[string, SwitchPort]
	// portsOnSwitchesByType is PortsOnSwitches split by port type
	// (PortsOnSwitchesOfType).
	portsOnSwitchesByType *engine.Split[string, SwitchPort]
	// PortsOnRouters are the router ports as the routers' ports columns list
	// them; LRPs those northd binds.
	PortsOnRouters engine.Rel[RouterPort]

	SwitchACLs     engine.Rel[SwitchACL]      // derived_acl.go
	SwitchACLFacts engine.Rel[SwitchACLFacts] // derived_acl.go
	// ACL sampling (derived_sampling.go; none before 26.03).
	ACLSamplings engine.Rel[ACLSampling]
	SamplingApps engine.Rel[SamplingApps]
	// Network functions (derived_nf.go; none before 26.03).
	NetworkFunctions      engine.Rel[NetworkFunction]
	NetworkFunctionGroups engine.Rel[NetworkFunctionGroup]
	NetworkFunctionACLs   engine.Rel[NetworkFunctionACL]
	SwitchPortDHCP        engine.Rel[PortDHCP]       // derived_dhcp.go
	ListedPortDHCP        engine.Rel[ListedPortDHCP] // derived_dhcp.go
	// DHCP relay (derived_dhcp_relay.go; none before 26.03).
	DHCPRelays    engine.Rel[DHCPRelay]
	RelaySwitches engine.Rel[RelaySwitch]

	// Router datapaths, ports and peers (derived_router.go).
	RouterConfigs  engine.Rel[RouterConfig]
	LRPs           engine.Rel[LRP]
	LRPsByName     engine.Index[string, LRP]
	LRPSwitchPeers engine.Rel[LRPSwitchPeer]
	LRPRouterPeers engine.Rel[LRPRouterPeer]
	LRPGatewayMTUs engine.Rel[LRPGatewayMTU]
	// TransitPorts are the transit routers' remote ports, TransitRouters
	// their routers' _uuid (none before 26.03).
	TransitPorts   engine.Rel[TransitPort]
	TransitRouters engine.Rel[string]
	// LRPRedistributes are the router ports' dynamic routing
	// redistribution (derived_dynamic_routing.go; none before 26.03).
	LRPRedistributes engine.Rel[LRPRedistribute]
	// LearnedRoutes are the learnt routes northd routes by
	// (derived_dynamic_routing.go).
	LearnedRoutes engine.Rel[LearnedRouteVia]
	// LearnedRouteSlots place them in ECMP groups.
	LearnedRouteSlots engine.Rel[LearnedRouteSlot]
	RouterRoutes      engine.Rel[RouterRoute] // derived_routes.go
	Routes            engine.Rel[StaticRoute]
	RouteSlots        engine.Rel[StaticRouteSlot]
	// UsedBFDs are the NB BFD rows (_uuid) that a static route or a
	// reroute policy uses to check its next hop.
	UsedBFDs       engine.Rel[string]
	RouteTableIDs  engine.Rel[RouteTableID]
	RouterPolicies engine.Rel[RouterPolicy]
	PolicyNexthops engine.Rel[PolicyNexthop]
	// datapathMasks are the bucket masks of northd's datapath tables, whose
	// walk orders what northd numbers across datapaths.
	datapathMasks engine.Rel[claimMasks]

	// Switch ports and switch-level facts (derived_switch.go).
	LSPs                    engine.Rel[LSP]
	lspsByName              engine.Index[string, LSP]  // LSPsByName
	lspsByType              *engine.Split[string, LSP] // LSPsOfType
	nonRouterLSPsByName     engine.Index[string, LSP]  // NonRouterLSPsByName
	SwitchesWithUnknown     engine.Rel[string]
	SwitchesWithLocalnet    engine.Rel[string]
	SwitchesOnlyRouterPorts engine.Rel[string]
	SwitchMcast             engine.Rel[SwitchMcast]
	CheckLSPIsUp            engine.Rel[struct{}]
	LSPDynamicAddrs         engine.Rel[LSPDynamic]
	// SwitchPeers are the ports of type "switch" whose peer is a port of
	// that type naming them back (none before 26.03).
	SwitchPeers engine.Rel[SwitchPeer]
	// QueueIDs are the qdisc_queue_ids of the switch ports' bindings
	// (derived_queues.go).
	QueueIDs       engine.Rel[QueueID]
	queueIDsByPort engine.Index[string, QueueID] // QueueIDsByPort

	// Groups learnt through IGMP/MLD snooping (derived_igmp.go).
	IGMPGroups       engine.Rel[IGMPGroup] // on switches, and relayed on routers
	IGMPGroupPorts   engine.Rel[IGMPPort]
	IGMPMrouterPorts engine.Rel[IGMPPort] // Group is IGMPMrouters

	// Load balancers (derived_lb.go). They apply to datapaths through
	// scopes (LBScope): a load balancer to its scopes, each scope to its
	// switches and routers.
	LBGlobal            engine.Rel[LBGlobalOptions]
	LoadBalancerConfigs engine.Rel[LoadBalancer]
	LBVIPs              engine.Rel[LBVIP]
	LBScopes            engine.Rel[LBScope]
	SwitchLBScopes      engine.Rel[ScopeDatapath]
	RouterLBScopes      engine.Rel[ScopeDatapath] // of enabled routers
	RouterLBConfigs     engine.Rel[RouterLBConfig]
	// RouterLBReachableIPs are the VIP addresses a router answers ARP/ND
	// for, RouterLBRoutableIPs those it advertises as routes.
	RouterLBReachableIPs engine.Rel[RouterLBIP]
	RouterLBRoutableIPs  engine.Rel[RouterLBIP]
	// LBMonitorLRPs are the health check sources that are addresses of a
	// router port (26.03).
	LBMonitorLRPs engine.Rel[LBMonitorLRP]
	// RoutersWithDistributedLB are the routers that list a distributed
	// load balancer in their own load_balancer column (26.03).
	RoutersWithDistributedLB engine.Rel[string]
	// The same arranged for the joins that share them: built once.
	LBVIPsByLB              engine.Index[string, LBVIP]
	LBVIPsByIP              engine.Index[string, LBVIP]
	LBScopesByLB            engine.Index[string, LBScope]
	LBScopesByScope         engine.Index[string, LBScope]
	ScopeLBIPs              engine.Index[string, ScopedLBIP] // by scope
	RouterLBScopesByRouter  engine.Index[string, ScopeDatapath]
	RouterLBScopesByScope   engine.Index[string, ScopeDatapath]
	RouterLBConfigsByRouter engine.Index[string, RouterLBConfig]
	routerLBScopesByPair    engine.Index[ScopeDatapath, ScopeDatapath]
	// lbVIPScopes are the scopes with a load balancer with a VIP;
	// switchOwnLBScopes the switches' scopes from their own columns.
	lbVIPScopes       engine.Rel[string]
	switchOwnLBScopes engine.Rel[ScopeDatapath]

	// Gateway routers, distributed gateway ports and NAT
	// (derived_gateway.go, derived_nat.go).
	DGPs           engine.Rel[DGP]
	RouterGateways engine.Rel[RouterGateway]
	RouterNATs     engine.Rel[RouterNAT]
	// ValidNATs are the NAT rules northd keeps for its ARP/ND responders,
	// SNAT addresses and distributed NAT (nat_entry is_valid): in 23.03
	// those with one readable external address, in 26.03 those that pass
	// all its checks (deriveNATRules).
	ValidNATs engine.Rel[RouterNAT]
	// ValidNATRules are, in 26.03, the rules of ValidNATs with the
	// distributed gateway port each applies on (nat_entry l3dgw_port,
	// unset on other routers) and whether it is distributed; 23.03 checks
	// only the rules of routers where NAT applies, NATRules.
	ValidNATRules             engine.Rel[NATRule]
	NATRules                  engine.Rel[NATRule]
	RouterForceSNATs          engine.Rel[RouterForceSNAT]
	RouterSNATIPs             engine.Rel[RouterSNATIP]
	RoutersWithDistributedNAT engine.Rel[string]
	// PeerRedirects are the switch ports that get a chassisredirect port
	// of their own, as the distributed gateway port they peer with has
	// (derivePeerRedirects; none before 26.03).
	PeerRedirects engine.Rel[LRPSwitchPeer]

	nbInputs
	// diagnostics are the relations added with Diagnose.
	diagnostics []engine.Rel[Diagnostic]
	// shared are the relations Shared made, by key.
	shared map[string]any
}

// NewNB adds one input per NB table to c, for rules reproducing release r,
// and makes c's rejections show the NB rows they hold by table, name and
// _uuid (DescribeTuple).
func NewNB(c *engine.Circuit, r schema.Release) *NB {
	f := nbInputs{feeds: map[string]feed{}, tables: map[reflect.Type]string{}, current: map[string]map[string]model.Model{}}
	n := &NB{
		Release:                  r,
		Circuit:                  c,
		Global:                   newTable[nb.NBGlobal](c, nb.NBGlobalTable, f),
		Routers:                  newTable[nb.LogicalRouter](c, nb.LogicalRouterTable, f),
		RouterPorts:              newTable[nb.LogicalRouterPort](c, nb.LogicalRouterPortTable, f),
		StaticRoutes:             newTable[nb.LogicalRouterStaticRoute](c, nb.LogicalRouterStaticRouteTable, f),
		Policies:                 newTable[nb.LogicalRouterPolicy](c, nb.LogicalRouterPolicyTable, f),
		NATs:                     newTable[nb.NAT](c, nb.NATTable, f),
		ACLs:                     newTable[nb.ACL](c, nb.ACLTable, f),
		AddressSets:              newTable[nb.AddressSet](c, nb.AddressSetTable, f),
		PortGroups:               newTable[nb.PortGroup](c, nb.PortGroupTable, f),
		LoadBalancers:            newTable[nb.LoadBalancer](c, nb.LoadBalancerTable, f),
		LoadBalancerGroups:       newTable[nb.LoadBalancerGroup](c, nb.LoadBalancerGroupTable, f),
		LoadBalancerChecks:       newTable[nb.LoadBalancerHealthCheck](c, nb.LoadBalancerHealthCheckTable, f),
		DHCPOptions:              newTable[nb.DHCPOptions](c, nb.DHCPOptionsTable, f),
		DHCPRelayRows:            newTable[nb.DHCPRelay](c, nb.DHCPRelayTable, f),
		DNS:                      newTable[nb.DNS](c, nb.DNSTable, f),
		GatewayChassis:           newTable[nb.GatewayChassis](c, nb.GatewayChassisTable, f),
		HAChassisGroups:          newTable[nb.HAChassisGroup](c, nb.HAChassisGroupTable, f),
		HAChassis:                newTable[nb.HAChassis](c, nb.HAChassisTable, f),
		Meters:                   newTable[nb.Meter](c, nb.MeterTable, f),
		MeterBands:               newTable[nb.MeterBand](c, nb.MeterBandTable, f),
		StaticMACBindings:        newTable[nb.StaticMACBinding](c, nb.StaticMACBindingTable, f),
		QoS:                      newTable[nb.QoS](c, nb.QoSTable, f),
		ForwardingGroups:         newTable[nb.ForwardingGroup](c, nb.ForwardingGroupTable, f),
		BFD:                      newTable[nb.BFD](c, nb.BFDTable, f),
		Copp:                     newTable[nb.Copp](c, nb.CoppTable, f),
		Mirrors:                  newTable[nb.Mirror](c, nb.MirrorTable, f),
		MirrorRules:              newTable[nb.MirrorRule](c, nb.MirrorRuleTable, f),
		ChassisTemplateVars:      newTable[nb.ChassisTemplateVar](c, nb.ChassisTemplateVarTable, f),
		Samples:                  newTable[nb.Sample](c, nb.SampleTable, f),
		SampleCollectors:         newTable[nb.SampleCollector](c, nb.SampleCollectorTable, f),
		SamplingAppRows:          newTable[nb.SamplingApp](c, nb.SamplingAppTable, f),
		NetworkFunctionRows:      newTable[nb.NetworkFunction](c, nb.NetworkFunctionTable, f),
		NetworkFunctionGroupRows: newTable[nb.NetworkFunctionGroup](c, nb.NetworkFunctionGroupTable, f),
		NetworkFunctionChecks:    newTable[nb.NetworkFunctionHealthCheck](c, nb.NetworkFunctionHealthCheckTable, f),
		SwitchPortChecks:         newTable[nb.LogicalSwitchPortHealthCheck](c, nb.LogicalSwitchPortHealthCheckTable, f),
		nbInputs:                 f,
	}
	n.Switches, n.SwitchPortsLength = newSwitchTable(c, f)
	n.SwitchPorts, n.SwitchPortsUp = newSwitchPortTable(c, f)
	c.DescribeTuples(n.DescribeTuple)
	n.ChassisFeatures, n.Features = newFeatureInput(c)
	n.Features = withIgnoredChassisFeatures(n, engine.Map(n.Features, func(f Features) Features { return f.ReadFor(r) }))
	n.featuresByOne = engine.IndexBy(n.Features, func(Features) struct{} { return struct{}{} })
	n.monitorsDown, n.MonitorsDown = newMonitorsDown(c)
	n.monitorsOnline, n.MonitorsOnline = newMonitorsOnline(c)
	n.igmpEntries, n.IGMPEntries = newIGMPEntries(c)
	n.virtualParents, n.VirtualParents = newVirtualParents(c)
	n.learnedRoutes, n.LearnedRouteRows = newLearnedRoutes(c)
	n.boundQueueIDs, n.BoundQueueIDs = engine.NewInput[BoundQueueID](c, "SB Port_Binding qdisc_queue_id")
	n.remoteChassisNames, n.RemoteChassisNames = engine.NewInput[string](c, "SB Chassis remote")
	n.Refs = newRefs(c, n)
	n.deriveLBScopeRelations()
	n.SwitchDatapaths = deriveSwitches(n)
	n.RouterDatapaths = deriveRouters(n)
	n.ListedSwitchPorts = deriveSwitchPorts(n)
	n.PortsOnRouters = deriveRouterPorts(n)
	n.RouterConfigs = deriveRouterConfigs(n)
	n.deriveBoundPorts()
	n.SwitchACLs = deriveSwitchACLs(n)
	n.SwitchACLFacts = deriveSwitchACLFacts(n)
	n.ACLSamplings = deriveACLSamplings(n)
	n.SamplingApps = deriveSamplingApps(n)
	n.NetworkFunctions = deriveNetworkFunctions(n)
	n.NetworkFunctionGroups = deriveNetworkFunctionGroups(n)
	n.NetworkFunctionACLs = deriveNetworkFunctionACLs(n)
	n.deriveRouterRelations()
	n.deriveSwitchRelations()
	n.deriveGatewayRelations()
	n.deriveLBRelations()
	n.SwitchPortDHCP = deriveSwitchPortDHCP(n)
	n.ListedPortDHCP = deriveListedPortDHCP(n)
	n.DHCPRelays = deriveDHCPRelays(n)
	n.RelaySwitches = deriveRelaySwitches(n)
	return n
}

// Apply feeds one NB row change: old == nil inserts new, new == nil deletes
// old, both set replace old by new. Rows of tables the rules do not read
// (Connection, SSL) are ignored.
func (n *NB) Apply(table string, old, new model.Model) error {
	f, ok := n.feeds[table]
	if !ok {
		return nil
	}
	if err := f(old, new); err != nil {
		return err
	}
	rows := n.current[table]
	if rows == nil {
		rows = map[string]model.Model{}
		n.current[table] = rows
	}
	if old != nil {
		delete(rows, uuidOf(old))
	}
	if new != nil {
		rows[uuidOf(new)] = new
	}
	return nil
}

// uuidOf is a row's _uuid: every NB model has GetUUID.
func uuidOf(row model.Model) string {
	if r, ok := row.(interface{ GetUUID() string }); ok {
		return r.GetUUID()
	}
	return ""
}

// Upsert feeds row as the current version of its _uuid in table: an
// insert when no row of that _uuid was fed, else the replacement of the
// one last fed. The row must not change after: feed a copy to change it.
func (n *NB) Upsert(table string, row model.Model) error {
	if row == nil {
		return fmt.Errorf("relations: NB table %s upserted nil", table)
	}
	return n.Apply(table, n.Row(table, uuidOf(row)), row)
}

// Delete feeds the deletion of the row of table whose _uuid is uuid, if
// one was fed.
func (n *NB) Delete(table, uuid string) error {
	old := n.Row(table, uuid)
	if old == nil {
		return nil
	}
	return n.Apply(table, old, nil)
}

// Row is the row of table whose _uuid is uuid as last fed, or nil.
func (n *NB) Row(table, uuid string) model.Model {
	return n.current[table][uuid]
}
