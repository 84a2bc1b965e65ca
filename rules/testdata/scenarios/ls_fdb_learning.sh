# releases: 26.03
# ls_fdb_learning: the ports whose source MACs a switch learns (26.03's
# build_lswitch_learn_fdb_op): a VIF with "unknown" among its addresses
# and no port security learns unless options:lsp_learn_fdb is false (vm2;
# any other value learns); a remote port (type "remote") with unknown
# addresses learns in the egress pipeline (ls_out_lookup_fdb,
# ls_out_put_fdb), one with port security does not.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 unknown
ovn-nbctl lsp-add sw0 vm2 -- lsp-set-addresses vm2 unknown -- lsp-set-options vm2 lsp_learn_fdb=false
ovn-nbctl lsp-add sw0 vm3 -- lsp-set-addresses vm3 "00:00:00:00:00:03 10.0.0.3" unknown -- lsp-set-options vm3 lsp_learn_fdb=yes
ovn-nbctl lsp-add sw0 rp1 -- lsp-set-type rp1 remote -- lsp-set-addresses rp1 unknown
ovn-nbctl lsp-add sw0 rp2 -- lsp-set-type rp2 remote -- lsp-set-addresses rp2 unknown -- lsp-set-port-security rp2 "00:00:00:00:00:22"
