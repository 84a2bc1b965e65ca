# Periodic router advertisements and prefix delegation, which ovn-controller
# reads from Port_Binding options (ipv6_ra_*, ipv6_prefix*): every
# ipv6_ra_configs key, intervals out of range and junk, the defaults, an MTU
# below IPv6's minimum, a disabled port asking for a prefix, a link-local
# network, a router-to-router port (none of it) and send_periodic on an
# invalid address mode.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd00:1::1/64 fd00:11::1/64
ovn-nbctl lrp-add lr0 lr0-ls2 00:00:00:00:02:01 fd00:2::1/64 fe80::2/64
ovn-nbctl lrp-add lr0 lr0-ls3 00:00:00:00:03:01 fd00:3::1/64
ovn-nbctl lrp-add lr0 lr0-ls4 00:00:00:00:04:01 fd00:4::1/64
ovn-nbctl lrp-add lr0 lr0-ls5 00:00:00:00:05:01 10.0.5.1/24
for i in 1 2 3 4 5; do
  ovn-nbctl ls-add ls$i
  ovn-nbctl lsp-add ls$i ls$i-lr0 -- lsp-set-type ls$i-lr0 router \
    -- lsp-set-options ls$i-lr0 router-port=lr0-ls$i -- lsp-set-addresses ls$i-lr0 router
done
ovn-nbctl lr-add lr1
ovn-nbctl lrp-add lr0 lr0-lr1 00:00:00:00:06:01 fd00:6::1/64 peer=lr1-lr0
ovn-nbctl lrp-add lr1 lr1-lr0 00:00:00:00:06:02 fd00:6::2/64 peer=lr0-lr1
ovn-nbctl set Logical_Router_Port lr0-lr1 ipv6_ra_configs:address_mode=slaac ipv6_ra_configs:send_periodic=true \
  options:prefix_delegation=true
ovn-nbctl set Logical_Router_Port lr0-ls1 ipv6_ra_configs:address_mode=dhcpv6_stateful \
  ipv6_ra_configs:send_periodic=true ipv6_ra_configs:max_interval=5000 ipv6_ra_configs:min_interval=1 \
  ipv6_ra_configs:mtu=1400 ipv6_ra_configs:router_preference=HIGH \
  ipv6_ra_configs:rdnss=fd00:1::53 ipv6_ra_configs:dnssl=example.com \
  ipv6_ra_configs:route_info=HIGH-fd00:99::/64 options:prefix_delegation=true options:prefix=true
ovn-nbctl set Logical_Router_Port lr0-ls2 ipv6_ra_configs:address_mode=slaac ipv6_ra_configs:send_periodic=TRUE \
  ipv6_ra_configs:max_interval=6 ipv6_ra_configs:mtu=1000 ipv6_ra_configs:router_preference=bogus
ovn-nbctl set Logical_Router_Port lr0-ls3 ipv6_ra_configs:address_mode=dhcpv6_stateless \
  ipv6_ra_configs:send_periodic=true ipv6_ra_configs:max_interval=junk ipv6_ra_configs:min_interval=500 \
  ipv6_ra_configs:router_preference=LOW enabled=false options:prefix_delegation=true options:prefix=true
ovn-nbctl set Logical_Router_Port lr0-ls4 ipv6_ra_configs:address_mode=bogus ipv6_ra_configs:send_periodic=true \
  options:prefix=true
ovn-nbctl set Logical_Router_Port lr0-ls5 ipv6_ra_configs:address_mode=slaac ipv6_ra_configs:send_periodic=true \
  ipv6_ra_configs:max_interval=2
