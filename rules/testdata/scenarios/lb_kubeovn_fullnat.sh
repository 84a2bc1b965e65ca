# lb_kubeovn_fullnat: Kube-OVN's "FullNAT LB" and "src-ip LB" walk-throughs
# on a gateway router: a client on the external switch reaches a VIP of a
# router load balancer with selection_fields=ip_src, and
# lb_force_snat_ip=router_ip makes the router SNAT the load-balanced
# connection to the IP of the port it leaves by (10.0.0.1 toward the
# backends). The backends are ports of the internal switch, whose addresses
# the router knows statically.
ovn-nbctl lr-add gw0 -- set Logical_Router gw0 options:chassis=hv1 options:lb_force_snat_ip=router_ip
ovn-nbctl lrp-add gw0 gw0-ext 00:00:00:00:02:01 172.16.0.1/24
ovn-nbctl lrp-add gw0 gw0-int 00:00:00:00:02:02 10.0.0.1/24
ovn-nbctl ls-add ext -- lsp-add ext ext-gw0 -- lsp-set-type ext-gw0 router -- lsp-set-addresses ext-gw0 router -- lsp-set-options ext-gw0 router-port=gw0-ext
ovn-nbctl ls-add int -- lsp-add int int-gw0 -- lsp-set-type int-gw0 router -- lsp-set-addresses int-gw0 router -- lsp-set-options int-gw0 router-port=gw0-int
ovn-nbctl lsp-add ext client -- lsp-set-addresses client "00:00:00:00:02:10 172.16.0.10"
ovn-nbctl lsp-add int backend1 -- lsp-set-addresses backend1 "00:00:00:00:02:05 10.0.0.5"
ovn-nbctl lsp-add int backend2 -- lsp-set-addresses backend2 "00:00:00:00:02:06 10.0.0.6"
ovn-nbctl lb-add lb0 172.16.0.100:80 10.0.0.5:8080,10.0.0.6:8080 tcp
ovn-nbctl set Load_Balancer lb0 selection_fields=ip_src
ovn-nbctl lr-lb-add gw0 lb0
