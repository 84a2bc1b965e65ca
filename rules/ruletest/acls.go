package ruletest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
	"pgregory.net/rapid"
)

// aclChanges are ACLs on switches and port groups, load balancers directly
// and through groups, DHCP options, DNS records, QoS rules and NB_Global
// options, the inputs of the switch conntrack, DHCP and DNS stages; ACL
// edits (priority, action, direction, match, options) and detachment, port
// group deletion and members on no switch, address set edits.
var aclChanges = map[string]Change{
	"addACL":         addACL,
	"delACL":         DeleteRow(nb.ACLTable),
	"addPortGroup":   addPortGroup,
	"setGroupPorts":  setGroupPorts,
	"addLB":          addLB,
	"setVIPs":        setVIPs,
	"addDHCPOptions": addDHCPOptions,
	"editDHCP":       editDHCPOptions,
	"setPortDHCP":    setPortDHCP,
	"addDNS":         addDNS,
	"addQoS":         addQoS,
	"setGlobal":      setGlobal,
	"addLocalnet":    addTypedPort,
	"editACL":        editACL,
	"detachACL":      detachACL,
	"delPortGroup":   deletePortGroup,
	"addGhostMember": addGhostMember,
	"editAddressSet": editAddressSet,
}

// addRef appends id to a reference column of a switch or port group.
func addRef(t *rapid.T, s *State, id string, col func(*nb.LogicalSwitch) *[]string, pgCol func(*nb.PortGroup) *[]string) {
	if pgCol != nil && rapid.Bool().Draw(t, "onGroup") {
		if pgID := s.Pick(t, nb.PortGroupTable, "pg"); pgID != "" {
			pg := *s.rows[nb.PortGroupTable][pgID].(*nb.PortGroup)
			*pgCol(&pg) = append(slices.Clone(*pgCol(&pg)), id)
			s.Set(t, nb.PortGroupTable, pgID, &pg)
			return
		}
	}
	if lsID := s.Pick(t, nb.LogicalSwitchTable, "ls"); lsID != "" {
		ls := *s.rows[nb.LogicalSwitchTable][lsID].(*nb.LogicalSwitch)
		*col(&ls) = append(slices.Clone(*col(&ls)), id)
		s.Set(t, nb.LogicalSwitchTable, lsID, &ls)
	}
}

func addACL(t *rapid.T, s *State) {
	id := s.UUID()
	acl := &nb.ACL{
		UUID:      id,
		Action:    rapid.SampledFrom([]string{"allow", "allow-related", "allow-stateless", "drop", "reject"}).Draw(t, "action"),
		Direction: rapid.SampledFrom([]string{"from-lport", "to-lport"}).Draw(t, "dir"),
		Priority:  rapid.IntRange(0, 3).Draw(t, "prio"),
		Match:     rapid.SampledFrom([]string{"ip4", "tcp", "udp.dst == 53"}).Draw(t, "match"),
		Log:       rapid.Bool().Draw(t, "log"),
		Label:     rapid.IntRange(0, 1).Draw(t, "label"),
	}
	acl.Options = map[string]string{}
	if rapid.Bool().Draw(t, "afterLB") {
		acl.Options["apply-after-lb"] = "true"
	}
	if rapid.Bool().Draw(t, "persist") {
		acl.Options["persist-established"] = "true"
	}
	s.Set(t, nb.ACLTable, id, acl)
	addRef(t, s, id, func(ls *nb.LogicalSwitch) *[]string { return &ls.ACLs }, func(pg *nb.PortGroup) *[]string { return &pg.ACLs })
}

