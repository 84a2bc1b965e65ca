package ovsdb

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// nbFeed is the NB contents the program was fed, by table and row UUID,
// with the lookups the live northd needs besides.
type nbFeed struct {
	rows map[string]map[string]model.Model
	// globals are the NB_Global rows as the NB holds them now, global
	// the first by UUID. The program may hold an older version of a row,
	// one that differs in the handshake columns alone (handshakeOnly).
	globals   map[string]*nb.NBGlobal
	global    *nb.NBGlobal
	lspByName map[string]*nb.LogicalSwitchPort
	lrpByName map[string]*nb.LogicalRouterPort
	// portsChanged are the names of switch and router ports added,
	// changed or deleted since the last call to takePorts.
	portsChanged map[string]bool
	// icVXLAN are the switches with other_config:ic-vxlan_mode
	// (icVXLANMode, asked on every iteration that changes the NB).
	icVXLAN map[string]bool

	// ipam computes the switch ports' dynamic_addresses; the program is
	// fed the ports with them. macs are the random values northd writes
	// into NB_Global where it has none: IPAM's MAC prefix then, and the
	// program is fed NB_Global with them (withDynamic).
	ipam    *relations.IPAM
	macs    randomMACs
	release schema.Release
	// lspRaw are the switch port rows as the NB holds them; ipamPending
	// the ports whose dynamic_addresses may differ from IPAM's.
	lspRaw      map[string]*nb.LogicalSwitchPort
	ipamPending map[string]bool
	// status are the rows whose NB status columns need a check.
	status *statusDirt
}

func newNBFeed(log *slog.Logger, macs randomMACs, release schema.Release) *nbFeed {
	return &nbFeed{
		rows:         map[string]map[string]model.Model{},
		globals:      map[string]*nb.NBGlobal{},
		lspByName:    map[string]*nb.LogicalSwitchPort{},
		lrpByName:    map[string]*nb.LogicalRouterPort{},
		portsChanged: map[string]bool{},
		icVXLAN:      map[string]bool{},
		ipam:         relations.NewIPAM(log),
		macs:         macs,
		release:      release,
		lspRaw:       map[string]*nb.LogicalSwitchPort{},
		ipamPending:  map[string]bool{},
		status:       newStatusDirt(),
	}
}

// apply feeds batches to the program's NB inputs and returns the number of
// rows changed. An initial batch (a new connection) is the whole NB: it is
// compared with what was fed, and only the differences are fed. IPAM sees
// every change first: the program is fed the switch ports with the
// dynamic_addresses IPAM gives them, as ovn-northd computes its flows with
// the addresses it allocates in the same run.
func (f *nbFeed) apply(n *relations.NB, bs []wire.Batch) (int, error) {
	var changes []wire.Change
	for _, b := range bs {
		if b.Initial {
			changes = append(changes, f.resync(b.Changes)...)
		} else {
			changes = append(changes, b.Changes...)
		}
	}
	for _, c := range changes {
		f.observeIPAM(c)
	}
	f.ipam.Run()
	for _, u := range f.ipam.TakeChanged() {
		f.ipamPending[u] = true
		if raw := f.lspRaw[u]; raw != nil {
			changes = append(changes, wire.Change{Table: nb.LogicalSwitchPortTable, UUID: u, New: raw})
		}
	}
	changed := 0
	for _, c := range changes {
		// The feed's own row is the one the program holds; the
		// connection's old row may be an equal copy from an earlier
		// connection.
		old := f.rows[c.Table][c.UUID]
		if old == nil && c.New == nil {
			continue
		}
		if c.Table == nb.NBGlobalTable && old != nil && handshakeOnly(f.globals[c.UUID], c.New) {
			// Every --wait=sb bumps nb_cfg, and northd's own sb_cfg and
			// hv_cfg writes come back: a step for them would find nothing
			// to do, at the cost of a pass over the circuit. The row fed
			// is the NB's (globals) with options made valid
			// (withDynamic), which the handshake leaves as they were.
			f.setGlobal(c.UUID, c.New)
			continue
		}
		new := f.withDynamic(c.Table, c.UUID, c.New)
		if old != nil && new != nil && c.Table == nb.LogicalSwitchPortTable && equalModels(old, new) {
			continue
		}
		if err := n.Apply(c.Table, old, new); err != nil {
			return changed, err
		}
		f.set(c.Table, c.UUID, old, new)
		if c.Table == nb.NBGlobalTable {
			f.setGlobal(c.UUID, c.New) // as the NB holds it
		}
		changed++
	}
	return changed, nil
}

// resync is the changes that turn what was fed into contents.
func (f *nbFeed) resync(contents []wire.Change) []wire.Change {
	var out []wire.Change
	seen := map[string]map[string]bool{}
	for _, c := range contents {
		if seen[c.Table] == nil {
			seen[c.Table] = map[string]bool{}
		}
		seen[c.Table][c.UUID] = true
		old := f.rows[c.Table][c.UUID]
		if old == nil || !equalModels(old, c.New) {
			out = append(out, wire.Change{Table: c.Table, UUID: c.UUID, Old: old, New: c.New})
		}
	}
	for table, rows := range f.rows {
		for uuid, old := range rows {
			if !seen[table][uuid] {
				out = append(out, wire.Change{Table: table, UUID: uuid, Old: old})
			}
		}
	}
	return out
}

