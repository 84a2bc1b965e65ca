# releases: 26.03
# lport_mirrors: mirrors of type lport (a switch port as the sink) and
# their Mirror_Rules. sw0's p1 is attached to three lport mirrors: to-lport
# m-to and both m-both to t0 on its own switch (one serving port,
# mp-sw0-t0), from-lport m-from to t1 on sw1 (mp-sw0-t1); rules of both
# actions in both directions, two of equal priority. p2 shares m-from and
# has m-ghost, whose sink is no port (no serving port, no flows), and a
# gre mirror (Port_Binding mirror_rules only). q1 on sw1 is attached to
# m-both (mp-sw1-t0, a sink on another switch), and m-lrp mirrors r0's
# router port lrp0.
ovn-nbctl ls-add sw0 -- ls-add sw1
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "50:54:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "50:54:00:00:00:02 10.0.0.12" -- lsp-set-port-security p2 "50:54:00:00:00:02 10.0.0.12"
ovn-nbctl lsp-add sw0 t0 -- lsp-add sw1 t1 -- lsp-add sw1 q1 -- lsp-set-addresses q1 "50:54:00:00:00:03 10.0.1.13"
ovn-nbctl lr-add r0 -- lrp-add r0 lrp0 00:00:00:00:ff:01 10.0.1.1/24
ovn-nbctl lsp-add sw1 sw1-r0 -- lsp-set-type sw1-r0 router -- lsp-set-addresses sw1-r0 router -- lsp-set-options sw1-r0 router-port=lrp0
ovn-nbctl mirror-add m-to lport to-lport t0
ovn-nbctl mirror-add m-both lport both t0
ovn-nbctl mirror-add m-from lport from-lport t1
ovn-nbctl mirror-add m-ghost lport both ghost
ovn-nbctl mirror-add m-lrp lport to-lport lrp0
ovn-nbctl mirror-add m-gre gre 7 to-lport 172.16.0.100
ovn-nbctl mirror-rule-add m-both 100 'ip' mirror
ovn-nbctl mirror-rule-add m-both 150 'icmp' skip
ovn-nbctl mirror-rule-add m-from 100 'ip4.dst == 192.168.0.1' mirror
ovn-nbctl mirror-rule-add m-from 150 '1' skip
ovn-nbctl mirror-rule-add m-to 150 'tcp' mirror
ovn-nbctl mirror-rule-add m-ghost 10 'udp' mirror
ovn-nbctl mirror-rule-add m-lrp 20 'arp' skip
ovn-nbctl lsp-attach-mirror p1 m-to -- lsp-attach-mirror p1 m-both -- lsp-attach-mirror p1 m-from
ovn-nbctl lsp-attach-mirror p2 m-from -- lsp-attach-mirror p2 m-ghost -- lsp-attach-mirror p2 m-gre
ovn-nbctl lsp-attach-mirror q1 m-both -- lsp-attach-mirror q1 m-lrp
