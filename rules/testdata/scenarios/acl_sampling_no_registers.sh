# releases: 26.03
# acl_sampling_no_registers: a chassis that cannot take a sample's
# observation point from a register (other_config
# ovn-sample-with-registers=false): samples with one collector are
# sampled by flows of their own observation point, as samples with
# several are, not by flows of the collector.
ovn-sbctl chassis-add gw1 geneve 127.0.0.1 -- set chassis gw1 other_config:ovn-sample-with-registers=false
c1=$(ovn-nbctl create Sample_Collector id=1 name=c1 probability=65535 set_id=100)
c2=$(ovn-nbctl create Sample_Collector id=2 name=c2 probability=1000 set_id=200)
ovn-nbctl create Sampling_App type=acl-new id=42
ovn-nbctl create Sampling_App type=acl-est id=43
ovn-nbctl ls-add sw0 -- lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl ls-add sw1 -- lsp-add sw1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.1.12"
ovn-nbctl --id=@n create Sample collectors="$c1" metadata=1 -- \
  --id=@e create Sample collectors="$c2" metadata=2 -- \
  --sample-new=@n --sample-est=@e acl-add sw0 from-lport 1000 "tcp" allow-related
ovn-nbctl --id=@n create Sample collectors="$c1" metadata=3 -- \
  --id=@e create Sample collectors="$c1 $c2" metadata=4 -- \
  --sample-new=@n --sample-est=@e acl-add sw0 to-lport 1000 "udp" drop
ovn-nbctl --id=@n create Sample collectors="$c2" metadata=5 -- \
  --sample-new=@n acl-add sw1 from-lport 1000 "ip4" allow