// handshakeOnly reports whether NB_Global rows a and b differ in the
// columns of the configuration handshake alone (nb_cfg, sb_cfg, hv_cfg
// and their timestamps), which northd reads from the feed, not the
// program.
func handshakeOnly(a, b model.Model) bool {
	ga, ok := a.(*nb.NBGlobal)
	gb, ok2 := b.(*nb.NBGlobal)
	if !ok || !ok2 || ga == nil || gb == nil {
		return false
	}
	x := *ga
	x.NbCfg, x.NbCfgTimestamp, x.SbCfg, x.SbCfgTimestamp = gb.NbCfg, gb.NbCfgTimestamp, gb.SbCfg, gb.SbCfgTimestamp
	x.HvCfg, x.HvCfgTimestamp = gb.HvCfg, gb.HvCfgTimestamp
	return x.EqualsModel(gb)
}

func equalModels(a, b model.Model) bool {
	if e, ok := a.(interface{ EqualsModel(model.Model) bool }); ok {
		return e.EqualsModel(b)
	}
	return reflect.DeepEqual(a, b)
}

func (f *nbFeed) set(table, uuid string, old, new model.Model) {
	if f.rows[table] == nil {
		f.rows[table] = map[string]model.Model{}
	}
	if new == nil {
		delete(f.rows[table], uuid)
	} else {
		f.rows[table][uuid] = new
	}
	f.status.nbRow(table, uuid, old, new)
	switch table {
	case nb.LogicalSwitchPortTable:
		trackPort(f.lspByName, f.portsChanged, old, new, func(p *nb.LogicalSwitchPort) string { return p.Name })
	case nb.LogicalRouterPortTable:
		trackPort(f.lrpByName, f.portsChanged, old, new, func(p *nb.LogicalRouterPort) string { return p.Name })
	case nb.LogicalSwitchTable:
		delete(f.icVXLAN, uuid)
		if ls, ok := new.(*nb.LogicalSwitch); ok {
			if _, ic := ls.OtherConfig["ic-vxlan_mode"]; ic {
				f.icVXLAN[uuid] = true
			}
		}
	}
}

// trackPort keeps byName, the ports of one table by name, and the names
// changed up to date as row old (nil when added) becomes new (nil when
// deleted).
func trackPort[P comparable](byName map[string]P, changed map[string]bool, old, new model.Model, name func(P) string) {
	if o, ok := old.(P); ok {
		if byName[name(o)] == o {
			delete(byName, name(o))
		}
		changed[name(o)] = true
	}
	if n, ok := new.(P); ok {
		byName[name(n)] = n
		changed[name(n)] = true
	}
}

// setGlobal records NB_Global row uuid as the NB now holds it (nil when
// deleted). There should be one; of several (two clients that each
// created one), global is the first by UUID.
func (f *nbFeed) setGlobal(uuid string, row model.Model) {
	if g, ok := row.(*nb.NBGlobal); ok {
		f.globals[uuid] = g
	} else {
		delete(f.globals, uuid)
	}
	f.global = nil
	if len(f.globals) > 0 {
		f.global = f.globals[slices.Min(slices.Collect(maps.Keys(f.globals)))]
	}
}

// portName names the switch or router port with NB _uuid u.
func (f *nbFeed) portName(u string) (string, bool) {
	if p, ok := f.rows[nb.LogicalSwitchPortTable][u].(*nb.LogicalSwitchPort); ok {
		return p.Name, true
	}
	if p, ok := f.rows[nb.LogicalRouterPortTable][u].(*nb.LogicalRouterPort); ok {
		return p.Name, true
	}
	return "", false
}

// portUUIDs are the NB _uuids of the switch and router ports named name.
func (f *nbFeed) portUUIDs(name string) []string {
	var uuids []string
	if p := f.lspByName[name]; p != nil {
		uuids = append(uuids, p.UUID)
	}
	if p := f.lrpByName[name]; p != nil {
		uuids = append(uuids, p.UUID)
	}
	return uuids
}

// count is the number of NB rows fed.
// row is the row uuid of table as fed, nil when there is none.
func (f *nbFeed) row(table, uuid string) model.Model { return f.rows[table][uuid] }

func (f *nbFeed) count() int {
	n := 0
	for _, rows := range f.rows {
		n += len(rows)
	}
	return n
}

// icVXLANMode reports whether a switch has other_config:ic-vxlan_mode, of
// any value (en-global-config.c).
func (f *nbFeed) icVXLANMode() bool { return len(f.icVXLAN) > 0 }

// takePorts returns the switch and router ports changed since the last
// call.
func (f *nbFeed) takePorts() map[string]bool {
	p := f.portsChanged
	f.portsChanged = map[string]bool{}
	return p
}

