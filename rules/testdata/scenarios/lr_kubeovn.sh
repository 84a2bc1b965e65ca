# Kube-OVN-like cluster: the ovn-cluster router with the join switch
# (node ports), two dual-stack pod subnets, default and src-ip static
# routes through the nodes, reroute policies to node IPs, an external
# switch with a localnet port behind a distributed gateway port, a SNAT
# for one subnet and dnat_and_snat EIPs (one distributed on its pod's
# chassis, one centralized).
lsp_router() { ovn-nbctl lsp-add $1 $2 -- lsp-set-type $2 router -- lsp-set-addresses $2 router -- lsp-set-options $2 router-port=$3; }
ovn-nbctl lr-add ovn-cluster
ovn-nbctl ls-add join
ovn-nbctl lrp-add ovn-cluster ovn-cluster-join 0a:58:64:40:00:01 100.64.0.1/16 fd00:100:64::1/112
lsp_router join join-ovn-cluster ovn-cluster-join
ovn-nbctl lsp-add join node-kube-ovn-worker -- lsp-set-addresses node-kube-ovn-worker "0a:58:64:40:00:02 100.64.0.2 fd00:100:64::2"
ovn-nbctl lsp-add join node-kube-ovn-control-plane -- lsp-set-addresses node-kube-ovn-control-plane "0a:58:64:40:00:03 100.64.0.3 fd00:100:64::3"
ovn-nbctl ls-add ovn-default
ovn-nbctl lrp-add ovn-cluster ovn-cluster-ovn-default 0a:58:0a:10:00:01 10.16.0.1/16 fd00:10:16::1/112
lsp_router ovn-default ovn-default-ovn-cluster ovn-cluster-ovn-default
ovn-nbctl ls-add subnet2
ovn-nbctl lrp-add ovn-cluster ovn-cluster-subnet2 0a:58:0a:11:00:01 10.17.0.1/16 fd00:10:17::1/112
lsp_router subnet2 subnet2-ovn-cluster ovn-cluster-subnet2
ovn-nbctl lsp-add ovn-default coredns.kube-system -- lsp-set-addresses coredns.kube-system "0a:58:0a:10:00:05 10.16.0.5 fd00:10:16::5" -- lsp-set-port-security coredns.kube-system "0a:58:0a:10:00:05 10.16.0.5 fd00:10:16::5"
ovn-nbctl lsp-add ovn-default nginx.default -- lsp-set-addresses nginx.default "0a:58:0a:10:00:06 10.16.0.6 fd00:10:16::6"
ovn-nbctl lsp-add subnet2 app.ns2 -- lsp-set-addresses app.ns2 "0a:58:0a:11:00:07 10.17.0.7 fd00:10:17::7"
ovn-nbctl create Address_Set name=ovn.default.kube.ovn.worker_ip4 addresses='"10.16.0.5", "10.16.0.6"'
ovn-nbctl create Address_Set name=ovn.default.kube.ovn.worker_ip6 addresses='"fd00:10:16::5", "fd00:10:16::6"'
ovn-nbctl lr-route-add ovn-cluster 0.0.0.0/0 100.64.0.1
ovn-nbctl lr-route-add ovn-cluster ::/0 fd00:100:64::1
ovn-nbctl --policy=src-ip lr-route-add ovn-cluster 10.17.0.0/16 100.64.0.2
ovn-nbctl --policy=src-ip --ecmp lr-route-add ovn-cluster 10.17.0.0/16 100.64.0.3
ovn-nbctl --policy=src-ip lr-route-add ovn-cluster fd00:10:17::/112 fd00:100:64::2
ovn-nbctl lr-policy-add ovn-cluster 31000 ip4.dst==10.16.0.0/16 allow
ovn-nbctl lr-policy-add ovn-cluster 31000 ip4.dst==10.17.0.0/16 allow
ovn-nbctl lr-policy-add ovn-cluster 31000 ip4.dst==100.64.0.0/16 allow
ovn-nbctl lr-policy-add ovn-cluster 31000 ip6.dst==fd00:10:16::/112 allow
ovn-nbctl lr-policy-add ovn-cluster 30000 ip4.dst==100.64.0.2 reroute 100.64.0.2
ovn-nbctl lr-policy-add ovn-cluster 30000 ip4.dst==100.64.0.3 reroute 100.64.0.3
ovn-nbctl lr-policy-add ovn-cluster 29000 'ip4.src == $ovn.default.kube.ovn.worker_ip4' reroute 100.64.0.2
ovn-nbctl lr-policy-add ovn-cluster 29000 'ip6.src == $ovn.default.kube.ovn.worker_ip6' reroute fd00:100:64::2
ovn-nbctl ls-add ovn-external
ovn-nbctl lsp-add ovn-external localnet.ovn-external -- lsp-set-type localnet.ovn-external localnet -- lsp-set-addresses localnet.ovn-external unknown -- lsp-set-options localnet.ovn-external network_name=external
ovn-nbctl lrp-add ovn-cluster ovn-cluster-ovn-external 0a:58:ac:12:00:01 172.18.0.1/16
ovn-nbctl lrp-set-gateway-chassis ovn-cluster-ovn-external kube-ovn-worker 100
ovn-nbctl lrp-set-gateway-chassis ovn-cluster-ovn-external kube-ovn-control-plane 90
lsp_router ovn-external ovn-external-ovn-cluster ovn-cluster-ovn-external
ovn-nbctl --policy=src-ip lr-route-add ovn-cluster 10.16.0.6/32 172.18.0.254
ovn-nbctl lr-nat-add ovn-cluster snat 172.18.0.10 10.17.0.0/16
ovn-nbctl lr-nat-add ovn-cluster dnat_and_snat 172.18.0.20 10.16.0.5 coredns.kube-system 0a:58:ac:12:00:20
ovn-nbctl lr-nat-add ovn-cluster dnat_and_snat 172.18.0.21 10.16.0.6
