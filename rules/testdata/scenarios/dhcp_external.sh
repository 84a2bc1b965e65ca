# dhcp_external: an external port with an HA chassis group gets its DHCP
# requests answered through each localnet port of its switch, on the
# chassis that binds it; without an HA chassis group, or on a switch
# without a localnet port, it gets none. No ls_out_acl DHCP reply flow for
# external ports.
ovn-nbctl ha-chassis-group-add hagrp -- ha-chassis-group-add-chassis hagrp hv1 10
g=$(ovn-nbctl --bare --columns=_uuid find HA_Chassis_Group name=hagrp)
d=$(ovn-nbctl create DHCP_Options cidr=10.0.0.0/24 options='"server_id"="10.0.0.1" "server_mac"="c0:ff:ee:00:00:01" "lease_time"="3600" "router"="10.0.0.1"')
d6=$(ovn-nbctl create DHCP_Options cidr="ae70\:\:/64" options='"server_id"="00:00:00:10:00:01"')
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 ln0 -- lsp-set-type ln0 localnet -- lsp-set-addresses ln0 unknown -- lsp-set-options ln0 network_name=phys
ovn-nbctl lsp-add sw0 ln1 -- lsp-set-type ln1 localnet -- lsp-set-addresses ln1 unknown -- lsp-set-options ln1 network_name=phys2
ovn-nbctl lsp-add sw0 ext1 -- lsp-set-type ext1 external -- lsp-set-addresses ext1 "00:00:00:00:00:11 10.0.0.11 ae70::11"
ovn-nbctl set Logical_Switch_Port ext1 ha_chassis_group=$g dhcpv4_options=$d dhcpv6_options=$d6
ovn-nbctl lsp-add sw0 ext2 -- lsp-set-type ext2 external -- lsp-set-addresses ext2 "00:00:00:00:00:12 10.0.0.12"
ovn-nbctl set Logical_Switch_Port ext2 dhcpv4_options=$d
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 ext3 -- lsp-set-type ext3 external -- lsp-set-addresses ext3 "00:00:00:00:00:13 10.0.0.13"
ovn-nbctl set Logical_Switch_Port ext3 ha_chassis_group=$g dhcpv4_options=$d
