package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// Tunnel keys in flow text. northd writes a router's tunnel key into the
// names of its load balancer address sets ($_rtr_lb_KEY_ip4/6), but keys
// are chosen only when the SB is written. Rules write KeyRef(NB _uuid)
// where a key goes; the SB writer replaces it with the datapath's tunnel
// key, and the canonical form of offline flows with the datapath's name, as
// the reference dump names keys (ResolveKeys).
const keyRefOpen, keyRefClose = "${key:", "}"

// KeyRef stands for the tunnel key of the row with NB _uuid uuid in flow
// text.
func KeyRef(uuid string) string { return keyRefOpen + uuid + keyRefClose }

// chassisRedirectRef starts the reference of a ChassisRedirectKeyRef.
const chassisRedirectRef = "cr:"

// ChassisRedirectKeyRef stands for the tunnel key of the chassisredirect
// port of the router port with NB _uuid uuid in flow text: that port has no
// NB row of its own.
func ChassisRedirectKeyRef(uuid string) string { return KeyRef(chassisRedirectRef + uuid) }

// RefName is the name of the row a reference in flow text (what ResolveKeys
// passes its key function) stands for, given the names of NB rows by
// _uuid: the row's own, or for a ChassisRedirectKeyRef its chassisredirect
// port's; an ACLIDRef's is CanonicalACLID.
func RefName(ref string, name func(uuid string) (string, bool)) (string, bool) {
	if acl, ok := ACLOfIDRef(ref); ok {
		return CanonicalACLID(acl), true
	}
	if u, ok := strings.CutPrefix(ref, chassisRedirectRef); ok {
		n, ok := name(u)
		return chassisRedirectName(n), ok
	}
	return name(ref)
}

// RefsNamed are the references to ports that RefName names name, given
// the NB _uuids of the ports of each name: the ports' own, and those of
// the router ports whose chassisredirect port is name.
func RefsNamed(name string, uuids func(name string) []string) []string {
	refs := slices.Clone(uuids(name))
	if port, ok := strings.CutPrefix(name, chassisRedirectName("")); ok {
		for _, u := range uuids(port) {
			refs = append(refs, chassisRedirectRef+u)
		}
	}
	return refs
}

// ResolveKeys replaces every KeyRef in text with key(uuid).
func ResolveKeys(text string, key func(uuid string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, keyRefOpen)
		if i < 0 {
			break
		}
		rest := text[i+len(keyRefOpen):]
		j := strings.Index(rest, keyRefClose)
		if j < 0 {
			break
		}
		b.WriteString(text[:i])
		b.WriteString(key(rest[:j]))
		text = rest[j+len(keyRefClose):]
	}
	if b.Len() == 0 {
		return text
	}
	b.WriteString(text)
	return b.String()
}

// ResolveFlowKeys returns flows with ResolveKeys applied to their match and
// actions.
func ResolveFlowKeys(flows []Flow, key func(uuid string) string) []Flow {
	out := make([]Flow, len(flows))
	for i, f := range flows {
		f.Match, f.Actions = ResolveKeys(f.Match, key), ResolveKeys(f.Actions, key)
		out[i] = f
	}
	return out
}

// routerLBAddressSet is the SB address set of the VIPs a router answers
// ARP (ip4) or ND (ip6) for (lr_lb_address_set_ref).
func routerLBAddressSet(router string, v6 bool) string {
	if v6 {
		return "$_rtr_lb_" + KeyRef(router) + "_ip6"
	}
	return "$_rtr_lb_" + KeyRef(router) + "_ip4"
}

// routerLBClass is what a router's load balancer VIP flows read of the
// router: routers of one class get the same flows for a load balancer.
type routerLBClass struct {
	// DGPs are the distributed gateway ports northd load balances on
	// (balancesOnEveryDGP), none when the router has none.
	DGPs      Strings
	ForceSNAT bool
}

// balancesOnEveryDGP: 26.03 load-balances on each distributed gateway
// port of a router, on that port's gateway chassis
// (build_distr_lrouter_nat_flows_for_lb for each of od->l3dgw_ports);
// 23.03 on the first only, as it supports no more (it logs so).
func balancesOnEveryDGP(rel schema.Release) bool { return rel >= schema.OVN2603 }

// classOf is router x's class.
func classOf(x scopeRouter) routerLBClass {
	c := routerLBClass{ForceSNAT: x.Router.ForceSNAT(), DGPs: x.DGPs}
	if x.DGPs == "" && x.Router.DGPs > 0 {
		c.DGPs = StringsOf(x.Router.DGP)
	}
	return c
}

// routerLBSet is the datapath set of the routers of class c in load
// balancer scope scope.
func routerLBSet(scope string, c routerLBClass) string {
	return datapathSet("lr-lb", fmt.Sprintf("%s/%t/%s", scope, c.ForceSNAT, c.DGPs))
}

// scopeRouter is a router in a load balancer scope, with the router's
// facts and, where it balances on every one (balancesOnEveryDGP), the
// names of its distributed gateway ports.
type scopeRouter struct {
	Scope  string
	Router relations.RouterLBConfig
	DGPs   Strings
}

