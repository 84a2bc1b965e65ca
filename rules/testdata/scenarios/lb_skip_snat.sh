# lb_skip_snat: options:skip_snat on a router's load balancer flags its
# connections (ct_lb_mark skip_snat) and skips SNAT for them, on a plain
# router and on a gateway router that forces SNAT for load balancers.
ovn-nbctl lr-add lr0 -- lr-add gw0 -- set Logical_Router gw0 options:chassis=hv1 options:lb_force_snat_ip=172.16.0.1
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80 tcp
ovn-nbctl lb-add lb1 10.0.0.101:80 10.0.0.6:80 tcp
ovn-nbctl set Load_Balancer lb0 options:skip_snat=true
ovn-nbctl lr-lb-add lr0 lb0 -- lr-lb-add gw0 lb0 -- lr-lb-add gw0 lb1
