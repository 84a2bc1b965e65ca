# dns_records: DNS lookup and response on switches with DNS records: sw0
# has a record set, sw1 only an empty DNS row (no DNS flows), sw2 has
# records and a stateful ACL (the ls_out_acl reply flow commits).
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2
d=$(ovn-nbctl create DNS records='"vm1.ovn.org"="10.0.0.4 aef0::4" "vm2.ovn.org"="10.0.0.5"')
e=$(ovn-nbctl create DNS records={})
ovn-nbctl add Logical_Switch sw0 dns_records $d
ovn-nbctl add Logical_Switch sw1 dns_records $e
ovn-nbctl add Logical_Switch sw2 dns_records $d
ovn-nbctl acl-add sw2 from-lport 1001 "ip4" allow-related
