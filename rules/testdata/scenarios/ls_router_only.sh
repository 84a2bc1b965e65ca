# A transit switch with router ports only: ARP requests for a router's
# addresses go to that router without flooding. One router port is
# disabled; one switch port names no existing router port; one has explicit
# addresses instead of "router".
ovn-nbctl ls-add ts
ovn-nbctl lr-add lr0 -- lr-add lr1 -- lr-add lr2
ovn-nbctl lrp-add lr0 lr0-ts 00:00:00:00:ff:01 169.254.0.1/24
ovn-nbctl lrp-add lr1 lr1-ts 00:00:00:00:ff:02 169.254.0.2/24 -- set logical_router_port lr1-ts enabled=false
ovn-nbctl lrp-add lr2 lr2-ts 00:00:00:00:ff:03 169.254.0.3/24
ovn-nbctl lsp-add ts ts-lr0 -- lsp-set-type ts-lr0 router -- lsp-set-addresses ts-lr0 router -- lsp-set-options ts-lr0 router-port=lr0-ts
ovn-nbctl lsp-add ts ts-lr1 -- lsp-set-type ts-lr1 router -- lsp-set-addresses ts-lr1 router -- lsp-set-options ts-lr1 router-port=lr1-ts
ovn-nbctl lsp-add ts ts-lr2 -- lsp-set-type ts-lr2 router -- lsp-set-addresses ts-lr2 "00:00:00:00:ff:03 169.254.0.3" -- lsp-set-options ts-lr2 router-port=lr2-ts
ovn-nbctl lsp-add ts ts-none -- lsp-set-type ts-none router -- lsp-set-addresses ts-none router -- lsp-set-options ts-none router-port=nonexistent
