# releases: 26.03
# lr_policy_chains: Logical_Router_Policy chains, jump and output_port.
# lr0: policies of the default chain jumping to "inbound" and "outbound",
# a jump to a chain no policy is in and one with no target (both
# skipped), allow, drop and reroute policies in the chains, an ECMP reroute
# in a chain (its flow does not match the chain), and reroutes with an
# output_port: a next hop in the port's network, one outside all of them
# (routed from the port's first address of the family), an IPv6 one, one
# whose port has no address of the family (no path), and an ECMP reroute
# with an output_port (skipped). One router has policies: 26.03 numbers
# chains over all routers in the order it walks its routers' table, and a
# router without chains matches chain 0 once a router walked before it has
# some; two routers in one bucket of that table are walked in an order the
# NB does not tell (relations chainPolicies), which would make the
# reference's own flows vary between runs.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-a 00:00:00:00:01:01 10.0.1.1/24 fd00:1::1/64
ovn-nbctl lrp-add lr0 lr0-b 00:00:00:00:01:02 10.0.2.1/24
ovn-nbctl lrp-add lr0 lr0-c 00:00:00:00:01:03 fd00:3::1/64
ovn-nbctl lr-policy-add lr0 112 "ip4.src == 10.0.0.0/24" jump nochain
ovn-nbctl -- --id=@p create Logical_Router_Policy priority=111 match='"ip4.src == 10.0.9.0/24"' action=jump \
  -- add Logical_Router lr0 policies @p
ovn-nbctl lr-policy-add lr0 102 "ip4.src == 10.0.1.0/24" jump inbound
ovn-nbctl lr-policy-add lr0 101 "ip4.src == 10.0.16.0/24" jump inbound
ovn-nbctl lr-policy-add lr0 103 "ip4.dst == 10.0.2.0/24" jump outbound
ovn-nbctl lr-policy-add lr0 100 "ip4.src == 192.168.0.1/32" allow
ovn-nbctl --chain=inbound lr-policy-add lr0 201 "1" allow
ovn-nbctl --chain=inbound lr-policy-add lr0 202 "tcp.dst == 22" drop
ovn-nbctl --chain=inbound lr-policy-add lr0 203 "udp" reroute 10.0.2.5
ovn-nbctl --chain=outbound lr-policy-add lr0 300 "ip4.src == 10.0.1.7" reroute 10.0.2.7,10.0.2.8
ovn-nbctl --chain=outbound lr-policy-add lr0 301 "ip4.src == 10.0.1.8" allow pkt_mark=5
ovn-nbctl --output-port=lr0-b lr-policy-add lr0 90 "ip4.src == 42.42.42.42" reroute 10.0.2.42
ovn-nbctl --output-port=lr0-b lr-policy-add lr0 91 "ip4.src == 42.42.42.43" reroute 3.3.3.3
ovn-nbctl --output-port=lr0-a lr-policy-add lr0 92 "ip6.src == fd00:9::1" reroute fd00:7::7
ovn-nbctl --output-port=lr0-c lr-policy-add lr0 93 "ip4.src == 42.42.42.44" reroute 4.4.4.4
ovn-nbctl lr-policy-add lr0 94 "ip4.src == 42.42.42.45" reroute 10.0.2.45,10.0.2.46
pol=$(ovn-nbctl --bare --columns _uuid find Logical_Router_Policy priority=94)
lrpb=$(ovn-nbctl --bare --columns _uuid find Logical_Router_Port name=lr0-b)
ovn-nbctl set Logical_Router_Policy "$pol" output_port="$lrpb"
