# releases: 26.03
# acl_tiers: ACL tiers (NB ACL tier) and the pass action. Each ACL stage
# whose ACLs reach tier N evaluates tiers 0..N in turn: the ACLs match on
# their tier (reg8[30..31]) and the action stage sends what no ACL of a
# tier decided, pass included, back to the eval stage for the next tier.
# sw0 is stateful (allow-related): tiered ACLs of every action in both
# directions and after LB, a logged pass, a labelled allow-related, and a port group
# whose ACLs in tier 3 also apply to sw3. sw1 is stateless with tiered
# pass, allow, drop and reject. sw2 has only tier-0 ACLs, a pass among
# them: its stages stay untiered. sw4 has a load balancer (conntrack
# without stateful ACLs) and pass ACLs in tier 1. NB_Global
# default_acl_drop makes the action stages' default a drop.
ovn-nbctl set NB_Global . options:default_acl_drop=true
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2 -- ls-add sw3 -- ls-add sw4
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw3 vm3 -- lsp-set-addresses vm3 "00:00:00:00:00:03 10.0.3.13"
ovn-nbctl --tier=0 acl-add sw0 from-lport 1000 "ip4.src == 10.0.0.0/24" pass
ovn-nbctl --tier=0 acl-add sw0 from-lport 900 "ip4.src == 10.9.0.0/16" drop
ovn-nbctl --tier=1 --log --name=admin acl-add sw0 from-lport 1000 "tcp.dst == 22" pass
ovn-nbctl --tier=1 acl-add sw0 from-lport 800 "udp" reject
ovn-nbctl --tier=2 --label=77 acl-add sw0 from-lport 1000 "ip4" allow-related
ovn-nbctl --tier=2 acl-add sw0 from-lport 900 "ip6" allow-stateless
ovn-nbctl --tier=1 acl-add sw0 to-lport 1000 "icmp4" allow
ovn-nbctl --tier=0 acl-add sw0 to-lport 1000 "tcp.src == 80" pass
ovn-nbctl --tier=1 --log acl-add sw0 to-lport 500 "tcp" drop
ovn-nbctl --tier=2 --apply-after-lb acl-add sw0 from-lport 1000 "ip4.dst == 10.0.0.100" pass
ovn-nbctl --apply-after-lb acl-add sw0 from-lport 900 "ip4.dst == 10.0.0.101" drop
ovn-nbctl pg-add pg0 vm1 vm3
ovn-nbctl --tier=3 acl-add pg0 to-lport 1000 "outport == @pg0 && ip4" allow-related
ovn-nbctl --tier=3 acl-add pg0 from-lport 1000 "inport == @pg0 && arp" pass
ovn-nbctl --tier=1 acl-add sw1 from-lport 1000 "ip4" pass
ovn-nbctl --tier=0 acl-add sw1 from-lport 1000 "tcp" allow
ovn-nbctl --tier=2 acl-add sw1 from-lport 1000 "udp" drop
ovn-nbctl --tier=3 acl-add sw1 to-lport 1000 "icmp" reject
ovn-nbctl --tier=1 --log --severity=alert acl-add sw1 to-lport 900 "ip6" pass
ovn-nbctl acl-add sw2 from-lport 1000 "ip4" pass
ovn-nbctl acl-add sw2 to-lport 1000 "ip4" allow-related
ovn-nbctl acl-add sw2 to-lport 900 "ip6" drop
ovn-nbctl lb-add lb0 10.0.4.100:80 10.0.4.5:80 tcp
ovn-nbctl ls-lb-add sw4 lb0
ovn-nbctl --tier=1 acl-add sw4 from-lport 1000 "tcp" pass
ovn-nbctl --tier=1 acl-add sw4 to-lport 1000 "udp" pass
ovn-nbctl --tier=0 acl-add sw4 to-lport 900 "ip4" allow
