# lss_kubeovn_sg: Kube-OVN's security group walk-through: the port group of
# security group "web" allows ingress TCP 22 (allow-related, from anywhere
# and from the ports of the group itself through its associated address
# set) and drops ingress ICMP; Kube-OVN's deny-all port group drops any
# other IP to and from its ports. vm-client is in no group; vm-denied is in
# the deny-all group only.
ovn-nbctl ls-add ovn-default
ovn-nbctl lsp-add ovn-default vm-web -- lsp-set-addresses vm-web "0a:58:0a:10:00:0a 10.16.0.10"
ovn-nbctl lsp-add ovn-default vm-client -- lsp-set-addresses vm-client "0a:58:0a:10:00:14 10.16.0.20"
ovn-nbctl lsp-add ovn-default vm-denied -- lsp-set-addresses vm-denied "0a:58:0a:10:00:1e 10.16.0.30"
ovn-nbctl pg-add ovn.sg.web vm-web -- set Port_Group ovn.sg.web external_ids:sg=web
ovn-nbctl pg-add ovn.sg.kubeovn_deny_all vm-web vm-denied -- set Port_Group ovn.sg.kubeovn_deny_all external_ids:sg=kubeovn_deny_all
ovn-nbctl create Address_Set name=ovn.sg.web.associated.v4 addresses='"10.16.0.10"' external_ids:sg=web
ovn-nbctl acl-add ovn.sg.web to-lport 2299 'outport == @ovn.sg.web && ip4 && ip4.src == 0.0.0.0/0 && tcp.dst == 22' allow-related
ovn-nbctl acl-add ovn.sg.web to-lport 2299 'outport == @ovn.sg.web && ip4 && ip4.src == $ovn.sg.web.associated.v4 && tcp.dst == 22' allow-related
ovn-nbctl acl-add ovn.sg.web to-lport 2298 'outport == @ovn.sg.web && ip4 && ip4.src == 0.0.0.0/0 && icmp4' drop
ovn-nbctl acl-add ovn.sg.kubeovn_deny_all to-lport 2003 'outport == @ovn.sg.kubeovn_deny_all && ip' drop
ovn-nbctl acl-add ovn.sg.kubeovn_deny_all from-lport 2003 'inport == @ovn.sg.kubeovn_deny_all && ip' drop
