# dhcp_edge: DHCP option edge cases: a cidr written as IP/MASK, a row that
# sets netmask itself (northd adds its own too), a port name that needs
# JSON escaping, and an offer address that is not the port's first.
ovn-nbctl ls-add sw0
d=$(ovn-nbctl create DHCP_Options cidr="10.0.0.0/255.255.0.0" options='"server_id"="10.0.0.1" "server_mac"="c0:ff:ee:00:00:01" "lease_time"="60" "netmask"="255.0.0.0" "wpad"="\"http://wpad\""')
ovn-nbctl lsp-add sw0 'p"q' -- lsp-set-addresses 'p"q' "00:00:00:00:00:01 192.168.0.1 10.0.200.11"
ovn-nbctl set Logical_Switch_Port 'p"q' dhcpv4_options=$d
