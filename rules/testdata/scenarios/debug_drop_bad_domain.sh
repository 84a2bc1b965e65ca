# debug_drop_bad_domain: an observation domain that does not fit 8 bits is
# refused (northd logs an error) and drops stay "drop;"; so does a collector
# set of 0.
ovn-nbctl set NB_Global . options:debug_drop_collector_set=7 options:debug_drop_domain_id=300
ovn-nbctl ls-add sw0 -- lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl acl-add sw0 from-lport 1001 "ip4 && tcp.dst == 23" drop
