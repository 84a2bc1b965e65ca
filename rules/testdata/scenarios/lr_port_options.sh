# Router and router port options: always_learn_from_arp_request=false,
# mcast_relay, IPv6 router advertisements (ipv6_ra_configs with every
# option, and an invalid address mode, which northd logs and ignores), and
# a gateway_mtu on ports behind a VLAN-tagged localnet switch and a plain
# one, one with gateway_mtu_bypass, whose localnet port's tag_request=0
# counts as a VLAN tag in 23.03 but not in 26.03.
ovn-nbctl lr-add lr0 -- set Logical_Router lr0 options:always_learn_from_arp_request=false options:mcast_relay=true
ovn-nbctl lrp-add lr0 lr0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd00:1::1/64 fd00:11::1/64
ovn-nbctl lrp-add lr0 lr0-ls2 00:00:00:00:02:01 10.0.2.1/24 fd00:2::1/64
ovn-nbctl lrp-add lr0 lr0-ls3 00:00:00:00:03:01 10.0.3.1/24
ovn-nbctl lrp-add lr0 lr0-ls4 00:00:00:00:04:01 fd00:4::1/64
for i in 1 2 3 4; do
  ovn-nbctl ls-add ls$i
  ovn-nbctl lsp-add ls$i ls$i-lr0 -- lsp-set-type ls$i-lr0 router \
    -- lsp-set-options ls$i-lr0 router-port=lr0-ls$i -- lsp-set-addresses ls$i-lr0 router
done
ovn-nbctl set Logical_Router_Port lr0-ls1 ipv6_ra_configs:address_mode=dhcpv6_stateful \
  ipv6_ra_configs:mtu=1400 ipv6_ra_configs:router_preference=HIGH \
  ipv6_ra_configs:rdnss=fd00:1::53 ipv6_ra_configs:dnssl=example.com \
  ipv6_ra_configs:route_info=HIGH-fd00:99::/64
ovn-nbctl set Logical_Router_Port lr0-ls2 ipv6_ra_configs:address_mode=slaac ipv6_ra_configs:mtu=1000
ovn-nbctl set Logical_Router_Port lr0-ls3 ipv6_ra_configs:address_mode=slaac
ovn-nbctl set Logical_Router_Port lr0-ls4 ipv6_ra_configs:address_mode=bogus
ovn-nbctl lsp-add ls1 ln1 -- lsp-set-type ln1 localnet -- lsp-set-addresses ln1 unknown \
  -- lsp-set-options ln1 network_name=phys -- set Logical_Switch_Port ln1 tag_request=100
ovn-nbctl lsp-add ls2 ln2 -- lsp-set-type ln2 localnet -- lsp-set-addresses ln2 unknown \
  -- lsp-set-options ln2 network_name=phys -- set Logical_Switch_Port ln2 tag_request=0
ovn-nbctl set Logical_Router_Port lr0-ls1 options:gateway_mtu=1500
ovn-nbctl set Logical_Router_Port lr0-ls2 options:gateway_mtu=1400 'options:gateway_mtu_bypass="tcp"'
ovn-nbctl set Logical_Router_Port lr0-ls4 options:gateway_mtu=bad