// scopeRouters joins the routers' load balancer scopes with the routers'
// facts.
func scopeRouters(nb *relations.NB) engine.Rel[scopeRouter] {
	routers := engine.Join(nb.RouterLBScopesByRouter, nb.RouterLBConfigsByRouter,
		func(_ string, s relations.ScopeDatapath, c relations.RouterLBConfig) scopeRouter {
			return scopeRouter{Scope: s.Scope, Router: c}
		})
	if !balancesOnEveryDGP(nb.Release) {
		return routers
	}
	dgps := engine.GroupBy(engine.IndexBy(nb.DGPs, func(d relations.DGP) string { return d.LRP.Router }),
		func(router string, ds []relations.DGP) []engine.KV[string, Strings] {
			names := make([]string, len(ds))
			for i, d := range ds {
				names[i] = d.Name()
			}
			slices.Sort(names)
			return []engine.KV[string, Strings]{{Key: router, Value: StringsOf(names...)}}
		})
	byRouter := engine.IndexBy(routers, func(x scopeRouter) string { return x.Router.Router })
	dgpsByRouter := engine.IndexBy(dgps, func(kv engine.KV[string, Strings]) string { return kv.Key })
	return engine.Union(
		engine.AntiJoin(byRouter, dgpsByRouter),
		engine.Join(byRouter, dgpsByRouter, func(_ string, x scopeRouter, kv engine.KV[string, Strings]) scopeRouter {
			x.DGPs = kv.Value
			return x
		}))
}

// lbOnRouters is a load balancer that applies to the routers of a class in
// a scope; vipOnRouters one of its VIPs.
type (
	lbOnRouters struct {
		LB    string
		Scope string
		Class routerLBClass
	}
	vipOnRouters struct {
		Scope string
		Class routerLBClass
		VIP   relations.LBVIP
		// CommonZone: replies are unDNATed in the common zone
		// (lbUnDNATZone).
		CommonZone bool
	}
)

// set is the datapath set of the routers.
func (x lbOnRouters) set() on { return on(routerLBSet(x.Scope, x.Class)) }

// lbsOnRouters computes the load balancers of each scope and class of
// routers, by load balancer.
func lbsOnRouters(nb *relations.NB) engine.Index[string, lbOnRouters] {
	type scopeClass struct {
		Scope string
		Class routerLBClass
	}
	classes := engine.Distinct(engine.Map(scopeRouters(nb), func(x scopeRouter) scopeClass {
		return scopeClass{x.Scope, classOf(x)}
	}))
	return engine.IndexBy(engine.Join(engine.IndexBy(classes, func(c scopeClass) string { return c.Scope }), nb.LBScopesByScope,
		func(_ string, c scopeClass, s relations.LBScope) lbOnRouters {
			return lbOnRouters{s.LB, c.Scope, c.Class}
		}),
		func(x lbOnRouters) string { return x.LB })
}

// RouterLBSets: the routers of each class in each load balancer scope.
func RouterLBSets(nb *relations.NB) engine.Rel[DatapathSetMember] {
	return engine.Map(scopeRouters(nb), func(x scopeRouter) DatapathSetMember {
		return DatapathSetMember{routerLBSet(x.Scope, classOf(x)), x.Router.Router}
	})
}

// snatFlag is how a router marks load-balanced traffic for SNAT: the load
// balancer's skip_snat, else the router's lb_force_snat_ip, else nothing.
func snatFlag(c routerLBClass, v relations.LBVIP) string {
	switch {
	case v.SkipSNAT:
		return "skip_snat"
	case c.ForceSNAT:
		return "force_snat"
	}
	return ""
}

// RouterLBVIPFlows: lr_in_defrag priority 100, lr_in_dnat priority 110
// (VIP without port) or 120, lr_out_undnat priority 120 on routers with a
// distributed gateway port, and the affinity stages, for every VIP of a
// load balancer, on the set of routers of each class it applies to (northd.c
// build_lrouter_defrag_flows_for_lb, build_lrouter_nat_flows_for_lb,
// build_lb_affinity_lr_flows). Defrag sends traffic to the VIP through
// conntrack; DNAT picks a backend for a new connection and flags it for
// SNAT as the load balancer and router ask; on a distributed router this
// happens on the gateway chassis, where replies from the backends are
// unDNATed, unless the load balancer is distributed: then on every
// chassis, and the backends' replies leave through the gateway port
// itself. Where templateVIPsAllowed, lr_in_ip_input priority 100 lets
// traffic to a template VIP in.
func RouterLBVIPFlows(nb *relations.NB) engine.Rel[Flow] {
	vips := engine.Join(lbsOnRouters(nb), nb.LBVIPsByLB,
		func(_ string, x lbOnRouters, v relations.LBVIP) vipOnRouters {
			return vipOnRouters{Scope: x.Scope, Class: x.Class, VIP: v}
		})
	return engine.FlatMap(relations.WithFeatures(nb, lbUnDNATZone(nb, vips)), func(x relations.Featured[vipOnRouters]) []Flow {
		c, v := x.Of.Class, x.Of.VIP
		dp, ip := on(routerLBSet(x.Of.Scope, c)).from(v.LB), ipMatch(v)
		match, prio := fmt.Sprintf("ct.new && !ct.rel && %s && %s.dst == %s", ip, ip, v.IP), 110
		if v.Port != "" {
			match += " && " + vipPortMatch(nb.Release, v)
			prio = 120
		}
		flag := snatFlag(c, v)
		action, balances := vipAction(v, x.Features, tableIn(nb, LROutSNAT))
		if balances && v.AffinityTimeout != 0 && affinityOnLBRegs(nb.Release) {
			action = lbRegsAction(v) + action
		}
		if balances {
			// Conntrack records the flag only where every chassis can
			// (ct_lb_related).
			if flag != "" && x.Features.CTLBRelated {
				action += "; " + flag
			}
			action += ");"
		}
		if flag != "" && !(dropsUnflagged(nb.Release) && v.NTargets == 0 && !v.Reject) {
			action = "flags." + flag + "_for_lb = 1; " + action
		}
		flows := []Flow{routerLBDefragFlow(nb.Release, dp, v)}
		if templateVIPsAllowed(nb.Release) && v.Template && strings.Contains(v.IP, "^") {
			flows = append(flows, dp.flow(LRInIPInput, 100, ip+".dst == "+v.IP, "next;"))
		}
		dgps := c.DGPs.Slice()
		if len(dgps) == 0 {
			flows = append(flows, dp.flow(LRInDNAT, prio, match, action))
		}
		stateless := len(dgps) > 1 && natsStateless(nb.Release, v)
		for _, dgp := range dgps {
			if stateless {
				flows = append(flows, statelessNATFlows(nb.Release, dp, prio, dgp, v)...)
				continue
			}
			newMatch := match
			if !v.Distributed && (v.NBackends > 0 || !v.Reject) {
				newMatch = residentOn(newMatch, dgp)
			}
			flows = append(flows, dp.flow(LRInDNAT, prio, newMatch, action))
			if v.NBackends == 0 {
				continue
			}
			flows = append(flows, dp.flow(LROutUnDNAT, 120, undnatMatch(nb.Release, dgp, v), undnatAction(flag, x.Of.CommonZone)))
			if centralizesBackendReplies(nb.Release) {
				// A distributed load balancer's backends reply through
				// the port on their own chassis.
				outport := "cr-" + dgp
				if v.Distributed {
					outport = dgp
				}
				flows = append(flows, gwRedirectFlow(dp, dgp, outport, v))
			}
		}
		if affinityOnLBRegs(nb.Release) {
			return append(flows, routerLBRegAffinityFlows(dp, flag, v, match)...)
		}
		return append(flows, routerAffinityFlows(dp, c, v, match)...)
	})
}

