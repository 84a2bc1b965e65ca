# options:qdisc_queue_id set in the NB (suite "Port security lflows"):
# northd copies the options into the Port_Binding and its port-security
# flows read the queue from there: set_queue(N) before check_in_port_sec in
# ls_in_check_port_sec for any port, before the vtep port's jump to the
# hairpin stage, and in ls_out_apply_port_sec for a localnet port. A
# disabled port keeps only its disabled-port flows; the text is copied as
# it is, junk included. A localnet port with QoS options gets queue 1 over
# the NB one.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- lsp-set-addresses p1 "00:00:00:00:00:01" -- lsp-set-options p1 qdisc_queue_id=10
ovn-nbctl lsp-add sw0 p2 -- lsp-set-addresses p2 "00:00:00:00:00:02 10.0.0.4" \
  -- lsp-set-port-security p2 "00:00:00:00:00:02 10.0.0.4" -- lsp-set-options p2 qdisc_queue_id=7
ovn-nbctl lsp-add sw0 ln -- lsp-set-type ln localnet -- lsp-set-addresses ln unknown \
  -- lsp-set-options ln network_name=phys qdisc_queue_id=10
ovn-nbctl lsp-add sw0 vt -- lsp-set-type vt vtep \
  -- lsp-set-options vt vtep-physical-switch=p vtep-logical-switch=l qdisc_queue_id=3
ovn-nbctl lsp-add sw0 off -- lsp-set-enabled off disabled -- lsp-set-options off qdisc_queue_id=4
ovn-nbctl lsp-add sw0 junk -- lsp-set-options junk qdisc_queue_id=abc
ovn-nbctl lsp-add sw0 both -- lsp-set-type both localnet -- lsp-set-options both network_name=phys2 qdisc_queue_id=5 qos_burst=100
