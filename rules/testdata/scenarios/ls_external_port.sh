# External ports: on a switch with localnet ports, ARP requests and neighbour
# solicitations for the router ports' addresses (their IPv6 link-local ones
# too), and traffic to their MACs, from an external port's MACs through each
# localnet port are dropped on chassis that do not bind the external port,
# HA chassis group or not. A router port without "router" addresses adds
# nothing, its explicit address entries do; a switch without localnet ports
# gets no such flows.
ovn-nbctl ha-chassis-group-add hagrp -- ha-chassis-group-add-chassis hagrp hv1 10
g=$(ovn-nbctl --bare --columns=_uuid find HA_Chassis_Group name=hagrp)
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24 aef0::1/64
ovn-nbctl lrp-add lr0 lrp1 00:00:00:00:ff:02 20.0.0.1/24
ovn-nbctl lrp-add lr0 lrp2 00:00:00:00:ff:03 30.0.0.1/24
ovn-nbctl lrp-add lr0 lrp3 00:00:00:00:ff:04 40.0.0.1/24
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 ln0 -- lsp-set-type ln0 localnet -- lsp-set-addresses ln0 unknown -- lsp-set-options ln0 network_name=phys
ovn-nbctl lsp-add sw0 ln1 -- lsp-set-type ln1 localnet -- lsp-set-addresses ln1 unknown -- lsp-set-options ln1 network_name=phys2
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
ovn-nbctl lsp-add sw0 sw0-lr0b -- lsp-set-type sw0-lr0b router -- lsp-set-addresses sw0-lr0b "00:00:00:00:ff:12 20.0.0.2" router -- lsp-set-options sw0-lr0b router-port=lrp1
ovn-nbctl lsp-add sw0 sw0-lr0c -- lsp-set-type sw0-lr0c router -- lsp-set-options sw0-lr0c router-port=lrp2
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.5"
ovn-nbctl lsp-add sw0 ext1 -- lsp-set-type ext1 external -- lsp-set-addresses ext1 "00:00:00:00:00:11 10.0.0.11 aef0::11" "00:00:00:00:00:21 10.0.0.21"
ovn-nbctl set Logical_Switch_Port ext1 ha_chassis_group=$g
ovn-nbctl lsp-add sw0 ext2 -- lsp-set-type ext2 external -- lsp-set-addresses ext2 "00:00:00:00:00:12"
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 sw1-lr0 -- lsp-set-type sw1-lr0 router -- lsp-set-addresses sw1-lr0 router -- lsp-set-options sw1-lr0 router-port=lrp3
ovn-nbctl lsp-add sw1 ext4 -- lsp-set-type ext4 external -- lsp-set-addresses ext4 "00:00:00:00:00:14 40.0.0.14"
ovn-nbctl set Logical_Switch_Port ext4 ha_chassis_group=$g
