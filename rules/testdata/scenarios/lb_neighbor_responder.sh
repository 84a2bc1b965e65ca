# lb_neighbor_responder: a router answers ARP/ND ($_rtr_lb address sets) for
# its VIPs in a subnet of one of its ports (the default), for all of them
# (neighbor_responder=all) or none; switches connected to the router send
# requests for a reachable VIP to the router port whose subnet holds it.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-a 00:00:00:00:04:01 10.0.0.1/24 fd00::1/64
ovn-nbctl lrp-add lr0 lr0-b 00:00:00:00:04:02 10.0.1.1/24
ovn-nbctl lrp-set-gateway-chassis lr0-b hv1 10
ovn-nbctl ls-add swa -- lsp-add swa swa-lr0 -- lsp-set-type swa-lr0 router -- lsp-set-addresses swa-lr0 router -- lsp-set-options swa-lr0 router-port=lr0-a
ovn-nbctl lsp-add swa vm -- lsp-set-addresses vm "00:00:00:00:00:09 10.0.0.9"
ovn-nbctl ls-add swb -- lsp-add swb swb-lr0 -- lsp-set-type swb-lr0 router -- lsp-set-addresses swb-lr0 router -- lsp-set-options swb-lr0 router-port=lr0-b
ovn-nbctl lb-add lbr 10.0.0.100:80 10.0.0.5:80 tcp
ovn-nbctl lb-add lbr 10.0.1.100:80 10.0.0.5:80 tcp
ovn-nbctl lb-add lbr 192.168.9.100:80 10.0.0.5:80 tcp
ovn-nbctl lb-add lbr [fd00::100]:80 [fd00::5]:80 tcp
ovn-nbctl lb-add lba 192.168.9.101:80 10.0.0.5:80 tcp
ovn-nbctl set Load_Balancer lba options:neighbor_responder=all
ovn-nbctl lb-add lbn 10.0.0.102:80 10.0.0.5:80 tcp
ovn-nbctl set Load_Balancer lbn options:neighbor_responder=none
ovn-nbctl lr-lb-add lr0 lbr -- lr-lb-add lr0 lba -- lr-lb-add lr0 lbn
