# releases: 26.03
# lb_distributed: a load balancer with options:distributed balances on each
# chassis over the backends bound there (ct_lb_mark_local), each after the
# logical port its ip_port_mappings entry names, with or without a source
# address ("PORT", "PORT:SRC_IP", "PORT:[SRC_IP]"); a health-checked VIP
# needs the source address and its monitor. Backends without a readable
# mapping are left out, and a VIP left with none drops or rejects. On
# switches and routers, IPv4 and IPv6. A router that lists one in its own
# load_balancer column (lr1; lr2 has it through a group) stops tying its
# gateway port's traffic to the gateway chassis: admission, ARP and ND
# replies, the outside switch's L2 lookup and the chassisredirect binding's
# always-redirect; a distributed VIP is DNATed and unDNATed on every chassis
# and its backends' replies leave through the gateway port itself.
ovn-nbctl set NB_Global . options:svc_monitor_mac=0a:58:0a:f4:00:01
ovn-nbctl ls-add outside -- lsp-add outside ln -- lsp-set-type ln localnet -- lsp-set-addresses ln unknown -- lsp-set-options ln network_name=phys
ovn-nbctl lr-add lr1
ovn-nbctl lrp-add lr1 lr1-up 11:11:11:11:11:11 169.254.0.1/24 2001:db8:abcd:2::bad/64
ovn-nbctl lrp-add lr1 lr1-down 12:12:12:12:12:12 192.168.0.1/24 2001:db8:abcd:1::c0fe/64
ovn-nbctl lrp-set-gateway-chassis lr1-up hv1 10
ovn-nbctl lsp-add outside outside-lr1 -- lsp-set-type outside-lr1 router -- lsp-set-addresses outside-lr1 router -- lsp-set-options outside-lr1 router-port=lr1-up
ovn-nbctl ls-add ls1
ovn-nbctl lsp-add ls1 lport1 -- lsp-set-addresses lport1 "13:13:13:13:13:13 192.168.0.101 2001:db8:abcd:1::2"
ovn-nbctl lsp-add ls1 lport2 -- lsp-set-addresses lport2 "14:14:14:14:14:14 192.168.0.102 2001:db8:abcd:1::3"
ovn-nbctl lsp-add ls1 ls1-lr1 -- lsp-set-type ls1-lr1 router -- lsp-set-addresses ls1-lr1 router -- lsp-set-options ls1-lr1 router-port=lr1-down
ovn-nbctl lr-add lr2
ovn-nbctl lrp-add lr2 lr2-up 22:22:22:22:22:22 169.254.0.2/24 2001:db8:abcd:2::2/64
ovn-nbctl lrp-add lr2 lr2-down 22:22:22:22:22:23 192.168.2.1/24
ovn-nbctl lrp-set-gateway-chassis lr2-up hv1 10
ovn-nbctl lsp-add outside outside-lr2 -- lsp-set-type outside-lr2 router -- lsp-set-addresses outside-lr2 router -- lsp-set-options outside-lr2 router-port=lr2-up
ovn-nbctl lb-add lb4 172.31.0.1:80 192.168.0.101:10880,192.168.0.102:10880,192.168.0.103:10880,192.168.0.104:10880 tcp
ovn-nbctl set Load_Balancer lb4 ip_port_mappings:192.168.0.101=lport1:192.168.0.199 ip_port_mappings:192.168.0.102=lport2 ip_port_mappings:192.168.0.103=\"\" ip_port_mappings:192.168.0.104=lport2:bad
ovn-nbctl lb-add lb4 172.31.0.5 192.168.0.101
ovn-nbctl lb-add lb6 [2000::1]:80 [2001:db8:abcd:1::2]:10882,[2001:db8:abcd:1::3]:10882 tcp
ovn-nbctl set Load_Balancer lb6 ip_port_mappings:\"[2001:db8:abcd:1::2]\"=\"lport1\" ip_port_mappings:\"[2001:db8:abcd:1::3]\"=\"lport2:[2001:db8:abcd:1::99]\"
ovn-nbctl lb-add lbhc 172.31.0.2:80 192.168.0.101:80,192.168.0.102:80 tcp
ovn-nbctl set Load_Balancer lbhc ip_port_mappings:192.168.0.101=lport1:192.168.0.199 ip_port_mappings:192.168.0.102=lport2
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="172.31.0.2\:80" -- add Load_Balancer lbhc health_check @hc
ovn-nbctl lb-add lbnone 172.31.0.3:80 192.168.0.101:80 udp
lb=$(ovn-nbctl create Load_Balancer name=lbrej protocol=tcp options:reject=true vips:\"172.31.0.4:80\"=\"192.168.0.102:80\")
ovn-nbctl lb-add lbgrp 172.31.0.6:80 192.168.2.10:80 tcp
ovn-nbctl set Load_Balancer lbgrp ip_port_mappings:192.168.2.10=lport3
g=$(ovn-nbctl create Load_Balancer_Group name=g0)
ovn-nbctl add Load_Balancer_Group g0 load_balancer $(ovn-nbctl --bare --columns _uuid find Load_Balancer name=lbgrp)
ovn-nbctl add Logical_Router lr2 load_balancer_group $g
ovn-nbctl lr-lb-add lr1 lb4 -- lr-lb-add lr1 lb6 -- lr-lb-add lr1 lbhc -- lr-lb-add lr1 lbnone -- lr-lb-add lr1 lbrej
ovn-nbctl ls-lb-add ls1 lb4 -- ls-lb-add ls1 lb6 -- ls-lb-add ls1 lbnone
# Made distributed last: 26.03.2 recomputes then, where attaching a
# distributed load balancer leaves its router's port flows as they were.
for lb in lb4 lb6 lbhc lbnone lbrej lbgrp; do ovn-nbctl set Load_Balancer $lb options:distributed=true; done
