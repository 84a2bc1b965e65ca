# releases: 26.03
# network_functions: ACLs that send their connections through network
# function groups (Network_Function, Network_Function_Group, ACL
# network_function_group, LSP options is-nf and nf-linked-port). The eval
# flows of a stateful allow mark the packet for redirection with its
# group; pre-NF picks the group's active function, NF sends the packet to
# the function's inport (from-lport) or outport (to-lport) and replies the
# other way; ports of the functions are not redirected again and keep
# their tunnel interface in conntrack. sw0 holds the functions' ports,
# used from a port group's from-lport ACL and its own to-lport ACL; sw1
# reaches functions on nf-sw through child ports; a fail-open group whose
# only function is health-checked (no monitor online: unhealthy) lets the
# traffic go on, a fail-close one drops it, and a group with a checked and
# an unchecked function uses the unchecked one. Drop, allow-stateless and
# pass ACLs with a group, and allows on a stateless switch (sw2), get no
# eval flows, but their groups' flows.
ovn-nbctl set NB_Global . options:svc_monitor_ip=169.254.100.1 options:svc_monitor_ip_dst=169.254.100.2
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2 -- ls-add nf-sw
for p in 1 2 3 4; do
  ovn-nbctl lsp-add sw0 sw0-nf-p$p -- set logical_switch_port sw0-nf-p$p \
    options:receive_multicast=false options:lsp_learn_mac=false options:is-nf=true
done
ovn-nbctl set logical_switch_port sw0-nf-p1 options:nf-linked-port=sw0-nf-p2
ovn-nbctl set logical_switch_port sw0-nf-p2 options:nf-linked-port=sw0-nf-p1
ovn-nbctl set logical_switch_port sw0-nf-p3 options:nf-linked-port=sw0-nf-p4
ovn-nbctl set logical_switch_port sw0-nf-p4 options:nf-linked-port=sw0-nf-p3
ovn-nbctl nf-add nf0 101 sw0-nf-p1 sw0-nf-p2
ovn-nbctl nfg-add nfg0 201 inline nf0
ovn-nbctl nf-add nf1 102 sw0-nf-p3 sw0-nf-p4
ovn-nbctl nfg-add nfg1 202 inline nf1
ovn-nbctl lsp-add sw0 sw0-p1 -- lsp-set-addresses sw0-p1 "00:00:00:00:00:01 10.0.0.2"
ovn-nbctl lsp-add sw0 sw0-p2 -- lsp-set-addresses sw0-p2 "00:00:00:00:00:02 10.0.0.3"
ovn-nbctl pg-add pg0 sw0-p1
ovn-nbctl acl-add pg0 from-lport 1002 "inport == @pg0 && ip4.dst == 10.0.0.3" allow-related nfg0
ovn-nbctl --label=7 acl-add sw0 to-lport 1003 "ip4.src == 10.0.0.4" allow-related nfg1
ovn-nbctl acl-add sw0 to-lport 1004 "ip4.src == 10.0.0.5" allow nfg0
ovn-nbctl acl-add sw0 from-lport 900 "udp" drop nfg1
ovn-nbctl acl-add sw0 from-lport 901 "tcp" allow-stateless nfg0
ovn-nbctl acl-add sw0 to-lport 902 "sctp" pass nfg1
for p in 1 2 3 4 5 6; do
  ovn-nbctl lsp-add nf-sw nf-sw-p$p
done
ovn-nbctl lsp-add sw1 child-1 nf-sw-p1 100 -- lsp-add sw1 child-2 nf-sw-p2 100
ovn-nbctl lsp-add sw1 child-3 nf-sw-p3 101 -- lsp-add sw1 child-4 nf-sw-p4 101
ovn-nbctl lsp-add sw1 child-5 nf-sw-p5 102 -- lsp-add sw1 child-6 nf-sw-p6 102
ovn-nbctl lsp-add sw1 sw1-p1 -- lsp-set-addresses sw1-p1 "00:00:00:00:01:01 10.1.0.2"
ovn-nbctl nf-add nf2 2 nf-sw-p1 nf-sw-p2
ovn-nbctl nf-add nf3 3 nf-sw-p3 nf-sw-p4
ovn-nbctl nf-add nf4 4 nf-sw-p5 nf-sw-p6
nf2=$(ovn-nbctl --bare --columns=_uuid find network_function name=nf2)
nf4=$(ovn-nbctl --bare --columns=_uuid find network_function name=nf4)
ovn-nbctl --id=@hc create network_function_health_check name=hc \
  options:interval=5 options:timeout=1 options:success_count=3 options:failure_count=3 -- \
  set network_function $nf2 health_check=@hc -- set network_function $nf4 health_check=@hc
ovn-nbctl nfg-add nfg2 2 inline nf2 nf3
ovn-nbctl nfg-add nfg3 3 inline nf4
ovn-nbctl set network_function_group $(ovn-nbctl --bare --columns=_uuid find network_function_group name=nfg3) fallback=fail-open
ovn-nbctl nfg-add nfg4 4 inline nf4
ovn-nbctl set network_function_group $(ovn-nbctl --bare --columns=_uuid find network_function_group name=nfg4) fallback=fail-close
ovn-nbctl nfg-add nfg5 5 inline
ovn-nbctl acl-add sw1 from-lport 1001 "ip4.dst == 10.1.0.10" allow-related nfg2
ovn-nbctl acl-add sw1 to-lport 1002 "ip4.src == 10.1.0.10" allow-related nfg2
ovn-nbctl acl-add sw1 from-lport 1003 "ip4.dst == 10.1.0.11" allow-related nfg3
ovn-nbctl acl-add sw1 to-lport 1004 "ip4.src == 10.1.0.11" allow-related nfg4
ovn-nbctl acl-add sw1 to-lport 1005 "ip4.src == 10.1.0.12" allow-related nfg5
ovn-nbctl acl-add sw2 from-lport 1001 "ip4" allow nfg0
ovn-nbctl acl-add sw2 to-lport 1001 "ip6" allow
