package relations

import (
	"cmp"
	"log/slog"
	"net/netip"
	"slices"
	"strings"

	"github.com/northlog/northlog/relations/nb"
)

// IPAM computes switch ports' dynamic_addresses as ovn-northd 23.03's
// build_ipam does, incrementally: it keeps, per switch, the addresses in
// use (static addresses, router ports' networks, excluded ranges, other
// ports' dynamic addresses) and, for the whole NB, the MACs in use, so that
// a change costs what it touches: a port added to a switch of 10k ports
// neither rescans the switch nor its addresses.
//
// Feed it NB rows with SetMACPrefix and the Update methods, then Run;
// TakeChanged tells which ports' dynamic_addresses Run changed. Like
// ovn-northd, which runs again after writing dynamic_addresses and sees its
// own write, Run repeats its allocation on the ports it changed until
// nothing changes, so one Run gives what ovn-northd's sequence of runs ends
// with.
//
// Where it cannot match: ovn-northd visits switches in the order of its
// datapath hash map (which depends on the SB's rows as its IDL received
// them), IPAM in _uuid order; within a switch both visit ports in _uuid
// order. The switch order shows only when ports of two switches get new
// MACs in the same run and the MACs they would get collide (switches with
// the same subnet, or mac_only switches). A port listed by two switches is
// counted on the last one seen; of two router ports with the same name, or
// two router-type switch ports naming the same router port, all count.
type IPAM struct {
	log      *slog.Logger
	prefix   EthAddr
	macs     map[EthAddr]int32 // MACs in use, with the number of users
	switches map[string]*ipamSwitch
	ports    map[string]*ipamPort
	listedBy map[string]string // switch port _uuid -> switch _uuid
	lrps     map[string]*ipamLRP
	lrpNamed map[string]map[*ipamLRP]bool
	// peerRefs: router-type switch ports by the router port they name.
	peerRefs map[string]map[*ipamPort]bool
	dirty    map[*ipamPort]bool
	// touched are the switches whose addresses changed since the last
	// Run: their unsettled ports are decided again. A set, not a mark on
	// each switch: Run would otherwise walk every switch of the NB.
	touched map[*ipamSwitch]bool
	changed map[string]bool
	// quiet suspends dirty marking while Run releases and re-takes the
	// addresses of the ports it updates.
	quiet bool
}

// maxIPAMRounds bounds Run's repetitions; ovn-northd's runs settle in two
// or three.
const maxIPAMRounds = 8

type ipamSwitch struct {
	uuid   string
	cfgKey [4]string // the other_config values read, "\x00" for absent
	cfg    IPAMConfig
	ports  []string // the ports column, as last seen
	// static counts the static addresses of the switch's ports and its
	// router peers' networks; holders lists the ports whose
	// dynamic_addresses hold an address, by _uuid; wanting the ports whose
	// request names an address ("dynamic IP").
	static  map[uint32]int32
	holders map[uint32][]*ipamPort
	wanting map[uint32]map[*ipamPort]bool
	used    ipBitmap // offsets from cfg.Start in use, when cfg.HasIPv4
	// unsettled are the ports northd updates in every run although their
	// value stays (a request for an address outside the subnet, for one):
	// they take no address while northd visits the switch, then the
	// lowest free one, so they are decided again whenever the switch's
	// addresses change (IPAM.touched).
	unsettled map[*ipamPort]bool
}

type ipamPort struct {
	uuid string
	row  *nb.LogicalSwitchPort
	sw   *ipamSwitch
	req  *DynamicRequest // the first dynamic entry of addresses
	cur  *string         // dynamic_addresses as northd has them
	curA LPortAddresses  // cur read
	// What the port takes while attached (see attach).
	staticMACs []EthAddr
	staticIPs  []uint32
	macClaim   *EthAddr
	ipClaim    *uint32
	wantIP     *uint32
}

type ipamLRP struct {
	name string
	mac  EthAddr
	ok   bool // the MAC is readable: northd has a port for it
	ipv4 []uint32
}

