# lss_interconn_mcast: an interconnection transit switch with IGMP
# snooping punts IGMP/MLD from its remote ports in ls_out_pre_lb; the same
# switch without snooping, and a snooping switch that is no transit
# switch, do not.
ovn-nbctl ls-add ts0 -- set Logical_Switch ts0 other_config:interconn-ts=ts0 other_config:mcast_snoop=true
ovn-nbctl lsp-add ts0 r1 -- lsp-set-type r1 remote -- lsp-set-addresses r1 "00:00:00:00:00:01 169.254.0.1/16"
ovn-nbctl lsp-add ts0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:02 169.254.0.2/16"
ovn-nbctl ls-add ts1 -- set Logical_Switch ts1 other_config:interconn-ts=ts1
ovn-nbctl lsp-add ts1 r2 -- lsp-set-type r2 remote -- lsp-set-addresses r2 "00:00:00:00:00:03 169.254.0.3/16"
ovn-nbctl ls-add sw0 -- set Logical_Switch sw0 other_config:mcast_snoop=true
ovn-nbctl lsp-add sw0 r3 -- lsp-set-type r3 remote -- lsp-set-addresses r3 "00:00:00:00:00:04 10.0.0.4/24"