// regLBStatelessIndex holds the index of the backend lr_in_ct_extract
// picked for a stateless VIP (northd.c REG_IDX_LB_STATELESS).
const regLBStatelessIndex = "reg1[0..15]"

// routerLBDefragFlow sends traffic to a VIP through conntrack (lr_in_defrag
// priority 100) or, where natsStateless, picks the index of its backend by
// hash instead, in lr_in_ct_extract priority 120 (northd.c
// build_lrouter_defrag_flows_for_lb): select() over the backends with the
// load balancer's selection fields, nothing to pick with one or none.
func routerLBDefragFlow(rel schema.Release, dp onRow, v relations.LBVIP) Flow {
	ip := ipMatch(v)
	match := fmt.Sprintf("ip && %s.dst == %s", ip, v.IP)
	if !natsStateless(rel, v) {
		return dp.flow(LRInDefrag, 100, match, "ct_dnat;")
	}
	if v.NBackends <= 1 {
		return dp.flow(LRInCTExtract, 120, match, "next;")
	}
	indexes := make([]string, v.NBackends)
	for i := range indexes {
		indexes[i] = strconv.Itoa(i)
	}
	values := strings.Join(indexes, ",")
	if v.HashFields != "" {
		values = fmt.Sprintf("values=(%s); hash_fields=\"%s\"", values, v.HashFields)
	}
	return dp.flow(LRInCTExtract, 120, match, regLBStatelessIndex+" = select("+values+");")
}

// natsStateless: 26.03 reads a load balancer's options:use_stateless_nat.
// Its routers pick the backend of a VIP by hash (routerLBDefragFlow) and,
// on a router with more than one distributed gateway port, rewrite
// addresses without conntrack (statelessNATFlows), so that either gateway
// chassis can handle any packet of a connection.
func natsStateless(rel schema.Release, v relations.LBVIP) bool {
	return rel >= schema.OVN2603 && v.StatelessNAT
}

// statelessNATFlows are a VIP's flows for distributed gateway port dgp of
// a router with several (northd.c build_lrouter_flows_for_lb_stateless),
// where natsStateless: on dgp's gateway chassis lr_in_dnat rewrites the
// destination to the backend whose index lr_in_ct_extract picked (the only
// one, when there is one), at the VIP's DNAT priority prio; the backends'
// replies are redirected to that chassis as with conntrack, lr_out_undnat
// (priority 120) lets them through and lr_out_snat (priority 160) rewrites
// their source to the VIP, on dgp's gateway chassis even for a distributed
// load balancer. A VIP without backends gets none. A VIP that
// rejects for want of targets (its health check leaves none) keeps its
// DNAT flows, which northd meters as the reject they stand for.
func statelessNATFlows(rel schema.Release, dp onRow, prio int, dgp string, v relations.LBVIP) []Flow {
	if v.NBackends == 0 {
		return nil
	}
	ip := ipMatch(v)
	match := fmt.Sprintf("is_chassis_resident(%s) && %s && %s.dst == %s", jsonKey("cr-"+dgp), ip, ip, v.IP)
	snat := fmt.Sprintf("%s.src = %s; ", ip, v.IP)
	if v.Port != "" {
		match += fmt.Sprintf(" && %s && %s.dst == %s", v.Proto, v.Proto, v.Port)
		snat += fmt.Sprintf("%s.src = %s; ", v.Proto, v.Port)
	}
	dnat := func(b relations.LBBackend) string {
		action := fmt.Sprintf("%s.dst = %s; ", ip, b.IP)
		if v.Port != "" {
			action += fmt.Sprintf("%s.dst = %s; ", v.Proto, b.Port)
		}
		return action + "next;"
	}
	var flows []Flow
	backends := v.Backends.All()
	if len(backends) == 1 {
		flows = append(flows, dp.flow(LRInDNAT, prio, match, dnat(backends[0])))
	} else {
		for i, b := range backends {
			flows = append(flows, dp.flow(LRInDNAT, prio, fmt.Sprintf("%s && %s == %d", match, regLBStatelessIndex, i), dnat(b)))
		}
	}
	if v.NTargets == 0 && v.Reject {
		for i := range flows {
			flows[i].MeteredAsReject = true
		}
	}
	replies := residentOn(backendReplies(rel, dgp, v), dgp) + " && " + v.Proto
	return append(flows,
		gwRedirectFlow(dp, dgp, "cr-"+dgp, v),
		dp.flow(LROutUnDNAT, 120, replies, "next;"),
		dp.flow(LROutSNAT, 160, replies, snat+"next;"))
}

