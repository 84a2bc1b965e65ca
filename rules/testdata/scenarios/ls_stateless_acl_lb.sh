# releases: 26.03
# ls_stateless_acl_lb: Logical_Switch other_config:enable-stateless-acl-with-lb.
# On such a switch the load balancers it lists itself (not those of a load
# balancer group) send what stateless ACLs let through to conntrack on the
# way out (ls_out_pre_lb 115) without committing new connections
# (ls_out_stateful 110), and each VIP goes to conntrack in
# ls_in_pre_stateful at 150, and at 105 for a VIP with a port or a load
# balancer with an IPv4 hairpin_snat_ip; the ACLs' 65532 drop no longer
# matches ct.inv. sw0 has stateless and stateful ACLs and two load
# balancers (a duplicate VIP, an IPv6 one, a UDP one with hairpin_snat_ip);
# sw1 has the option and only a load balancer group; sw2 the option set
# false; sw3 the option and no load balancer; sw4 a malformed
# hairpin_snat_ip.
ovn-nbctl ls-add sw0 -- set Logical_Switch sw0 other_config:enable-stateless-acl-with-lb=true
ovn-nbctl lsp-add sw0 sw0-p1 -- lsp-set-addresses sw0-p1 "00:00:00:00:00:02 10.0.0.2"
ovn-nbctl lsp-add sw0 sw0-p2 -- lsp-set-addresses sw0-p2 "00:00:00:00:00:03 10.0.0.3"
ovn-nbctl acl-add sw0 from-lport 1001 ip allow-stateless
ovn-nbctl acl-add sw0 to-lport 1001 ip allow-stateless
ovn-nbctl acl-add sw0 from-lport 1000 ip allow-related
ovn-nbctl acl-add sw0 to-lport 1000 ip allow-related
ovn-nbctl lb-add lb1 10.0.0.4:80 10.0.0.2:80,10.0.0.3:80
ovn-nbctl lb-add lb1 "[fd00::4]:80" "[fd00::2]:80"
ovn-nbctl lb-add lb2 10.0.0.5 10.0.0.2,10.0.0.3
ovn-nbctl lb-add lb2 10.0.0.4:80 10.0.0.3:80
ovn-nbctl lb-add lb3 10.0.0.6:53 10.0.0.2:53 udp -- set Load_Balancer lb3 options:hairpin_snat_ip=10.0.0.9
ovn-nbctl ls-lb-add sw0 lb1 -- ls-lb-add sw0 lb2 -- ls-lb-add sw0 lb3
ovn-nbctl ls-add sw1 -- set Logical_Switch sw1 other_config:enable-stateless-acl-with-lb=true
ovn-nbctl lsp-add sw1 sw1-p1 -- lsp-set-addresses sw1-p1 "00:00:00:00:01:02 10.0.1.2"
ovn-nbctl acl-add sw1 from-lport 1000 ip allow-related
g=$(ovn-nbctl create Load_Balancer_Group name=g1)
ovn-nbctl add Load_Balancer_Group $g load_balancer $(ovn-nbctl --bare --columns=_uuid find Load_Balancer name=lb2)
ovn-nbctl add Logical_Switch sw1 load_balancer_group $g
ovn-nbctl ls-add sw2 -- set Logical_Switch sw2 other_config:enable-stateless-acl-with-lb=false
ovn-nbctl acl-add sw2 from-lport 1000 ip allow-related -- ls-lb-add sw2 lb1
ovn-nbctl ls-add sw3 -- set Logical_Switch sw3 other_config:enable-stateless-acl-with-lb=true
ovn-nbctl acl-add sw3 from-lport 1000 ip allow-related
ovn-nbctl lb-add lb4 10.0.4.4:80 10.0.4.2:80 -- set Load_Balancer lb4 options:hairpin_snat_ip="10.0.4.9 fd00::9"
ovn-nbctl ls-add sw4 -- set Logical_Switch sw4 other_config:enable-stateless-acl-with-lb=true -- ls-lb-add sw4 lb4
