# copp_switch: a switch's CoPP meters the controller actions of its flows
# (controller_meter): event-elb (a VIP without backends, on a load balancer
# shared with a switch without CoPP), reject (ACL and load balancer),
# dhcpv4-opts, dhcpv6-opts, dns, svc-monitor, igmp and nd-na; a protocol
# whose meter names no NB Meter is not metered.
ovn-nbctl meter-add m0 drop 10 pktps -- meter-add m1 drop 20 pktps 5
ovn-nbctl ls-add sw0 -- ls-add sw1
ovn-nbctl set Logical_Switch sw0 other_config:mcast_snoop=true other_config:mcast_querier=false
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11 fd00::11"
ovn-nbctl lsp-add sw1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.0.12 fd00::12"
d4=$(ovn-nbctl create DHCP_Options cidr=10.0.0.0/24 options:server_id=10.0.0.1 options:server_mac=00:00:00:00:00:fe options:lease_time=3600 options:router=10.0.0.1)
d6=$(ovn-nbctl create DHCP_Options cidr=\"fd00::/64\" options:server_id=00:00:00:00:00:fe)
ovn-nbctl lsp-set-dhcpv4-options vm1 $d4 -- lsp-set-dhcpv6-options vm1 $d6
ovn-nbctl lsp-set-dhcpv4-options vm2 $d4 -- lsp-set-dhcpv6-options vm2 $d6
dns=$(ovn-nbctl create DNS records:vm1.example=10.0.0.11)
ovn-nbctl add Logical_Switch sw0 dns_records $dns -- add Logical_Switch sw1 dns_records $dns
ovn-nbctl create Load_Balancer name=lbev protocol=udp options:event=true vips:\"10.0.0.30:53\"=\"\" >/dev/null
ovn-nbctl create Load_Balancer name=lbrej protocol=tcp options:reject=true vips:\"10.0.0.31:80\"=\"\" >/dev/null
ovn-nbctl ls-lb-add sw0 lbev -- ls-lb-add sw1 lbev -- ls-lb-add sw0 lbrej -- ls-lb-add sw1 lbrej
ovn-nbctl acl-add sw0 from-lport 1001 "ip4 && tcp.dst == 23" reject
ovn-nbctl lr-add lr0 -- lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24 fd00::1/64
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
for p in event-elb reject dhcpv4-opts dns svc-monitor igmp nd-na; do ovn-nbctl copp-add copp0 $p m0; done
ovn-nbctl copp-add copp0 dhcpv6-opts m1 -- copp-add copp0 arp nosuch
ovn-nbctl ls-copp-add copp0 sw0
