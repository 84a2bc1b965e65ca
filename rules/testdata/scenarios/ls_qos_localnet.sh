# QoS options on switch ports without any chassis: a localnet port counts
# its queues on its own binding, so it gets qdisc_queue_id 1 and set_queue(1)
# flows in ls_in_check_port_sec and ls_out_apply_port_sec; a VIF or vtep
# port gets a queue only once a chassis claims it, so no flow changes; a
# disabled localnet port keeps only its disabled-port flows.
ovn-nbctl ls-add q0
ovn-nbctl lsp-add q0 ln -- lsp-set-type ln localnet -- lsp-set-addresses ln unknown \
  -- lsp-set-options ln network_name=phys qos_max_rate=1000000
ovn-nbctl lsp-add q0 ln2 -- lsp-set-type ln2 localnet -- lsp-set-options ln2 network_name=phys2 qos_burst=100
ovn-nbctl lsp-add q0 ln3 -- lsp-set-type ln3 localnet -- lsp-set-enabled ln3 disabled \
  -- lsp-set-options ln3 network_name=phys3 qos_min_rate=10
ovn-nbctl lsp-add q0 vm -- lsp-set-addresses vm "0a:00:00:00:00:01 10.0.0.1" -- lsp-set-options vm qos_max_rate=1000
ovn-nbctl lsp-add q0 vt -- lsp-set-type vt vtep \
  -- lsp-set-options vt vtep-physical-switch=p vtep-logical-switch=l qos_min_rate=5
