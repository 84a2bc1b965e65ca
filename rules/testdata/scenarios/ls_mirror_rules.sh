# Port mirrors attached to switch ports: Port_Binding mirror_rules refers
# to the SB Mirror rows of the port's NB mirror_rules (one port with two
# mirrors, one with one, one detached again, one never attached).
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 sw0-port1
ovn-nbctl lsp-add sw0 sw0-port2
ovn-nbctl lsp-add sw0 sw0-port3
ovn-nbctl lsp-add sw0 sw0-port4
ovn-nbctl mirror-add mirror1 erspan 1 from-lport 10.10.10.2
ovn-nbctl mirror-add mirror2 gre 2 to-lport 10.10.10.3
ovn-nbctl lsp-attach-mirror sw0-port1 mirror1
ovn-nbctl lsp-attach-mirror sw0-port1 mirror2
ovn-nbctl lsp-attach-mirror sw0-port2 mirror2
ovn-nbctl lsp-attach-mirror sw0-port3 mirror1
ovn-nbctl lsp-detach-mirror sw0-port3 mirror1
