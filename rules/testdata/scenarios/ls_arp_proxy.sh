# options:arp_proxy on a router-type switch port: the switch answers ARP for
# the listed IPv4 addresses with the router port's MAC.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11"
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router \
  -- lsp-set-options sw0-lr0 router-port=lrp0 arp_proxy="169.254.0.1 169.254.0.2 fd00::1"
