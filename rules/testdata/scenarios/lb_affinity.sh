# lb_affinity: options:affinity_timeout sends a client back to the backend it
# reached last: affinity check, learn and priority-150 load-balancing flows
# on a switch and on routers (IPv4 with a port, IPv6 without), with the SNAT
# flags of a skip_snat load balancer and of a router forcing SNAT.
ovn-nbctl ls-add sw0 -- lr-add lr0 -- lr-add gw0 -- set Logical_Router gw0 options:chassis=hv1 options:lb_force_snat_ip=172.16.0.1
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:8080,10.0.0.6:8080 tcp
ovn-nbctl lb-add lb6 fd00::100 fd00::5,fd00::6
ovn-nbctl set Load_Balancer lb0 options:affinity_timeout=60
ovn-nbctl set Load_Balancer lb6 options:affinity_timeout=120 options:skip_snat=true
ovn-nbctl ls-lb-add sw0 lb0 -- ls-lb-add sw0 lb6
ovn-nbctl lr-lb-add lr0 lb0 -- lr-lb-add lr0 lb6 -- lr-lb-add gw0 lb0 -- lr-lb-add gw0 lb6
