# Static routes: dst-ip and src-ip routes of both families and several
# prefix lengths, a default route, a discard route, an ECMP group of three
# next hops and one with a discard member, output_port (with a next hop
# outside the port's networks, and without a next hop), origin=connected,
# two routes to the same prefix written differently, and an IPv6 link-local
# next hop and prefix.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd00:1::1/64
ovn-nbctl lrp-add lr0 lr0-ls2 00:00:00:00:02:01 10.0.2.1/24 10.0.12.1/24 fd00:2::1/64
ovn-nbctl lrp-add lr0 lr0-ext 00:00:00:00:03:01 172.16.0.1/24
ovn-nbctl lr-route-add lr0 0.0.0.0/0 172.16.0.254
ovn-nbctl lr-route-add lr0 192.168.0.0/16 10.0.1.100
ovn-nbctl lr-route-add lr0 192.168.1.0/24 10.0.2.100
ovn-nbctl lr-route-add lr0 192.168.1.128/25 10.0.12.100
ovn-nbctl --policy=src-ip lr-route-add lr0 10.0.1.0/24 172.16.0.253
ovn-nbctl --policy=src-ip lr-route-add lr0 fd00:1::/64 fd00:2::fe
ovn-nbctl lr-route-add lr0 fd00:99::/48 fd00:2::100
ovn-nbctl lr-route-add lr0 ::/0 fd00:1::fe
ovn-nbctl lr-route-add lr0 10.99.0.0/16 discard
ovn-nbctl --ecmp lr-route-add lr0 10.10.0.0/16 10.0.1.11
ovn-nbctl --ecmp lr-route-add lr0 10.10.0.0/16 10.0.2.12
ovn-nbctl --ecmp lr-route-add lr0 10.10.0.0/16 172.16.0.13
ovn-nbctl --ecmp lr-route-add lr0 fd00:10::/64 fd00:1::11
ovn-nbctl --ecmp lr-route-add lr0 fd00:10::/64 fd00:2::12
ovn-nbctl lr-route-add lr0 10.20.0.0/16 192.0.2.1 lr0-ext
ovn-nbctl lr-route-add lr0 10.21.0.0/16 10.0.1.21 lr0-ls2
ovn-nbctl -- --id=@r create Logical_Router_Static_Route ip_prefix=10.22.0.0/16 output_port=lr0-ls1 \
  -- add Logical_Router lr0 static_routes @r
ovn-nbctl -- --id=@r create Logical_Router_Static_Route ip_prefix=10.23.0.0/16 nexthop=10.0.1.23 options:origin=connected \
  -- add Logical_Router lr0 static_routes @r
ovn-nbctl -- --id=@r create Logical_Router_Static_Route ip_prefix=10.30.0.5/16 nexthop=10.0.1.30 \
  -- add Logical_Router lr0 static_routes @r
ovn-nbctl -- --id=@r create Logical_Router_Static_Route ip_prefix=10.30.0.6/16 nexthop=10.0.2.30 \
  -- add Logical_Router lr0 static_routes @r
ovn-nbctl lr-route-add lr0 fe80::/64 fe80::1 lr0-ls1
ovn-nbctl lr-route-add lr0 fd00:77::/64 fe80::77
ovn-nbctl -- --id=@r1 create Logical_Router_Static_Route ip_prefix=10.40.0.0/16 nexthop=10.0.1.40 \
  -- --id=@r2 create Logical_Router_Static_Route ip_prefix=10.40.0.0/16 nexthop=discard \
  -- add Logical_Router lr0 static_routes @r1 @r2
