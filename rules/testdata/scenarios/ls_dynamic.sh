# Dynamic addresses: northd allocates them on switches with IPAM
# (other_config:subnet, ipv6_prefix, mac_only) and answers ARP/ND for them;
# on a switch without IPAM a "dynamic" port gets nothing.
ovn-nbctl ls-add sw0 -- set logical_switch sw0 other_config:subnet=10.0.0.0/24 other_config:ipv6_prefix=fd00:: other_config:exclude_ips=10.0.0.2
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 dynamic
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "0a:00:00:00:00:02 dynamic"
ovn-nbctl lsp-add sw0 p3 -- lsp-set-addresses p3 "dynamic 10.0.0.33"
ovn-nbctl lsp-add sw0 p4 -- lsp-set-addresses p4 "0a:00:00:00:00:04 10.0.0.44" dynamic
ovn-nbctl ls-add sw1 -- set logical_switch sw1 other_config:mac_only=true
ovn-nbctl lsp-add sw1 q1 -- lsp-set-addresses q1 dynamic
ovn-nbctl ls-add sw2
ovn-nbctl lsp-add sw2 r1 -- lsp-set-addresses r1 dynamic
ovn-nbctl ls-add sw3 -- set logical_switch sw3 other_config:subnet=10.3.0.0/64
ovn-nbctl lsp-add sw3 s1 -- lsp-set-addresses s1 dynamic
