package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// NBNames are the names of an NB database's switches, switch ports, routers
// and router ports, what RandomMutations picks its targets from.
type NBNames struct {
	Switches, SwitchPorts, Routers, RouterPorts []string
}

// Names reads the names of the NB's switches, routers and their ports,
// sorted.
func (r *Instance) Names(ctx context.Context) (NBNames, error) {
	tables := []string{"Logical_Switch", "Logical_Switch_Port", "Logical_Router", "Logical_Router_Port"}
	ops := []any{"OVN_Northbound"}
	for _, t := range tables {
		ops = append(ops, map[string]any{"op": "select", "table": t, "where": []any{}, "columns": []string{"name"}})
	}
	res, err := r.transact(ctx, r.NBRemote(), ops)
	if err != nil {
		return NBNames{}, err
	}
	var lists [4][]string
	for i, x := range res {
		var sel struct{ Rows []struct{ Name string } }
		if err := json.Unmarshal(x, &sel); err != nil {
			return NBNames{}, fmt.Errorf("reference: %s names: %w", tables[i], err)
		}
		for _, row := range sel.Rows {
			lists[i] = append(lists[i], row.Name)
		}
		slices.Sort(lists[i])
	}
	return NBNames{lists[0], lists[1], lists[2], lists[3]}, nil
}

// PortClaims reads which datapaths list each port: for every switch and
// router port name, the NB _uuid of each switch or router whose ports
// column holds a port of that name; and the name of every switch and
// router by _uuid.
func (r *Instance) PortClaims(ctx context.Context) (claims map[string][]string, datapaths map[string]string, err error) {
	ops := []any{"OVN_Northbound"}
	datapath, port := []string{"_uuid", "name", "ports"}, []string{"_uuid", "name"}
	for _, sel := range []struct {
		table   string
		columns []string
	}{{"Logical_Switch", datapath}, {"Logical_Router", datapath}, {"Logical_Switch_Port", port}, {"Logical_Router_Port", port}} {
		ops = append(ops, map[string]any{"op": "select", "table": sel.table, "where": []any{}, "columns": sel.columns})
	}
	res, err := r.transact(ctx, r.NBRemote(), ops)
	if err != nil {
		return nil, nil, err
	}
	type row struct {
		UUID  []string        `json:"_uuid"`
		Name  string          `json:"name"`
		Ports json.RawMessage `json:"ports"`
	}
	var sels [4]struct{ Rows []row }
	for i, x := range res {
		if err := json.Unmarshal(x, &sels[i]); err != nil {
			return nil, nil, fmt.Errorf("reference: port claims: %w", err)
		}
	}
	portName := map[string]string{}
	for _, sel := range sels[2:] {
		for _, p := range sel.Rows {
			portName[p.UUID[1]] = p.Name
		}
	}
	claims, datapaths = map[string][]string{}, map[string]string{}
	for _, sel := range sels[:2] {
		for _, dp := range sel.Rows {
			datapaths[dp.UUID[1]] = dp.Name
			for _, port := range uuidSet(dp.Ports) {
				name := portName[port]
				claims[name] = append(claims[name], dp.UUID[1])
			}
		}
	}
	return claims, datapaths, nil
}