// NewIPAM returns an empty IPAM; log receives what ovn-northd logs about
// IPAM (nil discards).
func NewIPAM(log *slog.Logger) *IPAM {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &IPAM{
		log:      log,
		macs:     map[EthAddr]int32{},
		switches: map[string]*ipamSwitch{},
		ports:    map[string]*ipamPort{},
		listedBy: map[string]string{},
		lrps:     map[string]*ipamLRP{},
		lrpNamed: map[string]map[*ipamLRP]bool{},
		peerRefs: map[string]map[*ipamPort]bool{},
		dirty:    map[*ipamPort]bool{},
		touched:  map[*ipamSwitch]bool{},
		changed:  map[string]bool{},
	}
}

// SetMACPrefix sets the prefix of the MACs northd gives out: the first
// three octets of prefix (NB_Global options:mac_prefix, made valid).
func (m *IPAM) SetMACPrefix(prefix string) {
	ea, _, ok := scanEthAddr(prefix+":00:00:00", 0)
	if !ok {
		m.log.Warn("IPAM: unreadable MAC prefix", "mac_prefix", prefix)
		return
	}
	ea[3], ea[4], ea[5] = 0, 0, 0
	if ea == m.prefix {
		return
	}
	m.prefix = ea
	// Every port's dynamic MAC is checked against the prefix.
	for _, p := range m.ports {
		m.dirty[p] = true
	}
}

// Dynamic is the dynamic_addresses of the switch port with _uuid u as IPAM
// has them: what northd writes (nil: none).
func (m *IPAM) Dynamic(u string) *string {
	if p := m.ports[u]; p != nil {
		return p.cur
	}
	return nil
}

// TakeChanged returns the _uuids of the switch ports whose
// dynamic_addresses Run changed since the last call.
func (m *IPAM) TakeChanged() []string {
	out := make([]string, 0, len(m.changed))
	for u := range m.changed {
		out = append(out, u)
	}
	m.changed = map[string]bool{}
	slices.Sort(out)
	return out
}

// UpdateSwitch feeds a Logical_Switch row; nil: the row was deleted.
func (m *IPAM) UpdateSwitch(u string, ls *nb.LogicalSwitch) {
	sw := m.switches[u]
	if sw == nil {
		if ls == nil {
			return
		}
		sw = &ipamSwitch{uuid: u, cfgKey: [4]string{"\x00", "\x00", "\x00", "\x00"},
			static: map[uint32]int32{}, holders: map[uint32][]*ipamPort{}, wanting: map[uint32]map[*ipamPort]bool{},
			unsettled: map[*ipamPort]bool{}}
		m.switches[u] = sw
	}
	var key [4]string
	var ports []string
	var config map[string]string
	if ls != nil {
		config, ports = ls.OtherConfig, ls.Ports
	}
	for k, name := range []string{"subnet", "exclude_ips", "ipv6_prefix", "mac_only"} {
		v, ok := config[name]
		if !ok {
			v = "\x00"
		}
		key[k] = v
	}
	if key != sw.cfgKey {
		members := m.members(sw)
		for _, p := range members {
			m.detach(p)
		}
		cfg, err := ParseIPAMConfig(config)
		if err != nil {
			m.log.Warn("IPAM: switch configuration", "switch", u, "err", err)
		}
		sw.cfgKey, sw.cfg, sw.used = key, cfg, ipBitmap{}
		if cfg.HasIPv4 {
			sw.used.set(0, true)
			for _, r := range cfg.Excluded {
				sw.used.setRange(r.Lo, r.Hi)
			}
		}
		for _, p := range members {
			m.attach(p)
			m.dirty[p] = true
		}
	}
	gone, added := TrimCommon(sw.ports, ports)
	stays := make(map[string]bool, len(added))
	for _, pu := range added {
		stays[pu] = true
	}
	for _, pu := range gone {
		if !stays[pu] && m.listedBy[pu] == u {
			delete(m.listedBy, pu)
			m.move(pu, nil)
		}
		delete(stays, pu)
	}
	for pu := range stays {
		m.listedBy[pu] = u
		m.move(pu, sw)
	}
	sw.ports = ports
	if ls == nil {
		delete(m.switches, u)
	}
}

// members are the known ports on sw, by _uuid.
func (m *IPAM) members(sw *ipamSwitch) []*ipamPort {
	var out []*ipamPort
	for _, pu := range sw.ports {
		if p := m.ports[pu]; p != nil && p.sw == sw {
			out = append(out, p)
		}
	}
	return out
}

