# releases: 26.03
# acl_sampling: ACL sampling (ACL sample_new/sample_est, Sample,
# Sample_Collector, Sampling_App acl-new and acl-est). Eval flows record
# each sampled ACL's observation points (its label, else the samples'
# metadata), the collector of a sample that has one only, and the stage;
# the sample stages sample new connections in the ACL's direction and, for
# stateful ACLs on a switch with allow-related ACLs, established ones in
# both directions. Samples with one collector share that collector's
# flows; others (none or several collectors) have flows of their own.
# sw0 has allow-related ACLs in all three stages, a labelled one, a drop
# and a reject with both samples, a pass and an allow-stateless with new
# samples, a sample without collectors, and a port group's sampled ACL
# that also applies to sw3. sw1 is stateless (an allow's established
# sample is not used); sw2 has a load balancer and no stateful ACL.
c1=$(ovn-nbctl create Sample_Collector id=1 name=c1 probability=65535 set_id=100)
c2=$(ovn-nbctl create Sample_Collector id=2 name=c2 probability=1000 set_id=200)
c3=$(ovn-nbctl create Sample_Collector id=3 name=c3 probability=0 set_id=300)
ovn-nbctl create Sampling_App type=acl-new id=42
ovn-nbctl create Sampling_App type=acl-est id=43
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2 -- ls-add sw3
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw3 vm3 -- lsp-set-addresses vm3 "00:00:00:00:00:03 10.0.3.13"
ovn-nbctl --id=@n create Sample collectors="$c1 $c2" metadata=4301 -- \
  --id=@e create Sample collectors="$c1 $c2" metadata=4302 -- \
  --sample-new=@n --sample-est=@e acl-add sw0 from-lport 1000 "ip4.src == 10.0.0.0/24" allow-related
ovn-nbctl --id=@n create Sample collectors="$c1" metadata=4303 -- \
  --id=@e create Sample collectors="$c2" metadata=4304 -- \
  --sample-new=@n --sample-est=@e acl-add sw0 from-lport 900 "tcp" allow-related
ovn-nbctl --id=@n create Sample collectors="$c1" metadata=4305 -- \
  --sample-new=@n acl-add sw0 to-lport 1000 "udp" allow
ovn-nbctl --id=@n create Sample collectors="$c2 $c3" metadata=4306 -- \
  --id=@e create Sample collectors="$c3 $c1" metadata=4307 -- \
  --sample-new=@n --sample-est=@e acl-add sw0 to-lport 900 "icmp4" drop
ovn-nbctl --id=@n create Sample collectors="$c3" metadata=4308 -- \
  --id=@e create Sample collectors="$c3" metadata=4309 -- \
  --sample-new=@n --sample-est=@e acl-add sw0 from-lport 800 "udp.dst == 53" reject
ovn-nbctl --id=@n create Sample collectors="$c2" metadata=4310 -- \
  --sample-new=@n acl-add sw0 from-lport 700 "ip6" allow-stateless
ovn-nbctl --id=@n create Sample metadata=4311 -- \
  --sample-new=@n acl-add sw0 to-lport 700 "ip6" pass
ovn-nbctl --id=@n create Sample collectors="$c1 $c2 $c3" metadata=4312 -- \
  --id=@e create Sample collectors="$c2" metadata=4313 -- \
  --apply-after-lb --label=99 --sample-new=@n --sample-est=@e acl-add sw0 from-lport 1000 "ip4.dst == 10.0.0.100" allow-related
ovn-nbctl --id=@e create Sample collectors="$c1 $c3" metadata=4314 -- \
  --apply-after-lb --sample-est=@e acl-add sw0 from-lport 900 "ip4.dst == 10.0.0.101" allow-related
ovn-nbctl --id=@e create Sample collectors="$c2" metadata=4315 -- \
  --log --sample-est=@e acl-add sw0 to-lport 600 "tcp.dst == 22" allow-related
ovn-nbctl pg-add pg0 vm1 vm3
ovn-nbctl --id=@n create Sample collectors="$c1" metadata=4316 -- \
  --id=@e create Sample collectors="$c1" metadata=4317 -- \
  --sample-new=@n --sample-est=@e acl-add pg0 to-lport 1000 "outport == @pg0 && ip4" allow-related
ovn-nbctl --id=@n create Sample collectors="$c1 $c2" metadata=4318 -- \
  --id=@e create Sample collectors="$c1 $c2" metadata=4319 -- \
  --sample-new=@n --sample-est=@e acl-add sw1 from-lport 1000 "ip4" allow
ovn-nbctl --id=@n create Sample collectors="$c2" metadata=4320 -- \
  --sample-new=@n acl-add sw1 to-lport 1000 "tcp" drop
ovn-nbctl lb-add lb0 10.0.4.100:80 10.0.4.5:80 tcp
ovn-nbctl ls-lb-add sw2 lb0
ovn-nbctl --id=@n create Sample collectors="$c1" metadata=4321 -- \
  --id=@e create Sample collectors="$c1 $c2" metadata=4322 -- \
  --sample-new=@n --sample-est=@e acl-add sw2 from-lport 1000 "tcp" allow
ovn-nbctl --id=@n create Sample collectors="$c3 $c2" metadata=4323 -- \
  --sample-new=@n acl-add sw2 to-lport 1000 "udp" drop
