# copp_router: a router's CoPP meters its controller actions
# (controller_meter): arp and nd-na/nd-ns (neighbour learning), arp-resolve
# and nd-ns-resolve, nd-na (its ND answers), nd-ra-opts, icmp4-error,
# icmp6-error and tcp-reset (a router without gateway answers UDP and TCP to
# its own addresses; gateway_mtu), reject and event-elb (load balancers
# shared with a router without CoPP).
ovn-nbctl meter-add m0 drop 10 pktps -- meter-add m1 drop 20 pktps 5
ovn-nbctl lr-add lr0 -- lr-add lr1
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24 fd00::1/64
ovn-nbctl lrp-add lr0 lrp1 00:00:00:00:ff:02 10.0.1.1/24 fd00:1::1/64
ovn-nbctl set Logical_Router_Port lrp0 ipv6_ra_configs:address_mode=slaac options:gateway_mtu=1400
ovn-nbctl lrp-add lr1 lrp2 00:00:00:00:ff:03 10.0.2.1/24 fd00:2::1/64
ovn-nbctl set Logical_Router_Port lrp2 ipv6_ra_configs:address_mode=slaac
ovn-nbctl lr-route-add lr0 192.168.0.0/16 10.0.1.2 -- lr-route-add lr0 fd00:9::/64 fd00:1::2
ovn-nbctl create Load_Balancer name=lbev protocol=udp options:event=true vips:\"10.0.0.30:53\"=\"\" >/dev/null
ovn-nbctl create Load_Balancer name=lbrej protocol=tcp options:reject=true vips:\"10.0.0.31:80\"=\"\" >/dev/null
ovn-nbctl lr-lb-add lr0 lbev -- lr-lb-add lr1 lbev -- lr-lb-add lr0 lbrej -- lr-lb-add lr1 lbrej
for p in arp arp-resolve nd-na nd-ns nd-ns-resolve nd-ra-opts icmp4-error icmp6-error tcp-reset reject; do ovn-nbctl copp-add copp1 $p m1; done
ovn-nbctl copp-add copp1 event-elb m0 -- copp-add copp1 bfd nosuch
ovn-nbctl lr-copp-add copp1 lr0
