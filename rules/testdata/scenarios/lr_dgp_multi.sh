# A router with two distributed gateway ports, one with an HA chassis
# group and one with gateway chassis: NAT rules pick their port by
# gateway_port or by the port whose networks hold the external IP, and a
# rule that no port claims is skipped. The gateway port on a VTEP switch
# stays distributed. A second router has a port with both gateway chassis
# and an HA chassis group.
ovn-nbctl ha-chassis-group-add hag -- ha-chassis-group-add-chassis hag hv1 30 -- ha-chassis-group-add-chassis hag hv2 20
g=$(ovn-nbctl --bare --columns=_uuid find HA_Chassis_Group name=hag)
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-a 00:00:00:00:aa:01 172.16.1.1/24 2001:db8:1::1/64 -- set Logical_Router_Port lr0-a ha_chassis_group=$g
ovn-nbctl lrp-add lr0 lr0-b 00:00:00:00:aa:02 172.16.2.1/24 -- lrp-set-gateway-chassis lr0-b hv3 5
ovn-nbctl lrp-add lr0 lr0-in 00:00:00:00:aa:03 10.0.0.1/24 fd00::1/64
ovn-nbctl ls-add ext-a -- ls-add ext-b -- ls-add in
ovn-nbctl lsp-add ext-a ext-a-lr0 -- lsp-set-type ext-a-lr0 router -- lsp-set-addresses ext-a-lr0 router -- lsp-set-options ext-a-lr0 router-port=lr0-a
ovn-nbctl lsp-add ext-a ln-a -- lsp-set-type ln-a localnet -- lsp-set-addresses ln-a unknown -- lsp-set-options ln-a network_name=phys
ovn-nbctl lsp-add ext-b ext-b-lr0 -- lsp-set-type ext-b-lr0 router -- lsp-set-addresses ext-b-lr0 router -- lsp-set-options ext-b-lr0 router-port=lr0-b
ovn-nbctl lsp-add ext-b vtep0 -- lsp-set-type vtep0 vtep -- lsp-set-options vtep0 vtep-physical-switch=ps0 vtep-logical-switch=ls0
ovn-nbctl lsp-add in in-lr0 -- lsp-set-type in-lr0 router -- lsp-set-addresses in-lr0 router -- lsp-set-options in-lr0 router-port=lr0-in
ovn-nbctl lsp-add in vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11"
ovn-nbctl lr-nat-add lr0 snat 172.16.1.100 10.0.0.0/24
ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.2.100 10.0.0.11 vm1 0a:00:00:00:bb:01
ovn-nbctl lr-nat-add lr0 dnat_and_snat 2001:db8:1::100 fd00::11
ovn-nbctl -- --id=@n create NAT type=dnat external_ip=172.16.9.9 logical_ip=10.0.0.99 -- add Logical_Router lr0 nat @n
ovn-nbctl --gateway-port=lr0-b lr-nat-add lr0 dnat_and_snat 172.16.1.200 10.0.0.20
ovn-nbctl --gateway-port=lr0-a lr-nat-add lr0 snat 172.16.1.1 10.0.0.128/25
ovn-nbctl lr-add lr1
ovn-nbctl lrp-add lr1 lr1-p 00:00:00:00:cc:01 172.17.0.1/24 -- set Logical_Router_Port lr1-p ha_chassis_group=$g -- lrp-set-gateway-chassis lr1-p hv9 1
ovn-nbctl lr-nat-add lr1 snat 172.17.0.1 10.1.0.0/16
