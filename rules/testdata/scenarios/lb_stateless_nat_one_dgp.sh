# lb_stateless_nat_one_dgp: options:use_stateless_nat on routers with one
# distributed gateway port or none. 26.03 picks a backend index by hash in
# lr_in_ct_extract instead of sending the VIP's traffic through
# lr_in_defrag's ct_dnat, and DNATs through conntrack as usual; 23.03
# does not read the option.
ovn-nbctl lr-add lr1
ovn-nbctl lrp-add lr1 lr1-ext 00:00:01:02:04:01 172.16.30.1/24 -- lrp-set-gateway-chassis lr1-ext chassis-1
ovn-nbctl lrp-add lr1 lr1-int 00:00:01:02:04:02 172.16.0.1/24
ovn-nbctl lr-add gw -- set logical_router gw options:chassis=chassis-1
ovn-nbctl lrp-add gw gw-ext 00:00:01:02:05:01 172.16.40.1/24
ovn-nbctl lb-add lb1 30.0.0.1 172.16.0.103,172.16.0.102
ovn-nbctl lb-add lb1 30.0.0.2:80 172.16.0.101:8080 tcp
ovn-nbctl set load_balancer lb1 options:use_stateless_nat=true selection_fields=ip_dst
ovn-nbctl lr-lb-add lr1 lb1 -- lr-lb-add gw lb1
