# BFD session status as northd keeps it in the NB: a session created
# without status is admin_down, down once a route uses it (the route is
# not routed), and up when ovn-controller reports it up in the SB (the
# route is routed); a session another route gave up goes back to
# admin_down.
ovn-nbctl lr-add r0
ovn-nbctl lrp-add r0 r0-sw1 00:00:00:00:00:01 192.168.1.1/24
ovn-nbctl lrp-add r0 r0-sw2 00:00:00:00:00:02 192.168.2.1/24
ovn-nbctl create bfd logical_port=r0-sw1 dst_ip=192.168.1.2
ovn-nbctl create bfd logical_port=r0-sw2 dst_ip=192.168.2.2
ovn-nbctl --wait=sb sync
ovn-nbctl --bfd=$(ovn-nbctl --bare --columns=_uuid find bfd logical_port=r0-sw1) lr-route-add r0 100.0.0.0/8 192.168.1.2
ovn-nbctl --bfd=$(ovn-nbctl --bare --columns=_uuid find bfd logical_port=r0-sw2) lr-route-add r0 200.0.0.0/8 192.168.2.2
ovn-nbctl --wait=sb sync
ovn-sbctl set bfd $(ovn-sbctl --bare --columns=_uuid find bfd logical_port=r0-sw1) status=up
ovn-nbctl --wait=sb sync
ovn-nbctl --wait=sb sync
ovn-nbctl lr-route-del r0 200.0.0.0/8
ovn-nbctl --wait=sb sync
