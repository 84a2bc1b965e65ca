# lss_router_localnet: router-type and localnet ports skip conntrack in
# pre-LB (ct_clear on egress, the switch having no stateful ACL); a router
# port whose router-port names no router port is not a router port; a
# switch with a load balancer VIP keeps localnet traffic in conntrack.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24
ovn-nbctl lrp-add lr0 lrp1 00:00:00:00:ff:02 10.0.1.1/24
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
ovn-nbctl lsp-add sw0 ln0 -- lsp-set-type ln0 localnet -- lsp-set-addresses ln0 unknown -- lsp-set-options ln0 network_name=phys
ovn-nbctl lsp-add sw0 dangling -- lsp-set-type dangling router -- lsp-set-options dangling router-port=nope
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 sw1-lr0 -- lsp-set-type sw1-lr0 router -- lsp-set-addresses sw1-lr0 router -- lsp-set-options sw1-lr0 router-port=lrp1
ovn-nbctl lsp-add sw1 ln1 -- lsp-set-type ln1 localnet -- lsp-set-addresses ln1 unknown -- lsp-set-options ln1 network_name=phys
ovn-nbctl lb-add lb0 10.0.1.100:80 10.0.1.5:80 tcp
ovn-nbctl ls-lb-add sw1 lb0
