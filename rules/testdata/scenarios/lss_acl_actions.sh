# lss_acl_actions: every ACL action on a stateful switch (sw0: allow,
# allow-related with a label, allow-stateless, drop, reject, and one
# applied after LB), with logging (name, severity, a plain and a fair
# meter, log-related); and on a stateless switch (sw1: allow, drop, reject,
# allow-stateless), and on a switch whose conntrack use comes from a load
# balancer VIP (sw2: allow-stateless gets its pre-ACL stateless filter).
ovn-nbctl meter-add m-plain drop 10 pktps
ovn-nbctl meter-add m-fair drop 10 pktps -- set Meter m-fair fair=true
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2
ovn-nbctl --label=1234 --log --name=web --severity=warning --meter=m-plain acl-add sw0 to-lport 1002 "ip4 && tcp.dst == 80" allow-related
ovn-nbctl --log acl-add sw0 from-lport 1003 "ip4 && udp.dst == 53" allow
ovn-nbctl acl-add sw0 from-lport 1004 "ip6" allow-stateless
ovn-nbctl --log --meter=m-fair acl-add sw0 from-lport 900 "ip4.src == 10.0.0.9" drop
ovn-nbctl --log --severity=alert acl-add sw0 to-lport 800 "tcp.dst == 23" reject
ovn-nbctl --apply-after-lb acl-add sw0 from-lport 700 "ip4.dst == 10.0.0.100" drop
a=$(ovn-nbctl --bare --columns=_uuid find ACL priority=1002)
ovn-nbctl set ACL $a options:log-related=true
ovn-nbctl acl-add sw1 from-lport 1002 "ip4" allow
ovn-nbctl acl-add sw1 to-lport 1001 "icmp4" drop
ovn-nbctl --log acl-add sw1 from-lport 1000 "tcp" reject
ovn-nbctl acl-add sw1 to-lport 999 "udp" allow-stateless
ovn-nbctl lb-add lb0 10.0.2.100:80 10.0.2.5:80 tcp
ovn-nbctl ls-lb-add sw2 lb0
ovn-nbctl acl-add sw2 from-lport 1002 "ip4 && tcp.dst == 8080" allow-stateless
ovn-nbctl acl-add sw2 to-lport 1002 "ip4 && tcp.src == 8080" allow-stateless
