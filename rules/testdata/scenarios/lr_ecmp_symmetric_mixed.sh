# releases: 26.03
# lr_ecmp_symmetric_mixed: symmetric-reply ECMP routes whose next hop is of
# the other address family than their prefix (26.03 accepts them): the
# reply route sets the source register of the next hop's family (an IPv4
# prefix over an IPv6 next hop sets xxreg1, and the other way round reg5).
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv1
ovn-nbctl lrp-add gw gw-v4 00:00:00:00:e1:01 192.168.0.1/24
ovn-nbctl lrp-add gw gw-v6 00:00:00:00:e2:01 2001:db8::1/64
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 12.0.0.0/24 2001:db8::10
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 2001:db8:5::/64 192.168.0.20
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 2001:db8:5::/64 192.168.0.21
