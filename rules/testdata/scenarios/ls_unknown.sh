# Ports with "unknown" addresses: alone, beside a MAC, with port security
# (no FDB learning then), and on a second switch without any.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 unknown
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "0a:00:00:00:00:02 10.0.0.2" unknown
ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 unknown -- lsp-set-port-security p3 "0a:00:00:00:00:03"
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 q1 -- lsp-set-addresses q1 "0a:00:00:00:01:01 10.0.1.1"
