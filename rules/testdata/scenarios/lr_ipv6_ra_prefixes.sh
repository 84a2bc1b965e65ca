# releases: 26.03
# lr_ipv6_ra_prefixes: 26.03's periodic router advertisements announce,
# after the port's own IPv6 networks, the prefixes of its NB ipv6_prefix
# (where northd copies a prefix delegated to the port; set here as it
# would), in the set's order (Port_Binding options:ipv6_ra_prefixes,
# checked by the live take-over tests). lr0-ls1 has two of them, lr0-ls2
# no IPv6 network of its own, and lr0-ls3 sends no periodic
# advertisements: nothing announced.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd00:1::1/64
ovn-nbctl lrp-add lr0 lr0-ls2 00:00:00:00:02:01 10.0.2.1/24
ovn-nbctl lrp-add lr0 lr0-ls3 00:00:00:00:03:01 fd00:3::1/64
for i in 1 2 3; do
  ovn-nbctl ls-add ls$i
  ovn-nbctl lsp-add ls$i ls$i-lr0 -- lsp-set-type ls$i-lr0 router \
    -- lsp-set-options ls$i-lr0 router-port=lr0-ls$i -- lsp-set-addresses ls$i-lr0 router
done
ovn-nbctl set Logical_Router_Port lr0-ls1 ipv6_ra_configs:address_mode=slaac ipv6_ra_configs:send_periodic=true \
  ipv6_prefix='"2001:db8:1::/64","2001:db8::/64"'
ovn-nbctl set Logical_Router_Port lr0-ls2 ipv6_ra_configs:address_mode=dhcpv6_stateless ipv6_ra_configs:send_periodic=true \
  ipv6_prefix='"2001:db8:2::/64"'
ovn-nbctl set Logical_Router_Port lr0-ls3 ipv6_ra_configs:address_mode=slaac ipv6_prefix='"2001:db8:3::/64"'
