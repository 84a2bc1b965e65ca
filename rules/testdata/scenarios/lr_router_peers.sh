# Router-to-router links: two routers joined directly by peer router ports
# (one side with two IPv4 networks), and two more routers on a shared
# transit switch, one of them learning its neighbours dynamically
# (dynamic_neigh_routers) and one whose switch port is disabled.
ovn-nbctl lr-add r1 -- lr-add r2 -- lr-add r3 -- lr-add r4
ovn-nbctl lrp-add r1 r1-r2 00:00:00:00:12:01 172.16.0.1/30 172.16.1.1/30 peer=r2-r1
ovn-nbctl lrp-add r2 r2-r1 00:00:00:00:12:02 172.16.0.2/30 fd12::2/64 peer=r1-r2
ovn-nbctl ls-add transit
for r in r1 r2 r3 r4; do
  n=${r#r}
  ovn-nbctl lrp-add $r $r-transit 00:00:00:00:99:0$n 100.64.0.$n/24 fd99::$n/64
  ovn-nbctl lsp-add transit transit-$r -- lsp-set-type transit-$r router \
    -- lsp-set-options transit-$r router-port=$r-transit -- lsp-set-addresses transit-$r router
done
ovn-nbctl set Logical_Router r3 options:dynamic_neigh_routers=true
ovn-nbctl lsp-set-enabled transit-r4 disabled
