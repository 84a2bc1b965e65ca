# Container ports nested in a VM's port (parent_name): a tag_request of 0
# asks northd for a free tag of the parent (written to the NB's tag), an
# explicit one is kept; the flows match the parent's port and the VLAN
# tag. A port whose parent does not exist, and a tag another container
# of the same parent already holds.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.1"
ovn-nbctl lsp-add sw0 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.0.2"
ovn-nbctl lsp-add sw0 c1 vm1 10 -- lsp-set-addresses c1 "00:00:00:00:01:01 10.0.0.11"
ovn-nbctl lsp-add sw0 c2 vm1 0 -- lsp-set-addresses c2 "00:00:00:00:01:02 10.0.0.12"
ovn-nbctl --wait=sb lsp-add sw0 c3 vm1 0 -- lsp-set-addresses c3 "00:00:00:00:01:03 10.0.0.13" -- lsp-set-port-security c3 "00:00:00:00:01:03 10.0.0.13"
ovn-nbctl lsp-add sw0 c4 vm2 10 -- lsp-set-addresses c4 "00:00:00:00:02:01 10.0.0.21"
ovn-nbctl lsp-add sw0 c5 nowhere 20 -- lsp-set-addresses c5 "00:00:00:00:03:01 10.0.0.31"
