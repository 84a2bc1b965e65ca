# lss_stateful_acl: a switch with an allow-related ACL sends IP to conntrack
# in pre-ACL, skips its router and localnet ports there and in pre-LB (no
# ct_clear), and gets the ACL hint and stateful ACL defaults; a switch with
# only a stateless drop ACL has ACLs but stays stateless.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
ovn-nbctl lsp-add sw0 ln0 -- lsp-set-type ln0 localnet -- lsp-set-addresses ln0 unknown -- lsp-set-options ln0 network_name=phys
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl acl-add sw0 to-lport 1002 "outport == \"vm1\" && ip4 && tcp.dst == 22" allow-related
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.1.12"
ovn-nbctl acl-add sw1 from-lport 1000 "ip4.src == 10.0.0.0/8 && icmp4" drop
