# NB_Global options:ignore_lsp_down=false: ARP/ND replies only for ports
# that are up, router ports and localports.
ovn-nbctl set NB_Global . options:ignore_lsp_down=false
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "0a:00:00:00:00:01 10.0.0.1"
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "0a:00:00:00:00:02 10.0.0.2 fd00::2" -- set logical_switch_port p2 up=true
ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 "0a:00:00:00:00:03 10.0.0.3" -- set logical_switch_port p3 up=false
ovn-nbctl lsp-add sw0 lp -- lsp-set-type lp localport -- lsp-set-addresses lp "0a:00:00:00:00:04 10.0.0.4"
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.254/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
