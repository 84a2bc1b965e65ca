# lss_pg_port_no_switch: port group members that are on no switch: a port
# created only in the group (the database does not keep it, port groups
# holding their ports by weak reference) and a port deleted from its switch
# after joining a group. pg0 keeps its port on sw0, so sw0 gets pg0's ACLs;
# pg1 is left with no port, so its ACLs apply nowhere and sw1 stays
# stateless.
ovn-nbctl ls-add sw0 -- ls-add sw1
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.0.12"
ovn-nbctl lsp-add sw1 vm3 -- lsp-set-addresses vm3 "00:00:00:00:00:03 10.0.0.13"
ovn-nbctl --id=@o create Logical_Switch_Port name=ghost -- pg-add pg0 vm1 -- add Port_Group pg0 ports @o 2>/dev/null
ovn-nbctl pg-add pg1 vm2
ovn-nbctl acl-add pg0 to-lport 1002 "outport == @pg0 && ip4.src == \$pg0_ip4" allow-related
ovn-nbctl acl-add pg1 from-lport 1002 "inport == @pg1 && ip4" allow-related
ovn-nbctl lsp-del vm2