// gwRedirectFlow sends what a VIP's backends send out of distributed
// gateway port dgp to outport (lr_in_gw_redirect priority 200): its
// chassisredirect port, which takes it to the gateway chassis.
func gwRedirectFlow(dp onRow, dgp, outport string, v relations.LBVIP) Flow {
	return dp.flow(LRInGWRedirect, 200,
		fmt.Sprintf("%s && (%s) && outport == %s", ipMatch(v), backendSources(v), jsonKey(dgp)),
		"outport = "+jsonKey(outport)+"; next;")
}

// dropsUnflagged: 26.03 does not flag for SNAT the traffic to a VIP that
// its DNAT drops (no targets, no options:reject; build_lb_vip_actions).
func dropsUnflagged(rel schema.Release) bool { return rel >= schema.OVN2603 }

// templateVIPsAllowed: 26.03 lets traffic to a template VIP (one with a
// ^variable) past lr_in_ip_input (northd.c
// build_lrouter_allow_vip_traffic_template), where the router would drop
// traffic to an address it does not know as its own.
func templateVIPsAllowed(rel schema.Release) bool { return rel >= schema.OVN2603 }

// affinityOnLBRegs: in 26.03 a router's DNAT keeps a VIP with affinity in
// the load balancer registers (reg4/xxreg1, reg2) as switches do, and its
// affinity flows read it from there (lbRegAffinityFlows).
func affinityOnLBRegs(rel schema.Release) bool { return rel >= schema.OVN2603 }

// routerLBRegAffinityFlows are routerAffinityFlows with affinityOnLBRegs:
// the check only looks the session up, and the SNAT flag is the one the
// VIP's own DNAT flow sets (snatFlag).
func routerLBRegAffinityFlows(dp onRow, flag string, v relations.LBVIP, newMatch string) []Flow {
	if v.AffinityTimeout == 0 {
		return nil
	}
	lbAction, ctFlag := "", ""
	if flag != "" {
		lbAction, ctFlag = "flags."+flag+"_for_lb = 1; ", "; "+flag
	}
	return append([]Flow{dp.flow(LRInLBAffCheck, 100, newMatch, regKnownLBSession+" = chk_lb_aff(); next;")},
		lbRegAffinityFlows(dp, v, !v.V4Mapped(), LRInLBAffLearn, LRInDNAT, lbAction, ctFlag)...)
}

// vipPortMatch matches the protocol and port of a VIP that has one: the
// packet's in 23.03; in 26.03 those the ct_extract stages read from
// conntrack for new connections (REG_CT_PROTO, REG_CT_TP_DST), which every
// fragment of the connection carries.
func vipPortMatch(rel schema.Release, v relations.LBVIP) string {
	if !matchesExtractedCT(rel) {
		return fmt.Sprintf("%s && %s.dst == %s", v.Proto, v.Proto, v.Port)
	}
	return ctProtoPortMatch(v)
}

// matchesExtractedCT: 26.03 matches load balancers' protocol and port on
// the values its ct_extract stages extract.
func matchesExtractedCT(rel schema.Release) bool { return rel >= schema.OVN2603 }

// ctExtractFlow is the ct_extract stage's flow of a datapath with load
// balancer VIPs (26.03): new connections' protocol and destination port go
// to the registers vipPortMatch reads.
func ctExtractFlow(dp on, stage Stage) Flow {
	return dp.flow(stage, 100, "ct.new && ip", regCTProto+" = ct_proto(); "+regCTTPDst+" = ct_tp_dst(); next;")
}

// undnatMatch matches replies from the VIP's backends leaving through the
// router's distributed gateway port dgp on its gateway chassis (on any
// chassis for a distributed load balancer); in 26.03 also those coming in
// through it.
func undnatMatch(rel schema.Release, dgp string, v relations.LBVIP) string {
	if v.Distributed {
		return backendReplies(rel, dgp, v)
	}
	return residentOn(backendReplies(rel, dgp, v), dgp)
}

// backendReplies matches replies from the VIP's backends leaving through
// the router's distributed gateway port dgp; in 26.03 also those coming in
// through it.
func backendReplies(rel schema.Release, dgp string, v relations.LBVIP) string {
	port := "outport == " + jsonKey(dgp)
	if centralizesBackendReplies(rel) {
		port = fmt.Sprintf("(inport == %s || outport == %s)", jsonKey(dgp), jsonKey(dgp))
	}
	return fmt.Sprintf("%s && (%s) && %s", ipMatch(v), backendSources(v), port)
}

// residentOn restricts match to the gateway chassis of distributed
// gateway port dgp.
func residentOn(match, dgp string) string {
	return match + " && is_chassis_resident(" + jsonKey("cr-"+dgp) + ")"
}

