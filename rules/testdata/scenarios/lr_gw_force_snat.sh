# Force SNAT options: a gateway router with dnat_force_snat_ip (both
# families) and lb_force_snat_ip addresses, a gateway router with
# lb_force_snat_ip=router_ip whose port addresses are then not dropped, a
# distributed router with dnat_force_snat_ip set to one of its port
# addresses (kept for unSNAT, no force flows), and routers with
# unreadable options (words, not addresses: northd 23.03 frees a partly
# read option and crashes on two addresses of a family or a network).
ovn-nbctl lr-add gw1 -- set Logical_Router gw1 options:chassis=hv1 options:dnat_force_snat_ip="172.16.0.250 2001:db8::250" options:lb_force_snat_ip=172.16.0.251
ovn-nbctl lrp-add gw1 gw1-ext 00:00:00:00:ee:01 172.16.0.1/24 2001:db8::1/64
ovn-nbctl lrp-add gw1 gw1-int 00:00:00:00:ee:02 10.0.0.1/24
ovn-nbctl lr-nat-add gw1 dnat 172.16.0.110 10.0.0.12
ovn-nbctl lr-add gw2 -- set Logical_Router gw2 options:chassis=hv2 options:lb_force_snat_ip=router_ip
ovn-nbctl lrp-add gw2 gw2-ext 00:00:00:00:ee:11 172.16.1.1/24 2001:db8:1::1/64
ovn-nbctl lrp-add gw2 gw2-int 00:00:00:00:ee:12 10.0.1.1/24
ovn-nbctl lrp-add gw2 gw2-alone 00:00:00:00:ee:13 10.0.2.1/24
ovn-nbctl ls-add ext2 -- lsp-add ext2 ext2-gw2 -- lsp-set-type ext2-gw2 router -- lsp-set-addresses ext2-gw2 router -- lsp-set-options ext2-gw2 router-port=gw2-ext
ovn-nbctl ls-add int2 -- lsp-add int2 int2-gw2 -- lsp-set-type int2-gw2 router -- lsp-set-addresses int2-gw2 router -- lsp-set-options int2-gw2 router-port=gw2-int
ovn-nbctl lr-nat-add gw2 snat 172.16.1.100 10.0.1.0/24
ovn-nbctl lr-add dr -- set Logical_Router dr options:dnat_force_snat_ip=10.0.3.1
ovn-nbctl lrp-add dr dr-pub 00:00:00:00:ee:21 172.16.3.1/24 -- lrp-set-gateway-chassis dr-pub gw1 1
ovn-nbctl lrp-add dr dr-int 00:00:00:00:ee:22 10.0.3.1/24
ovn-nbctl lr-add bad1 -- set Logical_Router bad1 options:chassis=hv3 options:dnat_force_snat_ip=foo options:lb_force_snat_ip=bar
ovn-nbctl lrp-add bad1 bad1-p 00:00:00:00:ee:31 10.1.0.1/24
ovn-nbctl lr-add bad2 -- set Logical_Router bad2 options:lb_force_snat_ip=router_ip
ovn-nbctl lrp-add bad2 bad2-p 00:00:00:00:ee:41 10.2.0.1/24
