# lb_fullnat: Kube-OVN's FullNAT load balancer: a gateway router with
# options:lb_force_snat_ip=router_ip SNATs load-balanced traffic to the IP
# of the port it leaves (for each connected port), with selection_fields
# ip_src; the router answers ARP for the VIP in its subnet on every port.
ovn-nbctl lr-add gw0 -- set Logical_Router gw0 options:chassis=hv1 options:lb_force_snat_ip=router_ip
ovn-nbctl lrp-add gw0 gw0-ext 00:00:00:00:01:01 172.16.0.1/24 fd10::1/64
ovn-nbctl lrp-add gw0 gw0-int 00:00:00:00:01:02 10.0.0.1/24
ovn-nbctl lrp-add gw0 gw0-lone 00:00:00:00:01:03 10.0.9.1/24
ovn-nbctl ls-add ext -- lsp-add ext ext-gw0 -- lsp-set-type ext-gw0 router -- lsp-set-addresses ext-gw0 router -- lsp-set-options ext-gw0 router-port=gw0-ext
ovn-nbctl ls-add int -- lsp-add int int-gw0 -- lsp-set-type int-gw0 router -- lsp-set-addresses int-gw0 router -- lsp-set-options int-gw0 router-port=gw0-int
ovn-nbctl lsp-add int vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:05 10.0.0.5"
ovn-nbctl lb-add lb0 172.16.0.100:80 10.0.0.5:8080,10.0.0.6:8080 tcp
ovn-nbctl set Load_Balancer lb0 selection_fields=ip_src
ovn-nbctl lr-lb-add gw0 lb0 -- ls-lb-add int lb0
