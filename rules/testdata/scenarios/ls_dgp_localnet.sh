# A router with a distributed gateway port on a switch with a localnet
# port: the gateway port's MAC and its distributed NAT MACs are looked up
# only on their chassis; a second router port opts in with
# reside-on-redirect-chassis, a third does not.
ovn-nbctl ls-add public
ovn-nbctl lsp-add public ln -- lsp-set-type ln localnet -- lsp-set-addresses ln unknown -- lsp-set-options ln network_name=phys
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-public 00:00:00:00:ff:01 172.16.0.1/24
ovn-nbctl lrp-set-gateway-chassis lr0-public gw1 10
ovn-nbctl lsp-add public public-lr0 -- lsp-set-type public-lr0 router -- lsp-set-addresses public-lr0 router -- lsp-set-options public-lr0 router-port=lr0-public
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw0 ln0 -- lsp-set-type ln0 localnet -- lsp-set-addresses ln0 unknown -- lsp-set-options ln0 network_name=phys2
ovn-nbctl lrp-add lr0 lr0-sw0 00:00:00:00:ff:02 10.0.0.1/24 -- set logical_router_port lr0-sw0 options:reside-on-redirect-chassis=true
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 ln1 -- lsp-set-type ln1 localnet -- lsp-set-addresses ln1 unknown -- lsp-set-options ln1 network_name=phys3
ovn-nbctl lrp-add lr0 lr0-sw1 00:00:00:00:ff:03 10.0.1.1/24
ovn-nbctl lsp-add sw1 sw1-lr0 -- lsp-set-type sw1-lr0 router -- lsp-set-addresses sw1-lr0 router -- lsp-set-options sw1-lr0 router-port=lr0-sw1
ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.100 10.0.0.11 vm1 0a:00:00:00:aa:01
ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.101 10.0.0.12
ovn-nbctl lr-nat-add lr0 snat 172.16.0.1 10.0.0.0/24