// editACL changes an ACL's priority, action, direction, match, logging or
// options in place.
func editACL(t *rapid.T, s *State) {
	id := s.Pick(t, nb.ACLTable, "acl")
	if id == "" {
		return
	}
	acl := *s.rows[nb.ACLTable][id].(*nb.ACL)
	switch rapid.IntRange(0, 4).Draw(t, "edit") {
	case 0:
		acl.Priority = rapid.IntRange(0, 3).Draw(t, "prio")
	case 1:
		acl.Action = rapid.SampledFrom([]string{"allow", "allow-related", "allow-stateless", "drop", "reject"}).Draw(t, "action")
	case 2:
		acl.Direction = rapid.SampledFrom([]string{"from-lport", "to-lport"}).Draw(t, "dir")
	case 3:
		acl.Match = rapid.SampledFrom([]string{"ip4", "tcp", "ip4.src == $as1", "outport == @pg1"}).Draw(t, "match")
	case 4:
		acl.Log = rapid.Bool().Draw(t, "log")
		acl.Options = map[string]string{"apply-after-lb": rapid.SampledFrom([]string{"true", "false"}).Draw(t, "afterLB"),
			"persist-established": rapid.SampledFrom([]string{"true", "false"}).Draw(t, "persist")}
	}
	s.Set(t, nb.ACLTable, id, &acl)
}

// detachACL removes an ACL from a switch or port group, and deletes the
// row once nothing lists it (the database's garbage collection).
func detachACL(t *rapid.T, s *State) {
	var owners []string // "table id" of the rows that list ACLs
	for _, table := range []string{nb.LogicalSwitchTable, nb.PortGroupTable} {
		for _, id := range s.IDs(table) {
			if len(aclsOf(s.rows[table][id])) > 0 {
				owners = append(owners, table+" "+id)
			}
		}
	}
	if len(owners) == 0 {
		return
	}
	table, id, _ := strings.Cut(rapid.SampledFrom(owners).Draw(t, "owner"), " ")
	var acls *[]string
	var row model.Model
	switch r := s.rows[table][id].(type) {
	case *nb.LogicalSwitch:
		c := *r
		row, acls = &c, &c.ACLs
	case *nb.PortGroup:
		c := *r
		row, acls = &c, &c.ACLs
	}
	i := rapid.IntRange(0, len(*acls)-1).Draw(t, "i")
	acl := (*acls)[i]
	*acls = slices.Delete(slices.Clone(*acls), i, i+1)
	s.Set(t, table, id, row)
	for _, table := range []string{nb.LogicalSwitchTable, nb.PortGroupTable} {
		for _, r := range s.rows[table] {
			if slices.Contains(aclsOf(r), acl) {
				return
			}
		}
	}
	s.Set(t, nb.ACLTable, acl, nil)
}

// aclsOf returns the acls column of a switch or port group row.
func aclsOf(row model.Model) []string {
	switch r := row.(type) {
	case *nb.LogicalSwitch:
		return r.ACLs
	case *nb.PortGroup:
		return r.ACLs
	}
	return nil
}

// deletePortGroup deletes a port group and, as the database does, the ACLs
// only it listed.
func deletePortGroup(t *rapid.T, s *State) {
	id := s.Pick(t, nb.PortGroupTable, "pg")
	if id == "" {
		return
	}
	acls := s.rows[nb.PortGroupTable][id].(*nb.PortGroup).ACLs
	s.Set(t, nb.PortGroupTable, id, nil)
	for _, acl := range acls {
		listed := false
		for _, table := range []string{nb.LogicalSwitchTable, nb.PortGroupTable} {
			for _, r := range s.rows[table] {
				listed = listed || slices.Contains(aclsOf(r), acl)
			}
		}
		if !listed {
			s.Set(t, nb.ACLTable, acl, nil)
		}
	}
}

// addGhostMember adds to a port group a member on no switch: a port row no
// switch lists, or a _uuid with no row.
func addGhostMember(t *rapid.T, s *State) {
	pgID := s.Pick(t, nb.PortGroupTable, "pg")
	if pgID == "" {
		return
	}
	id := s.UUID()
	if rapid.Bool().Draw(t, "row") {
		s.Set(t, nb.LogicalSwitchPortTable, id, &nb.LogicalSwitchPort{UUID: id, Name: "ghost" + id[len(id)-3:]})
	}
	pg := *s.rows[nb.PortGroupTable][pgID].(*nb.PortGroup)
	pg.Ports = append(slices.Clone(pg.Ports), id)
	s.Set(t, nb.PortGroupTable, pgID, &pg)
}