// globalOptions are the NB_Global options as northd writes them back
// (ovnnb_db_run): options:mac_prefix made valid (random when missing or
// unreadable), svc_monitor_mac set (random when missing or unreadable),
// max_tunid (maxTunid, the largest datapath key) and the release's
// northd_internal_version; from 26.03, svc_monitor_mac_dst too
// (en-global-config.c), the destination MAC of service monitor replies.
// macs are the random values to use, chosen once per process. The SB_Global options are the same (sbOptions).
func globalOptions(g *nb.NBGlobal, r schema.Release, macs randomMACs, maxTunid int) map[string]string {
	options := withRandomMACs(g.Options, r, macs)
	options["max_tunid"] = strconv.Itoa(maxTunid)
	options["northd_internal_version"] = r.InternalVersion()
	return options
}

// withRandomMACs is a copy of NB_Global options with mac_prefix made
// valid and svc_monitor_mac (from 26.03 svc_monitor_mac_dst too) set,
// from macs where they are missing or unreadable.
func withRandomMACs(nbOptions map[string]string, r schema.Release, macs randomMACs) map[string]string {
	options := maps.Clone(nbOptions)
	if options == nil {
		options = map[string]string{}
	}
	prefix, ok := scanMACPrefix(options["mac_prefix"])
	if !ok {
		prefix = macs.prefix
	}
	options["mac_prefix"] = prefix
	if _, err := relations.ParseMAC(options["svc_monitor_mac"]); err != nil {
		options["svc_monitor_mac"] = macs.svc
	}
	if _, err := relations.ParseMAC(options["svc_monitor_mac_dst"]); err != nil && r >= schema.OVN2603 {
		options["svc_monitor_mac_dst"] = macs.svcDst
	}
	return options
}

// globalOptionsMemo holds the last globalOptions and what they were made
// from: every --wait=sb changes the NB_Global row, and northd's own
// handshake writes come back, but its options seldom change.
type globalOptionsMemo struct {
	in       map[string]string
	release  schema.Release
	maxTunid int
	out      map[string]string
}

// get is globalOptions(g, r, macs, maxTunid), made again only when g's
// options, r or maxTunid differ from the last call's (macs are the
// process's). The map returned is shared: callers must not change it.
func (m *globalOptionsMemo) get(g *nb.NBGlobal, r schema.Release, macs randomMACs, maxTunid int) map[string]string {
	if m.out == nil || r != m.release || maxTunid != m.maxTunid || !maps.Equal(g.Options, m.in) {
		*m = globalOptionsMemo{in: maps.Clone(g.Options), release: r, maxTunid: maxTunid, out: globalOptions(g, r, macs, maxTunid)}
	}
	return m.out
}

// scanMACPrefix reads a MAC prefix as set_mac_prefix does ("%hhx:%hhx:%hhx"
// and anything after), normalized; false when unreadable or zero.
func scanMACPrefix(s string) (string, bool) {
	var a, b, c uint8
	if _, err := fmt.Sscanf(s, "%x:%x:%x", &a, &b, &c); err != nil || a|b|c == 0 {
		return "", false
	}
	return fmt.Sprintf("%02x:%02x:%02x", a, b, c), true
}

// randomMACs are the values northd makes up, once per process, for the
// NB_Global options that are missing or unreadable (globalOptions).
type randomMACs struct{ prefix, svc, svcDst string }

// newRandomMACs draws the values of randomMACs.
func newRandomMACs() randomMACs {
	mac := randomMAC()
	return randomMACs{fmt.Sprintf("%02x:%02x:%02x", mac[0], mac[1], mac[2]), randomMAC().String(), randomMAC().String()}
}

// randomMAC is a random locally administered unicast MAC (eth_addr_random).
func randomMAC() relations.EthAddr {
	var e relations.EthAddr
	_, _ = rand.Read(e[:])
	e[0] = e[0]&^1 | 2
	return e
}

// nbGlobalUpdate is the update of NB_Global's columns that differ from
// cols, none when none does. A change of options is made from the options
// read and verified, as ovnnb_db_run does, so that it never overwrites a
// value a client has set since.
func nbGlobalUpdate(g *nb.NBGlobal, cols lovsdb.Row) []lovsdb.Operation {
	cur := map[string]any{
		"nb_cfg_timestamp": g.NbCfgTimestamp, "sb_cfg": g.SbCfg, "sb_cfg_timestamp": g.SbCfgTimestamp,
		"hv_cfg": g.HvCfg, "hv_cfg_timestamp": g.HvCfgTimestamp,
	}
	var ops []lovsdb.Operation
	row := lovsdb.Row{}
	for _, col := range slices.Sorted(maps.Keys(cols)) {
		v := cols[col]
		if col == "options" {
			if !maps.Equal(g.Options, v.(map[string]string)) {
				row[col] = wire.StrMap(v.(map[string]string))
				ops = append(ops, wire.VerifyOp(nb.NBGlobalTable, g.UUID, lovsdb.Row{"options": wire.StrMap(g.Options)}))
			}
			continue
		}
		if cur[col] != v {
			row[col] = v
		}
	}
	if len(row) == 0 {
		return nil
	}
	return append(ops, lovsdb.Operation{Op: lovsdb.OperationUpdate, Table: nb.NBGlobalTable, Row: row, Where: wire.WhereUUID(g.UUID)})
}
