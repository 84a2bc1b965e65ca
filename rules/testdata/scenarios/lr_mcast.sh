# Router multicast without IGMP groups: a router that relays multicast
# (options:mcast_relay) with a port that floods it (options:mcast_flood,
# also on a disabled port, which does not count), one that relays without
# flooding, and one that floods without relaying.
ovn-nbctl lr-add r1 -- set Logical_Router r1 options:mcast_relay=true
ovn-nbctl lrp-add r1 r1-a 00:00:00:00:0a:01 10.0.1.1/24 -- set Logical_Router_Port r1-a options:mcast_flood=true
ovn-nbctl lrp-add r1 r1-b 00:00:00:00:0a:02 10.0.2.1/24 fd00:2::1/64
ovn-nbctl lr-add r2 -- set Logical_Router r2 options:mcast_relay=true
ovn-nbctl lrp-add r2 r2-a 00:00:00:00:0b:01 10.1.1.1/24
ovn-nbctl lrp-add r2 r2-off 00:00:00:00:0b:02 10.1.2.1/24 -- set Logical_Router_Port r2-off options:mcast_flood=true enabled=false
ovn-nbctl lr-add r3
ovn-nbctl lrp-add r3 r3-a 00:00:00:00:0c:01 10.2.1.1/24 -- set Logical_Router_Port r3-a options:mcast_flood=true
