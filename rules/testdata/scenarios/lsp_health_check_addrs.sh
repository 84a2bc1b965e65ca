# releases: 26.03
# lsp_health_check_addrs: a switch port health check's address may be one
# the port got from IPAM (dynamic) or, for a router-type port with
# "router" among its addresses, one of the router port's networks or its
# link-local address; a check on any other address gets neither a monitor
# nor a responder. northd builds the monitors before IPAM, so a check on a
# dynamic address gets only the responder (the take-over test compares the
# Service_Monitor rows). lsp-hc-add reads static addresses only. The
# dynamic ports are added with --wait=sb: taken in one northd run, they
# would get their addresses in the order of its port table, and dyn2's
# static 10.1.0.11 below would then clash with dyn1's.
hc() {
    ovn-nbctl --id=@hc create Logical_Switch_Port_Health_Check protocol=$2 src_ip=\"$3\" address=\"$4\" ${5:+port=$5} \
        -- add Logical_Switch_Port $1 health_checks @hc
}
ovn-nbctl set NB_Global . options:svc_monitor_mac=11:11:11:11:11:11
ovn-nbctl ls-add ls1 -- set Logical_Switch ls1 other_config:subnet=10.1.0.0/24 other_config:exclude_ips=10.1.0.2..10.1.0.9
ovn-nbctl --wait=sb lsp-add ls1 dyn1 -- lsp-set-addresses dyn1 dynamic
hc dyn1 icmp 10.1.0.254 10.1.0.10
hc dyn1 tcp 10.1.0.254 10.1.0.11 80
ovn-nbctl --wait=sb lsp-add ls1 dyn2 -- lsp-set-addresses dyn2 "f0:00:0f:01:02:10 dynamic"
hc dyn2 udp 10.1.0.253 10.1.0.11 53
ovn-nbctl lr-add lr1 -- lrp-add lr1 lrp1 00:00:00:00:ff:01 10.2.0.1/24 fd02::1/64
ovn-nbctl lsp-add ls1 rp1 -- lsp-set-type rp1 router -- lsp-set-addresses rp1 router -- lsp-set-options rp1 router-port=lrp1
hc rp1 icmp 10.2.0.254 10.2.0.1
hc rp1 tcp fd02::ff fd02::1 179
hc rp1 icmp fd02::ff fe80::200:ff:fe00:ff01
hc rp1 icmp 10.2.0.254 10.2.0.2
ovn-nbctl lrp-add lr1 lrp2 00:00:00:00:ff:02 10.3.0.1/24
ovn-nbctl lsp-add ls1 rp2 -- lsp-set-type rp2 router -- lsp-set-addresses rp2 00:00:00:00:ff:02 -- lsp-set-options rp2 router-port=lrp2
hc rp2 icmp 10.3.0.254 10.3.0.1
ovn-nbctl lsp-set-addresses rp2 router
ovn-nbctl lsp-set-addresses dyn2 "f0:00:0f:01:02:10 10.1.0.11"