// move puts the port with _uuid u on sw.
func (m *IPAM) move(u string, sw *ipamSwitch) {
	p := m.ports[u]
	if p == nil || p.sw == sw {
		return
	}
	m.detach(p)
	p.sw = sw
	m.attach(p)
	m.dirty[p] = true
}

// UpdateSwitchPort feeds a Logical_Switch_Port row; nil: deleted. The
// row's dynamic_addresses is what northd reads next. A row that changed
// in no column IPAM reads (its up, northd's own write after each binding
// change) is only recorded.
func (m *IPAM) UpdateSwitchPort(u string, row *nb.LogicalSwitchPort) {
	p := m.ports[u]
	if p != nil && p.row != nil && row != nil && sameIPAMColumns(p.row, row) {
		p.row = row
		return
	}
	if p == nil {
		if row == nil {
			return
		}
		p = &ipamPort{uuid: u}
		m.ports[u] = p
		if su, ok := m.listedBy[u]; ok {
			p.sw = m.switches[su]
		}
	}
	m.detach(p)
	m.unrefPeer(p)
	if row == nil {
		delete(m.ports, u)
		delete(m.dirty, p)
		return
	}
	p.row = row
	p.req = nil
	for _, a := range row.Addresses {
		if IsDynamicAddress(a) {
			r := ParseDynamicRequest(a)
			p.req = &r
			break
		}
	}
	m.setCur(p, row.DynamicAddresses)
	if row.Type == LSPTypeRouter {
		name := row.Options["router-port"]
		if m.peerRefs[name] == nil {
			m.peerRefs[name] = map[*ipamPort]bool{}
		}
		m.peerRefs[name][p] = true
	}
	m.attach(p)
	m.dirty[p] = true
}

// sameIPAMColumns reports whether two versions of a switch port agree in
// the columns IPAM reads: its name, type, router port, addresses, port
// security (readLSPAddresses) and dynamic_addresses.
func sameIPAMColumns(a, b *nb.LogicalSwitchPort) bool {
	return a.Name == b.Name && a.Type == b.Type && a.Options["router-port"] == b.Options["router-port"] &&
		slices.Equal(a.Addresses, b.Addresses) && slices.Equal(a.PortSecurity, b.PortSecurity) &&
		(a.DynamicAddresses == nil) == (b.DynamicAddresses == nil) && (a.DynamicAddresses == nil || *a.DynamicAddresses == *b.DynamicAddresses)
}

func (m *IPAM) unrefPeer(p *ipamPort) {
	if p.row == nil || p.row.Type != LSPTypeRouter {
		return
	}
	name := p.row.Options["router-port"]
	delete(m.peerRefs[name], p)
	if len(m.peerRefs[name]) == 0 {
		delete(m.peerRefs, name)
	}
}

// UpdateRouterPort feeds a Logical_Router_Port row; nil: deleted.
func (m *IPAM) UpdateRouterPort(u string, row *nb.LogicalRouterPort) {
	old := m.lrps[u]
	var peers []*ipamPort
	for _, r := range []*ipamLRP{old} {
		if r != nil {
			for p := range m.peerRefs[r.name] {
				peers = append(peers, p)
			}
		}
	}
	if row != nil {
		for p := range m.peerRefs[row.Name] {
			peers = append(peers, p)
		}
	}
	for _, p := range peers {
		m.detach(p)
	}
	if old != nil {
		if old.ok {
			m.macs[old.mac]--
		}
		delete(m.lrpNamed[old.name], old)
		if len(m.lrpNamed[old.name]) == 0 {
			delete(m.lrpNamed, old.name)
		}
		delete(m.lrps, u)
	}
	if row != nil {
		r := &ipamLRP{name: row.Name}
		a, err := ParseLRPNetworks(row.MAC, row.Networks)
		if !Ignored(err) {
			r.ok, r.mac = true, a.MAC
			m.macs[a.MAC]++
			for _, n := range a.IPv4 {
				r.ipv4 = append(r.ipv4, v4(n.Addr))
			}
			if m.lrpNamed[r.name] == nil {
				m.lrpNamed[r.name] = map[*ipamLRP]bool{}
			}
			m.lrpNamed[r.name][r] = true
		}
		m.lrps[u] = r
	}
	for _, p := range peers {
		m.attach(p)
		m.dirty[p] = true
	}
}

