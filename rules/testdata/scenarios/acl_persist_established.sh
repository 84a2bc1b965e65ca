# releases: 26.03
# acl_persist_established: ACL options:persist-established. Each
# allow-related ACL with it, used or not, gets an SB ACL_ID (en-acl-ids.c),
# and its new-connection flow writes that id and the persist bit
# (reg2[16..31], reg0[20]) for the stateful stage to commit; ids are
# compared as the ACLs they belong to. sw0 has such ACLs in all three ACL
# stages, one labelled and sampled, one tiered, beside an allow with the
# option (no id: not allow-related) and an allow-related without it. A
# port group's persisting ACL applies to sw0 and sw1. Each ACL gets its
# option with --wait=sb: ACLs that gain it in one northd iteration get
# their ids in the order of the reference's NB table (a hash of UUIDs
# that differ between two NBs), so only one at a time gives both sides
# the same ids.
ovn-nbctl create Sampling_App type=acl-new id=42
c1=$(ovn-nbctl create Sample_Collector id=1 name=c1 probability=65535 set_id=100)
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.1.12"
ovn-nbctl --wait=sb acl-add sw0 from-lport 1000 "ip4.src == 10.0.0.0/24" allow-related
ovn-nbctl --wait=sb --label=7 --log --name=web acl-add sw0 to-lport 1000 "tcp.dst == 80" allow-related
ovn-nbctl --wait=sb --apply-after-lb acl-add sw0 from-lport 900 "udp" allow-related
ovn-nbctl --wait=sb --tier=1 acl-add sw0 to-lport 800 "icmp4" allow-related
ovn-nbctl --wait=sb acl-add sw0 from-lport 700 "ip6" allow
ovn-nbctl --wait=sb acl-add sw0 to-lport 700 "ip6" allow-related
ovn-nbctl pg-add pg0 vm1 vm2
ovn-nbctl --wait=sb acl-add pg0 to-lport 600 "outport == @pg0 && tcp" allow-related
for m in "ip4.src == 10.0.0.0/24" "tcp.dst == 80" "udp" "icmp4" "outport == @pg0 && tcp"; do
  ovn-nbctl --wait=sb set ACL "$(ovn-nbctl --bare --columns=_uuid find ACL "match=\"$m\"")" options:persist-established=true
done
ovn-nbctl set ACL "$(ovn-nbctl --bare --columns=_uuid find ACL match=ip6 action=allow)" options:persist-established=true
s=$(ovn-nbctl --bare --columns=_uuid find ACL 'match="tcp.dst == 80"')
ovn-nbctl --id=@n create Sample collectors="$c1" metadata=4301 -- set ACL "$s" sample_new=@n
ovn-nbctl --wait=sb sync
