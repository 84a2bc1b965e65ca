# lss_port_group_acl: ACLs on a port group apply to the switches its ports
# are on: sw0 (a port in the group) becomes stateful, sw1 (none) does not,
# and a port group whose ACLs are stateless gives sw2 ACLs only.
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.0.12"
ovn-nbctl lsp-add sw2 vm3 -- lsp-set-addresses vm3 "00:00:00:00:00:03 10.0.0.13"
ovn-nbctl pg-add pg0 vm1
ovn-nbctl acl-add pg0 to-lport 1002 "outport == @pg0 && ip4 && tcp.dst == 80" allow-related
ovn-nbctl pg-add pg1 vm3
ovn-nbctl acl-add pg1 from-lport 1002 "inport == @pg1 && ip4" allow-stateless
