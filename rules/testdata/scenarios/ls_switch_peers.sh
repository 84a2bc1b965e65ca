# releases: 26.03
# ls_switch_peers: switch-to-switch patch ports (26.03's Logical_Switch_Port
# type "switch" with its peer column; ovn-northd.at "implicit unknown
# addresses on switch-switch LSPs", "Conntrack skip for switch ports
# connected to spine switch").
ovn-nbctl ls-add S1
ovn-nbctl lsp-add S1 S1-vm -- lsp-set-addresses S1-vm "50:54:00:00:00:01 192.168.0.1"
ovn-nbctl ls-add S2
ovn-nbctl lsp-add S2 S2-vm -- lsp-set-addresses S2-vm "50:54:00:00:00:02 192.168.0.2"
ovn-nbctl lsp-add S1 S1-S2 -- lsp-add S2 S2-S1
ovn-nbctl lsp-set-type S1-S2 switch peer=S2-S1
ovn-nbctl lsp-set-type S2-S1 switch peer=S1-S2
ovn-nbctl lsp-set-addresses S1-S2 "50:54:00:00:00:02 192.168.0.2"
ovn-nbctl ls-add spine
ovn-nbctl lsp-add spine spine-S1 -- lsp-add S1 S1-spine
ovn-nbctl lsp-set-type spine-S1 switch peer=S1-spine
ovn-nbctl lsp-set-type S1-spine switch peer=spine-S1
ovn-nbctl acl-add S1 from-lport 1003 "ip4" allow-related
ovn-nbctl lb-add lb0 10.0.0.10:80 192.168.0.1:80 tcp -- ls-lb-add spine lb0
# Peers that do not pair up: a switch port naming a VIF, one naming a
# router port, one naming a switch port that names another, one without
# a peer; a peered port with port security learns nothing.
ovn-nbctl ls-add S3
ovn-nbctl lsp-add S3 S3-vm -- lsp-set-addresses S3-vm "50:54:00:00:00:03 192.168.0.3"
ovn-nbctl lsp-add S3 S3-x -- lsp-set-type S3-x switch peer=S3-vm
ovn-nbctl lr-add R1 -- lrp-add R1 R1-S3 00:00:00:00:ff:03 192.168.3.254/24
ovn-nbctl lsp-add S3 S3-r -- lsp-set-type S3-r switch peer=R1-S3
ovn-nbctl lsp-add S3 S3-y -- lsp-set-type S3-y switch peer=S2-S1
ovn-nbctl lsp-add S3 S3-z -- lsp-set-type S3-z switch
ovn-nbctl lsp-add S2 S2-S3 -- lsp-add S3 S3-S2
ovn-nbctl lsp-set-type S2-S3 switch peer=S3-S2 -- lsp-set-port-security S2-S3 "50:54:00:00:00:33"
ovn-nbctl lsp-set-type S3-S2 switch peer=S2-S3
