# releases: 26.03
# lb_stateless_nat: load balancers with options:use_stateless_nat on a
# router with three distributed gateway ports (as ovn-northd.at "Load
# balancer with Distributed Gateway Ports (LB + DGP + NAT Stateless)", IPv4
# and IPv6): lr_in_ct_extract picks a backend index by hash (with the
# selection fields when set) instead of lr_in_defrag's ct_dnat; on each
# port's gateway chassis lr_in_dnat rewrites the destination to that
# backend, lr_out_undnat lets the backends' replies through and
# lr_out_snat rewrites their source to the VIP. One backend needs no
# index, a VIP without backends gets no DNAT; affinity and skip_snat stay.
# A router with one gateway port and a gateway router only pick the index.
# A rejecting VIP whose health check leaves no backend to balance over (none
# has a service monitor) keeps its stateless DNAT flows, which lr1's CoPP
# meters as rejects (controller_meter, as the reject of lbempty's VIP).
ovn-nbctl lr-add lr1
ovn-nbctl lrp-add lr1 lr1-ts1 00:00:01:02:03:04 172.16.10.1/24 2001:db8:aaaa:1::1/64 -- lrp-set-gateway-chassis lr1-ts1 chassis-2
ovn-nbctl lrp-add lr1 lr1-ts2 00:00:01:02:03:05 172.16.20.1/24 2001:db8:aaaa:2::1/64 -- lrp-set-gateway-chassis lr1-ts2 chassis-3
ovn-nbctl lrp-add lr1 lr1_public 00:de:ad:ff:00:01 173.16.0.1/16 2001:db8:bbbb::1/64 -- lrp-set-gateway-chassis lr1_public chassis-1
ovn-nbctl lrp-add lr1 lr1_s1 00:de:ad:fe:00:02 172.16.0.1/24 2001:db8:aaaa:3::1/64
ovn-nbctl ls-add s1 -- lsp-add-router-port s1 s1_lr1 lr1_s1
ovn-nbctl lsp-add s1 vm1 -- lsp-set-addresses vm1 "00:de:ad:01:00:01 172.16.0.101 2001:db8:aaaa:3::101"
ovn-nbctl lsp-add s1 vm2 -- lsp-set-addresses vm2 "00:de:ad:01:00:02 172.16.0.102 2001:db8:aaaa:3::102"
ovn-nbctl ls-add public
ovn-nbctl lsp-add-router-port public public_lr1_ts1 lr1-ts1 -- lsp-set-options public_lr1_ts1 nat-addresses=router
ovn-nbctl lsp-add-router-port public public_lr1_ts2 lr1-ts2 -- lsp-set-options public_lr1_ts2 nat-addresses=router
ovn-nbctl lsp-add-router-port public public_lr1 lr1_public -- lsp-set-options public_lr1 nat-addresses=router
ovn-nbctl lr-add lr2
ovn-nbctl lrp-add lr2 lr2-ext 00:00:01:02:04:01 172.16.30.1/24 -- lrp-set-gateway-chassis lr2-ext chassis-1
ovn-nbctl lr-add gw -- set logical_router gw options:chassis=chassis-1
ovn-nbctl lrp-add gw gw-ext 00:00:01:02:05:01 172.16.40.1/24 2001:db8:dddd::1/64
ovn-nbctl lb-add lb1 30.0.0.1 172.16.0.103,172.16.0.102,172.16.0.101
ovn-nbctl lb-add lb1 30.0.0.2:80 172.16.0.101:8080,172.16.0.102:8080 tcp
ovn-nbctl lb-add lb1 30.0.0.3:80 172.16.0.101:8081 tcp
ovn-nbctl set load_balancer lb1 options:use_stateless_nat=true
ovn-nbctl lb-add lb6 2001:db8:cccc::1 2001:db8:aaaa:3::103,2001:db8:aaaa:3::102,2001:db8:aaaa:3::101
ovn-nbctl lb-add lb6 "[2001:db8:cccc::2]:53" "[2001:db8:aaaa:3::101]:5353,[2001:db8:aaaa:3::102]:5353" udp
ovn-nbctl set load_balancer lb6 options:use_stateless_nat=true selection_fields=ip_src,tp_src options:affinity_timeout=60
lbskip=$(ovn-nbctl create Load_Balancer name=lbskip protocol=udp vips:\"30.0.0.4:53\"=\"172.16.0.101:53\" options:use_stateless_nat=true options:skip_snat=true)
lbempty=$(ovn-nbctl create Load_Balancer name=lbempty protocol=tcp vips:\"30.0.0.5:80\"=\"\" options:use_stateless_nat=true options:reject=true)
lbdown=$(ovn-nbctl create Load_Balancer name=lbdown protocol=tcp vips:\"30.0.0.6:80\"=\"172.16.0.101:80,172.16.0.102:80\" vips:\"30.0.0.7:80\"=\"172.16.0.101:80\" options:use_stateless_nat=true options:reject=true)
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="30.0.0.6\:80" -- add Load_Balancer lbdown health_check @hc
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="30.0.0.7\:80" -- add Load_Balancer lbdown health_check @hc
ovn-nbctl lr-lb-add lr1 lb1 -- lr-lb-add lr1 lb6 -- lr-lb-add lr1 lbskip -- lr-lb-add lr1 lbempty -- lr-lb-add lr1 lbdown
ovn-nbctl meter-add mrej drop 10 pktps -- copp-add copp1 reject mrej -- lr-copp-add copp1 lr1
ovn-nbctl lr-lb-add lr2 lb1 -- lr-lb-add gw lb6 -- ls-lb-add s1 lb1 -- ls-lb-add s1 lb6
