# releases: 26.03
# lb_health_check_lrp: a health check whose source address (ip_port_mappings
# PORT:SRC_IP) is the address of a router port on the backend's switch, on a
# router that has the load balancer (directly or through a group), probes
# from that port: Service_Monitor's src_mac is the port's MAC, the switch
# answers no ARP/ND for the address, and the backend's replies to that MAC
# go to ovn-controller (ls_in_l2_lkup 110, TCP by source port, UDP by ICMP
# unreachable). A load balancer not on the router, or a disabled backend
# port, keeps 23.03's service monitor source.
ovn-nbctl set NB_Global . options:svc_monitor_mac=0a:58:0a:f4:00:01
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-sw0 00:00:00:00:01:01 10.0.0.1/24 fd00::1/64
ovn-nbctl lrp-add lr0 lr0-sw1 00:00:00:00:02:01 20.0.0.1/24
ovn-nbctl ls-add sw0 -- lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0 -- lsp-set-addresses sw0-lr0 router
ovn-nbctl ls-add sw1 -- lsp-add sw1 sw1-lr0 -- lsp-set-type sw1-lr0 router -- lsp-set-options sw1-lr0 router-port=lr0-sw1 -- lsp-set-addresses sw1-lr0 router
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:01:0a 10.0.0.10 fd00::10"
ovn-nbctl lsp-add sw0 vm2 -- lsp-set-addresses vm2 "00:00:00:00:01:0b 10.0.0.11"
ovn-nbctl lsp-add sw0 vm3 -- lsp-set-addresses vm3 "00:00:00:00:01:0c 10.0.0.12" -- lsp-set-enabled vm3 disabled
ovn-nbctl lsp-add sw1 vm4 -- lsp-set-addresses vm4 "00:00:00:00:02:0a 20.0.0.10"
ovn-nbctl lb-add lb1 192.168.0.10:80 10.0.0.10:80,10.0.0.11:80,10.0.0.12:80,20.0.0.10:8080 tcp
ovn-nbctl set Load_Balancer lb1 ip_port_mappings:10.0.0.10=vm1:10.0.0.1 ip_port_mappings:10.0.0.11=vm2:10.0.0.2 ip_port_mappings:10.0.0.12=vm3:10.0.0.1 ip_port_mappings:20.0.0.10=vm4:20.0.0.1
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="192.168.0.10\:80" -- add Load_Balancer lb1 health_check @hc
ovn-nbctl lb-add lb2 192.168.0.20:53 10.0.0.10:53 udp
ovn-nbctl set Load_Balancer lb2 ip_port_mappings:10.0.0.10=vm1:10.0.0.1
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="192.168.0.20\:53" -- add Load_Balancer lb2 health_check @hc
ovn-nbctl lb-add lb6 [fd01::10]:80 [fd00::10]:80 tcp
ovn-nbctl set Load_Balancer lb6 ip_port_mappings:\"[fd00::10]\"=\"vm1:[fd00::1]\"
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="\[fd01\:\:10\]\:80" -- add Load_Balancer lb6 health_check @hc
ovn-nbctl lb-add lb3 192.168.0.30:80 10.0.0.11:81 tcp
ovn-nbctl set Load_Balancer lb3 ip_port_mappings:10.0.0.11=vm2:10.0.0.1
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="192.168.0.30\:80" -- add Load_Balancer lb3 health_check @hc
ovn-nbctl lr-lb-add lr0 lb1 -- lr-lb-add lr0 lb6
ovn-nbctl ls-lb-add sw0 lb1 -- ls-lb-add sw0 lb2 -- ls-lb-add sw0 lb3 -- ls-lb-add sw0 lb6 -- ls-lb-add sw1 lb1
grp=$(ovn-nbctl create Load_Balancer_Group name=grp)
ovn-nbctl add Load_Balancer_Group $grp load_balancer $(ovn-nbctl --bare --columns=_uuid find Load_Balancer name=lb2)
ovn-nbctl add Logical_Router lr0 load_balancer_group $grp
