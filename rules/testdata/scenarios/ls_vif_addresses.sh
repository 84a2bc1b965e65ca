# VIF ports with static addresses: MAC only, MAC+IPv4, MAC+IPv4+IPv6, two
# entries, and port security (MAC only, MAC+IPs, several entries).
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "0a:00:00:00:00:01"
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "0a:00:00:00:00:02 10.0.0.2"
ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 "0a:00:00:00:00:03 10.0.0.3 fd00::3"
ovn-nbctl lsp-add sw0 p4 -- lsp-set-addresses p4 "0a:00:00:00:00:04 10.0.0.4/24 10.0.1.4" "0a:00:00:00:00:14 fd00::14/64 fe80::14"
ovn-nbctl lsp-set-port-security p2 "0a:00:00:00:00:02"
ovn-nbctl lsp-set-port-security p3 "0a:00:00:00:00:03 10.0.0.3 fd00::3"
ovn-nbctl lsp-set-port-security p4 "0a:00:00:00:00:04 10.0.0.4" "0a:00:00:00:00:14 fd00::14"
ovn-nbctl lsp-add sw0 "p\"5" -- lsp-set-addresses "p\"5" "0A:00:00:00:00:05 10.0.0.5"