// RouterPeers reads, for every switch, the names of the router ports
// that its router-type ports name (options:router-port), by the switch's
// NB _uuid.
func (r *Instance) RouterPeers(ctx context.Context) (map[string][]string, error) {
	ops := []any{"OVN_Northbound",
		map[string]any{"op": "select", "table": "Logical_Switch", "where": []any{}, "columns": []string{"_uuid", "ports"}},
		map[string]any{"op": "select", "table": "Logical_Switch_Port", "where": []any{[]any{"type", "==", "router"}}, "columns": []string{"_uuid", "options"}}}
	res, err := r.transact(ctx, r.NBRemote(), ops)
	if err != nil {
		return nil, err
	}
	type row struct {
		UUID    []string          `json:"_uuid"`
		Ports   json.RawMessage   `json:"ports"`
		Options []json.RawMessage `json:"options"` // ["map", [[K, V]...]]
	}
	var sels [2]struct{ Rows []row }
	for i, x := range res {
		if err := json.Unmarshal(x, &sels[i]); err != nil {
			return nil, fmt.Errorf("reference: router peers: %w", err)
		}
	}
	peer := map[string]string{}
	for _, p := range sels[1].Rows {
		var options [][2]string
		if len(p.Options) == 2 {
			if err := json.Unmarshal(p.Options[1], &options); err != nil {
				return nil, fmt.Errorf("reference: router peers: %w", err)
			}
		}
		for _, kv := range options {
			if kv[0] == "router-port" {
				peer[p.UUID[1]] = kv[1]
			}
		}
	}
	out := map[string][]string{}
	for _, sw := range sels[0].Rows {
		for _, port := range uuidSet(sw.Ports) {
			if name, ok := peer[port]; ok {
				out[sw.UUID[1]] = append(out[sw.UUID[1]], name)
			}
		}
	}
	return out, nil
}

// uuidSet reads an OVSDB set of UUIDs: ["uuid", U] or ["set", [["uuid", U], ...]].
func uuidSet(raw json.RawMessage) []string {
	var one []string
	if json.Unmarshal(raw, &one) == nil && len(one) == 2 && one[0] == "uuid" {
		return []string{one[1]}
	}
	var pair []json.RawMessage
	var elems [][]string
	if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 || json.Unmarshal(pair[1], &elems) != nil {
		return nil
	}
	var out []string
	for _, e := range elems {
		if len(e) == 2 {
			out = append(out, e[1])
		}
	}
	return out
}

// Mutation is one schema-valid malformed change to an NB database: an
// ovn-nbctl invocation (a line of a scenario script) and the kind of
// malformation, for counting.
type Mutation struct {
	Kind, Script string
}

// Junk values that the schema accepts and northd must refuse or read as
// 23.03 does: malformed MACs (a full-width digit, dashes, too short, a
// group address), IPs and CIDRs (out of range, prefix too long, an
// IPv4-mapped IPv6 address, trailing text), and words where numbers belong.
var (
	junkMACs = []string{"junk", "0a:00:00:00:00", "0a-00-00-00-00-01", "\uff10a:00:00:00:00:01",
		"zz:00:00:00:00:01", "01:00:00:00:00:01", "00:00:00:00:00:00", "0a:00:00:00:00:01:02", ""}
	junkIPs = []string{"junk", "10.0.0.256", "10.0.0", "::ffff:10.1.0.1", "fe80::1::2", "1.2.3.4x",
		"10.0.0.1/33", "fd00::1/129", "0.0.0.0", "255.255.255.255", "224.0.0.1", ""}
	junkCIDRs = []string{"junk", "10.1.0.1", "10.1.0.1/33", "10.1.0.0/16", "::ffff:10.1.0.1/96",
		"::ffff:10.1.0.1/128", "fe80::1/64", "fd00::1/129", "10.1.0.1/0", "10.1.0.1/-1", "1.2.3.4/24x"}
	junkNumbers = []string{"junk", "0", "-1", "4294967296", "99999999", "16777216", "65536", "1e3", ""}
	// junkKeys are requested-tnl-key values 23.03 survives; one out of
	// range stalls its northd (see rareKeys).
	junkKeys = []string{"junk", "0", "1e3", "0x10", " 5", ""}
	rareKeys = []string{"-1", "65536", "16777216", "99999999", "4294967296"}
)

// RandomMutations draws n mutations of the NB whose rows are names, the
// same ones for the same rng state and names: bad addresses and port
// security on switch ports, bad networks and MACs on router ports, bad
// static routes, NAT rules and load balancer VIPs and backends, ACL
// matches that do not parse or hold bad MACs in a set, a port listed by two
// switches or a router port by two routers, junk option values (mac_prefix,
// requested-tnl-key, requested-chassis, multicast, IPv6 RA, a router port
// peer naming nothing or its own router's port), bad DNS records and
// Static_MAC_Binding rows. Each is one ovn-nbctl invocation that the
// database accepts.
func RandomMutations(rng *rand.Rand, names NBNames, n int) []Mutation {
	m := mutator{rng: rng, names: names}
	var out []Mutation
	for range n {
		kinds := m.kinds()
		k := kinds[rng.IntN(len(kinds))]
		for k.rare && !m.chance(10) {
			k = kinds[rng.IntN(len(kinds))]
		}
		out = append(out, Mutation{Kind: k.name, Script: nbctlScript(k.draw(&m))})
	}
	return out
}

