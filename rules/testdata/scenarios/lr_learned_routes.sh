# releases: 26.03
# lr_learned_routes: routes ovn-controller learnt through dynamic routing
# (SB Learned_Route rows, inserted here as it would) routed by the router
# that learnt them: in the main route table at 26.03's learnt priority,
# below a static route of the same prefix, through the port they were
# learnt on, from its address on the next hop's network (or its first one),
# or from no address on an unnumbered port (r0-un, which has none of the
# next hop's family: an IPv6 next hop leaves from its link-local address).
# A next hop may carry an all-ones mask; one with another mask routes
# nothing. A route on a router without dynamic routing and one on a
# distributed gateway port whose chassisredirect port no chassis binds are
# deleted by 26.03.2's full run, not by its incremental processing of new
# Learned_Route rows, which routes them until a recompute: the NB_Global
# option set last makes it recompute.
ovn-nbctl lr-add r0 -- set Logical_Router r0 options:chassis=hv1 options:dynamic-routing=true
ovn-nbctl lrp-add r0 r0-up 00:00:00:00:01:01 192.0.2.1/24 fd00:2::1/64
ovn-nbctl lrp-add r0 r0-up2 00:00:00:00:01:02 198.51.100.1/24 203.0.113.1/24
ovn-nbctl lrp-add r0 r0-in 00:00:00:00:01:03 10.0.0.1/24
ovn-nbctl lrp-add r0 r0-un 00:00:00:00:01:04
ovn-nbctl lr-route-add r0 10.200.0.0/16 192.0.2.20
ovn-nbctl lr-add r1 -- lrp-add r1 r1-up 00:00:00:00:02:01 192.0.2.2/24
ovn-nbctl lr-add r2 -- set Logical_Router r2 options:dynamic-routing=true
ovn-nbctl lrp-add r2 r2-gw 00:00:00:00:03:01 172.16.0.1/24 -- lrp-set-gateway-chassis r2-gw hv1
ovn-nbctl --wait=sb sync
learn() {
  ovn-sbctl create Learned_Route datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=$1) \
    logical_port=$(ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=$2) ip_prefix=\"$3\" nexthop=\"$4\"
}
learn r0 r0-up 10.100.0.0/24 192.0.2.10
learn r0 r0-up 10.101.0.5/24 192.0.2.11/32
learn r0 r0-up 10.200.0.0/16 192.0.2.12
learn r0 r0-up fd00:100::/48 fd00:2::10
learn r0 r0-up2 10.102.0.0/24 203.0.113.9
learn r0 r0-up2 10.103.0.0/24 192.0.2.99
learn r0 r0-up 10.104.0.0/24 192.0.2.13/24
learn r0 r0-un 42.42.42.42/32 192.168.2.42
learn r0 r0-un fd00:42::/64 fd00:99::1
learn r1 r1-up 10.105.0.0/24 192.0.2.14
learn r2 r2-gw 10.106.0.0/24 172.16.0.9
ovn-nbctl --wait=sb sync
ovn-nbctl --wait=sb set NB_Global . options:ignore_lsp_down=false
