# releases: 26.03
# ls_qos_mark: 26.03's QoS action mark sets the packet mark, after the
# meter and the DSCP; a DSCP above 63 (which 26.03's schema takes) is left
# out of the actions, the rule's flow kept.
ovn-nbctl ls-add ls
ovn-nbctl qos-add ls from-lport 101 ip4 mark=15
ovn-nbctl qos-add ls from-lport 103 ip4 dscp=17 mark=18
ovn-nbctl qos-add ls from-lport 104 ip4 dscp=18 mark=19 rate=100
ovn-nbctl qos-add ls to-lport 101 ip4 mark=15
ovn-nbctl qos-add ls to-lport 105 ip4 rate=100 burst=50 mark=7
ovn-nbctl -- --id=@q create QoS priority=106 action=dscp=100 action=mark=3 match=ip4 direction=from-lport -- add Logical_Switch ls qos_rules @q
