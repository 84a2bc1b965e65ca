package rules

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
)

// RouterGatewayRedirectFlows: lr_in_gw_redirect on a router with
// distributed gateway ports (northd.c
// build_gateway_redirect_flows_for_lrouter). Traffic leaving through a
// gateway port that no distributed NAT rule handles is redirected to the
// port's chassisredirect port, to be sent from the gateway chassis. For
// stateless dnat_and_snat rules with allowed_ext_ips, only traffic to the
// allowed peers is redirected and other traffic to the rule's external IP
// dropped; with exempted_ext_ips, traffic to the exempted peers is dropped.
// Gateway ports whose switch has VTEP ports are left distributed.
func RouterGatewayRedirectFlows(nb *relations.NB) engine.Rel[Flow] {
	dgps := engine.Filter(nb.DGPs, func(d relations.DGP) bool { return !d.VTEP })
	redirect := engine.Map(dgps, func(d relations.DGP) Flow {
		return on(d.LRP.Router).flow(LRInGWRedirect, 50, "outport == "+jsonKey(d.Name()), redirectTo(d))
	})
	filtered := engine.Filter(nb.RouterNATs, func(r relations.RouterNAT) bool {
		return r.Stateless() && (r.AllowedSet != "" || r.ExemptedSet != "")
	})
	type natOnDGP struct {
		nat relations.RouterNAT
		dgp relations.DGP
	}
	byRouter := func(r relations.RouterNAT) string { return r.Router }
	dgpsByRouter := engine.IndexBy(dgps, func(d relations.DGP) string { return d.LRP.Router })
	perDGP := engine.Map(engine.Join(engine.IndexBy(filtered, byRouter), dgpsByRouter,
		func(_ string, r relations.RouterNAT, d relations.DGP) natOnDGP { return natOnDGP{r, d} }),
		func(x natOnDGP) Flow {
			key := jsonKey(x.dgp.Name())
			if x.nat.AllowedSet != "" {
				return on(x.nat.Router).flow(LRInGWRedirect, 75,
					fmt.Sprintf("outport == %s && ip%s.src == $%s", key, ipVersion(!x.nat.ExtV6), x.nat.AllowedSet), redirectTo(x.dgp))
			}
			return on(x.nat.Router).flow(LRInGWRedirect, 75,
				fmt.Sprintf("outport == %s && ip%s.src == $%s", key, ipVersion(!x.nat.ExtV6), x.nat.ExemptedSet), drop)
		})
	// Other traffic to the external IP of the router's first such rule with
	// allowed_ext_ips is dropped.
	allowed := engine.SemiJoin(
		engine.IndexBy(engine.Filter(filtered, func(r relations.RouterNAT) bool { return r.AllowedSet != "" }), byRouter),
		dgpsByRouter)
	first := engine.Min(engine.IndexBy(allowed, byRouter), func(a, b relations.RouterNAT) int { return cmp.Compare(a.NAT.UUID, b.NAT.UUID) })
	fallback := engine.Map(first, func(kv engine.KV[string, relations.RouterNAT]) Flow {
		r := kv.Value
		return on(r.Router).flow(LRInGWRedirect, 70, fmt.Sprintf("ip && ip%s.dst == %s", ipVersion(!r.ExtV6), r.NAT.ExternalIP), drop)
	})
	return engine.Union(redirect, perDGP, fallback)
}

// redirectTo sends a packet to a distributed gateway port's
// chassisredirect port.
func redirectTo(d relations.DGP) string { return "outport = " + jsonKey(d.CRName()) + "; next;" }

// DGPBridgedNeighborFlows: lr_in_arp_resolve, priority 50, for a
// distributed gateway port with options:redirect-type=bridged (northd.c
// build_arp_resolve_flows_for_lrouter_port): away from the gateway
// chassis, traffic through the port goes to the port's own MAC, to be
// bridged to the gateway chassis, instead of resolving its next hop here.
func DGPBridgedNeighborFlows(nb *relations.NB) engine.Rel[Flow] {
	bridged := engine.Filter(nb.DGPs, func(d relations.DGP) bool {
		return strings.EqualFold(d.LRP.Port.Options["redirect-type"], "bridged")
	})
	return engine.Map(bridged, func(d relations.DGP) Flow {
		return on(d.LRP.Router).flow(LRInARPResolve, 50,
			fmt.Sprintf("outport == %s && !is_chassis_resident(%s)", jsonKey(d.Name()), jsonKey(d.CRName())),
			"eth.dst = "+d.LRP.Net.MAC.String()+"; next;")
	})
}

// portResident is the is_chassis_resident() clause that restricts a
// router port's ARP replies to one chassis.
type portResident struct {
	Port     string // NB _uuid of the router port
	Resident string
}

