# releases: 26.03
# ls_router_port_acl: Logical_Switch_Port options:enable_router_port_acl on
# switch ports of type router. The peer of a distributed gateway port with
# it no longer skips the ACLs' conntrack (ls_in_pre_acl and ls_out_pre_acl
# 110 go; pre-LB's stay) and its Port_Binding gets
# options:enable_router_port_acl=true. S1-R1 peers a distributed gateway
# port with the option; S1-R2 a plain router port with it (no effect);
# S1-R3 a gateway port with the option false; S2-R4 a gateway port with it
# on a switch without stateful ACLs.
ovn-sbctl chassis-add gw1 geneve 127.0.0.1
ovn-nbctl lr-add R1 -- lrp-add R1 R1-S1 02:ac:10:01:00:01 172.16.1.1/24 -- lrp-set-gateway-chassis R1-S1 gw1
ovn-nbctl lr-add R2 -- lrp-add R2 R2-S1 02:ac:10:01:00:02 172.16.1.2/24
ovn-nbctl lr-add R3 -- lrp-add R3 R3-S1 02:ac:10:01:00:03 172.16.1.3/24 -- lrp-set-gateway-chassis R3-S1 gw1
ovn-nbctl lr-add R4 -- lrp-add R4 R4-S2 02:ac:10:02:00:04 172.16.2.4/24 -- lrp-set-gateway-chassis R4-S2 gw1
ovn-nbctl ls-add S1 -- ls-add S2
ovn-nbctl lsp-add-router-port S1 S1-R1 R1-S1 -- lsp-set-options S1-R1 router-port=R1-S1 enable_router_port_acl=true
ovn-nbctl lsp-add-router-port S1 S1-R2 R2-S1 -- lsp-set-options S1-R2 router-port=R2-S1 enable_router_port_acl=true
ovn-nbctl lsp-add-router-port S1 S1-R3 R3-S1 -- lsp-set-options S1-R3 router-port=R3-S1 enable_router_port_acl=false
ovn-nbctl lsp-add-router-port S2 S2-R4 R4-S2 -- lsp-set-options S2-R4 router-port=R4-S2 enable_router_port_acl=true
ovn-nbctl lsp-add S1 S1-VIF -- lsp-set-addresses S1-VIF "02:ac:10:01:00:0b 172.16.1.11"
ovn-nbctl pg-add pg_dgw S1-R1 S1-VIF
ovn-nbctl acl-add pg_dgw from-lport 1002 "inport == @pg_dgw && ip4" allow-related
ovn-nbctl acl-add pg_dgw to-lport 1003 "outport == @pg_dgw && ip4" allow-related
