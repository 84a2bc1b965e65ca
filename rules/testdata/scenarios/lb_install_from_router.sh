# lb_install_from_router: NB_Global options:install_ls_lb_from_router=true
# applies a router's load balancers to the switches its ports connect to.
ovn-nbctl set NB_Global . options:install_ls_lb_from_router=true
ovn-nbctl lr-add lr0 -- lrp-add lr0 lr0-a 00:00:00:00:06:01 10.0.0.1/24
ovn-nbctl ls-add swa -- lsp-add swa swa-lr0 -- lsp-set-type swa-lr0 router -- lsp-set-addresses swa-lr0 router -- lsp-set-options swa-lr0 router-port=lr0-a
ovn-nbctl ls-add swb
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80 tcp
ovn-nbctl lr-lb-add lr0 lb0
