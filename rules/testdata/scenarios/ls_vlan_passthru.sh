# other_config:vlan-passthru: VLAN-tagged traffic is allowed and the switch
# does not answer ARP/ND itself.
ovn-nbctl ls-add sw0 -- set logical_switch sw0 other_config:vlan-passthru=true
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "0a:00:00:00:00:01 10.0.0.1 fd00::1"
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.254/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0 arp_proxy=169.254.0.1
