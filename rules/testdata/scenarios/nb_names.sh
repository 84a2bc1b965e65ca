# What northd copies from the NB's names and settings into rows: a
# switch's external_ids:neutron:network_name and a router's
# neutron:router_name become their Datapath_Binding's name2 (an empty one
# does not), a switch port's external_ids go to its Port_Binding (with
# neutron:port_name also as name), and NB_Global's ipsec to SB_Global's.
ovn-nbctl ls-add sw0 -- set logical_switch sw0 'external_ids:"neutron:network_name"=net0' external_ids:other=x
ovn-nbctl ls-add sw1 -- set logical_switch sw1 'external_ids:"neutron:network_name"=""'
ovn-nbctl lr-add r0 -- set logical_router r0 'external_ids:"neutron:router_name"=router0'
ovn-nbctl lsp-add sw0 p0 -- lsp-set-addresses p0 "00:00:00:00:00:01 10.0.0.2" \
  -- set logical_switch_port p0 'external_ids:"neutron:port_name"=port0' external_ids:foo=bar
ovn-nbctl lsp-add sw1 p1 -- set logical_switch_port p1 external_ids:foo=baz
ovn-nbctl set nb_global . ipsec=true
