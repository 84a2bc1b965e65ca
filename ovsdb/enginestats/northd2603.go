package enginestats

import (
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// Northd2603 is ovn-northd 26.03.2's engine (northd/inc-proc-northd.c)
// as a model: its nodes, and for each input with a change handler when
// the handler gives up, from the rows changed and what the handlers of
// the nodes before it tracked.
type Northd2603 struct {
	*Engine
	tracker *Tracker
	it      *Iteration
	nbRow   func(table, uuid string) model.Model

	// nbOptions are global_config's NB_Global options: those northd
	// last wanted the NB to hold.
	nbOptions map[string]string
	// staleSBLBs says an SB Load_Balancer lost a datapath group column
	// behind northd's back, which sync_to_sb_lb finds only on its next
	// recompute.
	staleSBLBs bool
	// staleSBFlows says an SB Logical_Flow lost its datapath group behind
	// northd's back: lflow's next handler of a change finds it and
	// recomputes.
	staleSBFlows bool
	// chassisConfig are the SB Chassis rows' other_config, from which
	// featuresChanged says whether this iteration changed 26.03's
	// chassis features.
	chassisConfig   map[string]map[string]string
	featuresChanged bool
	// syncedVXLAN is the VXLAN mode datapath_sync last recomputed with.
	syncedVXLAN bool
	// sbRows are the SB rows but those of sbSilent2603, for the rows
	// tracked through a reference.
	sbRows map[string]map[string]model.Model
	// lrpByName are the NB router ports' _uuids by name and
	// dynamicRouters the routers with options:dynamic-routing=true, for
	// advertised_route_sync's switches (hostRouteSwitch).
	lrpByName      map[string]string
	dynamicRouters map[string]bool
	// nbTables and sbTables are the databases' table leaves' flags.
	nbTables, sbTables tableChanges
	// heldNB and heldSB are the batches of the iterations that ran no
	// engine (Hold); forceNext says there were such iterations, after
	// which the next run recomputes everything.
	heldNB, heldSB heldChanges
	forceNext      bool

	trk tracked
}

// tracked is what the nodes' handlers tracked in one iteration; a node's
// recompute forgets its part.
type tracked struct {
	global struct{ tracked, optionsChanged bool }
	// The datapaths the datapath nodes saw change (new, updated,
	// deleted), before and after datapath_sync; datapathSync says
	// datapath_sync handled them.
	lsChanges, lrChanges dpChanges
	datapathSync         bool
	syncedLS, syncedLR   dpChanges
	lbData               lbData
	northd               northdTracked
	// lrNat, lrStateful and lsState say those nodes' handlers tracked
	// changes (their *_has_tracked_data).
	lrNat, lrStateful, lsState bool
	// touchedRouters are the routers whose NATs or load balancers
	// changed; vipNats says one of them has a NAT on a load balancer's
	// VIP (lr_stateful's vip_nats_changed).
	touchedRouters []*nb.LogicalRouter
	vipNats        bool
	// portGroupLS says port_group saw a port group's switches change
	// (ls_port_groups_sets_changed).
	portGroupLS bool
}

type dpChanges struct{ new, updated, deleted []*Row }

func (c dpChanges) empty() bool { return len(c.new)+len(c.updated)+len(c.deleted) == 0 }

type lbData struct {
	tracked bool
	// lbs says a load balancer was created, updated or deleted; groupLBs
	// says a group gained or lost members; routerLBs says one of them is
	// a router's.
	lbs                                          bool
	groupLBs                                     bool
	routerLBs, switchLBs                         bool
	healthChecks, unlinked, groupDeleted, odGone bool
	// routable says one of them has add_route (has_routable_lb).
	routable bool
}

type northdTracked struct {
	ports, lbs, lrNats, lsLBs, lsACLs, switches, routers bool
	switchesDeleted, routersDeleted                      bool
	// portSwitches are the switches of the ports tracked (trk_lsps).
	portSwitches []string
}

func (t northdTracked) any() bool {
	return t.ports || t.lbs || t.lrNats || t.lsLBs || t.lsACLs || t.switches || t.routers
}

// The columns ovn-northd 26.03 does not track (ovn-northd.c: the NB
// external_ids it omits, the NB_Global columns it writes; the SB columns
// it alone writes, omit_alert).
var (
	nbQuiet2603 = map[string]map[string]bool{
		nb.NBGlobalTable:          {"external_ids": true, "nb_cfg_timestamp": true, "sb_cfg": true, "sb_cfg_timestamp": true, "hv_cfg": true, "hv_cfg_timestamp": true},
		nb.LogicalRouterPortTable: {"status": true},
	}
	nbExternalIDsOmitted2603 = []string{
		nb.ACLTable, nb.AddressSetTable, nb.BFDTable, nb.ChassisTemplateVarTable, nb.ConnectionTable,
		nb.CoppTable, nb.DHCPOptionsTable, nb.DHCPRelayTable, nb.DNSTable, nb.ForwardingGroupTable,
		nb.GatewayChassisTable, nb.HAChassisTable, nb.HAChassisGroupTable, nb.LoadBalancerTable,
		nb.LoadBalancerHealthCheckTable, nb.LogicalRouterPolicyTable, nb.LogicalRouterStaticRouteTable,
		nb.MeterTable, nb.MeterBandTable, nb.MirrorTable, nb.NATTable, nb.PortGroupTable, nb.QoSTable,
		nb.SSLTable, nb.SampleCollectorTable, nb.SamplingAppTable,
	}
	sbQuiet2603 = map[string]map[string]bool{
		sb.SBGlobalTable: {"nb_cfg": true, "connections": true, "ssl": true},
	}
	sbSilent2603 = map[string]bool{
		sb.AddressSetTable: true, sb.LogicalFlowTable: true, sb.MulticastGroupTable: true,
		sb.MeterTable: true, sb.PortGroupTable: true, sb.LogicalDPGroupTable: true,
		sb.ECMPNexthopTable: true, sb.ACLIDTable: true, sb.AdvertisedRouteTable: true,
		sb.StaticMACBindingTable: true, sb.AdvertisedMACBindingTable: true,
	}
)

// nbOptionsResynced are the NB_Global options whose change global_config
// does not handle (global_config_nb_global_handler), and whether each
// must be present; nbOptionsForFlows those that change the flows of every
// node that reads global_config (check_nb_options_out_of_sync).
var (
	nbOptionsResynced = map[string]bool{
		"svc_monitor_mac": true, "svc_monitor_mac_dst": true, "svc_monitor_ip": false,
		"svc_monitor_ip_dst": false, "max_tunid": true, "mac_prefix": true,
		"ignore_chassis_features": false, "northd_internal_version": false, "vxlan_mode": false,
	}
	nbOptionsForFlows = []string{
		"mac_binding_removal_limit", "fdb_removal_limit", "controller_event", "ignore_lsp_down",
		"use_ct_inv_match", "default_acl_drop", "debug_drop_domain_id", "debug_drop_collector_set",
		"use_common_zone", "install_ls_lb_from_router", "always_tunnel", "ecmp_nexthop_monitor_enable",
		"acl_ct_translation", "sbctl_probe_interval", "arp_ns_explicit_output", "register_consolidation",
		"vxlan_mode",
	}
)

// NewNorthd2603 builds the model for an NB of schema nbSchema and an SB
// of schema sbSchema (its tables are the SB leaves).
func NewNorthd2603(nbSchema, sbSchema *lovsdb.DatabaseSchema) *Northd2603 {
	nbQuiet := map[string]map[string]bool{}
	for t, cols := range nbQuiet2603 {
		nbQuiet[t] = maps.Clone(cols)
	}
	for _, t := range nbExternalIDsOmitted2603 {
		if nbQuiet[t] == nil {
			nbQuiet[t] = map[string]bool{}
		}
		nbQuiet[t]["external_ids"] = true
	}
	m := &Northd2603{
		tracker:        NewTracker(nbSchema, sbSchema, nbQuiet, sbQuiet2603, sbSilent2603),
		chassisConfig:  map[string]map[string]string{},
		sbRows:         map[string]map[string]model.Model{},
		lrpByName:      map[string]string{},
		dynamicRouters: map[string]bool{},
	}
	leaves := append(m.nbTables.leaves("NB_", nbSchema), m.sbTables.leaves("SB_", sbSchema)...)
	never := func(*Iteration) bool { return false }
	leaves = append(leaves, Leaf{Name: "mac_binding_aging_waker", Changed: never}, Leaf{Name: "fdb_aging_waker", Changed: never})
	m.Engine = NewEngine("northd_output", leaves, m.nodes())
	return m
}

// tableChanges are the changed flags of a database's table leaves: set
// for the tables whose rows an iteration tracked (mark), each read by its
// leaf's Changed without a lookup by table name, of which every run
// checks every table.
type tableChanges struct {
	flags map[string]*bool // by table
	set   []*bool
}

// leaves are the nodes of a database's tables, named prefix and the table
// in lower case (NB_logical_switch, SB_sb_global).
func (tc *tableChanges) leaves(prefix string, s *lovsdb.DatabaseSchema) []Leaf {
	tc.flags = map[string]*bool{}
	var leaves []Leaf
	for _, t := range slices.Sorted(maps.Keys(s.Tables)) {
		changed := new(bool)
		tc.flags[t] = changed
		leaves = append(leaves, Leaf{Name: prefix + strings.ToLower(t), Changed: func(*Iteration) bool { return *changed }})
	}
	return leaves
}

// mark sets the flags of the tables tracked holds rows of, and clears the
// others.
func (tc *tableChanges) mark(tracked map[string][]*Row) {
	for _, f := range tc.set {
		*f = false
	}
	tc.set = tc.set[:0]
	for t, rows := range tracked {
		if f := tc.flags[t]; f != nil && len(rows) > 0 {
			*f = true
			tc.set = append(tc.set, f)
		}
	}
}

// SetNBOptions tells the model the NB_Global options northd wants the NB
// to hold, as global_config keeps them.
func (m *Northd2603) SetNBOptions(options map[string]string) {
	m.nbOptions = maps.Clone(options)
}

// Hold takes the NB and SB batches of an iteration that runs no engine:
// ovn-northd's does not run while paused or on standby, and recomputes
// everything when it runs again. The next Iterate takes them, forced.
func (m *Northd2603) Hold(nbBatches, sbBatches []wire.Batch) {
	m.heldNB.add(nbBatches, nil)
	// The SB tables the engine does not track matter only to a run that
	// is not forced (noteStaleSBFlows): a standby's would be every flow
	// the active northd writes.
	m.heldSB.add(sbBatches, sbSilent2603)
	m.forceNext = true
}

// Iterate runs the engine for the NB and SB batches of one iteration of
// the northd. nbRow is the NB as the northd holds it after the batches;
// force says the iteration recomputes everything (a new connection, the
// SB lock acquired, inc-engine/recompute).
func (m *Northd2603) Iterate(nbBatches, sbBatches []wire.Batch, nbRow func(table, uuid string) model.Model, force bool) {
	if m.forceNext {
		nbBatches, sbBatches = m.heldNB.before(nbBatches), m.heldSB.before(sbBatches)
		force, m.forceNext = true, false
	}
	m.followSB(sbBatches)
	m.followRouters(nbBatches)
	it, initial := m.tracker.Take(nbBatches, sbBatches, nbRow, m.sbRow)
	featuresChanged := m.followChassis(sbBatches)
	force = force || initial
	if !force && len(it.NB) == 0 && len(it.SB) == 0 && !featuresChanged {
		return
	}
	m.it, m.nbRow, m.featuresChanged = it, nbRow, featuresChanged
	m.noteStaleSBLBs()
	m.trk = tracked{}
	m.nbTables.mark(it.NB)
	m.sbTables.mark(it.SB)
	m.Run(it, force)
	m.it, m.nbRow = nil, nil
}

// NoteStaleSBFlow notes an SB flow left with neither datapath nor group:
// it lost its group to someone else (northd moves a flow to one
// datapath), which 26.03 finds when it next syncs the flow. The SB
// writer, which alone keeps the Logical_Flow rows, finds it
// (sbwriter.Writer.TakeFlowLostGroup); it is noted before the iteration's
// Iterate, whose Logical_Flow changes alone run no engine.
func (m *Northd2603) NoteStaleSBFlow() { m.staleSBFlows = true }

// noteStaleSBLBs notes an SB load balancer with a group column cleared
// while the load balancer (the NB row of its _uuid) is still on a switch
// or router: not northd's doing, which clears one when the load balancer
// leaves its last switch or router. 26.03's sync_sb_lb_record finds the
// group it holds gone.
func (m *Northd2603) noteStaleSBLBs() {
	for _, r := range m.it.SB[sb.LoadBalancerTable] {
		old, _ := r.Old.(*sb.LoadBalancer)
		lb, _ := r.New.(*sb.LoadBalancer)
		if old == nil || lb == nil {
			continue
		}
		lsCleared := cleared(old.LsDatapathGroup, lb.LsDatapathGroup) || cleared(old.DatapathGroup, lb.DatapathGroup)
		lrCleared := cleared(old.LrDatapathGroup, lb.LrDatapathGroup)
		if lsCleared && m.lbOn(r.UUID, nb.LogicalSwitchTable) || lrCleared && m.lbOn(r.UUID, nb.LogicalRouterTable) {
			m.staleSBLBs = true
		}
	}
}

// cleared tells whether an optional reference column set before is
// empty after.
func cleared(before, after *string) bool { return before != nil && after == nil }

// lbOn reports whether NB load balancer lb is on a row of table (a
// switch or a router), directly or through a load balancer group.
func (m *Northd2603) lbOn(lb, table string) bool {
	for _, t := range m.lbUsers(lb) {
		if t == table {
			return true
		}
	}
	return false
}

// lbUsers are the NB rows (_uuid, table) that use load balancer or group
// uuid: those that refer to it, and those that refer to a group that
// does.
func (m *Northd2603) lbUsers(uuid string) iter.Seq2[string, string] {
	return func(yield func(user, table string) bool) {
		for src, table := range m.tracker.NBReferrers(uuid) {
			if table != nb.LoadBalancerGroupTable {
				if !yield(src, table) {
					return
				}
				continue
			}
			for user, t := range m.tracker.NBReferrers(src) {
				if !yield(user, t) {
					return
				}
			}
		}
	}
}

// followSB keeps sbRows.
func (m *Northd2603) followSB(sbBatches []wire.Batch) {
	eachChange(sbBatches, func() { clear(m.sbRows) }, func(c wire.Change) {
		if sbSilent2603[c.Table] {
			return
		}
		if m.sbRows[c.Table] == nil {
			m.sbRows[c.Table] = map[string]model.Model{}
		}
		if c.New == nil {
			delete(m.sbRows[c.Table], c.UUID)
		} else {
			m.sbRows[c.Table][c.UUID] = c.New
		}
	})
}

func (m *Northd2603) sbRow(table, uuid string) model.Model { return m.sbRows[table][uuid] }

// followRouters keeps lrpByName and dynamicRouters.
func (m *Northd2603) followRouters(nbBatches []wire.Batch) {
	reset := func() {
		clear(m.lrpByName)
		clear(m.dynamicRouters)
	}
	eachChange(nbBatches, reset, func(c wire.Change) {
		switch c.Table {
		case nb.LogicalRouterPortTable:
			if p, ok := c.Old.(*nb.LogicalRouterPort); ok && m.lrpByName[p.Name] == c.UUID {
				delete(m.lrpByName, p.Name)
			}
			if p, ok := c.New.(*nb.LogicalRouterPort); ok {
				m.lrpByName[p.Name] = c.UUID
			}
		case nb.LogicalRouterTable:
			lr, ok := c.New.(*nb.LogicalRouter)
			if ok && relations.SmapBool(lr.Options, "dynamic-routing", false) {
				m.dynamicRouters[c.UUID] = true
			} else {
				delete(m.dynamicRouters, c.UUID)
			}
		}
	})
}

// chassisFeatures2603 are the chassis features of 26.03
// (build_chassis_features): each holds when every chassis has it
// (relations.EveryChassisHas).
var chassisFeatures2603 = []string{
	"mac-binding-timestamp", "fdb-timestamp", "ls-dpg-column", relations.FeatureCTCommitNATv2,
	relations.FeatureCTCommitToZone, relations.FeatureSampleWithRegisters, relations.FeatureCTNextZone,
	relations.FeatureCTLabelFlush, relations.FeatureCTStateSave,
}

// followChassis keeps the chassis' other_config and tells whether the
// batches changed the chassis features.
func (m *Northd2603) followChassis(sbBatches []wire.Batch) bool {
	before := m.features()
	eachChange(sbBatches, func() { clear(m.chassisConfig) }, func(c wire.Change) {
		if c.Table != sb.ChassisTable {
			return
		}
		if ch, ok := c.New.(*sb.Chassis); ok {
			m.chassisConfig[c.UUID] = ch.OtherConfig
		} else {
			delete(m.chassisConfig, c.UUID)
		}
	})
	return m.features() != before
}

// hasFeature tells whether global_config holds chassis feature f, one
// of chassisFeatures2603: the aging nodes do nothing without theirs
// (en_mac_binding_aging_run, en_fdb_aging_run).
func (m *Northd2603) hasFeature(f string) bool {
	if m.ignoresChassisFeatures() {
		return true
	}
	return m.features()&(1<<slices.Index(chassisFeatures2603, f)) != 0
}

// ignoresChassisFeatures tells whether NB_Global options hold
// ignore_chassis_features, which assumes every chassis has every feature.
func (m *Northd2603) ignoresChassisFeatures() bool {
	return relations.SmapBool(m.nbOptions, "ignore_chassis_features", false)
}

// features is the set of chassisFeatures2603 that hold, as bits.
func (m *Northd2603) features() uint {
	var bits uint
	for i, f := range chassisFeatures2603 {
		if relations.EveryChassisHas(maps.Values(m.chassisConfig), f) {
			bits |= 1 << i
		}
	}
	return bits
}

// rows are the tracked NB rows of table.
func (m *Northd2603) rows(table string) []*Row { return m.it.NB[table] }

// modified tells whether the NB row uuid changed this iteration (a
// row_get_seqno(MODIFY) check).
func (m *Northd2603) modified(uuid string) bool {
	r, ok := m.it.NBRow(uuid)
	return ok && r.IsModified()
}

// deleted tells whether the NB row uuid was deleted this iteration.
func (m *Northd2603) deleted(uuid string) bool {
	r, ok := m.it.NBRow(uuid)
	return ok && r.IsDeleted()
}

// modifiedRef tells whether the NB row an optional reference column
// refers to changed this iteration.
func (m *Northd2603) modifiedRef(uuid *string) bool { return uuid != nil && m.modified(*uuid) }

// anyModified tells whether one of the NB rows uuids changed this
// iteration.
func (m *Northd2603) anyModified(uuids []string) bool {
	return slices.ContainsFunc(uuids, m.modified)
}

func (m *Northd2603) nodes() []Node {
	unchanged := func(*Iteration) Result { return Unchanged }
	updated := func(*Iteration) Result { return Updated }
	northdHasTracked := m.onNorthdTracked(unchanged)
	// northd_global_config_handler; node_global_config_handler, that of
	// the other nodes, also recomputes when the chassis features change.
	northdGlobalConfig := func(*Iteration) Result {
		if g := m.trk.global; !g.tracked || g.optionsChanged {
			return Unhandled
		}
		return Unchanged
	}
	nodeGlobalConfig := func(it *Iteration) Result {
		if m.featuresChanged {
			return Unhandled
		}
		return northdGlobalConfig(it)
	}
	return []Node{
		{Name: "sampling_app", Inputs: []Input{{Node: "NB_sampling_app"}}},
		{Name: "global_config", Inputs: []Input{
			{"NB_nb_global", m.globalNBGlobal},
			{"NB_logical_switch", m.globalLogicalSwitch},
			{"SB_sb_global", m.globalSBGlobal},
			{"SB_chassis", m.globalChassis},
			{Node: "sampling_app"},
		}, Clear: func(*Iteration) { m.trk.global.tracked, m.trk.global.optionsChanged = false, false }},
		{Name: "acl_id", Inputs: []Input{{Node: "NB_acl"}, {Node: "SB_acl_id"}}},
		{Name: "datapath_logical_switch", Inputs: []Input{
			{"NB_logical_switch", m.datapathLogicalSwitch},
			{"global_config", m.datapathLogicalSwitch},
		}, Clear: func(*Iteration) { m.trk.lsChanges = dpChanges{} }},
		{Name: "datapath_logical_router", Inputs: []Input{
			{"NB_logical_router", m.datapathLogicalRouter},
		}, Clear: func(*Iteration) { m.trk.lrChanges = dpChanges{} }},
		{Name: "datapath_sync", Inputs: []Input{
			{"global_config", func(*Iteration) Result {
				if m.vxlanMode() != m.syncedVXLAN {
					return Unhandled
				}
				return Unchanged
			}},
			{"SB_datapath_binding", unchanged},
			{"datapath_logical_switch", func(*Iteration) Result { return m.datapathSync(m.trk.lsChanges) }},
			{"datapath_logical_router", func(*Iteration) Result { return m.datapathSync(m.trk.lrChanges) }},
		}, Clear: func(*Iteration) { m.trk.datapathSync, m.syncedVXLAN = false, m.vxlanMode() }},
		{Name: "datapath_synced_logical_router", Inputs: []Input{
			{"datapath_sync", func(*Iteration) Result { return m.synced(&m.trk.syncedLR, m.trk.lrChanges) }},
		}, Clear: func(*Iteration) { m.trk.syncedLR = dpChanges{} }},
		{Name: "datapath_synced_logical_switch", Inputs: []Input{
			{"datapath_sync", func(*Iteration) Result { return m.synced(&m.trk.syncedLS, m.trk.lsChanges) }},
		}, Clear: func(*Iteration) { m.trk.syncedLS = dpChanges{} }},
		{Name: "lb_data", Inputs: []Input{
			{"NB_load_balancer", m.lbDataLoadBalancer},
			{"NB_load_balancer_group", m.lbDataGroup},
			{"datapath_synced_logical_switch", func(*Iteration) Result { return m.lbDataDatapaths(m.trk.syncedLS, false) }},
			{"datapath_synced_logical_router", func(*Iteration) Result { return m.lbDataDatapaths(m.trk.syncedLR, true) }},
		}, Clear: func(*Iteration) { m.trk.lbData = lbData{} }},
		{Name: "ic_learned_svc_monitors", Inputs: []Input{{Node: "SB_service_monitor"}}},
		{Name: "northd", Inputs: []Input{
			{Node: "NB_mirror"}, {Node: "NB_mirror_rule"}, {Node: "NB_static_mac_binding"},
			{Node: "NB_chassis_template_var"}, {Node: "NB_network_function"},
			{Node: "NB_network_function_group"}, {Node: "NB_logical_switch_port_health_check"},
			{Node: "SB_chassis"}, {Node: "SB_mirror"}, {Node: "SB_meter"}, {Node: "SB_dns"},
			{Node: "SB_ha_chassis_group"}, {Node: "SB_service_monitor"}, {Node: "SB_static_mac_binding"},
			{Node: "SB_chassis_template_var"}, {Node: "ic_learned_svc_monitors"},
			{"SB_fdb", unchanged},
			{"global_config", northdGlobalConfig},
			{"SB_mac_binding", unchanged},
			{"SB_port_binding", unchanged},
			{"datapath_synced_logical_switch", m.northdSwitches},
			{"datapath_synced_logical_router", m.northdRouters},
			{"lb_data", m.northdLBData},
			{"NB_port_group", m.northdPortGroups},
			{"SB_ip_multicast", unchanged},
		}, Clear: func(*Iteration) { m.trk.northd = northdTracked{} }},
		{Name: "sync_from_sb", Inputs: []Input{
			{"northd", northdHasTracked},
			{Node: "SB_port_binding"}, {Node: "SB_service_monitor"}, {Node: "SB_ha_chassis_group"},
		}, Sink: true},
		{Name: "lr_nat", Inputs: []Input{
			{"northd", m.onNorthdTracked(func(*Iteration) Result {
				n := m.trk.northd
				return passOn(n.lrNats || n.routersDeleted, &m.trk.lrNat, Unchanged)
			})},
		}, Clear: func(*Iteration) { m.trk.lrNat = false }},
		{Name: "lr_stateful", Inputs: []Input{
			{"northd", northdHasTracked},
			{"lr_nat", func(*Iteration) Result {
				m.noteVIPNats()
				return passOn(m.trk.lrNat, &m.trk.lrStateful, Unhandled)
			}},
			{"lb_data", func(*Iteration) Result {
				if !m.trk.lbData.tracked {
					return Unhandled
				}
				m.noteVIPNats()
				return passOn(m.trk.lbData.routerLBs, &m.trk.lrStateful, Unchanged)
			}},
		}, Clear: func(*Iteration) { m.trk.lrStateful, m.trk.vipNats = false, false }},
		{Name: "sync_to_sb_addr_set", Inputs: []Input{
			{Node: "northd"}, {Node: "lr_stateful"}, {Node: "SB_address_set"},
			{"NB_address_set", m.addrSetRows(nb.AddressSetTable)},
			{"NB_port_group", m.addrSetRows(nb.PortGroupTable)},
			{"global_config", nodeGlobalConfig},
		}},
		{Name: "port_group", Inputs: []Input{
			{"NB_port_group", m.portGroups},
			{Node: "SB_port_group"},
			{"northd", unchanged},
		}, Clear: func(*Iteration) { m.trk.portGroupLS = false }},
		{Name: "sync_meters", Inputs: []Input{
			{"NB_acl", m.metersACLs},
			{Node: "NB_meter"},
			{Node: "SB_meter"},
		}},
		{Name: "sync_to_sb_lb", Inputs: []Input{
			{"global_config", nodeGlobalConfig},
			{"datapath_sync", unchanged},
			{"northd", m.onNorthdTracked(func(*Iteration) Result {
				switch {
				case !m.trk.northd.lbs:
					return Unchanged
				case m.staleSBLBs:
					return Unhandled
				}
				return Updated
			})},
			{"SB_load_balancer", unchanged},
			{Node: "SB_logical_dp_group"},
		}, Clear: func(*Iteration) { m.staleSBLBs = false }},
		{Name: "sync_to_sb_pb", Inputs: []Input{
			{"northd", m.onNorthdTracked(updated)},
			{"lr_stateful", updated},
		}},
		{Name: "sync_to_sb", Inputs: []Input{
			{Node: "sync_to_sb_addr_set"}, {Node: "port_group"}, {Node: "sync_meters"},
			{Node: "sync_to_sb_lb"}, {Node: "sync_to_sb_pb"},
		}},
		{Name: "bfd", Inputs: []Input{{Node: "NB_bfd"}, {Node: "SB_bfd"}}},
		{Name: "routes", Inputs: []Input{{Node: "bfd"}, {"northd", northdHasTracked}}},
		{Name: "route_policies", Inputs: []Input{{Node: "bfd"}, {"northd", northdHasTracked}}},
		{Name: "bfd_sync", Inputs: []Input{
			{Node: "bfd"}, {Node: "NB_bfd"}, {Node: "routes"}, {Node: "route_policies"},
			{"northd", northdHasTracked},
		}},
		{Name: "learned_route_sync", Inputs: []Input{
			{"SB_learned_route", updated},
			{"northd", northdHasTracked},
		}},
		{Name: "group_ecmp_route", Inputs: []Input{
			{Node: "routes"},
			{"learned_route_sync", updated},
		}},
		{Name: "ls_stateful", Inputs: []Input{
			{"northd", m.onNorthdTracked(func(*Iteration) Result {
				n := m.trk.northd
				return passOn(n.lsLBs || n.lsACLs || n.switches, &m.trk.lsState, Unchanged)
			})},
			{"port_group", func(*Iteration) Result { return passOn(m.trk.portGroupLS, &m.trk.lsState, Unchanged) }},
			{"NB_acl", func(*Iteration) Result {
				updatedACL := slices.ContainsFunc(m.rows(nb.ACLTable), (*Row).IsModified)
				return passOn(updatedACL, &m.trk.lsState, Unchanged)
			}},
		}, Clear: func(*Iteration) { m.trk.lsState = false }},
		{Name: "multicast_igmp", Inputs: []Input{
			{"northd", m.onNorthdTracked(func(*Iteration) Result {
				if m.trk.northd.switchesDeleted {
					return Unhandled
				}
				return Unchanged
			})},
			{Node: "SB_multicast_group"}, {Node: "SB_igmp_group"},
		}},
		{Name: "lflow", Inputs: []Input{
			{Node: "sync_meters"}, {Node: "SB_logical_flow"}, {Node: "SB_multicast_group"},
			{Node: "SB_logical_dp_group"}, {Node: "bfd_sync"}, {Node: "route_policies"},
			{Node: "routes"},
			{"group_ecmp_route", updated},
			{"global_config", nodeGlobalConfig},
			{Node: "sampling_app"},
			{"datapath_sync", unchanged},
			{"northd", m.onNorthdTracked(func(*Iteration) Result {
				if n := m.trk.northd; n.switches || n.routers || m.staleSBFlows {
					return Unhandled
				}
				return Updated
			})},
			{"port_group", unchanged},
			{"lr_stateful", func(*Iteration) Result {
				if !m.trk.lrStateful || m.trk.vipNats {
					return Unhandled
				}
				return Updated
			}},
			{"ls_stateful", func(*Iteration) Result {
				if !m.trk.lsState {
					return Unhandled
				}
				return Updated
			}},
			{"multicast_igmp", updated},
			{Node: "SB_acl_id"},
			{"ic_learned_svc_monitors", updated},
		}, Clear: func(*Iteration) { m.staleSBFlows = false }},
		{Name: "mac_binding_aging", Inputs: []Input{
			{Node: "SB_mac_binding"}, {Node: "northd"}, {Node: "mac_binding_aging_waker"},
			{"global_config", nodeGlobalConfig},
		}, Stale: func(*Iteration) bool { return !m.hasFeature("mac-binding-timestamp") }},
		{Name: "fdb_aging", Inputs: []Input{
			{Node: "SB_fdb"}, {Node: "northd"}, {Node: "fdb_aging_waker"},
			{"global_config", nodeGlobalConfig},
		}, Stale: func(*Iteration) bool { return !m.hasFeature("fdb-timestamp") }},
		{Name: "ecmp_nexthop", Inputs: []Input{
			{Node: "global_config"}, {Node: "routes"}, {Node: "SB_ecmp_nexthop"},
			{Node: "SB_port_binding"},
			{"SB_mac_binding", unchanged},
		}},
		{Name: "dynamic_routes", Inputs: []Input{{Node: "lr_stateful"}, {"northd", unchanged}}},
		{Name: "advertised_route_sync", Inputs: []Input{
			{Node: "routes"}, {Node: "dynamic_routes"}, {Node: "SB_advertised_route"},
			// Its lr_stateful handler recomputes for routers whose
			// changes dynamic_routes, recomputing, passes on anyway.
			{"lr_stateful", unchanged},
			{"northd", m.onNorthdTracked(m.advertisedRouteSyncNorthd)},
		}},
		{Name: "advertised_mac_binding_sync", Inputs: []Input{
			{Node: "SB_port_binding"}, {Node: "SB_advertised_mac_binding"},
			{"northd", unchanged},
		}},
		{Name: "northd_output", Inputs: []Input{
			{"acl_id", updated},
			{Node: "sync_from_sb"},
			{"sync_to_sb", updated},
			{"lflow", updated},
			{"mac_binding_aging", updated},
			{"fdb_aging", updated},
			{"ecmp_nexthop", updated},
			{"advertised_route_sync", updated},
			{"advertised_mac_binding_sync", updated},
		}},
	}
}

// touchRouter notes a router whose NATs or load balancers changed.
func (m *Northd2603) touchRouter(row model.Model) {
	if lr, ok := row.(*nb.LogicalRouter); ok {
		m.trk.touchedRouters = append(m.trk.touchedRouters, lr)
	}
}

// noteVIPNats notes whether a touched router's set of NAT external IPs
// that are also its load balancers' VIPs changed (vip_nats_changed).
func (m *Northd2603) noteVIPNats() {
	for _, lr := range m.trk.touchedRouters {
		before := map[string]bool{}
		if old, ok := m.asBefore(nb.LogicalRouterTable, lr.UUID).(*nb.LogicalRouter); ok {
			before = vipNatIPs(old, m.asBefore)
		}
		if !maps.Equal(before, vipNatIPs(lr, m.nbRow)) {
			m.trk.vipNats = true
		}
	}
}

// asBefore is the NB row uuid of table as it was before this iteration
// (nil if it is new).
func (m *Northd2603) asBefore(table, uuid string) model.Model {
	if r, ok := m.it.NBRow(uuid); ok {
		return r.Old
	}
	return m.nbRow(table, uuid)
}

// vipNatIPs are the external IPs of lr's NATs that are VIPs of its load
// balancers (lr_stateful's vip_nats), row reading the NB rows.
func vipNatIPs(lr *nb.LogicalRouter, row func(table, uuid string) model.Model) map[string]bool {
	vips := map[string]bool{}
	lbs := slices.Clone(lr.LoadBalancer)
	for _, g := range lr.LoadBalancerGroup {
		if lbg, ok := row(nb.LoadBalancerGroupTable, g).(*nb.LoadBalancerGroup); ok {
			lbs = append(lbs, lbg.LoadBalancer...)
		}
	}
	for _, u := range lbs {
		if lb, ok := row(nb.LoadBalancerTable, u).(*nb.LoadBalancer); ok {
			for vip := range lb.Vips {
				vips[vipIP(vip)] = true
			}
		}
	}
	out := map[string]bool{}
	for _, u := range lr.Nat {
		if nat, ok := row(nb.NATTable, u).(*nb.NAT); ok && vips[nat.ExternalIP] {
			out[nat.ExternalIP] = true
		}
	}
	return out
}

// vipIP is the IP of a load balancer's VIP: "IP", "IP:PORT" or
// "[IPv6]:PORT".
func vipIP(vip string) string {
	if strings.HasPrefix(vip, "[") {
		ip, _, _ := strings.Cut(vip[1:], "]")
		return ip
	}
	if strings.Count(vip, ":") == 1 {
		ip, _, _ := strings.Cut(vip, ":")
		return ip
	}
	return vip
}

// onNorthdTracked is a handler of northd's changes: as 26.03's do
// (northd_has_tracked_data), it recomputes when northd tracked nothing,
// that is when northd recomputed, and handles them otherwise.
func (m *Northd2603) onNorthdTracked(handle func(*Iteration) Result) func(*Iteration) Result {
	return func(it *Iteration) Result {
		if !m.trk.northd.any() {
			return Unhandled
		}
		return handle(it)
	}
}

// passOn is a handler that passes on what its input tracked: when has,
// the node tracks changes too (mine) and is updated; otherwise it returns
// otherwise.
func passOn(has bool, mine *bool, otherwise Result) Result {
	if !has {
		return otherwise
	}
	*mine = true
	return Updated
}

// globalNBGlobal is global_config_nb_global_handler: a change to an
// option northd keeps in sync, or one it did not write, recomputes.
func (m *Northd2603) globalNBGlobal(*Iteration) Result {
	m.trk.global.tracked = true
	for _, r := range m.rows(nb.NBGlobalTable) {
		if r.IsDeleted() {
			return Unhandled
		}
		if !r.IsNew() && !r.Updated("options") && !r.Updated("ipsec") {
			continue
		}
		options := r.New.(*nb.NBGlobal).Options
		if maps.Equal(options, m.nbOptions) {
			continue
		}
		for key, present := range nbOptionsResynced {
			if optionOutOfSync(options, m.nbOptions, key, present) {
				return Unhandled
			}
		}
		for _, key := range nbOptionsForFlows {
			if optionOutOfSync(options, m.nbOptions, key, false) {
				m.trk.global.optionsChanged = true
			}
		}
		m.nbOptions = maps.Clone(options)
		return Updated
	}
	return Unchanged
}

// optionOutOfSync is en-global-config.c's config_out_of_sync.
func optionOutOfSync(now, saved map[string]string, key string, mustBePresent bool) bool {
	v, ok := now[key]
	sv, sok := saved[key]
	if mustBePresent && (!ok || !sok) {
		return true
	}
	return ok != sok || v != sv
}

// globalLogicalSwitch is global_config_nb_logical_switch_handler: the
// switches change max_tunid when one starts or stops asking for ic
// VXLAN mode.
func (m *Northd2603) globalLogicalSwitch(*Iteration) Result {
	m.trk.global.tracked = true
	for _, r := range m.rows(nb.LogicalSwitchTable) {
		_, before := switchOtherConfig(r.Old)["ic-vxlan_mode"]
		_, after := switchOtherConfig(r.New)["ic-vxlan_mode"]
		if before != after {
			return Updated
		}
	}
	return Unchanged
}

// switchOtherConfig is the other_config of a switch row, none where
// there is no row.
func switchOtherConfig(m model.Model) map[string]string {
	if ls, ok := m.(*nb.LogicalSwitch); ok {
		return ls.OtherConfig
	}
	return nil
}

// vxlanMode is global_config's vxlan_mode: some chassis has a VXLAN
// encapsulation and NB_Global options:vxlan_mode is not false.
func (m *Northd2603) vxlanMode() bool {
	if !relations.SmapBool(m.nbOptions, "vxlan_mode", true) {
		return false
	}
	for _, c := range m.sbRows[sb.ChassisTable] {
		for _, u := range c.(*sb.Chassis).Encaps {
			if e, ok := m.sbRows[sb.EncapTable][u].(*sb.Encap); ok && e.Type == "vxlan" {
				return true
			}
		}
	}
	return false
}

// globalSBGlobal is global_config_sb_global_handler: SB_Global options
// other than those northd writes there (NB_Global's, the SB's own
// sbctl_probe_interval, and two flags) recompute.
func (m *Northd2603) globalSBGlobal(*Iteration) Result {
	for _, r := range m.it.SB[sb.SBGlobalTable] {
		g, ok := r.New.(*sb.SBGlobal)
		if !ok {
			return Unhandled
		}
		want := maps.Clone(m.nbOptions)
		if want == nil {
			want = map[string]string{}
		}
		if v, ok := g.Options["sbctl_probe_interval"]; ok {
			want["sbctl_probe_interval"] = v
		}
		want["arp_ns_explicit_output"] = "true"
		want["register_consolidation"] = "true"
		if !maps.Equal(g.Options, want) {
			return Unhandled
		}
	}
	return Unchanged
}

// globalChassis is global_config_sb_chassis_handler: a chassis added,
// removed or moved to other encapsulations recomputes; other changes
// may change the features.
func (m *Northd2603) globalChassis(*Iteration) Result {
	m.trk.global.tracked = true
	for _, r := range m.it.SB[sb.ChassisTable] {
		// A chassis tracked only for its references had an Encap modified.
		if !r.IsModified() || r.Updated("encaps") || r.OnlyReferenced() {
			return Unhandled
		}
	}
	if m.ignoresChassisFeatures() {
		return Unchanged
	}
	return updatedIf(m.featuresChanged)
}

// datapathLogicalSwitch is datapath_logical_switch_handler: every
// tracked switch is a new, updated or deleted datapath.
func (m *Northd2603) datapathLogicalSwitch(*Iteration) Result {
	m.trk.lsChanges = dpChangesOf(m.rows(nb.LogicalSwitchTable))
	return updatedIf(!m.trk.lsChanges.empty())
}

// datapathLogicalRouter is datapath_logical_router_handler: only enabled
// routers are datapaths, so disabling one deletes its datapath and
// enabling one creates it; deleting a disabled router recomputes.
func (m *Northd2603) datapathLogicalRouter(*Iteration) Result {
	var c dpChanges
	for _, r := range m.rows(nb.LogicalRouterTable) {
		was, is := routerEnabled(r.Old), routerEnabled(r.New)
		switch {
		case r.IsNew() && r.IsDeleted():
		case r.IsDeleted() && !was:
			return Unhandled
		case was && is:
			c.updated = append(c.updated, r)
		case was:
			c.deleted = append(c.deleted, &Row{UUID: r.UUID, Old: r.Old})
		case is:
			c.new = append(c.new, &Row{UUID: r.UUID, New: r.New})
		}
	}
	m.trk.lrChanges = c
	return updatedIf(!c.empty())
}

// routerEnabled tells whether lr is a router that is a datapath.
func routerEnabled(lr model.Model) bool {
	r, ok := lr.(*nb.LogicalRouter)
	return ok && (r.Enabled == nil || *r.Enabled)
}

func dpChangesOf(rows []*Row) dpChanges {
	var c dpChanges
	for _, r := range rows {
		switch {
		case r.IsNew() && r.IsDeleted():
		case r.IsNew():
			c.new = append(c.new, r)
		case r.IsDeleted():
			c.deleted = append(c.deleted, r)
		default:
			c.updated = append(c.updated, r)
		}
	}
	return c
}

// datapathSync is datapath_sync_unsynced_datapath_handler: it needs the
// changed datapaths (none after a recompute).
func (m *Northd2603) datapathSync(c dpChanges) Result {
	return passOn(!c.empty(), &m.trk.datapathSync, Unhandled)
}

// synced is the datapath_synced_logical_* handlers: they pass on what
// datapath_sync tracked.
func (m *Northd2603) synced(out *dpChanges, in dpChanges) Result {
	if !m.trk.datapathSync {
		return Unhandled
	}
	*out = in
	return updatedIf(!in.empty())
}

// lbDataLoadBalancer is lb_data_load_balancer_handler: a load balancer
// that becomes or stops being routable, neighbor-responding or
// distributed recomputes.
func (m *Northd2603) lbDataLoadBalancer(*Iteration) Result {
	d := &m.trk.lbData
	d.tracked = true
	changed := false
	for _, r := range m.rows(nb.LoadBalancerTable) {
		if r.IsNew() && r.IsDeleted() {
			continue
		}
		if r.IsModified() {
			before, after := r.Old.(*nb.LoadBalancer).Options, r.New.(*nb.LoadBalancer).Options
			for _, key := range []string{"add_route", "neighbor_responder"} {
				if before[key] != after[key] {
					return Unhandled
				}
			}
			if relations.SmapBool(before, "distributed", false) != relations.SmapBool(after, "distributed", false) {
				return Unhandled
			}
			// An update keeps the health checks the balancer had
			// (add_route is unchanged here).
			d.noteLB(r.Old.(*nb.LoadBalancer))
		}
		d.noteLB(r.Current().(*nb.LoadBalancer))
		d.lbs = true
		if !r.IsDeleted() {
			m.noteLBUsers(r.UUID)
		}
		changed = true
	}
	return updatedIf(changed)
}

// noteLBUsers notes whether a router or a switch uses the load balancer
// or group uuid, directly or through a group.
func (m *Northd2603) noteLBUsers(uuid string) {
	for user, table := range m.lbUsers(uuid) {
		switch table {
		case nb.LogicalRouterTable:
			if !routerEnabled(m.nbRow(table, user)) {
				continue
			}
			m.trk.lbData.routerLBs = true
			m.touchRouter(m.nbRow(table, user))
		case nb.LogicalSwitchTable:
			m.trk.lbData.switchLBs = true
		}
	}
}

// noteLB notes a tracked load balancer's health checks and whether it is
// routable (add_route, which template balancers cannot have).
func (d *lbData) noteLB(lb *nb.LoadBalancer) {
	if lb == nil {
		return
	}
	d.healthChecks = d.healthChecks || len(lb.HealthCheck) > 0
	d.routable = d.routable || lb.Options["add_route"] == "true" && lb.Options["template"] != "true"
}

// noteLBs notes the health checks and routability of load balancers lbs
// (NB _uuids).
func (m *Northd2603) noteLBs(lbs []string) {
	for _, u := range lbs {
		lb, _ := m.nbRow(nb.LoadBalancerTable, u).(*nb.LoadBalancer)
		m.trk.lbData.noteLB(lb)
	}
}

// lbDataGroup is lb_data_load_balancer_group_handler.
func (m *Northd2603) lbDataGroup(*Iteration) Result {
	d := &m.trk.lbData
	d.tracked = true
	changed := false
	for _, r := range m.rows(nb.LoadBalancerGroupTable) {
		if r.IsNew() && r.IsDeleted() {
			continue
		}
		before, after := listBeforeAfter(r, func(g *nb.LoadBalancerGroup) []string { return g.LoadBalancer })
		removed, added := missing(before, after), missing(after, before)
		switch {
		case r.IsDeleted():
			d.groupDeleted = true
		case slices.ContainsFunc(removed, func(lb string) bool { return !m.deleted(lb) }):
			d.unlinked = true
		}
		m.noteLBs(r.Current().(*nb.LoadBalancerGroup).LoadBalancer)
		// Its routers and switches see the load balancers it gained; a
		// group whose members did not change changes nothing downstream.
		if len(added) > 0 {
			m.noteLBUsers(r.UUID)
		}
		d.groupLBs = d.groupLBs || len(added)+len(removed) > 0
		changed = true
	}
	return updatedIf(changed)
}

// lbDataDatapaths is lb_data_synced_logical_{switch,router}_handler: the
// load balancers a datapath gained or lost.
func (m *Northd2603) lbDataDatapaths(c dpChanges, router bool) Result {
	d := &m.trk.lbData
	d.tracked = true
	changed := false
	for _, r := range c.deleted {
		if lbs, groups := datapathLBs(r.Old); len(lbs)+len(groups) > 0 {
			d.odGone = true
			changed = true
		}
	}
	for _, r := range append(slices.Clone(c.new), c.updated...) {
		oldLBs, oldGroups := datapathLBs(r.Old)
		lbs, groups := datapathLBs(r.New)
		if len(missing(oldLBs, lbs))+len(missing(oldGroups, groups)) > 0 {
			d.unlinked = true
			changed = true
		}
		addedLBs, addedGroups := missing(lbs, oldLBs), missing(groups, oldGroups)
		if len(addedLBs)+len(addedGroups) > 0 {
			m.noteLBs(addedLBs)
			for _, u := range addedGroups {
				if g, ok := m.nbRow(nb.LoadBalancerGroupTable, u).(*nb.LoadBalancerGroup); ok {
					m.noteLBs(g.LoadBalancer)
				}
			}
			changed = true
			if router {
				d.routerLBs = true
				m.touchRouter(r.New)
			} else {
				d.switchLBs = true
			}
		}
	}
	return updatedIf(changed)
}

// datapathLBs are the load balancers and load balancer groups of a
// switch or router row.
func datapathLBs(dp model.Model) (lbs, groups []string) {
	switch dp := dp.(type) {
	case *nb.LogicalSwitch:
		return dp.LoadBalancer, dp.LoadBalancerGroup
	case *nb.LogicalRouter:
		return dp.LoadBalancer, dp.LoadBalancerGroup
	}
	return nil, nil
}

// northdSwitches is northd_nb_logical_switch_handler
// (northd_handle_ls_changes).
func (m *Northd2603) northdSwitches(*Iteration) Result {
	c := m.trk.syncedLS
	if !c.northdHandles() {
		return Unhandled
	}
	t := &m.trk.northd
	for _, r := range c.new {
		ls := r.New.(*nb.LogicalSwitch)
		if ls.Copp != nil || len(ls.DNSRecords)+len(ls.ForwardingGroups)+len(ls.QOSRules) > 0 || !m.portsHandled(nil, ls) {
			return Unhandled
		}
		t.lsACLs = t.lsACLs || len(ls.ACLs) > 0
		t.switches = true
	}
	for _, r := range c.updated {
		old, ls := r.Old.(*nb.LogicalSwitch), r.New.(*nb.LogicalSwitch)
		if !r.OnlyUpdated("acls", "ports", "load_balancer", "load_balancer_group") {
			return Unhandled
		}
		if m.modifiedRef(ls.Copp) || m.anyModified(ls.DNSRecords) ||
			m.anyModified(ls.ForwardingGroups) || m.anyModified(ls.QOSRules) || !m.portsHandled(old, ls) {
			return Unhandled
		}
		t.lsACLs = t.lsACLs || r.Updated("acls") || m.anyModified(ls.ACLs)
		t.lsLBs = t.lsLBs || r.Updated("load_balancer") || r.Updated("load_balancer_group")
	}
	for _, r := range c.deleted {
		ls := r.Old.(*nb.LogicalSwitch)
		if ls.Copp != nil || len(ls.DNSRecords)+len(ls.ForwardingGroups)+len(ls.QOSRules)+len(ls.LoadBalancer)+len(ls.LoadBalancerGroup) > 0 ||
			!m.portsHandled(ls, nil) {
			return Unhandled
		}
		t.lsACLs = t.lsACLs || len(ls.ACLs) > 0
		t.switches, t.switchesDeleted = true, true
	}
	return updatedIf(t.any())
}

// northdHandles tells whether northd handles the datapath changes c:
// there are some (none after datapath_sync recomputed), and no new
// datapath may take the index of one deleted in the same run, which
// northd finds still taken (it handles the new ones first).
func (c dpChanges) northdHandles() bool {
	return !c.empty() && (len(c.new) == 0 || len(c.deleted) == 0)
}

// portsHandled is ls_handle_lsp_changes: the ports a switch gained, lost
// or whose row changed must all be ports northd handles incrementally.
// Only the differences of the two lists of ports and the ports tracked
// are looked at, not every port of a switch, which may have thousands.
func (m *Northd2603) portsHandled(old, ls *nb.LogicalSwitch) bool {
	var before, after []string
	var sw string
	if old != nil {
		before, sw = old.Ports, old.UUID
	}
	if ls != nil {
		after, sw = ls.Ports, ls.UUID
	}
	left, joined := relations.TrimCommon(before, after)
	added := missing(joined, left)
	for _, u := range added {
		r, _ := m.it.NBRow(u)
		if !m.portHandled(m.lsp(u, r)) {
			return false
		}
		m.trackPort(sw)
	}
	for _, r := range m.keptTracked(sw, after, added) {
		if !r.IsNew() && !r.OnlyReferenced() {
			// A port that changed, if only in its up column, must be
			// one northd handles before and after.
			before, _ := r.Old.(*nb.LogicalSwitchPort)
			after, _ := r.New.(*nb.LogicalSwitchPort)
			if !m.portHandled(before) || !m.portHandled(after) || r.Updated("type") {
				return false
			}
		}
		if m.portChanged(r) {
			m.trackPort(sw)
		}
	}
	for _, u := range missing(left, joined) {
		r, _ := m.it.NBRow(u)
		if !m.portHandled(m.lsp(u, r)) {
			return false
		}
		m.trackPort(sw)
	}
	return true
}

// keptTracked are the tracked rows of switch sw's ports after, but those
// added: found from the tracked ports, the switches that refer to each,
// when they are fewer than the switch's ports.
func (m *Northd2603) keptTracked(sw string, after, added []string) []*Row {
	isAdded := memberSet(added)
	var kept []*Row
	if tracked := m.it.NB[nb.LogicalSwitchPortTable]; len(tracked) < len(after) {
		for _, r := range tracked {
			if !isAdded[r.UUID] && m.refersTo(sw, r.UUID) {
				kept = append(kept, r)
			}
		}
		return kept
	}
	for _, u := range after {
		if r, ok := m.it.NBRow(u); ok && !isAdded[u] {
			kept = append(kept, r)
		}
	}
	return kept
}

// refersTo tells whether NB row src refers to row dst.
func (m *Northd2603) refersTo(src, dst string) bool {
	for u := range m.tracker.NBReferrers(dst) {
		if u == src {
			return true
		}
	}
	return false
}

// trackPort notes that northd tracked a port of switch sw.
func (m *Northd2603) trackPort(sw string) {
	t := &m.trk.northd
	t.ports = true
	if n := len(t.portSwitches); n == 0 || t.portSwitches[n-1] != sw {
		t.portSwitches = append(t.portSwitches, sw)
	}
}

// memberSet is the set of us.
func memberSet(us []string) map[string]bool {
	set := make(map[string]bool, len(us))
	for _, u := range us {
		set[u] = true
	}
	return set
}

// missing are the elements of from that in lacks, in from's order: the
// members a list column lost (missing(before, after)) or gained
// (missing(after, before)). By a set: a load balancer group may hold
// thousands of load balancers, a switch thousands of ports.
func missing(from, in []string) []string {
	if len(from) == 0 {
		return nil
	}
	has := memberSet(in)
	var out []string
	for _, u := range from {
		if !has[u] {
			out = append(out, u)
		}
	}
	return out
}

// listBeforeAfter are a list column of a tracked row of type T (list
// reads it) before and after the iteration: nil where there was or is
// no row.
func listBeforeAfter[T model.Model](r *Row, list func(T) []string) (before, after []string) {
	if old, ok := r.Old.(T); ok {
		before = list(old)
	}
	if now, ok := r.New.(T); ok {
		after = list(now)
	}
	return before, after
}

// lsp is the row of port uuid: tracked, or as the NB holds it.
func (m *Northd2603) lsp(uuid string, r *Row) *nb.LogicalSwitchPort {
	var row model.Model
	if r != nil {
		row = r.Current()
	} else {
		row = m.nbRow(nb.LogicalSwitchPortTable, uuid)
	}
	p, _ := row.(*nb.LogicalSwitchPort)
	return p
}

// portChanged is check_lsp_changes_other_than_up.
func (m *Northd2603) portChanged(r *Row) bool {
	if !r.IsModified() {
		return true
	}
	if !r.OnlyUpdated("up") {
		return true
	}
	p, ok := r.New.(*nb.LogicalSwitchPort)
	return !ok || m.modifiedRef(p.Dhcpv4Options) || m.modifiedRef(p.Dhcpv6Options) || m.modifiedRef(p.HaChassisGroup)
}

// portHandled is lsp_can_be_inc_processed.
func (m *Northd2603) portHandled(p *nb.LogicalSwitchPort) bool {
	if p == nil {
		return false
	}
	if p.Type != "" && p.Type != "remote" {
		return false
	}
	if p.ParentName != nil && *p.ParentName != "" || p.Tag != nil || p.TagRequest != nil {
		return false
	}
	for _, key := range []string{"qos_max_rate", "qos_burst", "qos_min_rate"} {
		if p.Options[key] != "" {
			return false
		}
	}
	for _, a := range p.Addresses {
		if a == "unknown" || isDynamic(a) && p.DynamicAddresses != nil {
			return false
		}
	}
	for _, u := range p.MirrorRules {
		if mr, ok := m.nbRow(nb.MirrorTable, u).(*nb.Mirror); ok && mr.Type == "lport" {
			return false
		}
	}
	return len(p.HealthChecks) == 0
}

// isDynamic tells whether an address asks northd to allocate
// (is_dynamic_lsp_address).
func isDynamic(a string) bool {
	return a == "dynamic" || strings.HasSuffix(a, " dynamic") || strings.HasPrefix(a, "dynamic ")
}

// northdRouters is northd_nb_logical_router_handler
// (northd_handle_lr_changes).
func (m *Northd2603) northdRouters(*Iteration) Result {
	c := m.trk.syncedLR
	if !c.northdHandles() {
		return Unhandled
	}
	t := &m.trk.northd
	for _, r := range c.new {
		lr := r.New.(*nb.LogicalRouter)
		if lr.Copp != nil || len(lr.Ports) > 0 {
			return Unhandled
		}
		t.routers, t.lrNats = true, true
		m.touchRouter(lr)
	}
	for _, r := range c.updated {
		lr := r.New.(*nb.LogicalRouter)
		if !r.OnlyUpdated("load_balancer", "load_balancer_group", "nat") {
			return Unhandled
		}
		if m.anyModified(lr.Ports) || m.modifiedRef(lr.Copp) ||
			m.anyModified(lr.Policies) || m.anyModified(lr.StaticRoutes) {
			return Unhandled
		}
		if r.Updated("nat") || m.anyModified(lr.Nat) {
			t.lrNats = true
			m.touchRouter(lr)
		}
	}
	for _, r := range c.deleted {
		lr := r.Old.(*nb.LogicalRouter)
		if lr.Copp != nil || len(lr.Ports)+len(lr.Nat)+len(lr.LoadBalancer)+len(lr.LoadBalancerGroup)+len(lr.Policies)+len(lr.StaticRoutes) > 0 {
			return Unhandled
		}
		t.routers, t.routersDeleted = true, true
	}
	return updatedIf(t.any())
}

// northdLBData is northd_lb_data_handler (northd_handle_lb_data_changes).
func (m *Northd2603) northdLBData(*Iteration) Result {
	d := m.trk.lbData
	if !d.tracked || d.healthChecks || d.routable || d.unlinked || d.groupDeleted || d.odGone {
		return Unhandled
	}
	if !d.lbs && !d.groupLBs && !d.routerLBs && !d.switchLBs {
		return Unchanged
	}
	m.trk.northd.lbs = true
	m.trk.northd.lsLBs = m.trk.northd.lsLBs || d.switchLBs
	return Updated
}

// northdPortGroups is northd_nb_port_group_handler: port groups whose
// ACLs changed change their switches' ACLs.
func (m *Northd2603) northdPortGroups(*Iteration) Result {
	for _, r := range m.rows(nb.PortGroupTable) {
		if !r.IsModified() {
			continue
		}
		pg := r.New.(*nb.PortGroup)
		if (r.Updated("acls") || m.anyModified(pg.ACLs)) && len(pg.Ports) > 0 {
			m.trk.northd.lsACLs = true
		}
	}
	return updatedIf(m.trk.northd.any())
}

// portGroups is port_group_nb_port_group_handler: the switches a port
// group spans.
func (m *Northd2603) portGroups(*Iteration) Result {
	changed := false
	for _, r := range m.rows(nb.PortGroupTable) {
		before, after := listBeforeAfter(r, func(pg *nb.PortGroup) []string { return pg.Ports })
		if r.IsModified() && !r.Updated("ports") {
			continue
		}
		changed = changed || len(before)+len(after) > 0
		if !slices.Equal(m.switchesOf(before), m.switchesOf(after)) {
			m.trk.portGroupLS = true
		}
	}
	return updatedIf(changed)
}

// switchesOf are the switches of ports, sorted.
func (m *Northd2603) switchesOf(ports []string) []string {
	var out []string
	for _, p := range ports {
		for src, table := range m.tracker.NBReferrers(p) {
			if table == nb.LogicalSwitchTable && !slices.Contains(out, src) {
				out = append(out, src)
			}
		}
	}
	slices.Sort(out)
	return out
}

// addrSetRows is sync_to_sb_addr_set's handler of the NB address sets
// or port groups (table; sync_to_sb_addr_set_nb_*_handler): it updates
// their SB address sets in place, and recomputes for one new or deleted.
func (m *Northd2603) addrSetRows(table string) func(*Iteration) Result {
	return func(*Iteration) Result {
		if slices.ContainsFunc(m.rows(table), func(r *Row) bool { return !r.IsModified() }) {
			return Unhandled
		}
		return Unchanged
	}
}

// metersACLs is sync_meters_nb_acl_handler: ACLs that come or go with
// logging or a meter, or whose logging changes, recompute.
func (m *Northd2603) metersACLs(*Iteration) Result {
	for _, r := range m.rows(nb.ACLTable) {
		acl := r.Current().(*nb.ACL)
		if !r.IsModified() && (acl.Log || acl.Meter != nil) {
			return Unhandled
		}
		if r.Updated("log") || r.Updated("meter") {
			return Unhandled
		}
	}
	return Unchanged
}

// advertisedRouteSyncNorthd is advertised_route_sync_northd_change_handler:
// a port tracked on a switch whose addresses a router port advertises as
// host routes recomputes. (26.03.2 also watches the switches of the
// distributed NAT rules' ports it advertises; not modelled.)
func (m *Northd2603) advertisedRouteSyncNorthd(*Iteration) Result {
	if len(m.dynamicRouters) > 0 && slices.ContainsFunc(m.trk.northd.portSwitches, m.hostRouteSwitch) {
		return Unhandled
	}
	return Unchanged
}

// hostRouteSwitch tells whether switch sw is the peer of a port of a
// router with dynamic routing that redistributes its connected networks
// as host routes (publish_host_routes). 26.03.2 records the switches at
// its last recompute; the changes that would change them recompute.
func (m *Northd2603) hostRouteSwitch(sw string) bool {
	ls, ok := m.nbRow(nb.LogicalSwitchTable, sw).(*nb.LogicalSwitch)
	if !ok {
		if ls, ok = m.asBefore(nb.LogicalSwitchTable, sw).(*nb.LogicalSwitch); !ok {
			return false
		}
	}
	for _, u := range ls.Ports {
		p, ok := m.nbRow(nb.LogicalSwitchPortTable, u).(*nb.LogicalSwitchPort)
		if !ok || p.Type != "router" {
			continue
		}
		lrpUUID, ok := m.lrpByName[p.Options["router-port"]]
		if !ok {
			continue
		}
		lrp, ok := m.nbRow(nb.LogicalRouterPortTable, lrpUUID).(*nb.LogicalRouterPort)
		if !ok || len(lrp.Networks) == 0 {
			continue
		}
		for lr, table := range m.tracker.NBReferrers(lrpUUID) {
			router, ok := m.nbRow(table, lr).(*nb.LogicalRouter)
			if ok && m.dynamicRouters[lr] &&
				relations.ParseRedistribute(lrp.Options, relations.ParseRedistribute(router.Options, 0)).Has(relations.RedistributeConnectedAsHost) {
				return true
			}
		}
	}
	return false
}
