# One Logical_Switch_Port row listed by two switches: northd binds it to the
# first switch of its datapath walk (buckets of uuid_hash = the UUID's first
# 32 bits, masked by the table size: 4 buckets for 3 datapaths) and skips it
# on the other with "duplicate logical port". swB (bucket 1) comes before swA
# (bucket 2), swA before swC (bucket 3), against UUID order (C, B, A).

# nb OPS...: one NB transaction; fails on an OVSDB error.
nb() {
  local out
  out=$(ovsdb-client transact "$OVN_NB_DB" "[\"OVN_Northbound\",$1]")
  if [[ $out == *'"error"'* ]]; then echo "$out" >&2; return 1; fi
}
nb_switch() { nb "{\"op\":\"insert\",\"table\":\"Logical_Switch\",\"uuid\":\"$2\",\"row\":{\"name\":\"$1\"}}"; }
nb_switch swA 00000006-0000-4000-8000-00000000000a
nb_switch swB 00000005-0000-4000-8000-00000000000b
nb_switch swC 00000003-0000-4000-8000-00000000000c
ovn-nbctl lsp-add swA p1 -- lsp-set-addresses p1 "0a:00:00:00:00:01 10.0.0.1" -- lsp-set-port-security p1 "0a:00:00:00:00:01 10.0.0.1"
dhcp=$(ovn-nbctl create dhcp_options cidr=10.0.0.0/24 \
  options='"lease_time"="3600" "router"="10.0.0.254" "server_id"="10.0.0.254" "server_mac"="0a:00:00:00:00:fe"')
ovn-nbctl lsp-set-dhcpv4-options p1 "$dhcp"
ovn-nbctl lsp-add swB p2 -- lsp-set-addresses p2 "0a:00:00:00:00:02 10.0.0.2 fd00::2"
ovn-nbctl lsp-add swC p3 -- lsp-set-addresses p3 "0a:00:00:00:00:03 10.0.0.3"
ovn-nbctl lsp-add swA a1 -- lsp-set-addresses a1 "0a:00:00:00:00:11 10.0.0.11"
ovn-nbctl lsp-add swC c1 -- lsp-set-addresses c1 unknown
# p1 on swA and swC: swA wins (yet swC, reading its ports column
# directly, lets DHCP replies to p1 through its egress ACLs). p2 on swB and swA: swB wins. p3 on swC and
# swB: swB wins.
ovn-nbctl add logical_switch swC ports "$(ovn-nbctl --bare --columns=_uuid find logical_switch_port name=p1)"
ovn-nbctl add logical_switch swA ports "$(ovn-nbctl --bare --columns=_uuid find logical_switch_port name=p2)"
ovn-nbctl add logical_switch swB ports "$(ovn-nbctl --bare --columns=_uuid find logical_switch_port name=p3)"
