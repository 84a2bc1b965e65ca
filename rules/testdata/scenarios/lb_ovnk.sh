# lb_ovnk: ovn-kubernetes' service load balancers on one node: cluster-wide
# load balancer groups on the node switch and the gateway router (which sets
# lb_force_snat_ip=router_ip), a reject-on-empty ClusterIP service with
# hairpin_snat_ip, a NodePort service on the router's external IP with
# skip_snat, and a UDP DNS service with two endpoints.
ovn-nbctl lr-add ovn_cluster_router
ovn-nbctl lrp-add ovn_cluster_router rtos-node1 0a:58:0a:f4:00:01 10.244.0.1/24
ovn-nbctl lrp-add ovn_cluster_router rtoj-ovn_cluster_router 0a:58:64:40:00:01 100.64.0.1/16
ovn-nbctl ls-add node1 -- lsp-add node1 stor-node1 -- lsp-set-type stor-node1 router -- lsp-set-addresses stor-node1 router -- lsp-set-options stor-node1 router-port=rtos-node1
ovn-nbctl lsp-add node1 k8s-node1 -- lsp-set-addresses k8s-node1 "0a:58:0a:f4:00:02 10.244.0.2"
ovn-nbctl lsp-add node1 pod-a -- lsp-set-addresses pod-a "0a:58:0a:f4:00:05 10.244.0.5"
ovn-nbctl ls-add join -- lsp-add join jtor-ovn_cluster_router -- lsp-set-type jtor-ovn_cluster_router router -- lsp-set-addresses jtor-ovn_cluster_router router -- lsp-set-options jtor-ovn_cluster_router router-port=rtoj-ovn_cluster_router
ovn-nbctl lr-add GR_node1 -- set Logical_Router GR_node1 options:chassis=node1 options:lb_force_snat_ip=router_ip options:snat-ct-zone=0 options:always_learn_from_arp_request=false options:dynamic_neigh_routers=true
ovn-nbctl lrp-add GR_node1 rtoj-GR_node1 0a:58:64:40:00:02 100.64.0.2/16
ovn-nbctl lsp-add join jtor-GR_node1 -- lsp-set-type jtor-GR_node1 router -- lsp-set-addresses jtor-GR_node1 router -- lsp-set-options jtor-GR_node1 router-port=rtoj-GR_node1
ovn-nbctl lrp-add GR_node1 rtoe-GR_node1 02:42:ac:12:00:02 172.18.0.2/16
ovn-nbctl ls-add ext_node1 -- lsp-add ext_node1 etor-GR_node1 -- lsp-set-type etor-GR_node1 router -- lsp-set-addresses etor-GR_node1 router -- lsp-set-options etor-GR_node1 router-port=rtoe-GR_node1
ovn-nbctl lsp-add ext_node1 breth0_node1 -- lsp-set-type breth0_node1 localnet -- lsp-set-addresses breth0_node1 unknown -- lsp-set-options breth0_node1 network_name=physnet
ovn-nbctl lr-nat-add GR_node1 snat 172.18.0.2 10.244.0.0/16
ovn-nbctl lb-add svc_kube-dns_udp 10.96.0.10:53 10.244.0.3:53,10.244.1.3:53 udp
ovn-nbctl set Load_Balancer svc_kube-dns_udp options:event=false options:reject=true options:skip_snat=false "options:hairpin_snat_ip=169.254.169.5 fd69::5"
lb=$(ovn-nbctl create Load_Balancer name=svc_default_empty protocol=tcp options:reject=true "options:hairpin_snat_ip=169.254.169.5 fd69::5" vips:\"10.96.0.20:80\"=\"\")
ovn-nbctl lb-add svc_default_kubernetes 10.96.0.1:443 172.18.0.2:6443 tcp
ovn-nbctl lb-add svc_nodeport 172.18.0.2:30080 10.244.0.5:8080 tcp
ovn-nbctl set Load_Balancer svc_nodeport options:skip_snat=true options:reject=true
g=$(ovn-nbctl create Load_Balancer_Group name=clusterLBGroup)
for lb in svc_kube-dns_udp svc_default_empty svc_default_kubernetes; do ovn-nbctl add Load_Balancer_Group clusterLBGroup load_balancer $(ovn-nbctl --bare --columns=_uuid find Load_Balancer name=$lb); done
ovn-nbctl add Logical_Switch node1 load_balancer_group $g -- add Logical_Router GR_node1 load_balancer_group $g
ovn-nbctl lr-lb-add GR_node1 svc_nodeport
