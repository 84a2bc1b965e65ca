# lb_dgp: a router with a distributed gateway port load-balances on the
# gateway chassis (is_chassis_resident) and unDNATs replies from the backends
# leaving through that port; VIPs without backends and a skip_snat load
# balancer too.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-ext 00:00:00:00:03:01 172.16.0.1/24
ovn-nbctl lrp-set-gateway-chassis lr0-ext hv1 10
ovn-nbctl lrp-add lr0 lr0-int 00:00:00:00:03:02 10.0.0.1/24
ovn-nbctl lb-add lb0 172.16.0.100:80 10.0.0.5:8080,10.0.0.6:8080 tcp
ovn-nbctl lb-add lb0 172.16.0.101 10.0.0.5
lb=$(ovn-nbctl create Load_Balancer name=lbrej protocol=tcp options:reject=true vips:\"172.16.0.102:80\"=\"\")
lb=$(ovn-nbctl create Load_Balancer name=lbdrop protocol=tcp vips:\"172.16.0.103:80\"=\"\")
ovn-nbctl lb-add lbskip 172.16.0.104:80 10.0.0.7:80 tcp
ovn-nbctl set Load_Balancer lbskip options:skip_snat=true
ovn-nbctl lr-lb-add lr0 lb0 -- lr-lb-add lr0 lbrej -- lr-lb-add lr0 lbdrop -- lr-lb-add lr0 lbskip
