# lb_vip_port: TCP load balancer VIPs with and without a port on a switch
# and on a router: pre-stateful (original destination registers), ls_in_lb
# priorities 120 and 110, router defrag and DNAT, and the router's
# related/established defaults.
ovn-nbctl ls-add sw0 -- lr-add lr0
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:8080,10.0.0.6:8080 tcp
ovn-nbctl lb-add lb0 10.0.0.101 10.0.0.5,10.0.0.7
ovn-nbctl ls-lb-add sw0 lb0 -- lr-lb-add lr0 lb0
