# releases: 26.03
# lb_remote_backends: an ip_port_mappings entry that ends in an
# availability zone ("PORT:SRC_IP:AZ", "PORT:[SRC_IP]:AZ") is a remote
# backend's: its Service_Monitor is made whether or not the port is here
# or enabled (remote=true, options:az-name), probes come from
# svc_monitor_mac even from a router port's address, and the VIP balances
# over it. An empty zone, an unclosed IPv6 bracket or a bad source address
# monitor nothing.
ovn-nbctl set NB_Global . options:svc_monitor_mac=0a:58:0a:f4:00:01
ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2 -- lsp-add sw0 p3 -- lsp-set-enabled p3 disabled
ovn-nbctl lr-add lr0 -- lrp-add lr0 lr0-sw0 00:00:00:00:ff:01 10.0.0.1/24 fd00::1/64
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80,10.0.0.6:80,10.0.0.7:80,10.0.0.8:80,10.0.0.9:80,10.0.0.10:80,10.0.0.11:80 tcp
ovn-nbctl set Load_Balancer lb0 ip_port_mappings:10.0.0.5=p1:10.0.0.2 ip_port_mappings:10.0.0.6=p2:10.0.0.2:az1 ip_port_mappings:10.0.0.7=p3:10.0.0.2:az2
ovn-nbctl set Load_Balancer lb0 ip_port_mappings:10.0.0.8=far:10.0.0.3:az2 ip_port_mappings:10.0.0.9=p2:10.0.0.1:az1 ip_port_mappings:10.0.0.10=p1:10.0.0.2:
ovn-nbctl set Load_Balancer lb0 ip_port_mappings:10.0.0.11=p1:10.0.0.300:az1
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="10.0.0.100\:80" options:interval=5 -- add Load_Balancer lb0 health_check @hc
ovn-nbctl lb-add lb6 [fd00::100]:80 [fd00::5]:80,[fd00::6]:80,[fd00::7]:80 tcp
ovn-nbctl set Load_Balancer lb6 ip_port_mappings:\"[fd00::5]\"=\"p1:[fd00::2]:az1\" ip_port_mappings:\"[fd00::6]\"=\"far6:[fd00::2]:az3\" ip_port_mappings:\"[fd00::7]\"=\"p2:[fd00::2:az1\"
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="\[fd00\:\:100\]\:80" -- add Load_Balancer lb6 health_check @hc
ovn-nbctl ls-lb-add sw0 lb0 -- ls-lb-add sw0 lb6 -- lr-lb-add lr0 lb0
