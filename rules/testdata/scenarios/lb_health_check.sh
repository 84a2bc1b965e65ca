# lb_health_check: a VIP with a health check balances only over backends
# with a service monitor (an ip_port_mappings entry naming an enabled switch
# port and a source address); ARP/ND for the monitors' source addresses is
# answered with svc_monitor_mac on the ports' switches. A VIP without health
# check, and an SCTP load balancer's, keep all their backends.
ovn-nbctl set NB_Global . options:svc_monitor_mac=0a:58:0a:f4:00:01
ovn-nbctl ls-add sw0 -- lsp-add sw0 p1 -- lsp-add sw0 p2 -- lsp-add sw0 p3 -- lsp-set-enabled p3 disabled
ovn-nbctl ls-add sw1 -- lsp-add sw1 p6
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80,10.0.0.6:80,10.0.0.7:80,10.0.0.8:80 tcp
ovn-nbctl lb-add lb0 10.0.0.101:80 10.0.0.5:80,10.0.0.6:80 tcp
ovn-nbctl set Load_Balancer lb0 ip_port_mappings:10.0.0.5=p1:10.0.0.2 ip_port_mappings:10.0.0.6=p2:10.0.0.2 ip_port_mappings:10.0.0.7=p3:10.0.0.2 ip_port_mappings:10.0.0.8=nope:10.0.0.2
hc=$(ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="10.0.0.100\:80" options:interval=5 -- add Load_Balancer lb0 health_check @hc)
ovn-nbctl lb-add lb6 [fd00::100]:80 [fd00::5]:80,[fd00::6]:80 tcp
ovn-nbctl set Load_Balancer lb6 ip_port_mappings:\"[fd00::5]\"=\"p6:[fd00::2]\"
hc6=$(ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="\[fd00\:\:100\]\:80" -- add Load_Balancer lb6 health_check @hc)
ovn-nbctl lb-add lbs 10.0.0.110:80 10.0.0.5:80 sctp
ovn-nbctl set Load_Balancer lbs ip_port_mappings:10.0.0.5=p1:10.0.0.2
hcs=$(ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="10.0.0.110\:80" -- add Load_Balancer lbs health_check @hc)
ovn-nbctl ls-lb-add sw0 lb0 -- ls-lb-add sw0 lb6 -- ls-lb-add sw0 lbs
