# lss_acl_options: NB_Global options:default_acl_drop=true and
# use_ct_inv_match=false change the ACL defaults of a stateful switch and of
# a switch with stateless ACLs; a switch without ACLs is unaffected.
ovn-nbctl set NB_Global . options:default_acl_drop=true options:use_ct_inv_match=false
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2
ovn-nbctl acl-add sw0 from-lport 1001 "ip4" allow-related
ovn-nbctl acl-add sw1 to-lport 1001 "ip6" allow
