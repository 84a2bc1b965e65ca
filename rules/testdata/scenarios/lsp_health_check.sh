# releases: 26.03
# lsp_health_check: health checks on switch ports
# (Logical_Switch_Port_Health_Check): each check whose address is one of
# its port's gets a Service_Monitor (on an enabled port) and an ARP/ND
# responder for its source address with svc_monitor_mac; a check on an
# address the port does not have gets neither.
ovn-nbctl set NB_Global . options:svc_monitor_mac=11:11:11:11:11:11
ovn-nbctl ls-add ls1
ovn-nbctl lsp-add ls1 lport1 -- lsp-set-addresses lport1 "f0:00:0f:01:02:04 192.168.0.10" "f0:00:0f:01:02:06 192.168.0.11 fd00::11"
ovn-nbctl lsp-hc-add lport1 icmp 192.168.0.255 192.168.0.10
ovn-nbctl lsp-hc-add lport1 icmp 192.168.0.255 192.168.0.11
ovn-nbctl lsp-hc-add lport1 tcp 192.168.0.254 80 192.168.0.10
ovn-nbctl lsp-hc-add lport1 udp 192.168.0.253 53 192.168.0.11
ovn-nbctl lsp-hc-add lport1 tcp fd00::ff 8080 fd00::11
ovn-nbctl lsp-add ls1 lport2 -- lsp-set-addresses lport2 "f0:00:0f:01:02:08 192.168.0.12" -- lsp-set-enabled lport2 disabled
ovn-nbctl lsp-hc-add lport2 icmp 192.168.0.251 192.168.0.12
ovn-nbctl ls-add ls2 -- lsp-add ls2 lport3 -- lsp-set-addresses lport3 "f0:00:0f:01:02:0a 10.0.0.3"
ovn-nbctl lsp-hc-add lport3 tcp 10.0.0.254 22 10.0.0.3
hc=$(ovn-nbctl --bare --columns=_uuid find Logical_Switch_Port_Health_Check address=10.0.0.3)
ovn-nbctl set Logical_Switch_Port_Health_Check $hc options:interval=3 options:timeout=30 options:success_count=1 options:failure_count=2
ovn-nbctl lsp-add ls2 lport4 -- lsp-set-addresses lport4 "f0:00:0f:01:02:0c 10.0.0.4" -- lsp-hc-add lport4 icmp 10.0.0.252 10.0.0.4
ovn-nbctl lsp-set-addresses lport4 "f0:00:0f:01:02:0c 10.0.0.40"
