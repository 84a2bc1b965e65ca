# dhcp_v6: DHCPv6 options on ports, stateful (ia_addr offered) and
# stateless, with the server's link-local address derived from server_id.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.11 ae70::4"
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "00:00:00:00:00:02 fd00::1:2 ae70::5"
ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 "00:00:00:00:00:03 ae71::3"
d6=$(ovn-nbctl create DHCP_Options cidr="ae70\:\:/64" options='"server_id"="00:00:00:10:00:01" "dns_server"="ae70::1" "domain_search"="ovn.org"')
s6=$(ovn-nbctl create DHCP_Options cidr="ae71\:\:/64" options='"server_id"="00:00:00:10:00:02" "dhcpv6_stateless"="true" "dns_server"="ae71::1"')
ovn-nbctl lsp-set-dhcpv6-options p1 $d6 -- lsp-set-dhcpv6-options p2 $d6 -- lsp-set-dhcpv6-options p3 $s6
