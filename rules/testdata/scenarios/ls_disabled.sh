# Disabled ports: their packets are dropped on the way in and out, their
# MACs map to a drop, and a disabled "unknown" port is no _MC_unknown member.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "0a:00:00:00:00:01 10.0.0.1"
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "0a:00:00:00:00:02 10.0.0.2 fd00::2" -- lsp-set-enabled p2 disabled
ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 unknown -- lsp-set-enabled p3 disabled
ovn-nbctl lsp-add sw0 p4 -- lsp-set-enabled p4 enabled
