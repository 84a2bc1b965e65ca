# A router with load balancers on a switch: ARP and ND for the VIPs in the
# router port's subnets go to the router; a NAT rule whose external IP is
# also a VIP gets no flow of its own, even where the VIP gets none.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11"
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24 fd00::1/64
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.11:8080 tcp
ovn-nbctl lb-add lb1 192.168.0.1 10.0.0.11
ovn-nbctl lb-add lb2 [fd00::100]:80 [fd00::11]:8080 tcp
ovn-nbctl lb-add lb3 10.0.0.200 10.0.0.11
ovn-nbctl lr-lb-add lr0 lb0 -- lr-lb-add lr0 lb1 -- lr-lb-add lr0 lb2
ovn-nbctl -- --id=@g create load_balancer_group name=grp load_balancer=$(ovn-nbctl get load_balancer lb3 _uuid) -- add logical_router lr0 load_balancer_group @g
ovn-nbctl lr-nat-add lr0 dnat_and_snat 10.0.0.100 10.0.0.11
ovn-nbctl lr-nat-add lr0 dnat_and_snat 10.0.0.101 10.0.0.11
ovn-nbctl lr-nat-add lr0 dnat_and_snat 192.168.0.1 10.0.0.12
