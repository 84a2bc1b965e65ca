package rules

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
)

const regDNSLookupResult = "reg0[4]"

// switchesWithDNS computes the switches that have DNS records: a DNS row in
// their dns_records with at least one record (northd.c ls_has_dns_records).
func switchesWithDNS(n *relations.NB) engine.Rel[string] {
	type dnsRef struct{ Switch, DNS string }
	refs := engine.FlatMap(n.Switches.Rows, func(ls *nb.LogicalSwitch) []dnsRef {
		out := make([]dnsRef, len(ls.DNSRecords))
		for i, d := range ls.DNSRecords {
			out[i] = dnsRef{ls.UUID, d}
		}
		return out
	})
	withRecords := engine.Map(
		engine.Filter(n.DNS.Rows, func(d *nb.DNS) bool { return len(d.Records) > 0 }),
		func(d *nb.DNS) string { return d.UUID })
	return engine.Distinct(engine.Join(
		engine.IndexBy(refs, func(r dnsRef) string { return r.DNS }),
		engine.IndexBy(withRecords, func(id string) string { return id }),
		func(_ string, r dnsRef, _ string) string { return r.Switch }))
}

// SwitchDNSFlows: ls_in_dns_lookup and ls_in_dns_response, priority 100,
// and ls_out_acl, priority 34000, on switches with DNS records (northd.c
// build_lswitch_dns_lookup_and_response, build_acls). ovn-controller
// answers DNS queries for the records it knows (dns_lookup sets reg0[4])
// and the answer goes back out of the asking port, passing the egress ACLs
// (committed to conntrack on a stateful switch).
func SwitchDNSFlows(nb *relations.NB) engine.Rel[Flow] {
	facts := engine.Join(
		engine.IndexBy(switchesWithDNS(nb), func(sw string) string { return sw }),
		switchFactsBySwitch(nb),
		func(_ string, _ string, f relations.SwitchACLFacts) relations.SwitchACLFacts { return f })
	// With aclVerdicts, the answer from ovn-controller is allowed.
	replyMatch, allow := "udp.src == 53", ""
	if aclVerdicts(nb) {
		replyMatch, allow = "flags.from_ctrl && udp.src == 53", regACLVerdictAllow+" = 1; "
	}
	egressACL := aclStagesOf(nb).out
	return engine.FlatMap(facts, func(f relations.SwitchACLFacts) []Flow {
		dp := on(f.Switch)
		reply := allow + "next;"
		if f.Stateful() {
			reply = allow + "ct_commit; next;"
		}
		const answered = "udp.dst == 53 && " + regDNSLookupResult
		return []Flow{
			dp.flow(LSInDNSLookup, 100, "udp.dst == 53", regDNSLookupResult+" = dns_lookup(); next;"),
			dp.flow(LSInDNSResponse, 100, answered,
				"eth.dst <-> eth.src; ip4.src <-> ip4.dst; udp.dst = udp.src; udp.src = 53; outport = inport; flags.loopback = 1; output;"),
			dp.flow(LSInDNSResponse, 100, answered,
				"eth.dst <-> eth.src; ip6.src <-> ip6.dst; udp.dst = udp.src; udp.src = 53; outport = inport; flags.loopback = 1; output;"),
			dp.flow(egressACL, 34000, replyMatch, reply),
		}
	})
}
