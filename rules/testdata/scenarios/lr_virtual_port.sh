# A virtual switch port (virtual-ip, virtual-parents) behind a router: its
# virtual IP resolves to the zero MAC until a parent claims it.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-ls1 00:00:00:00:01:01 10.0.1.1/24 fd00:1::1/64
ovn-nbctl ls-add ls1
ovn-nbctl lsp-add ls1 ls1-lr0 -- lsp-set-type ls1-lr0 router \
  -- lsp-set-options ls1-lr0 router-port=lr0-ls1 -- lsp-set-addresses ls1-lr0 router
ovn-nbctl lsp-add ls1 vm1 -- lsp-set-addresses vm1 "00:00:00:00:01:10 10.0.1.10"
ovn-nbctl lsp-add ls1 vip -- lsp-set-type vip virtual -- lsp-set-addresses vip "00:00:00:00:01:99 10.0.1.99" \
  -- lsp-set-options vip virtual-ip=10.0.1.100 virtual-parents=vm1
ovn-nbctl lsp-add ls1 vip6 -- lsp-set-type vip6 virtual \
  -- lsp-set-options vip6 virtual-ip=fd00:1::100 virtual-parents=vm1
ovn-nbctl lsp-add ls1 vip-out -- lsp-set-type vip-out virtual \
  -- lsp-set-options vip-out virtual-ip=192.168.0.100 virtual-parents=vm1
