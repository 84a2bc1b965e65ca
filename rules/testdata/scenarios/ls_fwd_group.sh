# Forwarding groups: ARP for the virtual IP and L2 lookup of the virtual MAC.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "0a:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "0a:00:00:00:00:02 10.0.0.12"
ovn-nbctl fwd-group-add fwd0 sw0 10.0.0.100 0a:00:00:00:01:00 p1 p2
ovn-nbctl --liveness fwd-group-add fwd1 sw0 10.0.0.101 0a:00:00:00:01:01 p2
