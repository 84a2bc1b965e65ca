# lb_template: template load balancers (options:template=true, as
# ovn-kubernetes writes node port services) copy their ^variable VIPs,
# ports and backends into the flows; an IPv6 template's explicit backends,
# affinity (matched as IPv6 whatever the family), neighbor_responder=all
# answering ARP for a template VIP, and a malformed template VIP. 26.03
# reads each backend on its own, an explicit one with its port number
# (^avip:81's affinity) and leaves out a VIP with a backend that is neither
# (^avip:82); 23.03 reads them all as templates.
ovn-nbctl ls-add sw0 -- lr-add gw0 -- set Logical_Router gw0 options:chassis=hv1
ovn-nbctl lrp-add gw0 gw0-p 00:00:00:00:09:01 10.0.0.1/24
lb=$(ovn-nbctl create Load_Balancer name=t4 protocol=tcp options:template=true options:address-family=ipv4 vips:\"^vip:^vport\"=\"^backends\" vips:\"^vip:8080\"=\"^b1:80,^b2:^p2\")
lb=$(ovn-nbctl create Load_Balancer name=t6 protocol=udp options:template=true options:address-family=ipv6 vips:\"^vip6:53\"=\"^b6:53\" vips:\"^vip6:5353\"=\"[fd00::5]:53,[fd00::6]:53\" vips:\"a:b:c\"=\"^b6\")
lb=$(ovn-nbctl create Load_Balancer name=taff protocol=tcp options:template=true options:affinity_timeout=30 options:neighbor_responder=all options:add_route=true vips:\"^avip:80\"=\"^ab1:8080,^ab2\" vips:\"^avip:81\"=\"10.0.0.7:8080,^ab3:90\" vips:\"^avip:82\"=\"bogus:80\")
ovn-nbctl ls-lb-add sw0 t4 -- ls-lb-add sw0 t6 -- ls-lb-add sw0 taff
ovn-nbctl lr-lb-add gw0 t4 -- lr-lb-add gw0 t6 -- lr-lb-add gw0 taff
