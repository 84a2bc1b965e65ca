# lss_port_group_sets: the SB rows of port groups and address sets. A port
# group with ports on two switches gives one SB Port_Group per switch and
# address sets of its ports' IPv4 and IPv6 addresses ("router",
# "unknown" and, without IPAM, "dynamic" entries giving none); a port
# group whose only port is on no switch gives address sets but no
# Port_Group; an empty port group gives empty address sets; NB address
# sets are copied, an empty one too; ACLs match on them.
ovn-nbctl ls-add sw0
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11 fd00::11" "00:00:00:00:00:11 10.0.0.111"
ovn-nbctl lsp-add sw0 vm2 -- lsp-set-addresses vm2 dynamic unknown
ovn-nbctl lsp-add sw1 vm3 -- lsp-set-addresses vm3 "00:00:00:00:00:03 10.0.1.13 fd00:1::13"
ovn-nbctl lsp-add sw1 vm4 -- lsp-set-addresses vm4 router
ovn-nbctl pg-add pg_web vm1 vm2 vm3 vm4
ovn-nbctl pg-add pg_empty
orphan=$(ovn-nbctl create Logical_Switch_Port name=orphan addresses='"00:00:00:00:00:99 10.9.9.9"')
ovn-nbctl pg-add pg_orphan
ovn-nbctl add Port_Group pg_orphan ports $orphan
ovn-nbctl create Address_Set name=as_big addresses='"10.1.0.0/16", "10.2.0.1", "192.168.0.1"'
ovn-nbctl create Address_Set name=as_none
ovn-nbctl acl-add pg_web to-lport 1001 "outport == @pg_web && ip4.src == \$as_big" allow-related
ovn-nbctl acl-add pg_web to-lport 1000 "outport == @pg_web && ip4.src == \$pg_web_ip4" drop
