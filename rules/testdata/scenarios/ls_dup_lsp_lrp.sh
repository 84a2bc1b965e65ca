# A switch port and a router port with the same name (names are unique
# within each table only), and a router port listed by two routers: the
# datapath northd's walk meets first binds the name; the other claim is
# skipped ("duplicate logical port" or "duplicate logical router port").
# Eight datapaths make 8 uuid_hash buckets: s1 (bucket 1), lr (4), s2 (6),
# lr2 (7); the fillers claim nothing. A router port with an unreadable MAC
# claims nothing either, and a router-type switch port naming a router port
# that lost has no peer.
# nb OPS...: one NB transaction; fails on an OVSDB error.
nb() {
  local out
  out=$(ovsdb-client transact "$OVN_NB_DB" "[\"OVN_Northbound\",$1]")
  if [[ $out == *'"error"'* ]]; then echo "$out" >&2; return 1; fi
}
dp() { nb "{\"op\":\"insert\",\"table\":\"$1\",\"uuid\":\"$3\",\"row\":{\"name\":\"$2\"}}"; }
dp Logical_Switch s1 00000011-0000-4000-8000-000000000001
dp Logical_Router lr 0000000c-0000-4000-8000-000000000002
dp Logical_Switch s2 0000000e-0000-4000-8000-000000000003
dp Logical_Router lr2 00000007-0000-4000-8000-000000000004
for i in 1 2 3 4; do dp Logical_Switch f$i 0000000$i-0000-4000-8000-0000000000f$i; done
# x1: s1 before lr, the switch port wins. x2: lr before s2, the router port
# wins. x3: the router port has a bad MAC, the switch port on s2 wins.
ovn-nbctl lsp-add s1 x1 -- lsp-set-addresses x1 "0a:00:00:00:01:01 10.0.1.1"
ovn-nbctl lrp-add lr x1 00:00:00:00:0f:01 10.0.1.254/24
ovn-nbctl lrp-add lr x2 00:00:00:00:0f:02 10.0.2.254/24 fd00:2::fe/64
ovn-nbctl lsp-add s2 x2 -- lsp-set-addresses x2 "0a:00:00:00:02:02 10.0.2.2"
ovn-nbctl lrp-add lr x3 00:00:00:00:0f:03 10.0.3.254/24 -- set logical_router_port x3 mac='"00:00:zz"'
ovn-nbctl lsp-add s2 x3 -- lsp-set-addresses x3 "0a:00:00:00:03:03 10.0.3.3"
ovn-nbctl lsp-add s2 s2-x1 -- lsp-set-type s2-x1 router -- lsp-set-addresses s2-x1 router \
  -- lsp-set-options s2-x1 router-port=x1
ovn-nbctl lsp-add s2 s2-x2 -- lsp-set-type s2-x2 router -- lsp-set-addresses s2-x2 router \
  -- lsp-set-options s2-x2 router-port=x2
# x4 on lr and lr2: lr wins.
ovn-nbctl lrp-add lr x4 00:00:00:00:0f:04 10.0.4.254/24
ovn-nbctl lrp-add lr2 r2 00:00:00:00:0e:01 10.1.0.1/24
ovn-nbctl add logical_router lr2 ports "$(ovn-nbctl --bare --columns=_uuid find logical_router_port name=x4)"