// backendSources matches packets from the VIP's backends.
func backendSources(v relations.LBVIP) string {
	ip := ipMatch(v)
	var srcs []string
	for _, b := range v.Backends.All() {
		if b.Port != "" {
			srcs = append(srcs, fmt.Sprintf("(%s.src == %s && %s.src == %s)", ip, b.IP, v.Proto, b.Port))
		} else {
			srcs = append(srcs, fmt.Sprintf("(%s.src == %s)", ip, b.IP))
		}
	}
	return strings.Join(srcs, " || ")
}

// centralizesBackendReplies: 26.03 redirects what the backends of a VIP on
// a distributed router send out of the gateway port to the gateway chassis
// (lr_in_gw_redirect), where it is unDNATed in its DNAT zone.
func centralizesBackendReplies(rel schema.Release) bool { return rel >= schema.OVN2603 }

// undnatAction unDNATs replies in the gateway chassis' common zone or its
// DNAT zone, or passes them on flagged for SNAT.
func undnatAction(flag string, commonZone bool) string {
	switch {
	case flag != "":
		return "flags." + flag + "_for_lb = 1; next;"
	case commonZone:
		return "ct_dnat_in_czone;"
	}
	return "ct_dnat;"
}

// lbUnDNATZone marks the VIPs whose replies a distributed router unDNATs
// in its common zone: every VIP in 23.03; in 26.03 (where
// centralizesBackendReplies) only while NB_Global has
// options:use_common_zone (lrouter_use_common_zone).
func lbUnDNATZone(nb *relations.NB, vips engine.Rel[vipOnRouters]) engine.Rel[vipOnRouters] {
	inCommonZone := func(v vipOnRouters) vipOnRouters { v.CommonZone = true; return v }
	if !centralizesBackendReplies(nb.Release) {
		return engine.Map(vips, inCommonZone)
	}
	keyed := engine.IndexBy(vips, func(vipOnRouters) bool { return true })
	return engine.Union(engine.Map(engine.SemiJoin(keyed, commonZone(nb)), inCommonZone), engine.AntiJoin(keyed, commonZone(nb)))
}

// routerAffinityFlows are the flows of a VIP with options:affinity_timeout
// on a router (northd.c build_lb_affinity_lr_flows): lr_in_lb_aff_check
// looks up the client's last backend for new connections matching
// newMatch, lr_in_dnat (priority 150) sends the connection there, and
// lr_in_lb_aff_learn records the backend a new connection got. The router's
// lb_force_snat_ip comes before the load balancer's skip_snat here, and the
// family is V4Mapped's.
func routerAffinityFlows(dp onRow, c routerLBClass, v relations.LBVIP, newMatch string) []Flow {
	if v.AffinityTimeout == 0 {
		return nil
	}
	ip, regVIP, regBackend := "ip4", "reg0", regLBAffBackend4
	if !v.V4Mapped() {
		ip, regVIP, regBackend = "ip6", "xxreg0", regLBL3AffBackend6
	}
	flag := ""
	switch {
	case c.ForceSNAT:
		flag = "force_snat"
	case v.SkipSNAT:
		flag = "skip_snat"
	}
	check := fmt.Sprintf("%s = %s.dst; ", regVIP, ip)
	learnMatch := fmt.Sprintf("%s == 0 && ct.new && %s && %s == %s", regKnownLBSession, ip, regVIP, v.IP)
	if v.Port != "" {
		check += fmt.Sprintf("reg9[16..31] = %s.dst; ", v.Proto)
		learnMatch += " && reg9[16..31] == " + v.Port
	}
	dnatAction := regVIP + " = " + v.IP + "; "
	ctFlag := ""
	if flag != "" {
		dnatAction += "flags." + flag + "_for_lb = 1; "
		ctFlag = "; " + flag
	}
	return append([]Flow{dp.flow(LRInLBAffCheck, 100, newMatch, check+regKnownLBSession+" = chk_lb_aff(); next;")},
		affinityBackendFlows(dp, v, LRInLBAffLearn, LRInDNAT, ip, regBackend, learnMatch, dnatAction, ctFlag)...)
}

// RouterLBEventFlows: lr_in_dnat priority 130 (northd.c
// build_lrouter_flows_for_lb): traffic to a VIP without backends raises an
// empty_lb_backends event for the CMS, when the load balancer or NB_Global
// asks for events.
func RouterLBEventFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.Join(
		lbsOnRouters(nb),
		engine.IndexBy(eventVIPs(nb), func(v relations.LBVIP) string { return v.LB }),
		func(_ string, x lbOnRouters, v relations.LBVIP) Flow {
			return eventFlow(x.set().from(v.LB), LRInDNAT, v)
		})
}

// RouterLBNATOverlapFlows: lr_in_unsnat priority 120 (northd.c
// build_lrouter_nat_flows_for_lb): when a VIP is also the external IP of
// one of the router's NAT rules, traffic to the VIP skips unSNAT, whose
// conntrack pass would spoil the state the DNAT stage reads.
func RouterLBNATOverlapFlows(nb *relations.NB) engine.Rel[Flow] {
	type routerIP struct{ Router, IP string }
	external := engine.Distinct(engine.Map(nb.RouterNATs, func(r relations.RouterNAT) routerIP {
		return routerIP{r.Router, r.NAT.ExternalIP}
	}))
	// The VIPs equal to a NAT address of a router, then those of the
	// router's load balancers.
	type vipAt struct {
		At  routerIP
		VIP relations.LBVIP
	}
	pairs := engine.Join(engine.IndexBy(external, func(r routerIP) string { return r.IP }), nb.LBVIPsByIP,
		func(_ string, r routerIP, v relations.LBVIP) vipAt { return vipAt{r, v} })
	return engine.Map(relations.LBsOnRouters(nb, pairs, func(x vipAt) (string, string) { return x.VIP.LB, x.At.Router }),
		func(x vipAt) Flow {
			v, ip := x.VIP, ipMatch(x.VIP)
			match := fmt.Sprintf("%s && %s.dst == %s && %s", ip, ip, v.IP, v.Proto)
			if v.Port != "" {
				match += fmt.Sprintf(" && %s.dst == %s", v.Proto, v.Port)
			}
			return on(x.At.Router).from(v.LB).flow(LRInUnSNAT, 120, match, "next;")
		})
}

