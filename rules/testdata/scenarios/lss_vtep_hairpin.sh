# lss_vtep_hairpin: a switch with a VTEP port sends VTEP traffic straight
# to L2 lookup, except where the distributed gateway port of its router
# resides (lrp0 has a gateway chassis; lrp1, on the same switch, has none).
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24
ovn-nbctl lrp-set-gateway-chassis lrp0 hv1 10
ovn-nbctl lr-add lr1
ovn-nbctl lrp-add lr1 lrp1 00:00:00:00:ff:02 10.0.0.2/24
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
ovn-nbctl lsp-add sw0 sw0-lr1 -- lsp-set-type sw0-lr1 router -- lsp-set-addresses sw0-lr1 router -- lsp-set-options sw0-lr1 router-port=lrp1
ovn-nbctl lsp-add sw0 vtep0 -- lsp-set-type vtep0 vtep -- lsp-set-options vtep0 vtep-physical-switch=ps0 vtep-logical-switch=ls0
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 sw1-lr0 -- lsp-set-type sw1-lr0 router -- lsp-set-addresses sw1-lr0 router
