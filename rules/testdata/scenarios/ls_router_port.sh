# A switch attached to a router: the router-type switch port with "router"
# addresses takes the router port's MAC and networks (IPv4, IPv6 and the
# link-local address) for L2 lookup, ARP/ND replies and ARP forwarding.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11"
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24 fd00::1/64 10.0.5.1/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router \
  -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
