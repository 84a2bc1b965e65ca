# Logical_Router_Policy: allow (with and without pkt_mark), drop, reroute
# to one next hop (IPv4 and IPv6, with pkt_mark), ECMP reroutes (including
# one whose second next hop no port reaches and one with mixed families),
# the older nexthop column, an address-set reference in a match, and a
# reroute no port reaches.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd00:1::1/64
ovn-nbctl lrp-add lr0 lr0-join 00:00:00:00:02:01 100.64.0.1/16 fd00:64::1/64
ovn-nbctl create Address_Set name=as_nodes addresses='"100.64.0.2","100.64.0.3"'
ovn-nbctl lr-policy-add lr0 31000 "ip4.dst == 10.0.0.0/8" allow
ovn-nbctl lr-policy-add lr0 30000 "ip4.dst == 172.16.0.0/12" allow pkt_mark=100
ovn-nbctl lr-policy-add lr0 29000 "ip4.src == 10.0.1.66" drop
ovn-nbctl lr-policy-add lr0 29000 "ip4.src == \$as_nodes" drop
ovn-nbctl lr-policy-add lr0 1000 "ip4.src == 10.0.1.0/24" reroute 100.64.0.2
ovn-nbctl lr-policy-add lr0 1001 "ip6.src == fd00:1::/64" reroute fd00:64::2 pkt_mark=7
ovn-nbctl lr-policy-add lr0 1002 "ip4.src == 10.0.1.5" reroute 100.64.0.2,100.64.0.3,100.64.0.4
ovn-nbctl lr-policy-add lr0 1003 "ip4.src == 10.0.1.6" reroute 100.64.0.5,192.0.2.9,100.64.0.6
ovn-nbctl -- --id=@p create Logical_Router_Policy priority=1004 match='"ip4.src == 10.0.1.7"' action=reroute \
  nexthops='"100.64.0.7","fd00:64::7"' -- add Logical_Router lr0 policies @p
ovn-nbctl lr-policy-add lr0 1005 "ip6.src == fd00:1::8" reroute fd00:64::8,fd00:64::9 pkt_mark=9
ovn-nbctl lr-policy-add lr0 1006 "ip4.src == 10.0.1.9" reroute 192.0.2.1
ovn-nbctl -- --id=@p create Logical_Router_Policy priority=1007 match='"ip4.src == 10.0.1.10"' action=reroute nexthop=100.64.0.10 \
  -- add Logical_Router lr0 policies @p
