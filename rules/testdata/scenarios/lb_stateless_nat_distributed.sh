# releases: 26.03
# lb_stateless_nat_distributed: a distributed load balancer with
# options:use_stateless_nat on a router with two distributed gateway ports
# (as random-security/seed27): the stateless DNAT flows stay on each port's
# gateway chassis, and so do lr_out_undnat and lr_out_snat for the
# backends' replies (build_lrouter_flows_for_lb_stateless matches
# is_chassis_resident whether or not the load balancer is distributed),
# where a distributed load balancer without stateless NAT (lb4) unDNATs on
# any chassis.
ovn-nbctl lr-add lr1
ovn-nbctl lrp-add lr1 lr1-a 00:00:01:02:03:04 172.16.10.1/24 2001:db8:aaaa:1::1/64 -- lrp-set-gateway-chassis lr1-a gw1 10
ovn-nbctl lrp-add lr1 lr1-b 00:00:01:02:03:05 172.16.20.1/24 -- lrp-set-gateway-chassis lr1-b gw1 20
ovn-nbctl lrp-add lr1 lr1-s1 00:de:ad:fe:00:02 172.16.0.1/24 2001:db8:aaaa:3::1/64
ovn-nbctl ls-add s1 -- lsp-add-router-port s1 s1-lr1 lr1-s1
ovn-nbctl lsp-add s1 vm1 -- lsp-set-addresses vm1 "00:de:ad:01:00:01 172.16.0.101 2001:db8:aaaa:3::101"
ovn-nbctl lsp-add s1 vm2 -- lsp-set-addresses vm2 "00:de:ad:01:00:02 172.16.0.102 2001:db8:aaaa:3::102"
ovn-nbctl lb-add lb1 30.0.0.1:80 172.16.0.101:8080,172.16.0.102:8080 tcp
ovn-nbctl set Load_Balancer lb1 options:use_stateless_nat=true ip_port_mappings:172.16.0.101=vm1 ip_port_mappings:172.16.0.102=vm2:172.16.0.254
ovn-nbctl lb-add lb6 "[2001:db8:cccc::1]:80" "[2001:db8:aaaa:3::101]:8080" tcp
ovn-nbctl set Load_Balancer lb6 options:use_stateless_nat=true ip_port_mappings:\"[2001:db8:aaaa:3::101]\"=\"vm1\"
ovn-nbctl lb-add lb4 30.0.0.4:80 172.16.0.101:8080 tcp
ovn-nbctl set Load_Balancer lb4 ip_port_mappings:172.16.0.101=vm1
ovn-nbctl lr-lb-add lr1 lb1 -- lr-lb-add lr1 lb6 -- lr-lb-add lr1 lb4 -- ls-lb-add s1 lb1
# Made distributed last, as lb_distributed does.
for lb in lb1 lb6 lb4; do ovn-nbctl set Load_Balancer $lb options:distributed=true; done