func v4(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// peered reports whether p connects to a router port, which northd leaves
// alone.
func (m *IPAM) peered(p *ipamPort) bool {
	return p.row.Type == LSPTypeRouter && len(m.lrpNamed[p.row.Options["router-port"]]) > 0
}

// active reports whether p's dynamic addresses take addresses: it asks for
// them, on a switch with IPAM, and is not connected to a router.
func (m *IPAM) active(p *ipamPort) bool {
	return p.row != nil && p.sw != nil && p.sw.cfg.Enabled() && p.req != nil && !m.peered(p)
}

func (m *IPAM) setCur(p *ipamPort, v *string) {
	p.cur, p.curA = v, LPortAddresses{}
	if v != nil {
		// extract_lsp_addresses: what it read, or nothing.
		if a, err := ParseLSPAddresses(*v); !Ignored(err) {
			p.curA = a
		}
	}
}

// attach counts what p takes: its static MACs, and on its switch its
// static IPv4 addresses and its router peers' (ipam_add_port_addresses),
// the MAC and IPv4 address of its dynamic_addresses when active
// (update_unchanged_dynamic_addresses), and the address its request names.
func (m *IPAM) attach(p *ipamPort) {
	sw := p.sw
	if p.row == nil || sw == nil {
		return
	}
	addrs, _ := readLSPAddresses(p.row)
	for _, a := range addrs.Static {
		p.staticMACs = append(p.staticMACs, a.MAC)
		for _, ip := range a.IPv4 {
			p.staticIPs = append(p.staticIPs, v4(ip.Addr))
		}
	}
	if p.row.Type == LSPTypeRouter {
		// A router port's networks count on the switch of its peer; its MAC
		// counts with the router port itself.
		for r := range m.lrpNamed[p.row.Options["router-port"]] {
			p.staticIPs = append(p.staticIPs, r.ipv4...)
		}
	}
	for _, mac := range p.staticMACs {
		m.macs[mac]++
	}
	for _, ip := range p.staticIPs {
		sw.static[ip]++
		m.touch(sw, ip)
	}
	if !m.active(p) {
		return
	}
	m.claim(p)
	if p.req.HasIPv4 || p.req.HasBoth {
		ip := p.req.IPv4
		if !p.req.HasIPv4 {
			ip = p.req.BothIPv4
		}
		p.wantIP = &ip
		if sw.wanting[ip] == nil {
			sw.wanting[ip] = map[*ipamPort]bool{}
		}
		sw.wanting[ip][p] = true
	}
}

// detach undoes attach.
func (m *IPAM) detach(p *ipamPort) {
	sw := p.sw
	if sw != nil {
		delete(sw.unsettled, p)
	}
	for _, mac := range p.staticMACs {
		m.macs[mac]--
	}
	for _, ip := range p.staticIPs {
		if sw.static[ip]--; sw.static[ip] == 0 {
			delete(sw.static, ip)
		}
		m.touch(sw, ip)
	}
	p.staticMACs, p.staticIPs = nil, nil
	m.unclaimMAC(p)
	m.unclaimIP(p)
	if p.wantIP != nil {
		delete(sw.wanting[*p.wantIP], p)
		if len(sw.wanting[*p.wantIP]) == 0 {
			delete(sw.wanting, *p.wantIP)
		}
		p.wantIP = nil
	}
}

// claim takes the MAC and IPv4 address of p's dynamic_addresses.
func (m *IPAM) claim(p *ipamPort) {
	if p.cur == nil {
		return
	}
	mac := p.curA.MAC
	p.macClaim = &mac
	m.macs[mac]++
	if len(p.curA.IPv4) == 0 {
		return
	}
	ip := v4(p.curA.IPv4[0].Addr)
	p.ipClaim = &ip
	h := p.sw.holders[ip]
	k, _ := slices.BinarySearchFunc(h, p.uuid, func(q *ipamPort, u string) int { return strings.Compare(q.uuid, u) })
	p.sw.holders[ip] = slices.Insert(h, k, p)
	m.touch(p.sw, ip)
}

func (m *IPAM) unclaimMAC(p *ipamPort) {
	if p.macClaim != nil {
		m.macs[*p.macClaim]--
		p.macClaim = nil
	}
}

func (m *IPAM) unclaimIP(p *ipamPort) {
	if p.ipClaim == nil {
		return
	}
	ip := *p.ipClaim
	p.ipClaim = nil
	h := slices.DeleteFunc(p.sw.holders[ip], func(q *ipamPort) bool { return q == p })
	if len(h) == 0 {
		delete(p.sw.holders, ip)
	} else {
		p.sw.holders[ip] = h
	}
	m.touch(p.sw, ip)
}

// touch updates the used bit of ip on sw and marks the ports whose
// decision reads it.
func (m *IPAM) touch(sw *ipamSwitch, ip uint32) {
	c := &sw.cfg
	if c.HasIPv4 && ip >= c.Start && ip-c.Start < c.Total {
		i := ip - c.Start
		sw.used.set(i, i == 0 || c.excluded(i) || sw.static[ip] > 0 || len(sw.holders[ip]) > 0)
	}
	if m.quiet {
		return
	}
	m.touched[sw] = true
	for _, q := range sw.holders[ip] {
		m.dirty[q] = true
	}
	for q := range sw.wanting[ip] {
		m.dirty[q] = true
	}
}

// change is what build_ipam decides for one part of a port's dynamic
// addresses (enum dynamic_update_type).
type change int

const (
	keep     change = iota // NONE
	remove                 // REMOVE
	static                 // STATIC: the value the request names
	allocate               // DYNAMIC
)

type ip4Decision struct {
	c  change
	ip uint32
}

// update is a port whose dynamic addresses change (struct
// dynamic_address_update).
type update struct {
	p    *ipamPort
	mac  change
	ip4  change
	ip6  change
	smac EthAddr
	sip4 uint32
	sip6 [16]byte
}

// Run allocates: it decides every port whose inputs changed, in _uuid
// order of switch then port, and repeats for the ports it changed.
func (m *IPAM) Run() {
	for round := 0; ; round++ {
		for p := range m.dirty {
			if p.sw != nil {
				m.touched[p.sw] = true
			}
		}
		for sw := range m.touched {
			if m.switches[sw.uuid] == sw {
				for p := range sw.unsettled {
					m.dirty[p] = true
				}
			}
		}
		m.touched = map[*ipamSwitch]bool{}
		if len(m.dirty) == 0 {
			return
		}
		if round == maxIPAMRounds {
			m.log.Warn("IPAM: dynamic addresses still changing", "ports", len(m.dirty))
			m.dirty = map[*ipamPort]bool{}
			return
		}
		ports := make([]*ipamPort, 0, len(m.dirty))
		for p := range m.dirty {
			if p.row != nil && p.sw != nil {
				ports = append(ports, p)
			}
		}
		// A new map, not clear: Go maps keep their size, and iterating or
		// clearing an empty map that once held the whole NB costs the NB.
		m.dirty = map[*ipamPort]bool{}
		slices.SortFunc(ports, func(a, b *ipamPort) int {
			return cmp.Or(strings.Compare(a.sw.uuid, b.sw.uuid), strings.Compare(a.uuid, b.uuid))
		})
		memo := map[*ipamPort]ip4Decision{}
		var updates []update
		for _, p := range ports {
			u, ok := m.decide(p, memo)
			if ok {
				updates = append(updates, u)
			}
			if ok && m.active(p) {
				p.sw.unsettled[p] = true
			} else if p.sw.unsettled[p] {
				delete(p.sw.unsettled, p)
				if len(p.sw.unsettled) == 0 {
					p.sw.unsettled = map[*ipamPort]bool{}
				}
			}
		}
		m.quiet = true
		for _, u := range updates {
			if u.mac != keep {
				m.unclaimMAC(u.p)
			}
			if u.ip4 != keep {
				m.unclaimIP(u.p)
			}
		}
		for _, u := range updates {
			m.apply(u)
		}
		m.quiet = false
	}
}

// decide is build_ipam's visit of one port: a dynamic_addresses to clear,
// or the update to make.
func (m *IPAM) decide(p *ipamPort, memo map[*ipamPort]ip4Decision) (update, bool) {
	if !p.sw.cfg.Enabled() || (p.req == nil && !m.peered(p)) {
		if p.cur != nil {
			m.set(p, nil)
		}
		return update{}, false
	}
	if m.peered(p) {
		return update{}, false
	}
	u := update{p: p}
	cfg := &p.sw.cfg
	req := p.req
	if p.cur == nil {
		// set_dynamic_updates
		u.mac = allocate
		if req.HasMAC {
			u.mac, u.smac = static, req.MAC
		}
		var v6 string
		has4, has6 := false, false
		switch {
		case req.HasIPv4:
			has4, u.sip4 = true, req.IPv4
		case req.HasIPv6:
			has6, v6 = true, req.IPv6
		case req.HasBoth:
			has4, has6, u.sip4, v6 = true, true, req.BothIPv4, req.BothIPv6
		}
		switch {
		case has4:
			u.ip4 = static
		case cfg.HasIPv4:
			u.ip4 = allocate
		}
		ip6, ok := inetPton6(v6)
		switch {
		case has6 && ok:
			u.ip6, u.sip6 = static, ip6
		case cfg.HasIPv6:
			u.ip6 = allocate
		}
		return u, true
	}
	// dynamic_mac_changed
	cur := &p.curA
	if ea, ok := ScanMAC(req.Entry); ok {
		if ea != cur.MAC {
			u.mac, u.smac = static, ea
		}
	} else if [3]byte(cur.MAC[:3]) != [3]byte(m.prefix[:3]) {
		u.mac = allocate
	}
	d := m.ip4(p, memo)
	u.ip4, u.sip4 = d.c, d.ip
	u.ip6, u.sip6 = m.ip6(p, u.mac)
	return u, u.mac != keep || u.ip4 != keep || u.ip6 != keep
}

// ip4 is dynamic_ip4_changed for p, memoized: a port's decision reads
// those of the ports before it that hold the same address.
func (m *IPAM) ip4(p *ipamPort, memo map[*ipamPort]ip4Decision) ip4Decision {
	if d, ok := memo[p]; ok {
		return d
	}
	cfg := &p.sw.cfg
	cur := &p.curA
	d := ip4Decision{c: keep}
	switch {
	case !cfg.HasIPv4:
		if len(cur.IPv4) > 0 {
			d.c = remove
		}
	case len(cur.IPv4) == 0:
		d.c = allocate
	default:
		ip := v4(cur.IPv4[0].Addr)
		if ip < cfg.Start || ip-cfg.Start >= cfg.Total-1 || m.takenBefore(p, ip-cfg.Start, memo) {
			d.c = allocate
			break
		}
		want, ok := p.req.IPv4, p.req.HasIPv4
		if !ok {
			want, ok = p.req.BothIPv4, p.req.HasBoth
		}
		if !ok {
			break
		}
		switch i := want - cfg.Start; {
		case want < cfg.Start || i > cfg.Total || m.takenBefore(p, i, memo):
			d.c = allocate
		case want != ip:
			d = ip4Decision{static, want}
		}
	}
	memo[p] = d
	return d
}

// takenBefore reports whether offset i of p's switch is in use when
// build_ipam visits p: excluded, static, or kept by a port visited before.
func (m *IPAM) takenBefore(p *ipamPort, i uint32, memo map[*ipamPort]ip4Decision) bool {
	sw := p.sw
	if i >= sw.cfg.Total {
		return false
	}
	ip := sw.cfg.Start + i
	if i == 0 || sw.cfg.excluded(i) || sw.static[ip] > 0 {
		return true
	}
	for _, q := range sw.holders[ip] {
		if q.uuid >= p.uuid {
			break
		}
		if m.ip4(q, memo).c == keep {
			return true
		}
	}
	return false
}

// ip6 is dynamic_ip6_changed for p, whose MAC decision is mac.
func (m *IPAM) ip6(p *ipamPort, mac change) (change, [16]byte) {
	cfg := &p.sw.cfg
	cur := &p.curA
	if !cfg.HasIPv6 {
		if len(cur.IPv6) > 0 {
			return remove, [16]byte{}
		}
		return keep, [16]byte{}
	}
	if _, ok := ScanMAC(p.req.Entry); ok || len(cur.IPv6) == 0 {
		return allocate, [16]byte{}
	}
	text, ok := p.req.IPv6, p.req.HasIPv6
	if !ok {
		text, ok = p.req.BothIPv6, p.req.HasBoth
	}
	if !ok {
		if mac != keep {
			return allocate, [16]byte{}
		}
		return keep, [16]byte{}
	}
	ip, ok := inetPton6(text)
	if !ok {
		return allocate, [16]byte{}
	}
	for k := range ip {
		if ip[k]&cfg.IPv6Prefix[k] != cfg.IPv6Prefix[k] {
			return allocate, [16]byte{}
		}
	}
	if cur.IPv6[0].Addr.As16() != ip {
		return static, ip
	}
	return keep, [16]byte{}
}

// apply is update_dynamic_addresses: it computes and takes the port's
// new dynamic addresses.
func (m *IPAM) apply(u update) {
	p, sw, cur := u.p, u.p.sw, &u.p.curA
	var ip4 uint32
	switch u.ip4 {
	case keep:
		if len(cur.IPv4) > 0 {
			ip4 = v4(cur.IPv4[0].Addr)
		}
	case static:
		ip4 = u.sip4
	case allocate:
		if i := sw.used.firstClear(); sw.cfg.HasIPv4 && i < uint64(sw.cfg.Total-1) {
			ip4 = sw.cfg.Start + uint32(i)
		} else {
			m.log.Warn("IPAM: subnet address space has been exhausted", "switch", sw.uuid)
		}
	}
	var mac EthAddr
	switch u.mac {
	case keep:
		mac = cur.MAC
	case static:
		mac = u.smac
	case allocate:
		mac = m.unusedMAC(ip4)
	}
	var ip6 [16]byte
	switch u.ip6 {
	case keep:
		if len(cur.IPv6) > 0 {
			ip6 = cur.IPv6[0].Addr.As16()
		}
	case static:
		ip6 = u.sip6
	case allocate:
		ip6 = eui64(mac, sw.cfg.IPv6Prefix)
	}
	s := mac.String()
	if ip4 != 0 {
		s += " " + FormatIPv4(ip4)
	}
	if ip6 != [16]byte{} {
		s += " " + FormatIPv6Mapped(netip.AddrFrom16(ip6))
	}
	if p.cur == nil || *p.cur != s {
		m.log.Info("IPAM: assigned dynamic addresses", "port", p.row.Name, "dynamic_addresses", s)
	}
	m.set(p, &s)
}

// set gives p the dynamic addresses v, taking their addresses instead of
// the old ones; when they differ, p and the ports whose decision read the
// old or new IPv4 address are decided again.
func (m *IPAM) set(p *ipamPort, v *string) {
	same := p.cur == v || p.cur != nil && v != nil && *p.cur == *v
	old := p.ipClaim
	m.unclaimMAC(p)
	m.unclaimIP(p)
	m.setCur(p, v)
	if m.active(p) {
		m.claim(p)
	}
	if same {
		return
	}
	m.changed[p.uuid] = true
	m.dirty[p] = true
	for _, ip := range []*uint32{old, p.ipClaim} {
		if ip == nil {
			continue
		}
		for _, q := range p.sw.holders[*ip] {
			m.dirty[q] = true
		}
		for q := range p.sw.wanting[*ip] {
			m.dirty[q] = true
		}
	}
}

// unusedMAC is ipam_get_unused_mac: the first MAC of the prefix not in
// use, trying suffixes from ip4's low 24 bits plus one.
func (m *IPAM) unusedMAC(ip4 uint32) EthAddr {
	const space = 0xffffff
	base := ip4 & space
	mac := m.prefix
	for i := uint32(0); i < space-1; i++ {
		suffix := (base+i)%(space-1) + 1
		mac[3], mac[4], mac[5] = byte(suffix>>16), byte(suffix>>8), byte(suffix)
		if m.macs[mac] <= 0 {
			break
		}
	}
	return mac
}
