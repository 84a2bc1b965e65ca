# lss_ovnk_cluster: an ovn-kubernetes-like two-node cluster: node switches
# behind ovn_cluster_router, the join switch, a gateway router per node
# (lb_force_snat_ip=router_ip) with its external switch; the cluster-wide
# load balancer group (TCP ClusterIP services, one with backends on both
# nodes, one with a single backend) on every node switch and gateway
# router; network policies as port groups: the server pods' ingress is
# allowed from the namespace's address set and from the client port
# group's $PG_ip4 set, on TCP 8080, and the default deny port group drops
# the rest (ARP allowed); a node switch ACL allows the node's management
# port.
lsp_router() { ovn-nbctl lsp-add $1 $2 -- lsp-set-type $2 router -- lsp-set-addresses $2 router -- lsp-set-options $2 router-port=$3; }
ovn-nbctl lr-add ovn_cluster_router
ovn-nbctl lrp-add ovn_cluster_router rtoj-ovn_cluster_router 0a:58:64:40:00:01 100.64.0.1/16
ovn-nbctl ls-add join
lsp_router join jtor-ovn_cluster_router rtoj-ovn_cluster_router
for n in 1 2; do
  i=$((n - 1))
  ovn-nbctl ls-add node$n -- set Logical_Switch node$n other_config:subnet=10.244.$i.0/24
  ovn-nbctl lrp-add ovn_cluster_router rtos-node$n 0a:58:0a:f4:0$i:01 10.244.$i.1/24
  lsp_router node$n stor-node$n rtos-node$n
  ovn-nbctl lsp-add node$n k8s-node$n -- lsp-set-addresses k8s-node$n "0a:58:0a:f4:0$i:02 10.244.$i.2"
  ovn-nbctl lr-add GR_node$n -- set Logical_Router GR_node$n options:chassis=chassis-node$n options:lb_force_snat_ip=router_ip options:snat-ct-zone=0 options:always_learn_from_arp_request=false options:dynamic_neigh_routers=true
  ovn-nbctl lrp-add GR_node$n rtoj-GR_node$n 0a:58:64:40:00:0$((n + 1)) 100.64.0.$((n + 1))/16
  lsp_router join jtor-GR_node$n rtoj-GR_node$n
  ovn-nbctl lrp-add GR_node$n rtoe-GR_node$n 02:42:ac:12:00:0$((n + 1)) 172.18.0.$((n + 1))/16
  ovn-nbctl ls-add ext_node$n
  lsp_router ext_node$n etor-GR_node$n rtoe-GR_node$n
  ovn-nbctl lsp-add ext_node$n breth0_node$n -- lsp-set-type breth0_node$n localnet -- lsp-set-addresses breth0_node$n unknown -- lsp-set-options breth0_node$n network_name=physnet
  ovn-nbctl lr-route-add GR_node$n 10.244.0.0/16 100.64.0.1
  ovn-nbctl lr-route-add GR_node$n 0.0.0.0/0 172.18.0.1 rtoe-GR_node$n
  ovn-nbctl lr-nat-add GR_node$n snat 172.18.0.$((n + 1)) 10.244.0.0/16
  ovn-nbctl --policy=src-ip lr-route-add ovn_cluster_router 10.244.$i.0/24 100.64.0.$((n + 1))
  ovn-nbctl acl-add node$n to-lport 1001 "ip4.src==10.244.$i.2" allow-related
done
ovn-nbctl lsp-add node1 ns1_client-a -- lsp-set-addresses ns1_client-a "0a:58:0a:f4:00:05 10.244.0.5" -- lsp-set-port-security ns1_client-a "0a:58:0a:f4:00:05 10.244.0.5"
ovn-nbctl lsp-add node1 ns2_client-b -- lsp-set-addresses ns2_client-b "0a:58:0a:f4:00:06 10.244.0.6" -- lsp-set-port-security ns2_client-b "0a:58:0a:f4:00:06 10.244.0.6"
ovn-nbctl lsp-add node2 ns1_server -- lsp-set-addresses ns1_server "0a:58:0a:f4:01:05 10.244.1.5" -- lsp-set-port-security ns1_server "0a:58:0a:f4:01:05 10.244.1.5"
ovn-nbctl lsp-add node1 ns1_server-2 -- lsp-set-addresses ns1_server-2 "0a:58:0a:f4:00:07 10.244.0.7" -- lsp-set-port-security ns1_server-2 "0a:58:0a:f4:00:07 10.244.0.7"
ovn-nbctl create Address_Set name=a10148211500778908391 addresses='"10.244.0.5", "10.244.1.5", "10.244.0.7"' external_ids:name=ns1_v4
ovn-nbctl pg-add a_ns2_clients ns2_client-b -- set Port_Group a_ns2_clients external_ids:name=ns2_clients
ovn-nbctl pg-add a_ns1_allow_web ns1_server ns1_server-2 -- set Port_Group a_ns1_allow_web external_ids:name=ns1_allow-web
ovn-nbctl pg-add a_ns1_ingressDefaultDeny ns1_server ns1_server-2 -- set Port_Group a_ns1_ingressDefaultDeny external_ids:name=ns1_ingressDefaultDeny
ovn-nbctl acl-add a_ns1_allow_web to-lport 1001 'ip4.src == {$a10148211500778908391} && tcp && tcp.dst==8080 && outport == @a_ns1_allow_web' allow-related
ovn-nbctl acl-add a_ns1_allow_web to-lport 1001 'ip4.src == $a_ns2_clients_ip4 && tcp && tcp.dst==8080 && outport == @a_ns1_allow_web' allow-related
ovn-nbctl acl-add a_ns1_ingressDefaultDeny to-lport 1000 'outport == @a_ns1_ingressDefaultDeny' drop
ovn-nbctl acl-add a_ns1_ingressDefaultDeny to-lport 1001 'outport == @a_ns1_ingressDefaultDeny && arp' allow
ovn-nbctl lb-add svc_ns1_web 10.96.0.50:80 10.244.1.5:8080,10.244.0.7:8080 tcp
ovn-nbctl set Load_Balancer svc_ns1_web options:event=false options:reject=true options:skip_snat=false "options:hairpin_snat_ip=169.254.169.5 fd69::5"
ovn-nbctl lb-add svc_ns1_api 10.96.0.60:80 10.244.1.5:8080 tcp
g=$(ovn-nbctl create Load_Balancer_Group name=clusterLBGroup)
for lb in svc_ns1_web svc_ns1_api; do ovn-nbctl add Load_Balancer_Group clusterLBGroup load_balancer $(ovn-nbctl --bare --columns=_uuid find Load_Balancer name=$lb); done
for n in 1 2; do ovn-nbctl add Logical_Switch node$n load_balancer_group $g -- add Logical_Router GR_node$n load_balancer_group $g; done
