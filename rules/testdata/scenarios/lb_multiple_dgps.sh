# releases: 26.03
# lb_multiple_dgps: a router with three distributed gateway ports
# load-balances on each: one DNAT flow per port, on that port's gateway
# chassis, and each port's unDNAT and gateway redirect of the backends'
# replies (as ovn-northd.at "Load balancer with Distributed Gateway Ports
# (DGP)"); a second router of one port shares nothing with it, a VIP
# without backends DNATs on every port's chassis too. 23.03 takes the
# first port in _uuid order, which two runs do not share.
ovn-nbctl lr-add lr1
ovn-nbctl lrp-add lr1 lr1-ts1 00:00:01:02:03:04 172.16.10.1/24 -- lrp-set-gateway-chassis lr1-ts1 chassis-1
ovn-nbctl lrp-add lr1 lr1-ts2 00:00:01:02:03:05 172.16.20.1/24 -- lrp-set-gateway-chassis lr1-ts2 chassis-2
ovn-nbctl lrp-add lr1 lr1_public 00:de:ad:ff:00:01 173.16.0.1/16 -- lrp-set-gateway-chassis lr1_public chassis-3
ovn-nbctl lrp-add lr1 lr1_s1 00:de:ad:fe:00:02 172.16.0.1/24
ovn-nbctl ls-add s1 -- lsp-add-router-port s1 s1_lr1 lr1_s1
ovn-nbctl lsp-add s1 vm1 -- lsp-set-addresses vm1 "00:de:ad:01:00:01 172.16.0.101"
ovn-nbctl lr-add lr2
ovn-nbctl lrp-add lr2 lr2-ext 00:00:01:02:04:01 172.16.30.1/24 -- lrp-set-gateway-chassis lr2-ext chassis-1
ovn-nbctl lb-add lb1 30.0.0.1 172.16.0.103,172.16.0.102,172.16.0.101
ovn-nbctl lb-add lb1 30.0.0.2:80 172.16.0.101:8080 tcp
lb=$(ovn-nbctl create Load_Balancer name=lbempty protocol=tcp vips:\"30.0.0.3:80\"=\"\")
ovn-nbctl lr-lb-add lr1 lb1 -- lr-lb-add lr1 lbempty -- lr-lb-add lr2 lb1 -- ls-lb-add s1 lb1
