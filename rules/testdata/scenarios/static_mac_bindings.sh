# Static_MAC_Binding: northd copies each NB binding of a router port to
# the SB (with override_dynamic_mac), for IPv4 and IPv6, and drops one
# naming a port that does not exist.
ovn-nbctl lr-add r0
ovn-nbctl lrp-add r0 r0-p 00:00:00:00:00:01 10.0.0.1/24 fd00::1/64
ovn-nbctl static-mac-binding-add r0-p 10.0.0.100 00:00:00:00:00:64
ovn-nbctl static-mac-binding-add r0-p fd00::100 00:00:00:00:00:65
ovn-nbctl static-mac-binding-add r0-p 10.0.0.101 00:00:00:00:00:66
ovn-nbctl set static_mac_binding $(ovn-nbctl --bare --columns=_uuid find static_mac_binding ip=10.0.0.101) override_dynamic_mac=true
ovn-nbctl create static_mac_binding logical_port=nope ip=10.0.0.102 mac="\"00:00:00:00:00:67\""