type mutator struct {
	rng   *rand.Rand
	names NBNames
	rows  int // rows created so far, for unique names
}

type mutationKind struct {
	name string
	draw func(*mutator) [][]string
	// rare kinds break the reference: they are drawn a tenth as often.
	rare bool
}

func (m *mutator) pick(from []string) string { return from[m.rng.IntN(len(from))] }

func (m *mutator) chance(n int) bool { return m.rng.IntN(n) == 0 }

// fresh returns a row name not drawn before.
func (m *mutator) fresh(prefix string) string {
	m.rows++
	return fmt.Sprintf("%s%d", prefix, m.rows)
}

// junkAddress is a bad address entry: a junk MAC with a good IP, a good
// MAC with junk IPs, or a junk keyword combination.
func (m *mutator) junkAddress() string {
	switch m.rng.IntN(4) {
	case 0:
		return strings.TrimSpace(m.pick(junkMACs) + " 10.9.0.1")
	case 1:
		return "0a:00:00:09:00:01 " + m.pick(junkIPs)
	case 2:
		return "0a:00:00:09:00:01 10.9.0.1 " + m.pick(junkCIDRs)
	default:
		return m.pick([]string{"router", "unknown 10.9.0.1", "dynamic junk", "0a:00:00:09:00:01 dynamic 10.9.0.1", " ", "0a:00:00:09:00:01 ::ffff:10.9.0.1"})
	}
}

