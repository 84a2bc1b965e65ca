# Localnet ports: ARP/ND from them is not answered locally; one learns MACs
# into the FDB (options:localnet_learn_fdb), one does not.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw0 ln0 -- lsp-set-type ln0 localnet -- lsp-set-addresses ln0 unknown -- lsp-set-options ln0 network_name=phys localnet_learn_fdb=true
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 ln1 -- lsp-set-type ln1 localnet -- lsp-set-addresses ln1 unknown -- lsp-set-options ln1 network_name=phys
