package rules

import (
	"cmp"
	"maps"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

// DNS is one SB DNS row as ovn-northd 23.03 writes it (northd.c
// sync_dns_entries): one per NB DNS row that some switch lists in
// dns_records, on those switches' datapaths, with the record values in
// lower case (DNS lookups are case-insensitive) and external_ids:dns_id
// the NB row's _uuid.
type DNS struct {
	NB string // NB DNS _uuid
	// Datapaths are the NB _uuids of the switches.
	Datapaths Strings
	Records   Smap
	// OVNOwned is the NB options:ovn-owned (26.03's schema): 26.03
	// writes it in the SB row's options.
	OVNOwned bool
}

// CompareDNS orders DNS rows by NB _uuid, then contents.
func CompareDNS(a, b DNS) int {
	return cmp.Or(cmp.Compare(a.NB, b.NB), cmp.Compare(a.Datapaths, b.Datapaths), cmp.Compare(a.Records, b.Records),
		cmp.Compare(strconv.FormatBool(a.OVNOwned), strconv.FormatBool(b.OVNOwned)))
}

// dnsOnSwitch says that a switch lists a DNS row.
type dnsOnSwitch struct{ DNS, Switch string }

// SBDNS computes the DNS rows.
func SBDNS(n *relations.NB) engine.Rel[DNS] {
	refs := engine.FlatMap(n.Switches.Rows, func(ls *nb.LogicalSwitch) []dnsOnSwitch {
		out := make([]dnsOnSwitch, len(ls.DNSRecords))
		for i, u := range ls.DNSRecords {
			out[i] = dnsOnSwitch{DNS: u, Switch: ls.UUID}
		}
		return out
	})
	switchesOf := engine.GroupBy(engine.IndexBy(engine.Distinct(refs), func(r dnsOnSwitch) string { return r.DNS }),
		func(dns string, rs []dnsOnSwitch) []engine.KV[string, Strings] {
			sws := make([]string, len(rs))
			for i, r := range rs {
				sws[i] = r.Switch
			}
			return []engine.KV[string, Strings]{{Key: dns, Value: StringsOf(sws...)}}
		})
	return engine.Join(
		n.DNS.ByUUID(),
		engine.IndexBy(switchesOf, func(kv engine.KV[string, Strings]) string { return kv.Key }),
		func(_ string, d *nb.DNS, kv engine.KV[string, Strings]) DNS {
			records := maps.Clone(d.Records)
			for k, v := range records {
				records[k] = asciiLower(v)
			}
			return DNS{NB: d.UUID, Datapaths: kv.Value, Records: SmapOf(records),
				OVNOwned: relations.SmapBool(d.Options, "ovn-owned", false)}
		})
}

// asciiLower lowers ASCII letters only, as C's tolower in the C locale.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// TemplateVar is one SB Chassis_Template_Var row: a copy of the NB row of
// the same chassis (northd.c sync_template_vars).
type TemplateVar struct {
	NB        string // the NB row's _uuid
	Chassis   string
	Variables Smap
}

// CompareTemplateVars orders template variables by chassis, then contents.
func CompareTemplateVars(a, b TemplateVar) int {
	return cmp.Or(cmp.Compare(a.Chassis, b.Chassis), cmp.Compare(a.Variables, b.Variables), cmp.Compare(a.NB, b.NB))
}

// SBTemplateVars computes the Chassis_Template_Var rows.
func SBTemplateVars(n *relations.NB) engine.Rel[TemplateVar] {
	return engine.Map(n.ChassisTemplateVars.Rows, func(tv *nb.ChassisTemplateVar) TemplateVar {
		return TemplateVar{NB: tv.UUID, Chassis: tv.Chassis, Variables: SmapOf(tv.Variables)}
	})
}

// Mirror is one SB Mirror row: a copy of the NB Mirror of the same name,
// its filter, index, sink and type (northd.c sync_mirrors).
type Mirror struct {
	Name, Filter, Sink, Type string
	Index                    int
}

// CompareMirrors orders mirrors by name, then contents.
func CompareMirrors(a, b Mirror) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Filter, b.Filter), cmp.Compare(a.Sink, b.Sink),
		cmp.Compare(a.Type, b.Type), cmp.Compare(a.Index, b.Index))
}

// SBMirrors computes the Mirror rows.
func SBMirrors(n *relations.NB) engine.Rel[Mirror] {
	return engine.Map(n.Mirrors.Rows, func(m *nb.Mirror) Mirror {
		return Mirror{Name: m.Name, Filter: m.Filter, Sink: m.Sink, Type: m.Type, Index: m.Index}
	})
}

// PortMirror is one element of a Port_Binding's mirror_rules: the switch
// port and the name of the SB Mirror it refers to, that of an NB Mirror in
// the port's mirror_rules (ovn_port_update_sbrec finds the SB row by name).
type PortMirror struct{ Port, Mirror string }

// ComparePortMirrors orders port mirrors by port, then mirror.
func ComparePortMirrors(a, b PortMirror) int {
	return cmp.Or(cmp.Compare(a.Port, b.Port), cmp.Compare(a.Mirror, b.Mirror))
}

// SBPortMirrors computes the mirror_rules of the switch ports' bindings.
func SBPortMirrors(n *relations.NB) engine.Rel[PortMirror] {
	rules := engine.FlatMap(n.LSPs, func(p relations.LSP) []PortMirror {
		pms := make([]PortMirror, len(p.Port.MirrorRules))
		for i, u := range p.Port.MirrorRules {
			pms[i] = PortMirror{Port: p.Port.Name, Mirror: u}
		}
		return pms
	})
	return engine.Join(
		engine.IndexBy(rules, func(pm PortMirror) string { return pm.Mirror }),
		n.Mirrors.ByUUID(),
		func(_ string, pm PortMirror, m *nb.Mirror) PortMirror {
			return PortMirror{Port: pm.Port, Mirror: m.Name}
		})
}