// RouterLBDefaultFlows: lr_in_dnat priorities 70 and 50 on routers with a
// load balancer VIP, and lr_out_undnat and lr_out_post_undnat on such
// gateway routers (northd.c build_lrouter_nat_defrag_and_lb). Related
// (where every chassis can NAT it: ct_lb_related) and established
// load-balanced traffic keeps the SNAT flags conntrack recorded; a gateway
// router sends all traffic back through its DNAT zone so replies get
// unDNATed (GatewayRouterCommitFlows commits connections started from the
// other side).
func RouterLBDefaultFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(relations.WithFeatures(nb, nb.RouterLBConfigs), func(x relations.Featured[relations.RouterLBConfig]) []Flow {
		r := x.Of
		if !r.HasLBVIP {
			return nil
		}
		dp, bits := on(r.Router), ctBits(x.Features)
		rel, est := "ct.rel && !ct.est && !ct.new", "ct.est && !ct.rel && !ct.new"
		if dnatLeavesReplies(nb.Release) {
			rel += " && !ct.rpl"
			est += " && !ct.rpl"
		}
		est += " && " + bits + ".natted"
		flows := []Flow{ctExtractFlow(dp, LRInCTExtract)}
		if x.Features.CTLBRelated {
			flows = append(flows,
				dp.flow(LRInDNAT, 70, rel+" && "+bits+".skip_snat == 1", "flags.skip_snat_for_lb = 1; ct_commit_nat;"),
				dp.flow(LRInDNAT, 70, rel+" && "+bits+".force_snat == 1", "flags.force_snat_for_lb = 1; ct_commit_nat;"),
				dp.flow(LRInDNAT, 50, rel, "ct_commit_nat;"))
		}
		flows = append(flows,
			dp.flow(LRInDNAT, 70, est+" && "+bits+".skip_snat == 1", "flags.skip_snat_for_lb = 1; next;"),
			dp.flow(LRInDNAT, 70, est+" && "+bits+".force_snat == 1", "flags.force_snat_for_lb = 1; next;"),
			dp.flow(LRInDNAT, 50, est, "next;"))
		if r.Gateway {
			flows = append(flows,
				dp.flow(LROutUnDNAT, 100, "nd || nd_rs || nd_ra", "next;"),
				dp.flow(LROutUnDNAT, 50, "ip", "flags.loopback = 1; ct_dnat;"))
		}
		return flows
	})
}

// dnatLeavesReplies: 26.03's lr_in_dnat flows for related and established
// load-balanced traffic leave replies alone.
func dnatLeavesReplies(rel schema.Release) bool { return rel >= schema.OVN2603 }

// RouterLBSkipSNATFlows: lr_out_snat priority 120 on routers with a load
// balancer that sets options:skip_snat (northd.c
// build_lrouter_flows_for_lb): traffic it flagged is not SNATed.
func RouterLBSkipSNATFlows(nb *relations.NB) engine.Rel[Flow] {
	skip := engine.Filter(nb.LoadBalancerConfigs, func(lb relations.LoadBalancer) bool { return lb.SkipSNAT })
	onRouters := engine.SemiJoin(
		lbsOnRouters(nb),
		engine.IndexBy(skip, func(lb relations.LoadBalancer) string { return lb.UUID }))
	return engine.Map(onRouters, func(x lbOnRouters) Flow {
		return x.set().flow(LROutSNAT, 120, "flags.skip_snat_for_lb == 1 && ip", "next;")
	})
}

// RouterLBForceSNATFlows: lr_in_unsnat priority 110 and lr_out_snat
// priority 100 on a gateway router with options:lb_force_snat_ip set to
// addresses (northd.c build_lrouter_force_snat_flows): load-balanced
// traffic is SNATed to the address of its family, and traffic to that
// address unSNATed.
func RouterLBForceSNATFlows(nb *relations.NB) engine.Rel[Flow] {
	return engine.FlatMap(nb.RouterLBConfigs, func(r relations.RouterLBConfig) []Flow {
		if !r.Gateway {
			return nil
		}
		dp := on(r.Router)
		var flows []Flow
		for _, a := range []struct{ ver, ip string }{{"4", r.ForceSNATIPv4}, {"6", r.ForceSNATIPv6}} {
			if a.ip == "" {
				continue
			}
			flows = append(flows,
				dp.flow(LRInUnSNAT, 110, fmt.Sprintf("ip%s && ip%s.dst == %s", a.ver, a.ver, a.ip), "ct_snat;"),
				dp.flow(LROutSNAT, 100, "flags.force_snat_for_lb == 1 && ip"+a.ver, "ct_snat("+a.ip+");"))
		}
		return flows
	})
}