// editAddressSet replaces the addresses of an address set (adding one when
// there is none): IPv4 and IPv6 hosts and networks, or none.
func editAddressSet(t *rapid.T, s *State) {
	id := s.Pick(t, nb.AddressSetTable, "as")
	if id == "" {
		id = s.UUID()
		s.Set(t, nb.AddressSetTable, id, &nb.AddressSet{UUID: id, Name: "as" + id[len(id)-3:]})
	}
	as := *s.rows[nb.AddressSetTable][id].(*nb.AddressSet)
	as.Addresses = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"1.1.1.1", "10.0.0.0/24", "fd00::1", "fd00::/64", "172.16.0.5"}), 0, 3,
		func(a string) string { return a }).Draw(t, "addresses")
	s.Set(t, nb.AddressSetTable, id, &as)
}

func addPortGroup(t *rapid.T, s *State) {
	id := s.UUID()
	s.Set(t, nb.PortGroupTable, id, &nb.PortGroup{UUID: id, Name: "pg" + id[len(id)-3:]})
}

func setGroupPorts(t *rapid.T, s *State) {
	pgID := s.Pick(t, nb.PortGroupTable, "pg")
	ports := s.IDs(nb.LogicalSwitchPortTable)
	if pgID == "" || len(ports) == 0 {
		return
	}
	pg := *s.rows[nb.PortGroupTable][pgID].(*nb.PortGroup)
	pg.Ports = rapid.SliceOfNDistinct(rapid.SampledFrom(ports), 0, 2, func(id string) string { return id }).Draw(t, "ports")
	s.Set(t, nb.PortGroupTable, pgID, &pg)
}

func genVIPs(t *rapid.T) map[string]string {
	if rapid.Bool().Draw(t, "empty") {
		return nil
	}
	return map[string]string{fmt.Sprintf("10.9.0.%d:80", rapid.IntRange(1, 3).Draw(t, "vip")): "10.0.0.5:80"}
}

func addLB(t *rapid.T, s *State) {
	id := s.UUID()
	s.Set(t, nb.LoadBalancerTable, id, &nb.LoadBalancer{UUID: id, Name: "lb" + id[len(id)-3:], Vips: genVIPs(t)})
	if rapid.Bool().Draw(t, "inGroup") {
		gid := s.UUID()
		s.Set(t, nb.LoadBalancerGroupTable, gid, &nb.LoadBalancerGroup{UUID: gid, Name: "g" + gid[len(gid)-3:], LoadBalancer: []string{id}})
		addRef(t, s, gid, func(ls *nb.LogicalSwitch) *[]string { return &ls.LoadBalancerGroup }, nil)
		return
	}
	addRef(t, s, id, func(ls *nb.LogicalSwitch) *[]string { return &ls.LoadBalancer }, nil)
}

func setVIPs(t *rapid.T, s *State) {
	if id := s.Pick(t, nb.LoadBalancerTable, "lb"); id != "" {
		lb := *s.rows[nb.LoadBalancerTable][id].(*nb.LoadBalancer)
		lb.Vips = genVIPs(t)
		s.Set(t, nb.LoadBalancerTable, id, &lb)
	}
}

func genDHCPOptions(t *rapid.T, id string) *nb.DHCPOptions {
	if rapid.Bool().Draw(t, "v6") {
		return &nb.DHCPOptions{UUID: id, Cidr: rapid.SampledFrom([]string{"fd00::/64", "fd00::/129"}).Draw(t, "cidr6"),
			Options: map[string]string{"server_id": "00:00:00:00:10:01", "dhcpv6_stateless": rapid.SampledFrom([]string{"true", "false"}).Draw(t, "stateless")}}
	}
	opts := map[string]string{"server_id": "10.0.0.1", "server_mac": "00:00:00:00:10:01", "router": "10.0.0.1"}
	if rapid.Bool().Draw(t, "lease") {
		opts["lease_time"] = "3600"
	}
	return &nb.DHCPOptions{UUID: id, Cidr: rapid.SampledFrom([]string{"10.0.0.0/16", "10.0.1.0/24", "10.0.0.0/33"}).Draw(t, "cidr"), Options: opts}
}

func addDHCPOptions(t *rapid.T, s *State) {
	id := s.UUID()
	s.Set(t, nb.DHCPOptionsTable, id, genDHCPOptions(t, id))
}

func editDHCPOptions(t *rapid.T, s *State) {
	if id := s.Pick(t, nb.DHCPOptionsTable, "dhcp"); id != "" {
		s.Set(t, nb.DHCPOptionsTable, id, genDHCPOptions(t, id))
	}
}

