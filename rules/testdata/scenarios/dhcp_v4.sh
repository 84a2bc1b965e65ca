# dhcp_v4: DHCPv4 options on ports: option text in key order, netmask from
# the cidr, server_mac dropped, the port's options:hostname overriding the
# row's, a port whose address lies outside the cidr (no flows), a port with
# two address entries, a disabled port and a router port (no DHCP flows but
# the ls_out_acl reply flow).
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "00:00:00:00:00:02 192.168.1.2 10.0.0.12" "00:00:00:00:00:22 10.0.0.22 10.0.0.23"
ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 "00:00:00:00:00:03 172.16.0.3"
ovn-nbctl lsp-add sw0 p4 -- lsp-set-addresses p4 "00:00:00:00:00:04 10.0.0.14" -- lsp-set-enabled p4 disabled
ovn-nbctl lsp-add sw0 p5 -- lsp-set-addresses p5 router -- lsp-set-type p5 router
ovn-nbctl lsp-set-options p2 hostname=myhost
d=$(ovn-nbctl create DHCP_Options cidr=10.0.0.0/24 \
  options='"server_id"="10.0.0.1" "server_mac"="c0:ff:ee:00:00:01" "lease_time"="3600" "router"="10.0.0.1" "dns_server"="{8.8.8.8, 1.1.1.1}" "domain_name"="\"ovn.org\"" "mtu"="1442" "hostname"="default"')
for p in p1 p2 p3 p4 p5; do ovn-nbctl lsp-set-dhcpv4-options $p $d; done
