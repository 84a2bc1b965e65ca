# lb_nat_overlap: a gateway router VIP that is also a NAT external IP skips
# unSNAT (lr_in_unsnat priority 120).
ovn-nbctl lr-add gw0 -- set Logical_Router gw0 options:chassis=hv1
ovn-nbctl lrp-add gw0 gw0-ext 00:00:00:00:05:01 172.16.0.1/24
ovn-nbctl lr-nat-add gw0 dnat_and_snat 172.16.0.50 10.0.0.5
ovn-nbctl lb-add lb0 172.16.0.50:80 10.0.0.6:80 tcp
ovn-nbctl lb-add lb0 172.16.0.50 10.0.0.7
ovn-nbctl lr-lb-add gw0 lb0
