# A vtep port: its traffic skips the ingress pipeline up to the hairpin stage.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vtep0 -- lsp-set-type vtep0 vtep -- lsp-set-addresses vtep0 unknown -- lsp-set-options vtep0 vtep-physical-switch=br-vtep vtep-logical-switch=ls0
