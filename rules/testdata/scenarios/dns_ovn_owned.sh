# releases: 26.03
# dns_ovn_owned: DNS options:ovn-owned (26.03), which tells ovn-controller
# that OVN alone answers for the records' domains: northd copies it to the
# SB DNS row as "true" or "false" (false when unset or unreadable), and the
# lookup flows are those of any DNS records. sw0's records are OVN's,
# sw1's say so with a value that is not true, sw2's do not say.
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2
ovn-nbctl lsp-add sw0 vm0 -- lsp-set-addresses vm0 "00:00:00:00:00:01 10.0.0.1"
d=$(ovn-nbctl create DNS records='"vm0.ovn.org"="10.0.0.1"' options:ovn-owned=true)
e=$(ovn-nbctl create DNS records='"vm1.example.org"="10.0.1.1"' options:ovn-owned=yes)
f=$(ovn-nbctl create DNS records='"vm2.example.org"="10.0.2.1 aef0::2"')
ovn-nbctl add Logical_Switch sw0 dns_records $d -- add Logical_Switch sw1 dns_records $e
ovn-nbctl add Logical_Switch sw2 dns_records $f -- add Logical_Switch sw2 dns_records $d
