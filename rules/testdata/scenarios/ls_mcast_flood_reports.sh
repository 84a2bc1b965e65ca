# IGMP/MLD reports flooded to ports with options:mcast_flood_reports (the
# _MC_mrouter_flood group), on a snooping switch and on one that does not
# snoop, beside a port flooding all multicast (mcast_flood) and a router
# port with mcast_flood, which floods reports too.
ovn-nbctl ls-add sw0 -- set logical_switch sw0 other_config:mcast_snoop=true
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "0a:00:00:00:00:01" -- lsp-set-options p1 mcast_flood_reports=true
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "0a:00:00:00:00:02" -- lsp-set-options p2 mcast_flood=true mcast_flood_reports=true
ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 "0a:00:00:00:00:03"
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 q1 -- lsp-set-addresses q1 "0a:00:00:00:01:01" -- lsp-set-options q1 mcast_flood_reports=true
ovn-nbctl lr-add lr0 -- set logical_router lr0 options:mcast_relay=true
ovn-nbctl lrp-add lr0 lr0-sw0 00:00:00:00:ff:01 10.0.0.1/24 -- set logical_router_port lr0-sw0 options:mcast_flood=true
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0
