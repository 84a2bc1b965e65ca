# debug_drop: NB_Global options:debug_drop_collector_set and
# debug_drop_domain_id turn every drop into a sample action, the "drop;"
# statements of switches and routers (port security, L2 lookup of a
# disabled port, router policies, discard routes, load balancers without
# backends) and the ACLs' implicit "/* drop */", stateful or not.
ovn-nbctl set NB_Global . options:debug_drop_collector_set=123 options:debug_drop_domain_id=1
ovn-nbctl ls-add sw0 -- ls-add sw1
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11" -- lsp-set-port-security vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw0 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.0.12" -- lsp-set-enabled vm2 disabled
ovn-nbctl lsp-add sw1 vm3 -- lsp-set-addresses vm3 "00:00:00:00:00:03 10.0.1.13"
ovn-nbctl acl-add sw0 from-lport 1001 "ip4 && tcp.dst == 23" drop
ovn-nbctl acl-add sw1 from-lport 1002 "ip4 && tcp.dst == 22" allow-related -- acl-add sw1 to-lport 1001 "ip4 && udp" drop
ovn-nbctl lr-add lr0 -- lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24 -- lrp-add lr0 lrp1 00:00:00:00:ff:02 10.0.1.1/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
ovn-nbctl lr-policy-add lr0 100 "ip4.src == 10.0.0.66" drop
ovn-nbctl lr-route-add lr0 192.168.0.0/16 discard
ovn-nbctl create Load_Balancer name=lbdrop protocol=tcp vips:\"10.0.0.32:80\"=\"\" >/dev/null
ovn-nbctl ls-lb-add sw0 lbdrop -- lr-lb-add lr0 lbdrop
