# dhcp_bad_cidr: DHCP_Options whose cidr does not parse (IPv4 and IPv6):
# no ls_in_dhcp_options/response flows for the ports using them, but the
# ls_out_acl DHCP reply flows, which do not read the cidr, are still there.
# Also options missing lease_time (no flows at all) and a DHCPv6 server_id
# that is not a MAC (none either).
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.11 ae70::4"
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "00:00:00:00:00:02 10.0.0.12 ae70::5"
ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 "00:00:00:00:00:03 10.0.0.13 ae70::6"
bad4=$(ovn-nbctl create DHCP_Options cidr=10.0.0.0/33 options='"server_id"="10.0.0.1" "server_mac"="c0:ff:ee:00:00:01" "lease_time"="3600"')
bad6=$(ovn-nbctl create DHCP_Options cidr="ae70\:\:/64x" options='"server_id"="00:00:00:10:00:01"')
nolease=$(ovn-nbctl create DHCP_Options cidr=10.0.0.0/24 options='"server_id"="10.0.0.1" "server_mac"="c0:ff:ee:00:00:01"')
notmac=$(ovn-nbctl create DHCP_Options cidr="ae70\:\:/64" options='"server_id"="10.0.0.1"')
# ovn-nbctl lsp-set-dhcpv4-options refuses a bad cidr: set the columns.
ovn-nbctl set Logical_Switch_Port p1 dhcpv4_options=$bad4 dhcpv6_options=$bad6
ovn-nbctl set Logical_Switch_Port p2 dhcpv4_options=$nolease dhcpv6_options=$notmac
ovn-nbctl set Logical_Switch_Port p3 dhcpv4_options=$bad4
