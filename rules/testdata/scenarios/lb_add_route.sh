# lb_add_route: options:add_route=true: routers sharing a switch with the
# load balancer's router route the VIP to it.
ovn-nbctl lr-add lr0 -- lr-add lr1
ovn-nbctl lrp-add lr0 lr0-j 00:00:00:00:08:01 100.64.0.1/24
ovn-nbctl lrp-add lr1 lr1-j 00:00:00:00:08:02 100.64.0.2/24
ovn-nbctl lrp-set-gateway-chassis lr0-j hv1 10
ovn-nbctl ls-add join -- lsp-add join j-lr0 -- lsp-set-type j-lr0 router -- lsp-set-addresses j-lr0 router -- lsp-set-options j-lr0 router-port=lr0-j
ovn-nbctl lsp-add join j-lr1 -- lsp-set-type j-lr1 router -- lsp-set-addresses j-lr1 router -- lsp-set-options j-lr1 router-port=lr1-j
ovn-nbctl lb-add lb0 10.10.0.100:80 10.0.0.5:80 tcp
ovn-nbctl set Load_Balancer lb0 options:add_route=true
ovn-nbctl lr-lb-add lr0 lb0
ovn-nbctl lr-add gw2 -- set Logical_Router gw2 options:chassis=hv2
ovn-nbctl lrp-add gw2 gw2-j 00:00:00:00:08:03 100.64.0.3/24
ovn-nbctl lsp-add join j-gw2 -- lsp-set-type j-gw2 router -- lsp-set-addresses j-gw2 router -- lsp-set-options j-gw2 router-port=gw2-j
ovn-nbctl lb-add lb0 10.10.0.101 10.0.0.5
ovn-nbctl lb-add lb6 [fd10::100]:80 [fd00::5]:80 tcp
ovn-nbctl set Load_Balancer lb6 options:add_route=true
ovn-nbctl lr-lb-add lr0 lb6
# A neighbour router whose port has no IPv4 address: 26.03 routes the VIPs
# from its IPv6 link-local address, 23.03 not at all.
ovn-nbctl lr-add r6 -- lrp-add r6 r6-j 00:00:00:00:08:06 fd64::6/64
ovn-nbctl lsp-add join j-r6 -- lsp-set-type j-r6 router -- lsp-set-addresses j-r6 router -- lsp-set-options j-r6 router-port=r6-j
