# lb_force_snat_ip: a gateway router with options:lb_force_snat_ip set to an
# IPv4 and an IPv6 address SNATs load-balanced traffic to them; the same
# option on a router that is not a gateway router only marks its VIP flows;
# router_ip on a router that is not a gateway router is a bad address.
ovn-nbctl lr-add gw0 -- set Logical_Router gw0 options:chassis=hv1 "options:lb_force_snat_ip=172.16.0.1 fd10::1"
ovn-nbctl lr-add lr0 -- set Logical_Router lr0 options:lb_force_snat_ip=172.16.0.2
ovn-nbctl lr-add lr1 -- set Logical_Router lr1 options:lb_force_snat_ip=router_ip
ovn-nbctl lrp-add lr1 lr1-p 00:00:00:00:02:01 10.1.0.1/24
ovn-nbctl ls-add sw1 -- lsp-add sw1 sw1-lr1 -- lsp-set-type sw1-lr1 router -- lsp-set-options sw1-lr1 router-port=lr1-p
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80 tcp
ovn-nbctl lb-add lb6 [fd00::100]:80 [fd00::5]:80 tcp
ovn-nbctl lr-lb-add gw0 lb0 -- lr-lb-add gw0 lb6 -- lr-lb-add lr0 lb0 -- lr-lb-add lr1 lb0
