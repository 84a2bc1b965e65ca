# lss_acl_missing_refs: ACL matches naming an address set ($nosuch), a port
# group (@nosuch) and a port group's address sets ($nosuch_ip4,
# $nosuch_ip6) that do not exist are written into the flows as they are
# (northd does not parse matches; ovn-controller rejects them), on a switch
# and through a port group; the ACLs still make sw0 stateful.
ovn-nbctl ls-add sw0 -- ls-add sw1
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.0.12"
ovn-nbctl acl-add sw0 from-lport 1001 "ip4.src == \$nosuch" allow-related
ovn-nbctl acl-add sw0 to-lport 1001 "outport == @nosuch && ip4" drop
ovn-nbctl pg-add pg0 vm2
ovn-nbctl acl-add pg0 to-lport 1002 "outport == @pg0 && ip4.src == \$nosuch_ip4" allow
ovn-nbctl acl-add pg0 from-lport 1002 "inport == @pg0 && ip6.dst == \$nosuch_ip6" reject