// RouterLBForceSNATPortFlows: lr_in_unsnat priority 110 and lr_out_snat
// for each connected port of a gateway router with
// options:lb_force_snat_ip=router_ip (northd.c
// build_lrouter_force_snat_flows_op): load-balanced traffic leaving a port
// is SNATed to the port's first address of its family (priority 110), and
// traffic to that address coming in on the port unSNATed. Where
// forceSNATPerNetwork, every network of the port gets its own unSNAT flow
// and, at 110, SNAT to its own address for the packets lr_in_network_id
// marked with its index; the first address stays at 105 for controllers
// that lack flags.network_id.
func RouterLBForceSNATPortFlows(nb *relations.NB) engine.Rel[Flow] {
	connected := engine.Distinct(engine.Union(
		engine.Map(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) relations.LRP { return p.LRP }),
		engine.Map(nb.LRPRouterPeers, func(p relations.LRPRouterPeer) relations.LRP { return p.LRP })))
	routerIP := engine.Filter(nb.RouterLBConfigs, func(r relations.RouterLBConfig) bool { return r.ForceSNATRouterIP })
	ports := engine.SemiJoin(
		engine.IndexBy(connected, lrpRouter),
		engine.IndexBy(routerIP, func(r relations.RouterLBConfig) string { return r.Router }))
	perNetwork := forceSNATPerNetwork(nb.Release)
	return engine.FlatMap(ports, func(p relations.LRP) []Flow {
		dp, key := on(p.Router), jsonKey(p.Name())
		var flows []Flow
		// add writes the flows of the port's n addresses of IP version ver.
		add := func(ver string, n int, addr func(i int) string) {
			if n <= 0 {
				return
			}
			snat := func(priority int, networkID, ip string) Flow {
				return dp.flow(LROutSNAT, priority, fmt.Sprintf("flags.force_snat_for_lb == 1 && %sip%s && outport == %s", networkID, ver, key), "ct_snat("+ip+");")
			}
			unsnat := func(ip string) Flow {
				return dp.flow(LRInUnSNAT, 110, fmt.Sprintf("inport == %s && ip%s.dst == %s", key, ver, ip), "ct_snat;")
			}
			if !perNetwork {
				flows = append(flows, unsnat(addr(0)), snat(110, "", addr(0)))
				return
			}
			for i := range n {
				// Past the last network id, networks share the first's.
				id := i
				if id > maxNetworkID {
					id = 0
				}
				flows = append(flows, unsnat(addr(i)), snat(110, fmt.Sprintf("flags.network_id == %d && ", id), addr(id)))
			}
			flows = append(flows, snat(105, "", addr(0)))
		}
		add("4", len(p.Net.IPv4), func(i int) string { return p.Net.IPv4[i].AddrS })
		// The link-local address comes last: only other addresses count.
		add("6", len(p.Net.IPv6)-1, func(i int) string { return p.Net.IPv6[i].AddrS })
		return flows
	})
}

// forceSNATPerNetwork: 26.03 SNATs load-balanced traffic to the address of
// the network the next hop is in (flags.network_id), not only the port's
// first one.
func forceSNATPerNetwork(rel schema.Release) bool { return rel >= schema.OVN2603 }

// RouterLBVIPNeighborFlows: lr_in_ip_input priority 90 on every port of a
// router whose load balancers have VIPs it answers for (northd.c
// build_lrouter_ipv4_ip_input, build_ipv6_input_flows_for_lrouter_port):
// ARP requests and neighbour solicitations for any of them, named by the
// router's $_rtr_lb address sets, get the port's MAC; on a distributed
// gateway port only on its gateway chassis.
func RouterLBVIPNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	type family struct {
		Router string
		IPv6   bool
	}
	answered := engine.Distinct(engine.Map(nb.RouterLBReachableIPs, func(ip relations.RouterLBIP) family {
		return family{ip.Router, ip.IPv6}
	}))
	return engine.Join(
		engine.IndexBy(nb.LRPs, lrpRouter),
		engine.IndexBy(answered, func(f family) string { return f.Router }),
		func(_ string, p relations.LRP, f family) Flow {
			set, resident := routerLBAddressSet(p.Router, f.IPv6), ""
			if p.DGP() {
				resident = "is_chassis_resident(" + crKey(p) + ")"
			}
			if !f.IPv6 {
				// 23.03 gives the ARP reply for the VIPs no hint.
				return arpReply(on(p.Router), p, set, resident)
			}
			match := "inport == " + jsonKey(p.Name()) + " && nd_ns && nd.target == " + set
			if resident != "" {
				match += " && " + resident
			}
			return on(p.Router).flow(LRInIPInput, 90, match,
				"nd_na { eth.src = xreg0[0..47]; ip6.src = nd.target; nd.tll = xreg0[0..47]; "+
					"outport = inport; flags.loopback = 1; output; };")
		})
}

// RouterLBRouteFlows: lr_in_ip_routing, as a connected /32 route, on a
// router whose port shares a switch with the distributed gateway port of a
// router with load balancers that set options:add_route (northd.c
// build_ip_routing_flows_for_lrouter_port for the switch's router ports,
// assign_routable_addresses; 26.03 build_routable_flows_for_router_port,
// also from a port without IPv4 address: routableRoute): the router sends
// traffic to those IPv4 VIPs out of that port, straight to the gateway
// port.
func RouterLBRouteFlows(nb *relations.NB) engine.Rel[Flow] {
	type dgpVIP struct {
		Switch, DGP, IP string
	}
	routable := engine.Filter(nb.RouterLBRoutableIPs, func(ip relations.RouterLBIP) bool { return !ip.IPv6 })
	vips := engine.Join(
		engine.IndexBy(engine.Filter(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) bool { return p.LRP.DGP() }),
			func(p relations.LRPSwitchPeer) string { return p.LRP.Router }),
		engine.IndexBy(routable, func(ip relations.RouterLBIP) string { return ip.Router }),
		func(_ string, p relations.LRPSwitchPeer, ip relations.RouterLBIP) dgpVIP {
			return dgpVIP{p.Switch, p.LRP.Port.UUID, ip.IP}
		})
	return engine.Distinct(engine.FlatMap(engine.Join(
		engine.IndexBy(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.Switch }),
		engine.IndexBy(vips, func(v dgpVIP) string { return v.Switch }),
		func(_ string, p relations.LRPSwitchPeer, v dgpVIP) engine.KV[relations.LRP, dgpVIP] {
			return engine.KV[relations.LRP, dgpVIP]{Key: p.LRP, Value: v}
		}), func(kv engine.KV[relations.LRP, dgpVIP]) []Flow {
		p, v := kv.Key, kv.Value
		r, ok := routableRoute(nb.Release, p)
		if p.Port.UUID == v.DGP || !ok {
			return nil
		}
		r.network = v.IP
		return []Flow{r.flow(nb)}
	}))
}

