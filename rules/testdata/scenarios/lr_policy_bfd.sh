# releases: 26.03
# lr_policy_bfd: Logical_Router_Policy bfd_sessions. A reroute policy's
# next hop that one of its sessions watches (the session's dst_ip is the
# next hop as written, its logical_port the port the hop leaves by) is
# rerouted to only while the session is up: ovn-controller's up (set here
# in the SB) comes back to the NB. p1's session is up, p2's down, p3's
# session watches another address (no hold) and p4's another port (no
# hold); the ECMP policy p5 loses its next hop whose session is down and
# keeps the others, and p6, all of whose next hops are down, gets no
# flow. Sessions a policy uses are down until the SB says otherwise.
# Two sessions set their timers (min_tx, min_rx, detect_mult), which
# northd copies to the SB BFD rows (checked by the live take-over tests).
ovn-nbctl lr-add r0
for i in 1 2 3 4 5 6; do
  ovn-nbctl lrp-add r0 r0-sw$i 00:00:00:00:00:0$i 192.168.$i.1/24
done
ovn-nbctl --bfd lr-policy-add r0 101 "ip4.src == 10.1.0.0/16" reroute 192.168.1.2
ovn-nbctl --bfd lr-policy-add r0 102 "ip4.src == 10.2.0.0/16" reroute 192.168.2.2
b3=$(ovn-nbctl create bfd logical_port=r0-sw3 dst_ip=192.168.3.99 min_tx=250 min_rx=300 detect_mult=5)
ovn-nbctl lr-policy-add r0 103 "ip4.src == 10.3.0.0/16" reroute 192.168.3.2
ovn-nbctl add Logical_Router_Policy $(ovn-nbctl --bare --columns=_uuid find Logical_Router_Policy priority=103) bfd_sessions $b3
b4=$(ovn-nbctl create bfd logical_port=r0-sw1 dst_ip=192.168.4.2 detect_mult=7)
ovn-nbctl lr-policy-add r0 104 "ip4.src == 10.4.0.0/16" reroute 192.168.4.2
ovn-nbctl add Logical_Router_Policy $(ovn-nbctl --bare --columns=_uuid find Logical_Router_Policy priority=104) bfd_sessions $b4
ovn-nbctl --bfd lr-policy-add r0 105 "ip4.src == 10.5.0.0/16" reroute 192.168.5.2,192.168.5.3,192.168.5.4
ovn-nbctl --bfd lr-policy-add r0 106 "ip4.src == 10.6.0.0/16" reroute 192.168.6.2,192.168.6.3
ovn-nbctl --wait=sb sync
for ip in 192.168.1.2 192.168.5.2 192.168.5.4; do
  ovn-sbctl set bfd $(ovn-sbctl --bare --columns=_uuid find bfd dst_ip=$ip) status=up
done
ovn-nbctl --wait=sb sync
