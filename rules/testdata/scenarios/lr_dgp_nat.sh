# A distributed router with a distributed gateway port (gateway_chassis)
# on an external switch with a localnet port: centralized snat, dnat and
# dnat_and_snat rules, distributed dnat_and_snat rules (logical_port and
# external_mac, one stateless, one on a virtual port), IPv6 rules, two
# rules sharing an external IP, and stateless rules with allowed and
# exempted external IPs; a second router port resides on the redirect
# chassis.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-pub 00:00:00:00:ff:01 172.16.0.1/24 2001:db8::1/64
ovn-nbctl lrp-set-gateway-chassis lr0-pub gw1 20
ovn-nbctl lrp-set-gateway-chassis lr0-pub gw2 10
ovn-nbctl lrp-add lr0 lr0-sw0 00:00:00:00:ff:02 10.0.0.1/24 fd00::1/64 -- set Logical_Router_Port lr0-sw0 options:reside-on-redirect-chassis=true
ovn-nbctl lrp-add lr0 lr0-sw1 00:00:00:00:ff:03 10.0.1.1/24
ovn-nbctl ls-add pub -- ls-add sw0 -- ls-add sw1
ovn-nbctl lsp-add pub ln -- lsp-set-type ln localnet -- lsp-set-addresses ln unknown -- lsp-set-options ln network_name=phys
ovn-nbctl lsp-add pub pub-lr0 -- lsp-set-type pub-lr0 router -- lsp-set-addresses pub-lr0 router -- lsp-set-options pub-lr0 router-port=lr0-pub
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0
ovn-nbctl lsp-add sw0 ln0 -- lsp-set-type ln0 localnet -- lsp-set-addresses ln0 unknown -- lsp-set-options ln0 network_name=phys0
ovn-nbctl lsp-add sw1 sw1-lr0 -- lsp-set-type sw1-lr0 router -- lsp-set-addresses sw1-lr0 router -- lsp-set-options sw1-lr0 router-port=lr0-sw1
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11 fd00::11"
ovn-nbctl lsp-add sw0 vm2 -- lsp-set-addresses vm2 "0a:00:00:00:00:02 10.0.0.12"
ovn-nbctl lsp-add sw0 vip -- lsp-set-type vip virtual -- lsp-set-options vip virtual-ip=10.0.0.50 virtual-parents=vm1,vm2
ovn-nbctl lr-nat-add lr0 snat 172.16.0.1 10.0.0.0/24
ovn-nbctl lr-nat-add lr0 snat 172.16.0.200 10.0.1.0/24
ovn-nbctl lr-nat-add lr0 dnat 172.16.0.110 10.0.0.20
ovn-nbctl --portrange lr-nat-add lr0 dnat_and_snat 172.16.0.111 10.0.0.21 2000-3000
ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.100 10.0.0.11 vm1 0a:00:00:00:aa:01
ovn-nbctl --stateless lr-nat-add lr0 dnat_and_snat 172.16.0.101 10.0.0.12 vm2 0a:00:00:00:aa:02
ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.150 10.0.0.50 vip 0a:00:00:00:aa:50
ovn-nbctl lr-nat-add lr0 snat 2001:db8::100 fd00::/64
ovn-nbctl lr-nat-add lr0 dnat_and_snat 2001:db8::111 fd00::11 vm1 0a:00:00:00:aa:03
ovn-nbctl lr-nat-add lr0 dnat_and_snat 2001:db8::112 fd00::12
ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.200 10.0.1.5
ovn-nbctl create Address_Set name=allowed addresses='"1.1.1.1"'
ovn-nbctl create Address_Set name=exempt addresses='"3.3.3.3"'
ovn-nbctl --stateless lr-nat-add lr0 dnat_and_snat 172.16.0.120 10.0.0.30
ovn-nbctl --stateless lr-nat-add lr0 dnat_and_snat 172.16.0.121 10.0.0.31
ovn-nbctl --stateless lr-nat-add lr0 dnat_and_snat 172.16.0.122 10.0.0.32
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.120)
ovn-nbctl set NAT $n allowed_ext_ips=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=allowed)
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.122)
ovn-nbctl set NAT $n allowed_ext_ips=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=allowed)
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.121)
ovn-nbctl set NAT $n exempted_ext_ips=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=exempt)
