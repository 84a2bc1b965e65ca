# ECMP symmetric replies on a gateway router: ECMP routes with
# --ecmp-symmetric-reply (IPv4 dst-ip and src-ip, IPv6) send the traffic
# that arrived over a route back through the same next hop, tracked in
# conntrack by the output port's tunnel key. The same routes on a router
# without options:chassis get no such flows.
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv1
ovn-nbctl lrp-add gw gw-ext1 00:00:00:00:e1:01 172.16.1.1/24 fd01::1/64
ovn-nbctl lrp-add gw gw-ext2 00:00:00:00:e2:01 172.16.2.1/24 fd02::1/64
ovn-nbctl lrp-add gw gw-in 00:00:00:00:e3:01 10.0.0.1/24
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 0.0.0.0/0 172.16.1.254
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 0.0.0.0/0 172.16.2.254
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 0.0.0.0/0 172.16.2.253
ovn-nbctl --ecmp-symmetric-reply --policy=src-ip lr-route-add gw 10.0.0.0/25 172.16.1.250
ovn-nbctl --ecmp-symmetric-reply --policy=src-ip lr-route-add gw 10.0.0.0/25 172.16.2.250
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw ::/0 fd01::fe
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw ::/0 fd02::fe
ovn-nbctl --ecmp lr-route-add gw 192.168.0.0/16 172.16.1.100
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 192.168.0.0/16 172.16.2.100
ovn-nbctl lr-add dr
ovn-nbctl lrp-add dr dr-ext1 00:00:00:00:d1:01 172.16.1.2/24
ovn-nbctl lrp-add dr dr-ext2 00:00:00:00:d2:01 172.16.2.2/24
ovn-nbctl --ecmp-symmetric-reply lr-route-add dr 0.0.0.0/0 172.16.1.254
ovn-nbctl --ecmp-symmetric-reply lr-route-add dr 0.0.0.0/0 172.16.2.254