// DGPRouterPortARPReplyFlows: lr_in_ip_input, priority 90, on routers
// with distributed gateway ports (northd.c build_lrouter_ipv4_ip_input):
// ARP requests from a port's network for one of its IPv4 addresses get a
// reply from the port's MAC. When the port's switch has a localnet port,
// only the gateway chassis replies for a gateway port — so that upstream
// MAC learning points there — and for a port with
// options:reside-on-redirect-chassis on a router with one gateway port.
// RouterPortARPReplyFlows answers on the other routers.
func DGPRouterPortARPReplyFlows(nb *relations.NB) engine.Rel[Flow] {
	onLocalnet := engine.SemiJoin(
		engine.IndexBy(nb.LRPSwitchPeers, func(p relations.LRPSwitchPeer) string { return p.Switch }),
		engine.IndexBy(nb.SwitchesWithLocalnet, func(s string) string { return s }))
	withDGPs := engine.IndexBy(engine.Filter(nb.RouterGateways, func(g relations.RouterGateway) bool { return g.DGPs > 0 }),
		func(g relations.RouterGateway) string { return g.Router })
	residents := engine.FlatMap(engine.Join(engine.IndexBy(onLocalnet, func(p relations.LRPSwitchPeer) string { return p.LRP.Router }), withDGPs,
		func(_ string, p relations.LRPSwitchPeer, g relations.RouterGateway) portResident {
			switch {
			case p.LRP.DGP():
				return portResident{p.LRP.Port.UUID, "is_chassis_resident(" + crKey(p.LRP) + ")"}
			case relations.SmapBool(p.LRP.Port.Options, "reside-on-redirect-chassis", false) && g.DGPs == 1:
				return portResident{p.LRP.Port.UUID, "is_chassis_resident(" + jsonKey("cr-"+g.FirstDGP) + ")"}
			}
			return portResident{}
		}), func(r portResident) []portResident {
		if r.Port == "" {
			return nil
		}
		return []portResident{r}
	})
	ports := engine.IndexBy(engine.SemiJoin(engine.IndexBy(nb.LRPs, lrpRouter), withDGPs), lrpUUID)
	byPort := engine.IndexBy(engine.Distinct(residents), func(r portResident) string { return r.Port })
	replies := func(p relations.LRP, resident string) []Flow {
		flows := make([]Flow, len(p.Net.IPv4))
		for i, a := range p.Net.IPv4 {
			match := fmt.Sprintf("arp.spa == %s/%d", a.NetworkS, a.Plen)
			if resident != "" {
				match += " && " + resident
			}
			flows[i] = arpReply(p, a.AddrS, match)
		}
		return flows
	}
	type portWith struct {
		p        relations.LRP
		resident string
	}
	restricted := engine.FlatMap(engine.Join(ports, byPort, func(_ string, p relations.LRP, r portResident) portWith {
		return portWith{p, r.Resident}
	}), func(x portWith) []Flow { return replies(x.p, x.resident) })
	return engine.Union(restricted, engine.FlatMap(engine.AntiJoin(ports, byPort), func(p relations.LRP) []Flow { return replies(p, "") }))
}

func lrpUUID(p relations.LRP) string { return p.Port.UUID }

// DGPAdmissionFlows: lr_in_admission, unicast to an enabled distributed
// gateway port's MAC (northd.c build_adm_ctrl_flows_for_lrouter_port,
// consider_l3dgw_port_is_centralized): admitted only on the gateway
// chassis, unless the port's switch has VTEP ports, with the port's MTU
// check when it has a gateway_mtu.
func DGPAdmissionFlows(nb *relations.NB) engine.Rel[Flow] {
	dgps := engine.IndexBy(engine.Filter(nb.DGPs, func(d relations.DGP) bool { return d.LRP.Enabled() }),
		func(d relations.DGP) string { return d.LRP.Port.UUID })
	mtus := engine.IndexBy(nb.LRPGatewayMTUs, func(m relations.LRPGatewayMTU) string { return m.LRP.Port.UUID })
	match := func(d relations.DGP) string {
		m := fmt.Sprintf("eth.dst == %s && inport == %s", d.LRP.Net.MAC, jsonKey(d.Name()))
		if !d.VTEP {
			m += " && " + residentCR(d)
		}
		return m
	}
	type dgpMTU struct {
		d relations.DGP
		m relations.LRPGatewayMTU
	}
	withMTU := engine.FlatMap(engine.Join(dgps, mtus, func(_ string, d relations.DGP, m relations.LRPGatewayMTU) dgpMTU {
		return dgpMTU{d, m}
	}), func(x dgpMTU) []Flow { return gatewayMTUFlows(x.m, LRInAdmission, match(x.d), saveInportMAC(x.d.LRP)) })
	plain := engine.Map(engine.AntiJoin(dgps, mtus), func(d relations.DGP) Flow {
		return on(d.LRP.Router).flow(LRInAdmission, 50, match(d), saveInportMAC(d.LRP))
	})
	return engine.Union(withMTU, plain)
}
