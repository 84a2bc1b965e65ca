# dhcp_dynamic: DHCPv4 and DHCPv6 for ports with dynamic addresses on a
# switch with IPAM: northd answers for the addresses it allocated, along
# with a port's static entries.
ovn-nbctl ls-add sw0 -- set logical_switch sw0 other_config:subnet=10.0.0.0/24 other_config:ipv6_prefix=fd00:: other_config:exclude_ips=10.0.0.2
d=$(ovn-nbctl create DHCP_Options cidr=10.0.0.0/24 options='"server_id"="10.0.0.1" "server_mac"="c0:ff:ee:00:00:01" "lease_time"="3600"')
d6=$(ovn-nbctl create DHCP_Options cidr="fd00\:\:/64" options='"server_id"="00:00:00:10:00:01"')
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 dynamic
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "0a:00:00:00:00:04 10.0.0.44" "0a:00:00:00:00:05 dynamic"
ovn-nbctl lsp-set-dhcpv4-options p1 $d -- lsp-set-dhcpv6-options p1 $d6 -- lsp-set-dhcpv4-options p2 $d
