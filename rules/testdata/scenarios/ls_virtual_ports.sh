# Virtual ports on a switch without a router: bind_vport flows for each
# parent named in virtual-parents that is a port of the same switch (IPv4
# and IPv6 virtual IPs, several parents, empty names and a space-prefixed
# name skipped or unmatched, a missing parent, a parent on another switch),
# whatever the port's enabled and up columns; none for a virtual IP that
# does not parse or a port without virtual-parents.
ovn-nbctl ls-add sw0 -- ls-add sw1
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.1 fd00::1"
ovn-nbctl lsp-add sw0 vm2 -- lsp-set-addresses vm2 "0a:00:00:00:00:02 10.0.0.2"
ovn-nbctl lsp-add sw1 far -- lsp-set-addresses far "0a:00:00:00:01:01 10.0.1.1"
ovn-nbctl lsp-add sw0 v4 -- lsp-set-type v4 virtual -- lsp-set-addresses v4 "0a:00:00:00:00:aa 10.0.0.100" \
  -- lsp-set-options v4 virtual-ip=10.0.0.100 virtual-parents=vm1,,vm2,ghost,far
ovn-nbctl lsp-add sw0 v6 -- lsp-set-type v6 virtual -- lsp-set-enabled v6 disabled \
  -- lsp-set-options v6 virtual-ip=fd00:0:0:0::abcd:100 'virtual-parents=vm2, vm1'
ovn-nbctl lsp-add sw0 v6b -- lsp-set-type v6b virtual \
  -- lsp-set-options v6b virtual-ip=fd00::1:2:3:4:5 virtual-parents=vm1
ovn-nbctl lsp-add sw0 bad4 -- lsp-set-type bad4 virtual -- lsp-set-options bad4 virtual-ip=10.0.0.300 virtual-parents=vm1
ovn-nbctl lsp-add sw0 bad6 -- lsp-set-type bad6 virtual -- lsp-set-options bad6 virtual-ip=fd00::zz virtual-parents=vm1
ovn-nbctl lsp-add sw0 noparents -- lsp-set-type noparents virtual -- lsp-set-options noparents virtual-ip=10.0.0.101
ovn-nbctl set nb_global . options:ignore_lsp_down=false