// kinds lists the mutations that the NB's rows allow.
func (m *mutator) kinds() []mutationKind {
	var ks []mutationKind
	add := func(name string, possible bool, draw func(*mutator) [][]string) {
		if possible {
			ks = append(ks, mutationKind{name: name, draw: draw})
		}
	}
	addRare := func(name string, possible bool, draw func(*mutator) [][]string) {
		add(name, possible, draw)
		if possible {
			ks[len(ks)-1].rare = true
		}
	}
	sws, lsps, lrs, lrps := m.names.Switches, m.names.SwitchPorts, m.names.Routers, m.names.RouterPorts
	add("lsp-addresses", len(lsps) > 0, func(m *mutator) [][]string {
		return [][]string{{"set", "Logical_Switch_Port", m.pick(lsps), "addresses=" + quoteAll([]string{m.junkAddress()})}}
	})
	add("lsp-port-security", len(lsps) > 0, func(m *mutator) [][]string {
		return [][]string{{"set", "Logical_Switch_Port", m.pick(lsps), "port_security=" + quoteAll([]string{m.junkAddress()})}}
	})
	add("lrp-networks", len(lrps) > 0, func(m *mutator) [][]string {
		return [][]string{{"set", "Logical_Router_Port", m.pick(lrps), "networks=" + quoteAll([]string{m.pick(junkCIDRs)})}}
	})
	add("lrp-mac", len(lrps) > 0, func(m *mutator) [][]string {
		return [][]string{{"set", "Logical_Router_Port", m.pick(lrps), "mac=" + strconv.Quote(m.pick(junkMACs))}}
	})
	add("static-route", len(lrs) > 0, func(m *mutator) [][]string {
		prefix, nexthop := "192.168.77.0/24", "10.0.0.9"
		if m.chance(2) {
			prefix = m.pick(junkCIDRs)
		} else {
			nexthop = m.pick(junkIPs)
		}
		return [][]string{
			{"--id=@r", "create", "Logical_Router_Static_Route", "ip_prefix=" + strconv.Quote(prefix), "nexthop=" + strconv.Quote(nexthop)},
			{"add", "Logical_Router", m.pick(lrs), "static_routes", "@r"}}
	})
	add("nat", len(lrs) > 0, func(m *mutator) [][]string {
		ext, logical, mac := "172.16.9.9", "192.168.9.9", ""
		switch m.rng.IntN(3) {
		case 0:
			ext = m.pick(junkIPs)
		case 1:
			logical = m.pick(junkCIDRs)
		case 2:
			mac = m.pick(junkMACs)
		}
		cols := []string{"type=" + m.pick([]string{"snat", "dnat", "dnat_and_snat"}), "external_ip=" + strconv.Quote(ext), "logical_ip=" + strconv.Quote(logical)}
		if mac != "" && len(lsps) > 0 {
			cols = append(cols, "type=dnat_and_snat", "external_mac="+strconv.Quote(mac), "logical_port="+strconv.Quote(m.pick(lsps)))
		}
		return [][]string{
			append([]string{"--id=@n", "create", "NAT"}, cols...),
			{"add", "Logical_Router", m.pick(lrs), "nat", "@n"}}
	})
	add("lb", len(sws) > 0, func(m *mutator) [][]string {
		vip, backends := "10.99.0.1:80", "10.0.0.5:8080"
		switch m.rng.IntN(4) {
		case 0:
			vip = m.pick([]string{"junk", "10.99.0.1:", "10.99.0.1:99999", "[fd99::1]", "[fd99::1]:80x", "300.0.0.1", "10.99.0.1:0"})
		case 1:
			backends = m.pick([]string{"junk", "10.0.0.5:", "10.0.0.5:99999", "[fd00::5]:80", "10.0.0.5:80,junk", "10.0.0.256:80", ""})
		case 2:
			vip, backends = "[fd99::1]:80", "10.0.0.5:80"
		case 3:
			vip, backends = "10.99.0.1", "10.0.0.5:80"
		}
		name := m.fresh("mlb")
		target := []string{"Logical_Switch", m.pick(sws)}
		if len(lrs) > 0 && m.chance(2) {
			target = []string{"Logical_Router", m.pick(lrs)}
		}
		return [][]string{
			{"--id=@lb", "create", "Load_Balancer", "name=" + name, "protocol=tcp", "vips:" + strconv.Quote(vip) + "=" + strconv.Quote(backends)},
			append([]string{"add"}, append(target, "load_balancer", "@lb")...)}
	})
	add("acl-match", len(sws) > 0, func(m *mutator) [][]string {
		match := m.pick([]string{"((ip4", "ip4.src == 300.0.0.1", "ip4 &&", "junk == 1", "", "tcp.dst == 99999", "ip4.src == {10.0.0.1, junk}"})
		if m.chance(2) {
			var set []string
			for range 1 + m.rng.IntN(3) {
				set = append(set, m.pick(append(slices.Clone(junkMACs[:4]), "0a:00:00:00:00:01", "0A:00:00:00:00:02")))
			}
			match = "eth.src == {" + strings.Join(set, ", ") + "}"
		}
		return [][]string{
			{"--id=@a", "create", "ACL", "direction=" + m.pick([]string{"from-lport", "to-lport"}), "priority=1001",
				"action=" + m.pick([]string{"allow", "allow-related", "drop", "reject"}), "match=" + strconv.Quote(match)},
			{"add", "Logical_Switch", m.pick(sws), "acls", "@a"}}
	})
	add("lsp-two-switches", len(lsps) > 0 && len(sws) > 1, func(m *mutator) [][]string {
		return [][]string{{"--id=@p", "get", "Logical_Switch_Port", m.pick(lsps)}, {"add", "Logical_Switch", m.pick(sws), "ports", "@p"}}
	})
	add("lrp-two-routers", len(lrps) > 0 && len(lrs) > 1, func(m *mutator) [][]string {
		return [][]string{{"--id=@p", "get", "Logical_Router_Port", m.pick(lrps)}, {"add", "Logical_Router", m.pick(lrs), "ports", "@p"}}
	})
	add("mac-prefix", true, func(m *mutator) [][]string {
		return [][]string{{"set", "NB_Global", ".", "options:mac_prefix=" + strconv.Quote(m.pick([]string{"junk", "0a:00", "0a:00:00:00", "zz:zz:zz", "\uff10a:00:00"}))}}
	})
	add("requested-tnl-key", len(sws) > 0, func(m *mutator) [][]string {
		key := m.pick(junkKeys)
		if m.chance(10) {
			key = m.pick(rareKeys)
		}
		if len(lsps) > 0 && m.chance(2) {
			return [][]string{{"set", "Logical_Switch_Port", m.pick(lsps), "options:requested-tnl-key=" + strconv.Quote(key)}}
		}
		return [][]string{{"set", "Logical_Switch", m.pick(sws), "other_config:requested-tnl-key=" + strconv.Quote(key)}}
	})
	add("requested-chassis", len(lsps) > 0, func(m *mutator) [][]string {
		return [][]string{{"set", "Logical_Switch_Port", m.pick(lsps), "options:requested-chassis=" + strconv.Quote(m.pick([]string{"", ",", "hv1,,hv2", "hv1,hv2,hv3", " "}))}}
	})
	add("multicast", len(sws) > 0, func(m *mutator) [][]string {
		key := m.pick([]string{"mcast_eth_src", "mcast_ip4_src", "mcast_ip6_src", "mcast_table_size", "mcast_idle_timeout", "mcast_query_interval", "mcast_query_max_response"})
		return [][]string{{"set", "Logical_Switch", m.pick(sws), "other_config:mcast_snoop=true", "other_config:mcast_querier=true",
			"other_config:" + key + "=" + strconv.Quote(m.pick(append(slices.Clone(junkNumbers), junkIPs[0], junkMACs[1])))}}
	})
	add("ipv6-ra", len(lrps) > 0, func(m *mutator) [][]string {
		key, vals := "address_mode", []string{"junk", "slaac", "dhcpv6_stateful"}
		switch m.rng.IntN(4) {
		case 1:
			key, vals = "mtu", junkNumbers
		case 2:
			key, vals = "max_interval", junkNumbers
		case 3:
			key, vals = "router_preference", []string{"junk", "HIGH", ""}
		}
		return [][]string{{"set", "Logical_Router_Port", m.pick(lrps), "ipv6_ra_configs:send_periodic=true",
			"ipv6_ra_configs:address_mode=slaac", "ipv6_ra_configs:" + key + "=" + strconv.Quote(m.pick(vals))}}
	})
	addRare("lrp-peer", len(lrps) > 0, func(m *mutator) [][]string {
		// A peer naming nothing or another port, unless the two peer each
		// other, aborts 23.03's northd on an assertion: drawn rarely (see
		// RandomMutations), so that most batches can be compared.
		peer := m.pick(lrps)
		if m.chance(2) {
			peer = m.pick([]string{"junk", "", "nosuchport"})
		}
		return [][]string{{"set", "Logical_Router_Port", m.pick(lrps), "peer=" + strconv.Quote(peer)}}
	})
	add("dns", len(sws) > 0, func(m *mutator) [][]string {
		host, addrs := "vm1.example", "10.0.0.5"
		if m.chance(2) {
			addrs = m.pick([]string{"junk", "10.0.0.256", "10.0.0.5 junk", "", "::ffff:10.0.0.5"})
		} else {
			host = m.pick([]string{"", " ", "a b"})
		}
		return [][]string{
			{"--id=@d", "create", "DNS", "records:" + strconv.Quote(host) + "=" + strconv.Quote(addrs)},
			{"add", "Logical_Switch", m.pick(sws), "dns_records", "@d"}}
	})
	add("static-mac-binding", len(lrps) > 0, func(m *mutator) [][]string {
		ip, mac := "10.0.0.77", "0a:00:00:00:77:01"
		if m.chance(2) {
			ip = m.pick(junkIPs)
		} else {
			mac = m.pick(junkMACs)
		}
		port := m.pick(lrps)
		if m.chance(5) {
			port = "nosuchport"
		}
		return [][]string{{"create", "Static_MAC_Binding", "logical_port=" + strconv.Quote(port), "ip=" + strconv.Quote(ip), "mac=" + strconv.Quote(mac)}}
	})
	return ks
}