// RouterLBRoutableARPFlows: lr_in_arp_resolve priority 100 on a gateway
// router, or through a distributed gateway port, whose port shares a switch
// with the distributed gateway port of a router with load balancers that
// set options:add_route (northd.c routable_addresses_to_lflows): the next
// hops among those VIPs resolve to the gateway port's MAC. northd lists the
// VIPs in its string set's order, with the routable external IPs of NAT
// rules first: routers whose NAT rules set add_route are left to the NAT
// rules.
func RouterLBRoutableARPFlows(nb *relations.NB) engine.Rel[Flow] {
	type routableSet struct {
		Router string
		IPv4   string // the IPv4 VIPs, as a set "{...}"
	}
	sets := engine.GroupBy(engine.IndexBy(nb.RouterLBRoutableIPs, func(ip relations.RouterLBIP) string { return ip.Router }),
		func(router string, ips []relations.RouterLBIP) []routableSet {
			var v4 []string
			for _, ip := range ips {
				if !ip.IPv6 {
					v4 = append(v4, ip.IP)
				}
			}
			slices.Sort(v4)
			return []routableSet{{router, "{" + strings.Join(relations.SsetOrder(v4), ", ") + "}"}}
		})
	sets = engine.AntiJoin(engine.IndexBy(sets, func(r routableSet) string { return r.Router }),
		engine.IndexBy(routersWithRoutableNAT(nb), func(r string) string { return r }))
	type gateway struct {
		Switch string
		DGP    relations.LRP
		IPv4   string
	}
	gateways := engine.Join(
		engine.IndexBy(engine.Filter(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) bool { return p.LRP.DGP() }),
			func(p relations.LRPSwitchPeer) string { return p.LRP.Router }),
		engine.IndexBy(sets, func(r routableSet) string { return r.Router }),
		func(_ string, p relations.LRPSwitchPeer, r routableSet) gateway {
			return gateway{p.Switch, p.LRP, r.IPv4}
		})
	// The ports that resolve next hops this way: on a gateway router or
	// distributed gateway ports, of routers that do not learn their
	// neighbour routers' MACs, through an enabled switch port.
	learning := engine.Filter(nb.RouterConfigs, func(r relations.RouterConfig) bool { return !r.DynamicNeighRouters })
	resolving := engine.Join(
		engine.IndexBy(engine.Filter(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) bool { return lspEnabled(p.LSP) }),
			func(p relations.LRPSwitchPeer) string { return p.LRP.Router }),
		engine.IndexBy(learning, func(r relations.RouterConfig) string { return r.UUID }),
		func(_ string, p relations.LRPSwitchPeer, r relations.RouterConfig) engine.KV[relations.LRPSwitchPeer, bool] {
			return engine.KV[relations.LRPSwitchPeer, bool]{Key: p, Value: r.Gateway || p.LRP.DGP()}
		})
	resolvingPorts := engine.Map(engine.Filter(resolving, func(kv engine.KV[relations.LRPSwitchPeer, bool]) bool { return kv.Value }),
		func(kv engine.KV[relations.LRPSwitchPeer, bool]) relations.LRPSwitchPeer { return kv.Key })
	return engine.Distinct(engine.FlatMap(engine.Join(
		engine.IndexBy(resolvingPorts, func(p relations.LRPSwitchPeer) string { return p.Switch }),
		engine.IndexBy(gateways, func(g gateway) string { return g.Switch }),
		func(_ string, p relations.LRPSwitchPeer, g gateway) engine.KV[relations.LRP, gateway] {
			return engine.KV[relations.LRP, gateway]{Key: p.LRP, Value: g}
		}), func(kv engine.KV[relations.LRP, gateway]) []Flow {
		p, g := kv.Key, kv.Value
		if p.Port.UUID == g.DGP.Port.UUID {
			return nil
		}
		return []Flow{on(p.Router).flow(LRInARPResolve, 100,
			"outport == "+jsonKey(p.Name())+" && reg0 == "+g.IPv4, "eth.dst = "+g.DGP.Net.MAC.String()+"; next;")}
	}))
}

// routersWithRoutableNAT are the routers with a NAT rule other than snat
// that sets options:add_route.
func routersWithRoutableNAT(n *relations.NB) engine.Rel[string] {
	routable := engine.Filter(n.NATs.Rows, func(nat *nb.NAT) bool {
		return nat.Type != nb.NATTypeSNAT && relations.SmapBool(nat.Options, "add_route", false)
	})
	return engine.Distinct(engine.Join(
		engine.IndexBy(n.Refs.RouterNATs, func(r relations.Ref) string { return r.Target }),
		engine.IndexBy(routable, func(nat *nb.NAT) string { return nat.UUID }),
		func(_ string, r relations.Ref, _ *nb.NAT) string { return r.Owner }))
}
