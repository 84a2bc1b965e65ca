# A chassis whose ovn-controller predates ct-no-masked-label and
# ovn-ct-lb-related (other_config empty), beside one that has both: the
# stateful ACL, stateful, load balancer, ECMP symmetric reply and NAT flows
# keep their bits in ct_label instead of ct_mark, load balancing uses ct_lb,
# related traffic is not NATed as its connection, and router load balancing
# does not record skip_snat/force_snat in the connection.
# A gateway_mtu port: 26.03 commits its too-large replies' ICMP errors for
# SNAT (lr_out_post_snat) only when every chassis has ct-commit-nat-v2.
# An ACL persisting established connections: 26.03 writes its ACL_ID
# into the connection only when every chassis has ct-label-flush.
ovn-sbctl chassis-add hv-old geneve 192.0.2.1
ovn-sbctl chassis-add hv-new geneve 192.0.2.2 -- set Chassis hv-new other_config:ct-no-masked-label=true other_config:ovn-ct-lb-related=true
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl acl-add sw0 to-lport 1002 "outport == \"vm1\" && ip4 && tcp.dst == 22" allow-related
ovn-nbctl acl-add sw0 from-lport 1001 "ip4.src == 10.9.0.0/16" drop
ovn-nbctl acl-add sw0 to-lport 1000 "ip4.src == 10.8.0.0/16" reject
ovn-nbctl --log --label=1234 acl-add sw0 to-lport 999 "ip4.src == 10.7.0.0/16" allow-related
ovn-nbctl set ACL $(ovn-nbctl --bare --columns=_uuid find ACL priority=999) options:log-related=true
ovn-nbctl set ACL $(ovn-nbctl --bare --columns=_uuid find ACL priority=1002) options:persist-established=true
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.1.12"
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv-new
ovn-nbctl lrp-add gw gw-ext1 00:00:00:00:e1:01 172.16.1.1/24 fd01::1/64
ovn-nbctl lrp-add gw gw-ext2 00:00:00:00:e2:01 172.16.2.1/24 fd02::1/64
ovn-nbctl lrp-add gw gw-in 00:00:00:00:e3:01 10.0.0.1/24
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 0.0.0.0/0 172.16.1.254
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 0.0.0.0/0 172.16.2.254
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw ::/0 fd01::fe
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw ::/0 fd02::fe
ovn-nbctl lr-nat-add gw snat 172.16.1.100 10.0.0.0/24
ovn-nbctl lr-nat-add gw dnat_and_snat 172.16.1.111 10.0.0.11
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.11:8080,10.0.0.12:8080 tcp
ovn-nbctl lb-add lb1 172.16.1.50 10.0.0.11
ovn-nbctl set Load_Balancer lb1 options:skip_snat=true selection_fields=ip_src,ip_dst
lb=$(ovn-nbctl create Load_Balancer name=lbrej protocol=udp options:reject=true vips:\"172.16.1.60:53\"=\"\")
ovn-nbctl ls-lb-add sw0 lb0 -- ls-lb-add sw0 lbrej -- lr-lb-add gw lb0 -- lr-lb-add gw lb1 -- lr-lb-add gw lbrej
ovn-nbctl lr-add gw2 -- set Logical_Router gw2 options:chassis=hv-x options:lb_force_snat_ip=172.16.3.1
ovn-nbctl lr-lb-add gw2 lb0 -- lr-lb-add gw2 lbrej
ovn-nbctl set Logical_Router_Port gw-ext1 options:gateway_mtu=1400
