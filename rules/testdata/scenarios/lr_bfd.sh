# releases: 23.03
# (ovn-northd 26.03.2 dies of SIGSEGV on this NB, in its BFD handling; not investigated yet.)
# BFD sessions (NB BFD) on router ports: lr_in_ip_input priority 110 flows
# for BFD packets from and to the addresses of each port a session names
# (IPv4 and IPv6), and route flows a priority higher for BFD packets on
# those ports. A static route whose bfd session to its next hop is up is
# routed; one whose session is down is not; a session to another address
# does not hold its route. A session naming no port gets no flows. Every
# status is one 23.03 keeps (northlog does not write the NB's yet): sessions
# no route uses are admin_down, a used one down, and the one up comes with
# its route in one transaction (alone, 23.03 would set it admin_down).
# Each session waits for the SB: a new session takes the lowest free
# source port, so sessions one northd run inserts together get theirs in
# an order that differs between northds (23.03: NB hash order).
ovn-nbctl lr-add r0
for i in 1 2 3 4; do
  ovn-nbctl lrp-add r0 r0-sw$i 00:00:00:00:00:0$i 192.168.$i.1/24
  ovn-nbctl ls-add sw$i
  ovn-nbctl lsp-add sw$i sw$i-r0 -- lsp-set-type sw$i-r0 router -- lsp-set-addresses sw$i-r0 router \
    -- lsp-set-options sw$i-r0 router-port=r0-sw$i
done
ovn-nbctl lrp-add r0 r0-sw5 00:00:00:00:00:05 192.168.5.1/24 192.168.55.1/24 fd00:5::1/64
ovn-nbctl --wait=sb -- --id=@b create bfd logical_port=r0-sw1 dst_ip=192.168.1.2 status=up min_tx=250 min_rx=250 detect_mult=10 \
  -- --id=@r create Logical_Router_Static_Route ip_prefix=100.0.0.0/8 nexthop=192.168.1.2 bfd=@b \
  -- add Logical_Router r0 static_routes @r
bfd2=$(ovn-nbctl --wait=sb create bfd logical_port=r0-sw2 dst_ip=192.168.2.2 status=down)
bfd3=$(ovn-nbctl --wait=sb create bfd logical_port=r0-sw3 dst_ip=192.168.3.9 status=admin_down)
ovn-nbctl --wait=sb create bfd logical_port=r0-sw5 dst_ip="\"fd00:5::2\"" status=admin_down min_rx=100 detect_mult=3
ovn-nbctl --wait=sb create bfd logical_port=nope dst_ip=10.9.9.9 status=admin_down
ovn-nbctl --bfd=$bfd2 lr-route-add r0 200.0.0.0/8 192.168.2.2
ovn-nbctl --bfd=$bfd3 lr-route-add r0 10.3.0.0/16 192.168.3.2
ovn-nbctl lr-route-add r0 10.4.0.0/16 192.168.4.2
