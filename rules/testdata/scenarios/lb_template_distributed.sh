# releases: 26.03
# lb_template_distributed: a template load balancer with
# options:distributed. northd reads ip_port_mappings for its backends as
# for any distributed one, but looks a backend up as "[ADDRESS]" whatever
# the family (a template VIP has no address of its own), ^variable backends
# included; ct_lb_mark_local names a mapped backend's port, writes a
# ^variable backend in brackets with port 0 (it knows no number), an
# explicit one as its address and port. Backends without a mapping so
# keyed are left out, and a VIP left with none drops or rejects. On a
# switch, a router with a distributed gateway port, which stops
# centralizing it, and a gateway router. A template VIP's explicit IPv4
# backends are read as addresses, with their port numbers.
ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2
ovn-nbctl lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.5 fd00::5" -- lsp-set-addresses p2 "00:00:00:00:00:02 10.0.0.6 fd00::6"
ovn-nbctl lr-add lr0 -- lrp-add lr0 lr0-sw0 00:00:00:00:ff:01 10.0.0.1/24 fd00::1/64 -- lsp-add-router-port sw0 sw0-lr0 lr0-sw0
ovn-nbctl lrp-add lr0 lr0-up 00:00:00:00:ff:02 172.16.0.1/24 -- lrp-set-gateway-chassis lr0-up hv1 10
ovn-nbctl ls-add outside -- lsp-add-router-port outside outside-lr0 lr0-up
ovn-nbctl lr-add gw0 -- set Logical_Router gw0 options:chassis=hv1 -- lrp-add gw0 gw0-p 00:00:00:00:09:01 10.0.1.1/24
t4=$(ovn-nbctl create Load_Balancer name=t4 protocol=tcp options:template=true options:address-family=ipv4 \
  vips:\"^vip:^vport\"=\"^backends\" vips:\"^vip:8080\"=\"^b1:80,^b2:^p2,^b3\" vips:\"^vip2:80\"=\"10.0.0.5:80,10.0.0.6:80\")
ovn-nbctl set Load_Balancer t4 ip_port_mappings:\"[^backends]\"=p1 ip_port_mappings:\"[^b1]\"=p2 ip_port_mappings:\"[^b2]\"=\"p1:10.0.0.2\" \
  ip_port_mappings:^b3=p2 ip_port_mappings:\"[10.0.0.5]\"=p1 ip_port_mappings:10.0.0.6=p2
t6=$(ovn-nbctl create Load_Balancer name=t6 protocol=udp options:template=true options:address-family=ipv6 \
  vips:\"^vip6:53\"=\"^b6:53\" vips:\"^vip6:5353\"=\"[fd00::5]:53,[fd00::6]:53\")
ovn-nbctl set Load_Balancer t6 ip_port_mappings:\"[^b6]\"=p1 ip_port_mappings:\"[fd00::5]\"=\"p2:[fd00::2]\"
trej=$(ovn-nbctl create Load_Balancer name=trej protocol=tcp options:template=true options:reject=true \
  vips:\"^rvip:80\"=\"^rb:80\")
ovn-nbctl ls-lb-add sw0 t4 -- ls-lb-add sw0 t6 -- ls-lb-add sw0 trej
ovn-nbctl lr-lb-add lr0 t4 -- lr-lb-add lr0 t6 -- lr-lb-add lr0 trej
ovn-nbctl lr-lb-add gw0 t4 -- lr-lb-add gw0 trej
# Made distributed last, as in lb_distributed (26.03.2 recomputes then).
for lb in t4 t6 trej; do ovn-nbctl set Load_Balancer $lb options:distributed=true; done
