# releases: 26.03
# garp_exclude_router_ips: a router-type switch port's
# options:exclude-router-ips-from-garp leaves its router port's MAC and
# addresses out of its binding's nat_addresses, which keeps the NAT
# addresses (ovn-northd.at "check exclude-router-ips-from-garp option");
# the other switch's port, without the option, lists them.
ovn-nbctl lr-add R1
ovn-nbctl lrp-add R1 R1-S1 02:ac:10:01:00:01 172.16.1.1/24 -- lrp-set-gateway-chassis R1-S1 gw1
ovn-nbctl lrp-add R1 R1-S2 02:ac:10:02:00:01 172.16.2.1/24 -- set Logical_Router_Port R1-S2 options:reside-on-redirect-chassis=true
ovn-nbctl ls-add S1 -- lsp-add-router-port S1 S1-R1 R1-S1
ovn-nbctl lsp-set-options S1-R1 router-port=R1-S1 nat-addresses=router exclude-router-ips-from-garp=true
ovn-nbctl ls-add S2 -- lsp-add-router-port S2 S2-R1 R1-S2
ovn-nbctl lsp-set-options S2-R1 router-port=R1-S2 exclude-router-ips-from-garp=false
ovn-nbctl lr-nat-add R1 snat 172.16.1.4 10.0.0.0/24 -- lr-nat-add R1 dnat 172.16.1.2 10.0.0.1
