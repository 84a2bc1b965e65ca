# acl_fair_meter_unlogged: ACLs naming a fair meter with and without
# logging, and one naming a plain meter without logging. 23.03 gives every
# ACL that names the fair meter an SB Meter of its own
# ("m-fair__ACL-UUID"); 26.03 only the ACLs that log.
ovn-nbctl meter-add m-plain drop 10 pktps
ovn-nbctl --fair meter-add m-fair drop 20 pktps
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl --log --name=logged --meter=m-fair acl-add sw0 from-lport 1001 "ip4.src == 10.0.0.1" drop
ovn-nbctl --meter=m-fair acl-add sw0 from-lport 1002 "ip4.src == 10.0.0.2" drop
ovn-nbctl --meter=m-plain acl-add sw0 to-lport 1003 "ip4.dst == 10.0.0.3" allow
