# IP multicast: snooping off, on, on with flood_unregistered, with a port
# flooding multicast statically, and with a router relaying multicast.
ovn-nbctl ls-add sw0
ovn-nbctl ls-add sw1 -- set logical_switch sw1 other_config:mcast_snoop=true
ovn-nbctl ls-add sw2 -- set logical_switch sw2 other_config:mcast_snoop=true other_config:mcast_flood_unregistered=true
ovn-nbctl ls-add sw3 -- set logical_switch sw3 other_config:mcast_snoop=true
ovn-nbctl lsp-add sw3 p3 -- lsp-set-addresses p3 "0a:00:00:00:00:03" -- lsp-set-options p3 mcast_flood=true
ovn-nbctl ls-add sw4 -- set logical_switch sw4 other_config:mcast_snoop=true
ovn-nbctl lr-add lr0 -- set logical_router lr0 options:mcast_relay=true
ovn-nbctl lrp-add lr0 lr0-sw4 00:00:00:00:ff:04 10.0.4.1/24
ovn-nbctl lsp-add sw4 sw4-lr0 -- lsp-set-type sw4-lr0 router -- lsp-set-addresses sw4-lr0 router -- lsp-set-options sw4-lr0 router-port=lr0-sw4
ovn-nbctl lsp-add sw4 p4 -- lsp-set-addresses p4 "0a:00:00:00:00:04" -- lsp-set-options p4 mcast_flood=true
