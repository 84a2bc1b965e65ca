package sbwriter

import (
	"maps"
	"slices"
	"strconv"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// syncedTable is an SB table the writer keeps besides the ones whose rows
// refer to each other (datapaths, ports, groups, flows).
type syncedTable interface {
	apply(wire.Change)
	markAll()
	reset()
	reconcile(*Txn)
}

// otherTables are the SB tables northd fills from the NB or from fixed
// lists: Meter (with Meter_Band), DNS, Chassis_Template_Var, Mirror,
// IP_Multicast, BFD, Advertised_Route, Advertised_MAC_Binding, ECMP_Nexthop, DHCP_Options,
// DHCPv6_Options, RBAC_Permission and RBAC_Role.
type otherTables struct {
	meters       *keyedTable[rules.Meter]
	dns          *keyedTable[rules.DNS]
	templateVars *keyedTable[rules.TemplateVar]
	// templateVarsByNB: a Chassis_Template_Var row is its NB row's by
	// UUID, not by chassis (templateVarsPersistUUID).
	templateVarsByNB bool
	mirrors          *keyedTable[rules.Mirror]
	ipMulticast      *keyedTable[rules.IPMulticast]
	bfd              *bfdTable
	advertisedRoutes *keyedTable[rules.AdvertisedRoute]
	advertisedMACs   *keyedTable[rules.AdvertisedMACBinding]
	ecmpNexthops     *keyedTable[rules.ECMPNexthop]
	dhcp, dhcpv6     *keyedTable[dhcpOption]
	rbacPerms        *keyedTable[rbacPerm]
	rbacRoles        *keyedTable[string]
	// bands mirrors Meter_Band, read to compare a meter's bands;
	// bandMeter names the meter that refers to each band.
	bands     map[string]*sb.MeterBand
	bandMeter map[string]string
	// newPerms are the RBAC_Permission rows inserted by the transaction
	// being built, by table, for the role's permissions.
	newPerms map[string]string
	// rbacExact: rbacRoleExact.
	rbacExact bool
	// byTable lists the tables in the order they are reconciled: the
	// permissions before the role that refers to them.
	byTable map[string]syncedTable
	order   []syncedTable
}

func newOtherTables(w *Writer) *otherTables {
	o := &otherTables{bands: map[string]*sb.MeterBand{}, bandMeter: map[string]string{}, newPerms: map[string]string{}}
	o.meters = newKeyedTable(sb.MeterTable, func(m model.Model) (string, bool) { return m.(*sb.Meter).Name, true }, o.writeMeter)
	o.dns = newKeyedTable(sb.DNSTable, dnsKeyFor(w.stages.Release()), func(t *Txn, want rules.DNS, uuid string, row model.Model) {
		writeDNS(w, t, want, uuid, row)
	})
	o.templateVarsByNB = templateVarsPersistUUID(w.stages.Release())
	o.templateVars = newKeyedTable(sb.ChassisTemplateVarTable, func(m model.Model) (string, bool) {
		if o.templateVarsByNB {
			return m.(*sb.ChassisTemplateVar).UUID, true
		}
		return m.(*sb.ChassisTemplateVar).Chassis, true
	}, o.writeTemplateVar)
	o.mirrors = newKeyedTable(sb.MirrorTable, func(m model.Model) (string, bool) { return m.(*sb.Mirror).Name, true }, writeMirror)
	o.ipMulticast = newKeyedTable(sb.IPMulticastTable, func(m model.Model) (string, bool) {
		// Keyed by its switch, found from its datapath, which a batch
		// applies first (sbTableOrder).
		if dp := w.m.dps[m.(*sb.IPMulticast).Datapath]; dp != nil {
			if nb, kind, ok := dpNB(dp); ok && kind == rules.Switch {
				return nb, true
			}
		}
		return "", false
	}, func(t *Txn, want rules.IPMulticast, uuid string, row model.Model) {
		writeIPMulticast(w, t, want, uuid, row)
	})
	o.dhcp = newKeyedTable(sb.DHCPOptionsTable,
		func(m model.Model) (string, bool) { return m.(*sb.DHCPOptions).Name, true },
		func(t *Txn, want dhcpOption, uuid string, row model.Model) {
			// A row of the right name but another code or type is
			// replaced (check_and_add_supported_dhcp_opts_to_sb_db).
			if r, ok := row.(*sb.DHCPOptions); ok && (r.Code != want.Code || r.Type != want.Type) {
				t.delete(sb.DHCPOptionsTable, uuid)
				uuid = ""
			}
			if uuid == "" {
				t.Insert(sb.DHCPOptionsTable, lovsdb.Row{"name": want.Name, "code": want.Code, "type": want.Type})
			}
		})
	o.dhcpv6 = newKeyedTable(sb.DHCPv6OptionsTable,
		func(m model.Model) (string, bool) { return m.(*sb.DHCPv6Options).Name, true },
		func(t *Txn, want dhcpOption, uuid string, _ model.Model) {
			// Unlike DHCP_Options, a row of the right name stays
			// whatever its code and type (..._dhcpv6_opts_to_sb_db).
			if uuid == "" {
				t.Insert(sb.DHCPv6OptionsTable, lovsdb.Row{"name": want.Name, "code": want.Code, "type": want.Type})
			}
		})
	o.bfd = newBFDTable()
	o.advertisedRoutes = newAdvertisedRoutes(w)
	o.advertisedMACs = newAdvertisedMACBindings(w)
	o.ecmpNexthops = newECMPNexthops(w)
	release := w.stages.Release()
	perms := rbacPermsFor(release)
	o.rbacPerms = newKeyedTable(sb.RBACPermissionTable, func(m model.Model) (string, bool) { return rbacPermKey(perms, m) }, o.writePerm)
	o.rbacRoles = newKeyedTable(sb.RBACRoleTable, func(m model.Model) (string, bool) {
		name := m.(*sb.RBACRole).Name
		return name, name == rbacRole
	}, o.writeRole)
	for _, opt := range dhcpOptions {
		o.dhcp.setWant(opt.Name, opt, true)
	}
	for _, opt := range dhcpv6OptionsFor(release) {
		o.dhcpv6.setWant(opt.Name, opt, true)
	}
	for _, p := range perms {
		o.rbacPerms.setWant(p.Table, p, true)
	}
	o.rbacRoles.setWant(rbacRole, rbacRole, true)
	o.rbacExact = rbacRoleExact(release)
	o.rbacPerms.keepKeyless, o.rbacRoles.keepKeyless = o.rbacExact, o.rbacExact
	o.byTable = map[string]syncedTable{
		sb.MeterTable: o.meters, sb.DNSTable: o.dns, sb.ChassisTemplateVarTable: o.templateVars, sb.MirrorTable: o.mirrors,
		sb.IPMulticastTable: o.ipMulticast, sb.BFDTable: o.bfd, sb.AdvertisedRouteTable: o.advertisedRoutes,
		sb.AdvertisedMACBindingTable: o.advertisedMACs, sb.ECMPNexthopTable: o.ecmpNexthops,
		sb.DHCPOptionsTable: o.dhcp, sb.DHCPv6OptionsTable: o.dhcpv6,
		sb.RBACPermissionTable: o.rbacPerms, sb.RBACRoleTable: o.rbacRoles,
	}
	o.order = []syncedTable{o.meters, o.dns, o.templateVars, o.mirrors, o.ipMulticast, o.bfd, o.advertisedRoutes, o.advertisedMACs, o.ecmpNexthops, o.dhcp, o.dhcpv6, o.rbacPerms, o.rbacRoles}
	return o
}

// OtherTables are the tables of otherTables, monitored.
var OtherTables = []string{sb.MeterTable, sb.MeterBandTable, sb.DNSTable, sb.ChassisTemplateVarTable, sb.MirrorTable,
	sb.IPMulticastTable, sb.BFDTable, sb.AdvertisedRouteTable, sb.AdvertisedMACBindingTable, sb.ECMPNexthopTable,
	sb.DHCPOptionsTable, sb.DHCPv6OptionsTable, sb.RBACPermissionTable, sb.RBACRoleTable}

// applyProgram takes the program's last changes as desired rows.
func (o *otherTables) applyProgram(p *rules.Program) {
	applyDelta(o.meters, p.Meters.Delta(), func(m rules.Meter) string { return m.Name })
	applyDelta(o.dns, p.DNS.Delta(), func(d rules.DNS) string { return d.NB })
	applyDelta(o.templateVars, p.TemplateVars.Delta(), func(v rules.TemplateVar) string {
		if o.templateVarsByNB {
			return v.NB
		}
		return v.Chassis
	})
	applyDelta(o.mirrors, p.Mirrors.Delta(), func(m rules.Mirror) string { return m.Name })
	applyDelta(o.ipMulticast, p.IPMulticast.Delta(), func(m rules.IPMulticast) string { return m.Switch })
	applyDelta(o.bfd.keyedTable, p.BFDs.Delta(), func(b rules.BFD) string { return bfdKey(b.LogicalPort, b.DstIP) })
	applyDelta(o.advertisedRoutes, p.AdvertisedRoutes.Delta(), advertisedRouteKey)
	applyDelta(o.advertisedMACs, p.AdvertisedMACBindings.Delta(), advertisedMACKey)
	applyDelta(o.ecmpNexthops, p.ECMPNexthops.Delta(), func(n rules.ECMPNexthop) string { return ecmpNexthopKey(n.Nexthop, n.Port) })
}

// apply records an SB row change; it reports whether the table is one of
// these.
func (o *otherTables) apply(c wire.Change) bool {
	if c.Table == sb.MeterBandTable {
		if c.New == nil {
			delete(o.bands, c.UUID)
		} else {
			o.bands[c.UUID] = c.New.(*sb.MeterBand)
		}
		// A band edited in place: its meter is checked again.
		if name, ok := o.bandMeter[c.UUID]; ok {
			o.meters.dirty[name] = true
		}
		return true
	}
	if c.Table == sb.MeterTable {
		if m, ok := c.Old.(*sb.Meter); ok {
			for _, b := range m.Bands {
				delete(o.bandMeter, b)
			}
		}
		if m, ok := c.New.(*sb.Meter); ok {
			for _, b := range m.Bands {
				o.bandMeter[b] = m.Name
			}
		}
	}
	if r, ok := c.New.(*sb.MACBinding); ok {
		// The next hop's MAC address, learnt or changed.
		o.ecmpNexthops.dirty[ecmpNexthopKey(r.IP, r.LogicalPort)] = true
	}
	s, ok := o.byTable[c.Table]
	if ok {
		s.apply(c)
	}
	return ok
}

func (o *otherTables) reset() {
	o.bands, o.bandMeter = map[string]*sb.MeterBand{}, map[string]string{}
	for _, s := range o.order {
		s.reset()
	}
}

func (o *otherTables) markAll() {
	for _, s := range o.order {
		s.markAll()
	}
}

// reconcile writes what differs. DNS, IP_Multicast, the advertised
// routes and MAC bindings and the ECMP next hops refer to datapath rows,
// the last three to port rows too, so they are all checked when the
// transaction deletes one.
func (o *otherTables) reconcile(t *Txn) {
	if t.Deleted[sb.DatapathBindingTable] > 0 {
		o.dns.markAll()
		o.ipMulticast.markAll()
	}
	if t.Deleted[sb.DatapathBindingTable]+t.Deleted[sb.PortBindingTable] > 0 {
		o.advertisedRoutes.markAll()
		o.advertisedMACs.markAll()
		o.ecmpNexthops.markAll()
	}
	o.newPerms = map[string]string{}
	for _, s := range o.order {
		s.reconcile(t)
	}
}

// writeMeter sets a meter's unit and, when they differ from the wanted
// ones, its bands: new Meter_Band rows (the old ones, no longer referred
// to, are collected by the server), as sync_meters_iterate_nb_meter does.
func (o *otherTables) writeMeter(t *Txn, want rules.Meter, uuid string, row model.Model) {
	c := newChangedRow(uuid)
	m, _ := row.(*sb.Meter)
	bands := want.Bands.Slice()
	var have []rules.MeterBand
	if m != nil {
		for _, u := range m.Bands {
			if b := o.bands[u]; b != nil {
				have = append(have, rules.MeterBand{Action: b.Action, Rate: b.Rate, BurstSize: b.BurstSize})
			}
		}
		slices.SortFunc(have, compareBands)
	}
	slices.SortFunc(bands, compareBands)
	if m == nil || len(have) != len(m.Bands) || !slices.Equal(have, bands) {
		refs := make([]string, len(bands))
		for i, b := range bands {
			refs[i] = t.Insert(sb.MeterBandTable, lovsdb.Row{"action": b.Action, "rate": b.Rate, "burst_size": b.BurstSize})
		}
		c.row["bands"] = uuidSet(refs)
	}
	c.set("name", true, want.Name)
	c.set("unit", m != nil && m.Unit == want.Unit, want.Unit)
	c.commit(t, sb.MeterTable)
}

func compareBands(a, b rules.MeterBand) int {
	switch {
	case a.Rate != b.Rate:
		return a.Rate - b.Rate
	case a.BurstSize != b.BurstSize:
		return a.BurstSize - b.BurstSize
	case a.Action < b.Action:
		return -1
	case a.Action > b.Action:
		return 1
	}
	return 0
}

// dnsKey is a DNS row's external_ids:dns_id, the NB row it copies; rows
// without a valid one are deleted (sync_dns_entries).
func dnsKey(m model.Model) (string, bool) {
	id := m.(*sb.DNS).ExternalIDs["dns_id"]
	return id, wire.IsUUID(id)
}

// dnsKeyFor is the key of release r's DNS rows: from 26.03, a row has its
// NB row's UUID (sync_dns_entries inserts with persist_uuid) and no
// dns_id.
func dnsKeyFor(r schema.Release) func(model.Model) (string, bool) {
	if r < schema.OVN2603 {
		return dnsKey
	}
	return func(m model.Model) (string, bool) { return m.(*sb.DNS).UUID, true }
}

// writeDNS writes a DNS row on the datapath rows of its switches; 26.03's
// under the NB row's UUID, with options:ovn-owned and the row's other
// options kept.
func writeDNS(w *Writer, t *Txn, want rules.DNS, uuid string, row model.Model) {
	dps := w.dpRefs(t, want.Datapaths)
	if len(dps) == 0 {
		// No datapath row yet: a DNS row needs one.
		if uuid != "" {
			t.delete(sb.DNSTable, uuid)
		}
		return
	}
	d, _ := row.(*sb.DNS)
	c := newChangedRow(uuid)
	records := want.Records.Map()
	if w.stages.Release() < schema.OVN2603 {
		c.set("external_ids", true, wire.StrMap(map[string]string{"dns_id": want.NB}))
	} else {
		c.persist = want.NB
		options := map[string]string{}
		if d != nil {
			options = maps.Clone(d.Options)
		}
		options["ovn-owned"] = strconv.FormatBool(want.OVNOwned)
		c.set("options", d != nil && sameMap(d.Options, options), wire.StrMap(options))
	}
	c.set("datapaths", d != nil && sameSet(d.Datapaths, dps), uuidSet(dps))
	c.set("records", d != nil && sameMap(d.Records, records), wire.StrMap(records))
	c.commit(t, sb.DNSTable)
}

// templateVarsPersistUUID: from 26.03 a Chassis_Template_Var row takes its
// NB row's UUID (sync_template_vars inserts with persist_uuid) and is
// updated in place.
func templateVarsPersistUUID(r schema.Release) bool { return r >= schema.OVN2603 }

// writeTemplateVar writes a Chassis_Template_Var row; 26.03's under the NB
// row's UUID (sync_template_vars inserts with persist_uuid).
func (o *otherTables) writeTemplateVar(t *Txn, want rules.TemplateVar, uuid string, row model.Model) {
	v, _ := row.(*sb.ChassisTemplateVar)
	vars := want.Variables.Map()
	c := newChangedRow(uuid)
	if o.templateVarsByNB {
		c.persist = want.NB
	}
	c.set("chassis", v != nil && v.Chassis == want.Chassis, want.Chassis)
	c.set("variables", v != nil && sameMap(v.Variables, vars), wire.StrMap(vars))
	c.commit(t, sb.ChassisTemplateVarTable)
}

// writeIPMulticast writes a switch's IP_Multicast row
// (store_mcast_info_for_switch_datapath): the query source addresses only
// when set, as northd never clears them.
func writeIPMulticast(w *Writer, t *Txn, want rules.IPMulticast, uuid string, row model.Model) {
	dp := w.dpRef(t, want.Switch)
	if dp == "" {
		if uuid != "" {
			t.delete(sb.IPMulticastTable, uuid)
		}
		return
	}
	r, _ := row.(*sb.IPMulticast)
	if r == nil {
		r = &sb.IPMulticast{}
	}
	c := newChangedRow(uuid)
	sameInt := func(p *int, v int) bool { return p != nil && *p == v }
	sameBool := func(p *bool, v bool) bool { return p != nil && *p == v }
	c.set("datapath", r.Datapath == dp, lovsdb.UUID{GoUUID: dp})
	c.set("enabled", sameBool(r.Enabled, want.Enabled), wire.OptBool(want.Enabled))
	c.set("querier", sameBool(r.Querier, want.Querier), wire.OptBool(want.Querier))
	c.set("table_size", sameInt(r.TableSize, want.TableSize), wire.OptInt(want.TableSize, true))
	c.set("idle_timeout", sameInt(r.IdleTimeout, want.IdleTimeout), wire.OptInt(want.IdleTimeout, true))
	c.set("query_interval", sameInt(r.QueryInterval, want.QueryInterval), wire.OptInt(want.QueryInterval, true))
	c.set("query_max_resp", sameInt(r.QueryMaxResp, want.MaxResp), wire.OptInt(want.MaxResp, true))
	if want.HasEthSrc {
		c.set("eth_src", r.EthSrc == want.EthSrc, want.EthSrc)
	}
	if want.HasIP4 {
		c.set("ip4_src", r.Ip4Src == want.IP4Src, want.IP4Src)
	}
	if want.HasIP6 {
		c.set("ip6_src", r.Ip6Src == want.IP6Src, want.IP6Src)
	}
	c.commit(t, sb.IPMulticastTable)
}

// writeMirror sets the four columns when one differs
// (mirror_needs_update).
func writeMirror(t *Txn, want rules.Mirror, uuid string, row model.Model) {
	m, _ := row.(*sb.Mirror)
	c := newChangedRow(uuid)
	c.set("name", true, want.Name)
	if m == nil || m.Filter != want.Filter || m.Sink != want.Sink || m.Type != want.Type || m.Index != want.Index {
		c.row["filter"], c.row["sink"], c.row["type"], c.row["index"] = want.Filter, want.Sink, want.Type, want.Index
	}
	c.commit(t, sb.MirrorTable)
}

// dhcpOption is one row of DHCP_Options or DHCPv6_Options: an option
// ovn-controller's put_dhcp_opts and put_dhcpv6_opts know.
type dhcpOption struct {
	Name string
	Code int
	Type string
}

// dhcpOptions and dhcpv6Options are the options 23.03 lists
// (supported_dhcp_opts, supported_dhcpv6_opts; lib/ovn-l7.h).
var dhcpOptions = []dhcpOption{
	{"offerip", 0, "ipv4"}, {"netmask", 1, "ipv4"}, {"router", 3, "ipv4"},
	{"dns_server", 6, "ipv4"}, {"log_server", 7, "ipv4"}, {"lpr_server", 9, "ipv4"},
	{"hostname", 12, "str"}, {"domain_name", 15, "str"}, {"swap_server", 16, "ipv4"},
	{"ip_forward_enable", 19, "bool"}, {"policy_filter", 21, "ipv4"}, {"default_ttl", 23, "uint8"},
	{"mtu", 26, "uint16"}, {"broadcast_address", 28, "ipv4"}, {"router_discovery", 31, "bool"},
	{"router_solicitation", 32, "ipv4"}, {"arp_cache_timeout", 35, "uint32"},
	{"ethernet_encap", 36, "bool"}, {"tcp_ttl", 37, "uint8"}, {"tcp_keepalive_interval", 38, "uint32"},
	{"nis_server", 41, "ipv4"}, {"ntp_server", 42, "ipv4"}, {"netbios_name_server", 44, "ipv4"},
	{"netbios_node_type", 46, "uint8"}, {"lease_time", 51, "uint32"}, {"server_id", 54, "ipv4"},
	{"T1", 58, "uint32"}, {"T2", 59, "uint32"}, {"tftp_server", 66, "host_id"},
	{"bootfile_name", 67, "str"}, {"domain_search_list", 119, "domains"},
	{"classless_static_route", 121, "static_routes"}, {"tftp_server_address", 150, "ipv4"},
	{"path_prefix", 210, "str"}, {"ms_classless_static_route", 249, "static_routes"},
	{"wpad", 252, "str"}, {"next_server", 253, "ipv4"}, {"bootfile_name_alt", 254, "str"},
}

var dhcpv6Options = []dhcpOption{
	{"server_id", 2, "mac"}, {"ia_addr", 5, "ipv6"}, {"dns_server", 23, "ipv6"}, {"domain_search", 24, "str"},
}

// dhcpv6OptionsFor are the DHCPv6 options release r lists: 26.03 adds
// fqdn, bootfile_name and bootfile_name_alt (ovn-l7.h).
func dhcpv6OptionsFor(r schema.Release) []dhcpOption {
	if r < schema.OVN2603 {
		return dhcpv6Options
	}
	return append(slices.Clone(dhcpv6Options), dhcpOption{"fqdn", 39, "domain"},
		dhcpOption{"bootfile_name", 59, "str"}, dhcpOption{"bootfile_name_alt", 254, "str"})
}

// rbacRole is the RBAC_Role northd keeps.
const rbacRole = "ovn-controller"

// rbacRoleExact: 26.03 leaves the RBAC rows it does not use alone (other
// roles, permissions that grant otherwise) and gives its role exactly one
// permission row per table it grants (check_and_update_rbac rebuilds the
// role's permissions on any difference); 23.03 deletes those rows and adds
// to the role only the permissions it creates.
func rbacRoleExact(r schema.Release) bool { return r >= schema.OVN2603 }

// rbacPerm is an RBAC_Permission row: what ovn-controller may do to a
// table (rbac_perm_cfg).
type rbacPerm struct {
	Table          string
	Auth, Update   rules.Strings
	InsertDelete   bool
	authN, updateN int
}

func perm(table string, insdel bool, auth []string, update ...string) rbacPerm {
	return rbacPerm{Table: table, Auth: rules.StringsOf(auth...), Update: rules.StringsOf(update...),
		InsertDelete: insdel, authN: len(auth), updateN: len(update)}
}

var rbacPerms = []rbacPerm{
	perm("Chassis", true, []string{"name"}, "nb_cfg", "external_ids", "encaps", "vtep_logical_switches", "other_config", "transport_zones"),
	perm("Chassis_Private", true, []string{"name"}, "nb_cfg", "nb_cfg_timestamp", "chassis", "external_ids"),
	perm("Controller_Event", true, []string{""}, "chassis", "event_info", "event_type", "seq_num"),
	perm("Encap", true, []string{"chassis_name"}, "type", "options", "ip"),
	perm("FDB", true, []string{""}, "dp_key", "mac", "port_key"),
	perm("Port_Binding", false, []string{""}, "chassis", "additional_chassis", "encap", "additional_encap", "up", "virtual_parent", "options"),
	perm("MAC_Binding", true, []string{""}, "logical_port", "ip", "mac", "datapath", "timestamp"),
	perm("Service_Monitor", false, []string{""}, "status"),
	perm("IGMP_Group", true, []string{""}, "address", "chassis", "datapath", "ports"),
	perm("BFD", false, []string{""}, "status"),
}

// rbacPerms2603 are the permissions 26.03 grants otherwise or anew: a
// chassis changes only its own Service_Monitor, IGMP_Group and BFD rows,
// FDB's timestamp and IGMP_Group's protocol, and Learned_Route rows.
var rbacPerms2603 = []rbacPerm{
	perm("FDB", true, []string{""}, "dp_key", "mac", "port_key", "timestamp"),
	perm("Service_Monitor", false, []string{"chassis_name"}, "status"),
	perm("IGMP_Group", true, []string{"chassis_name"}, "address", "protocol", "chassis", "datapath", "ports"),
	perm("BFD", false, []string{"chassis_name"}, "status"),
	perm("Learned_Route", true, []string{""}, "datapath", "logical_port", "ip_prefix", "nexthop", "external_ids"),
}

// rbacPermsFor is release r's rbac_perm_cfg.
func rbacPermsFor(r schema.Release) []rbacPerm {
	if r < schema.OVN2603 {
		return rbacPerms
	}
	perms := slices.DeleteFunc(slices.Clone(rbacPerms), func(p rbacPerm) bool {
		return slices.ContainsFunc(rbacPerms2603, func(q rbacPerm) bool { return q.Table == p.Table })
	})
	return append(perms, rbacPerms2603...)
}

// rbacPermKey is the table of a permission row that grants exactly what
// the release grants for it, perms (ovn_rbac_validate_perm); other rows
// have no key and are deleted.
func rbacPermKey(perms []rbacPerm, m model.Model) (string, bool) {
	r := m.(*sb.RBACPermission)
	for _, p := range perms {
		if p.Table != r.Table {
			continue
		}
		ok := r.InsertDelete == p.InsertDelete && len(r.Authorization) == p.authN && len(r.Update) == p.updateN &&
			rules.StringsOf(r.Authorization...) == p.Auth && rules.StringsOf(r.Update...) == p.Update
		return r.Table, ok
	}
	return "", false
}

func (o *otherTables) writePerm(t *Txn, want rbacPerm, uuid string, _ model.Model) {
	// The role may refer to a row of this table that changed.
	o.rbacRoles.dirty[rbacRole] = true
	if uuid != "" {
		return
	}
	o.newPerms[want.Table] = t.Insert(sb.RBACPermissionTable, lovsdb.Row{
		"table": want.Table, "authorization": wire.StrSet(want.Auth.Slice()),
		"insert_delete": want.InsertDelete, "update": wire.StrSet(want.Update.Slice()),
	})
}

// writeRole points the role's permissions at the permission rows inserted
// (ovn_rbac_create_perm); a new role, and with rbacExact any role, gets
// exactly the permission row kept of each table (keepFirst).
func (o *otherTables) writeRole(t *Txn, _ string, uuid string, row model.Model) {
	perms := map[string]string{}
	r, have := row.(*sb.RBACRole)
	if have && !o.rbacExact {
		perms = maps.Clone(r.Permissions)
	} else {
		for table, rows := range o.rbacPerms.byKey {
			perms[table] = rows[0]
		}
	}
	maps.Copy(perms, o.newPerms)
	c := newChangedRow(uuid)
	c.set("name", true, rbacRole)
	if !have || !maps.Equal(r.Permissions, perms) {
		m := make(map[any]any, len(perms))
		for k, v := range perms {
			m[k] = lovsdb.UUID{GoUUID: v}
		}
		c.row["permissions"] = lovsdb.OvsMap{GoMap: m}
	}
	c.commit(t, sb.RBACRoleTable)
}
