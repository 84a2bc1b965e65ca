# Kube-OVN "cross-subnet traffic": a router between two switches, one port
# with two IPv4 networks, one with IPv6 only; a third router port is
# disabled and a fourth has a malformed MAC (northd skips it).
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-ls1 00:00:00:00:01:01 10.0.1.1/24
ovn-nbctl lrp-add lr0 lr0-ls2 00:00:00:00:02:01 10.0.2.1/24 10.0.3.1/25 fd00:2::1/64
ovn-nbctl lrp-add lr0 lr0-ls3 00:00:00:00:03:01 fd00:3::1/64
ovn-nbctl lrp-add lr0 lr0-off 00:00:00:00:04:01 10.0.4.1/24 -- set Logical_Router_Port lr0-off enabled=false
ovn-nbctl lrp-add lr0 lr0-bad 00:00:00:00:05:01 10.0.5.1/24 -- set Logical_Router_Port lr0-bad mac='"zz:00"'
for i in 1 2 3; do
  ovn-nbctl ls-add ls$i
  ovn-nbctl lsp-add ls$i ls$i-lr0 -- lsp-set-type ls$i-lr0 router \
    -- lsp-set-options ls$i-lr0 router-port=lr0-ls$i -- lsp-set-addresses ls$i-lr0 router
done
ovn-nbctl lsp-add ls1 vm1 -- lsp-set-addresses vm1 "00:00:00:00:01:10 10.0.1.10"
ovn-nbctl lsp-add ls2 vm2 -- lsp-set-addresses vm2 "00:00:00:00:02:10 10.0.2.10 10.0.3.10 10.0.3.200 fd00:2::10"
ovn-nbctl lsp-add ls3 vm3 -- lsp-set-addresses vm3 "00:00:00:00:03:10 fd00:3::10"
