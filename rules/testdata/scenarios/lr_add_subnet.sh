# Kube-OVN "add a subnet": a router with one switch behind it; the router
# port is dual-stack and the switch has two VMs, one with an address outside
# the router's networks (no static ARP entry for it) and one disabled.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd00:1::1/64
ovn-nbctl ls-add ls1
ovn-nbctl lsp-add ls1 ls1-lr0 -- lsp-set-type ls1-lr0 router \
  -- lsp-set-options ls1-lr0 router-port=lr0-ls1 -- lsp-set-addresses ls1-lr0 router
ovn-nbctl lsp-add ls1 vm1 -- lsp-set-addresses vm1 "00:00:00:00:01:10 10.0.1.10 fd00:1::10"
ovn-nbctl lsp-add ls1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:01:11 10.0.1.11 192.168.0.5" "00:00:00:00:01:12 fd00:1::12"
ovn-nbctl lsp-add ls1 vm3 -- lsp-set-addresses vm3 "00:00:00:00:01:13 10.0.1.13" -- lsp-set-enabled vm3 disabled
ovn-nbctl lsp-add ls1 vm4 -- lsp-set-addresses vm4 unknown dynamic "00:00:00:00:01:14"
