# A router port whose network is IPv4-mapped IPv6 (::ffff:10.1.0.1/96): 23.03
# routes it as IPv4 (ip4.dst == ::ffff:0.0.0.0/96, reg0 and reg1), since the
# network prints with a dot.
ovn-nbctl lr-add lr0 \
  -- lrp-add lr0 lr0-a 0a:00:00:00:00:01 ::ffff:10.1.0.1/96 \
  -- lrp-add lr0 lr0-b 0a:00:00:00:00:02 10.2.0.1/24 fd00:2::1/64
