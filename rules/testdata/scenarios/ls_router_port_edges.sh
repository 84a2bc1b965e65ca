# Router-type switch ports in odd shapes: disabled; with "unknown" too; with
# a static entry beside "router"; two switch ports naming one router port;
# one naming a port of a disabled router; one without options:router-port;
# and a router port with a network northd cannot read.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11"
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24
ovn-nbctl lrp-add lr0 lrp1 00:00:00:00:ff:02 10.0.1.1/24
ovn-nbctl lrp-add lr0 lrp2 00:00:00:00:ff:03 10.0.2.1/24
ovn-nbctl -- --id=@p create logical_router_port name=lrp3 mac='"00:00:00:00:ff:04"' 'networks=["10.0.3.1/24", "10.0.3.300/33"]' -- add logical_router lr0 ports @p
ovn-nbctl lr-add lr1 -- set logical_router lr1 enabled=false
ovn-nbctl lrp-add lr1 lr1p 00:00:00:00:ff:11 10.0.9.1/24
ovn-nbctl lsp-add sw0 r0 -- lsp-set-type r0 router -- lsp-set-addresses r0 router -- lsp-set-options r0 router-port=lrp0 -- lsp-set-enabled r0 disabled
ovn-nbctl lsp-add sw0 r1 -- lsp-set-type r1 router -- lsp-set-addresses r1 router unknown -- lsp-set-options r1 router-port=lrp1
ovn-nbctl lsp-add sw0 r2 -- lsp-set-type r2 router -- lsp-set-addresses r2 router "0a:00:00:00:00:22 10.0.2.22 fd00::22" -- lsp-set-options r2 router-port=lrp2
ovn-nbctl ls-add sw1
ovn-nbctl lsp-add sw1 vm2 -- lsp-set-addresses vm2 "0a:00:00:00:00:02 10.0.1.12"
ovn-nbctl lsp-add sw1 r3 -- lsp-set-type r3 router -- lsp-set-addresses r3 router -- lsp-set-options r3 router-port=lrp2
ovn-nbctl lsp-add sw1 r4 -- lsp-set-type r4 router -- lsp-set-addresses r4 router -- lsp-set-options r4 router-port=lr1p
ovn-nbctl lsp-add sw1 r5 -- lsp-set-type r5 router -- lsp-set-addresses r5 router
ovn-nbctl lsp-add sw1 r6 -- lsp-set-type r6 router -- lsp-set-addresses r6 router -- lsp-set-options r6 router-port=lrp3
