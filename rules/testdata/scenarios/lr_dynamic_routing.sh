# releases: 26.03
# lr_dynamic_routing: routers with dynamic routing (options:dynamic-routing)
# and the routes they advertise (SB Advertised_Route) by what each port
# redistributes: r0's default (connected and static) on r0-ls1, connected
# routes as host routes on r0-ls2 (each address on ls2, its own included,
# following its port) and on r0-r1 (the peer router port's addresses), and
# static routes only on its distributed gateway port r0-ext, whose
# chassisredirect binding carries the VRF and port settings. A discard
# route and link-local networks are not advertised. r1 is a gateway router
# with dynamic routing; r2 has a redistribute option without dynamic
# routing and advertises nothing. The flows do not change.
ovn-nbctl lr-add r0 -- set Logical_Router r0 options:dynamic-routing=true \
  options:dynamic-routing-redistribute=connected,static options:dynamic-routing-vrf-name=vrf-r0 \
  options:dynamic-routing-no-learning=true
ovn-nbctl lrp-add r0 r0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd01::1/64
ovn-nbctl lrp-add r0 r0-ls2 00:00:00:00:01:02 10.0.2.1/24 fd02::1/64 -- set Logical_Router_Port r0-ls2 \
  options:dynamic-routing-redistribute=connected-as-host options:dynamic-routing-redistribute-local-only=true
ovn-nbctl lrp-add r0 r0-ext 00:00:00:00:01:03 172.16.0.1/24 169.254.1.1/24 -- lrp-set-gateway-chassis r0-ext hv1 -- \
  set Logical_Router_Port r0-ext options:dynamic-routing-redistribute=static,bogus \
  options:dynamic-routing-maintain-vrf=true options:dynamic-routing-port-name=eth1 options:dynamic-routing-no-learning=false
ovn-nbctl ls-add ls1 -- lsp-add ls1 ls1-r0 -- lsp-set-type ls1-r0 router -- lsp-set-addresses ls1-r0 router -- lsp-set-options ls1-r0 router-port=r0-ls1
ovn-nbctl lsp-add ls1 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:11 10.0.1.11"
ovn-nbctl ls-add ls2 -- lsp-add ls2 ls2-r0 -- lsp-set-type ls2-r0 router -- lsp-set-addresses ls2-r0 router -- lsp-set-options ls2-r0 router-port=r0-ls2
ovn-nbctl lsp-add ls2 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:21 10.0.2.21 fd02::21" "00:00:00:00:00:22 10.0.2.22"
ovn-nbctl lsp-add ls2 vm3 -- lsp-set-addresses vm3 unknown
ovn-nbctl lsp-add ls2 vip -- lsp-set-type vip virtual -- lsp-set-addresses vip "00:00:00:00:00:99 10.0.2.100" -- \
  lsp-set-options vip virtual-ip=10.0.2.100 virtual-parents=vm2
ovn-nbctl ls-add ls-ext -- lsp-add ls-ext ext-r0 -- lsp-set-type ext-r0 router -- lsp-set-addresses ext-r0 router -- lsp-set-options ext-r0 router-port=r0-ext
ovn-nbctl lr-add r1 -- set Logical_Router r1 options:chassis=hv1 options:dynamic-routing=true \
  options:dynamic-routing-redistribute=static options:dynamic-routing-redistribute-local-only=true
ovn-nbctl lrp-add r0 r0-r1 00:00:00:00:01:04 10.255.0.1/30 peer=r1-r0 -- set Logical_Router_Port r0-r1 \
  options:dynamic-routing-redistribute=connected-as-host
ovn-nbctl lrp-add r1 r1-r0 00:00:00:00:02:01 10.255.0.2/30 fd0f::2/64 peer=r0-r1
ovn-nbctl lrp-add r1 r1-up 00:00:00:00:02:02 192.0.2.1/24 -- set Logical_Router_Port r1-up options:dynamic-routing-port-name=up0
ovn-nbctl lr-route-add r0 192.168.0.0/16 172.16.0.254
ovn-nbctl lr-route-add r0 10.10.0.5/24 10.0.1.5
ovn-nbctl lr-route-add r0 10.99.0.0/16 discard
ovn-nbctl lr-route-add r0 fd0a::/64 fd01::5
ovn-nbctl lr-route-add r0 10.20.0.0/24 10.0.2.5
ovn-nbctl --policy=src-ip lr-route-add r0 10.0.1.128/25 10.0.1.6
ovn-nbctl lr-route-add r1 0.0.0.0/0 192.0.2.254
ovn-nbctl lr-route-add r1 10.0.0.0/8 10.255.0.1
ovn-nbctl lr-add r2 -- set Logical_Router r2 options:dynamic-routing-redistribute=connected,static
ovn-nbctl lrp-add r2 r2-a 00:00:00:00:03:01 10.3.0.1/24
ovn-nbctl lr-route-add r2 10.30.0.0/16 10.3.0.9
