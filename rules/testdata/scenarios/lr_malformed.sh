# Malformed router input, which northd logs and skips: static routes with a
# bad next hop (not an address, a masked address, another family, no port
# reaches it), a prefix that is not a CIDR, an output_port that does not
# exist; policies with an empty match and with a next hop no port reaches;
# router port networks that are not networks (0.0.0.0, trailing text, a
# host address with a bad mask), and an IPv6 route next hop with a /64.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd00:1::1/64
ovn-nbctl lrp-add lr0 lr0-odd 00:00:00:00:02:01 10.0.2.1/24 fd00:4::1/64 \
  -- add Logical_Router_Port lr0-odd networks '"0.0.0.0/8"' '"10.0.3.1/24x"' '"10.0.4.1/255.0.255.0"'
add_route() {
  ovn-nbctl -- --id=@r create Logical_Router_Static_Route "$@" -- add Logical_Router lr0 static_routes @r
}
add_route ip_prefix=192.168.1.0/24 nexthop=10.0.1.256
add_route ip_prefix=192.168.2.0/24 nexthop=not-an-ip
add_route ip_prefix=192.168.3.0/24 nexthop='"10.0.1.5/24"'
add_route ip_prefix=192.168.4.0/24 nexthop='"10.0.1.5/32"'
add_route ip_prefix=192.168.5.0/24 nexthop='"fd00:1::5"'
add_route ip_prefix=192.168.6.0/24 nexthop=192.0.2.1
add_route ip_prefix='"192.168.7.0/33"' nexthop=10.0.1.7
add_route ip_prefix=not-a-prefix nexthop=10.0.1.8
add_route ip_prefix='"192.168.9.0/255.255.0.255"' nexthop=10.0.1.9
add_route ip_prefix=192.168.10.0/24 nexthop=10.0.1.10 output_port=no-such-port
add_route ip_prefix='"fd00:99::/64"' nexthop='"fd00:1::99/64"'
add_route ip_prefix=192.168.11.0/24 nexthop='"10.0.1.11/32"' output_port=lr0-ls1
add_route ip_prefix='"fd00:98::/64"' nexthop='"fd00:1::98/128"'
add_route ip_prefix=192.168.12.5/24 nexthop=10.0.2.12
ovn-nbctl -- --id=@p create Logical_Router_Policy priority=100 match='""' action=allow -- add Logical_Router lr0 policies @p
ovn-nbctl -- --id=@p create Logical_Router_Policy priority=101 match='""' action=reroute nexthops='"10.0.1.50"' \
  -- add Logical_Router lr0 policies @p
ovn-nbctl -- --id=@p create Logical_Router_Policy priority=102 match='"ip4"' action=reroute nexthops='"not-an-ip"' \
  -- add Logical_Router lr0 policies @p
ovn-nbctl -- --id=@p create Logical_Router_Policy priority=103 match='"ip4"' action=reroute \
  -- add Logical_Router lr0 policies @p
