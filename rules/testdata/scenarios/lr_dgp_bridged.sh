# A distributed gateway port with redirect-type=bridged and a gateway_mtu
# (with a bypass match): distributed NAT rules are admitted with the MTU
# check, too-big packets to their external IPs get ICMP errors, and their
# next hops are looked up on their own chassis. NAT rules with
# options:add_route make the transit switch's other router resolve their
# external IPs to the gateway port's MAC, or to the rule's external MAC.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-pub 00:00:00:00:ff:01 172.16.0.1/24 2001:db8::1/64 -- set Logical_Router_Port lr0-pub options:redirect-type=bridged options:gateway_mtu=1400 options:gateway_mtu_bypass='"tcp"'
ovn-nbctl lrp-set-gateway-chassis lr0-pub gw1 1
ovn-nbctl lrp-add lr0 lr0-in 00:00:00:00:ff:02 10.0.0.1/24 fd00::1/64
ovn-nbctl ls-add pub -- ls-add in
ovn-nbctl lsp-add pub ln -- lsp-set-type ln localnet -- lsp-set-addresses ln unknown -- lsp-set-options ln network_name=phys
ovn-nbctl lsp-add pub pub-lr0 -- lsp-set-type pub-lr0 router -- lsp-set-addresses pub-lr0 router -- lsp-set-options pub-lr0 router-port=lr0-pub
ovn-nbctl lsp-add in in-lr0 -- lsp-set-type in-lr0 router -- lsp-set-addresses in-lr0 router -- lsp-set-options in-lr0 router-port=lr0-in
ovn-nbctl lsp-add in vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11 fd00::11"
ovn-nbctl lsp-add in vm2 -- lsp-set-addresses vm2 "0a:00:00:00:00:02 10.0.0.12"
ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.100 10.0.0.11 vm1 0a:00:00:00:aa:01
ovn-nbctl lr-nat-add lr0 dnat_and_snat 2001:db8::100 fd00::11 vm1 0a:00:00:00:aa:02
ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.101 10.0.0.12 vm2 0a:00:00:00:aa:03
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.101)
ovn-nbctl set NAT $n options:add_route=true
ovn-nbctl lr-nat-add lr0 dnat 172.16.0.110 10.0.0.20
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.110)
ovn-nbctl set NAT $n options:add_route=true
ovn-nbctl lr-nat-add lr0 snat 172.16.0.120 10.0.0.0/24
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.120)
ovn-nbctl set NAT $n options:add_route=true
ovn-nbctl lr-add lr1 -- set Logical_Router lr1 options:chassis=hv1
ovn-nbctl lrp-add lr1 lr1-pub 00:00:00:00:ff:11 172.16.0.2/24
ovn-nbctl lsp-add pub pub-lr1 -- lsp-set-type pub-lr1 router -- lsp-set-addresses pub-lr1 router -- lsp-set-options pub-lr1 router-port=lr1-pub
ovn-nbctl lr-add lr2
ovn-nbctl lrp-add lr2 lr2-pub 00:00:00:00:ff:21 172.16.0.3/24
ovn-nbctl lsp-add pub pub-lr2 -- lsp-set-type pub-lr2 router -- lsp-set-addresses pub-lr2 router -- lsp-set-options pub-lr2 router-port=lr2-pub