func setPortDHCP(t *rapid.T, s *State) {
	portID, optsID := s.Pick(t, nb.LogicalSwitchPortTable, "lsp"), s.Pick(t, nb.DHCPOptionsTable, "dhcp")
	if portID == "" || optsID == "" {
		return
	}
	lsp := *s.rows[nb.LogicalSwitchPortTable][portID].(*nb.LogicalSwitchPort)
	if rapid.Bool().Draw(t, "v6col") {
		lsp.Dhcpv6Options = &optsID
	} else {
		lsp.Dhcpv4Options = &optsID
	}
	if rapid.Bool().Draw(t, "hostname") {
		lsp.Options = map[string]string{"hostname": "h"}
	}
	s.Set(t, nb.LogicalSwitchPortTable, portID, &lsp)
}

func addDNS(t *rapid.T, s *State) {
	id := s.UUID()
	var records map[string]string
	if rapid.Bool().Draw(t, "records") {
		records = map[string]string{"vm.ovn.org": "10.0.0.4"}
	}
	s.Set(t, nb.DNSTable, id, &nb.DNS{UUID: id, Records: records})
	addRef(t, s, id, func(ls *nb.LogicalSwitch) *[]string { return &ls.DNSRecords }, nil)
}

func addQoS(t *rapid.T, s *State) {
	id := s.UUID()
	q := &nb.QoS{UUID: id, Direction: rapid.SampledFrom([]string{"from-lport", "to-lport"}).Draw(t, "dir"),
		Priority: rapid.IntRange(0, 2).Draw(t, "prio"), Match: "ip4",
		Action: map[string]int{"dscp": rapid.IntRange(0, 2).Draw(t, "dscp")}}
	if rapid.Bool().Draw(t, "rate") {
		q.Bandwidth = map[string]int{"rate": 100}
	}
	s.Set(t, nb.QoSTable, id, q)
	addRef(t, s, id, func(ls *nb.LogicalSwitch) *[]string { return &ls.QOSRules }, nil)
}

// globalUUID is the NB_Global row's _uuid.
const globalUUID = "00000000-0000-0000-0000-00000000ffff"

func setGlobal(t *rapid.T, s *State) {
	const id = globalUUID
	if rapid.Bool().Draw(t, "noGlobal") {
		s.Set(t, nb.NBGlobalTable, id, nil)
		return
	}
	s.Set(t, nb.NBGlobalTable, id, &nb.NBGlobal{UUID: id, NbCfg: rapid.IntRange(0, 9).Draw(t, "cfg"), Options: map[string]string{
		"use_ct_inv_match":   rapid.SampledFrom([]string{"true", "false"}).Draw(t, "inv"),
		"default_acl_drop":   rapid.SampledFrom([]string{"true", "false"}).Draw(t, "drop"),
		"acl_ct_translation": rapid.SampledFrom([]string{"true", "false"}).Draw(t, "ctTranslation"),
	}})
}

// addTypedPort adds a localnet, router, vtep, external or remote port.
func addTypedPort(t *rapid.T, s *State) {
	lsID := s.Pick(t, nb.LogicalSwitchTable, "ls")
	if lsID == "" {
		return
	}
	id := s.UUID()
	lsp := &nb.LogicalSwitchPort{UUID: id, Name: "t" + id[len(id)-3:], Addresses: genAddresses.Draw(t, "addrs"),
		Type: rapid.SampledFrom([]string{"localnet", "router", "vtep", "external", "remote"}).Draw(t, "type")}
	if rp := s.Pick(t, nb.LogicalRouterPortTable, "lrp"); lsp.Type == "router" && rp != "" {
		lsp.Options = map[string]string{"router-port": s.rows[nb.LogicalRouterPortTable][rp].(*nb.LogicalRouterPort).Name}
	}
	s.Set(t, nb.LogicalSwitchPortTable, id, lsp)
	ls := *s.rows[nb.LogicalSwitchTable][lsID].(*nb.LogicalSwitch)
	ls.Ports = append(slices.Clone(ls.Ports), id)
	s.Set(t, nb.LogicalSwitchTable, lsID, &ls)
}
