# releases: 26.03
# acl_ct_translation: NB_Global options:acl_ct_translation. Stateful ACLs
# then match L4 fields on the connection's original ones (their flows
# carry tags:acl_ct_translation=true, not in the canonical dump), which
# needs multicast tracked too: the switches with stateful ACLs lose their
# ls_in_pre_acl and ls_out_pre_acl eth.mcast flows (110). sw0 has stateful
# and stateless ACLs, sw1 only stateless ones, sw2 a load balancer and a
# drop ACL.
ovn-nbctl set NB_Global . options:acl_ct_translation=true
ovn-nbctl ls-add sw0 -- lsp-add sw0 p0 -- lsp-set-addresses p0 "00:00:00:00:00:01 10.0.0.1"
ovn-nbctl acl-add sw0 from-lport 1000 "udp.dst == 53" allow-related
ovn-nbctl acl-add sw0 to-lport 1000 "tcp.dst == 80" allow
ovn-nbctl acl-add sw0 to-lport 900 "ip4" drop
ovn-nbctl acl-add sw0 from-lport 1100 "arp" allow-stateless
ovn-nbctl ls-add sw1 -- acl-add sw1 from-lport 1000 ip allow-stateless
ovn-nbctl ls-add sw2 -- lb-add lb0 10.0.2.10:80 10.0.2.2:8080 -- ls-lb-add sw2 lb0
ovn-nbctl acl-add sw2 to-lport 1000 "tcp.dst == 22" reject
