# releases: 26.03
# ls_evpn: two switches in one EVPN domain (VNI 100) behind router r0,
# which routes dynamically and redistributes its connected and static
# routes. Their unknown destinations are also looked up among the remote
# VTEPs' MACs (ls_in_l2_lkup's get_remote_fdb), found there unless the
# switch prefers its own FDB (ls2), and the remote VTEPs' traffic skips
# conntrack: before the load balancers always, before the ACLs where one
# is stateful (ls1). ls1 redistributes its IP neighbours (SB
# Advertised_MAC_Binding; 26.03.2 crashes on a VIF without an address
# there, so the port with "unknown" addresses is on ls2). ls3's VNI is out
# of range: not in the domain.
# The router learns routes from the fabric (SB Learned_Route, inserted as
# ovn-controller would): two ways to one prefix (ECMP; 26.03.2 numbers
# the members in the order it meets them, which varies: pending list),
# IPv4 and IPv6, and an IPv4 prefix via an IPv6 next hop.
ovn-nbctl lr-add r0 -- set Logical_Router r0 options:chassis=hv1 options:dynamic-routing=true \
  options:dynamic-routing-redistribute=connected,static
ovn-nbctl lrp-add r0 r0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd01::1/64
ovn-nbctl lrp-add r0 r0-ls2 00:00:00:00:01:02 10.0.2.1/24
ovn-nbctl lrp-add r0 r0-up 00:00:00:00:01:03 192.0.2.1/24 fd00:2::1/64
ovn-nbctl lr-route-add r0 10.50.0.0/16 10.0.1.50
ovn-nbctl lr-route-add r0 0.0.0.0/0 192.0.2.254
ovn-nbctl ls-add ls1 -- set Logical_Switch ls1 other_config:dynamic-routing-vni=100 \
  other_config:dynamic-routing-redistribute=fdb,ip other_config:dynamic-routing-bridge-ifname=br-100 \
  other_config:dynamic-routing-vxlan-ifname=vxlan-100,vxlan6-100 other_config:dynamic-routing-advertise-ifname=lo-100 \
  other_config:dynamic-routing-arp-prefer-local=true
ovn-nbctl lsp-add ls1 ls1-r0 -- lsp-set-type ls1-r0 router -- lsp-set-addresses ls1-r0 router -- lsp-set-options ls1-r0 router-port=r0-ls1
ovn-nbctl lsp-add ls1 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:11 10.0.1.11 fd01::11"
ovn-nbctl acl-add ls1 from-lport 1000 "ip4 && tcp.dst == 22" allow-related
ovn-nbctl ls-add ls2 -- set Logical_Switch ls2 other_config:dynamic-routing-vni=100 \
  other_config:dynamic-routing-fdb-prefer-local=true other_config:dynamic-routing-redistribute=fdb \
  other_config:dynamic-routing-bridge-ifname=br-a-name-too-long-for-linux \
  other_config:dynamic-routing-vxlan-ifname=vxlan-100,vxlan-name-too-long
ovn-nbctl lsp-add ls2 ls2-r0 -- lsp-set-type ls2-r0 router -- lsp-set-addresses ls2-r0 router -- lsp-set-options ls2-r0 router-port=r0-ls2
ovn-nbctl lsp-add ls2 vm3 -- lsp-set-addresses vm3 "00:00:00:00:00:23 10.0.2.23"
ovn-nbctl lsp-add ls2 vm2 -- lsp-set-addresses vm2 unknown
ovn-nbctl lb-add lb2 10.0.2.100:80 10.0.2.23:8080 tcp -- ls-lb-add ls2 lb2
ovn-nbctl ls-add ls3 -- set Logical_Switch ls3 other_config:dynamic-routing-vni=16777216 \
  other_config:dynamic-routing-redistribute=ip
ovn-nbctl lsp-add ls3 vm4 -- lsp-set-addresses vm4 "00:00:00:00:00:34 10.0.3.34"
ovn-nbctl --wait=sb sync
learn() {
  ovn-sbctl create Learned_Route datapath=$(ovn-sbctl --bare --columns=_uuid find Datapath_Binding external_ids:name=$1) \
    logical_port=$(ovn-sbctl --bare --columns=_uuid find Port_Binding logical_port=$2) ip_prefix=\"$3\" nexthop=\"$4\"
}
learn r0 r0-up 10.100.0.0/24 192.0.2.10
learn r0 r0-up 10.100.0.0/24 192.0.2.11
learn r0 r0-up fd00:100::/48 fd00:2::10
learn r0 r0-up 10.101.0.0/24 fd00:2::11
ovn-nbctl --wait=sb sync
