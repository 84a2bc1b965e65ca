# releases: 26.03
# sampling_app_drop: the Sampling_App of type drop names the observation
# domain of debug drop sampling in NB_Global debug_drop_domain_id's stead
# (which is out of range here, and would turn sampling off); the ACLs'
# implicit drops and the drop statements are sampled in that domain. The
# sampled ACLs' own flows: acl-new has a domain, acl-est none, so the
# established connections' flows of samples with several collectors have
# no action at all. (No sample has a single collector: 26.03.2's northd
# keeps sample_with_reg off after an earlier scenario's chassis without it
# is gone, which would change those samples' flows.)
ovn-nbctl set NB_Global . options:debug_drop_collector_set=123 options:debug_drop_domain_id=300 options:default_acl_drop=true
ovn-nbctl create Sampling_App type=drop id=44
ovn-nbctl create Sampling_App type=acl-new id=42
c1=$(ovn-nbctl create Sample_Collector id=1 name=c1 probability=65535 set_id=100)
c2=$(ovn-nbctl create Sample_Collector id=2 name=c2 probability=500 set_id=200)
ovn-nbctl ls-add sw0 -- lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11" -- lsp-set-port-security vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lr-add lr0 -- lrp-add lr0 lr0-sw0 00:00:00:00:ff:01 10.0.0.1/24
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0
ovn-nbctl --id=@n create Sample collectors="$c1 $c2" metadata=10 -- \
  --id=@e create Sample collectors="$c1 $c2" metadata=11 -- \
  --sample-new=@n --sample-est=@e acl-add sw0 from-lport 1000 "tcp" allow-related
ovn-nbctl --id=@e create Sample collectors="$c2 $c1" metadata=12 -- \
  --sample-est=@e acl-add sw0 to-lport 1000 "udp" allow-related
ovn-nbctl acl-add sw0 to-lport 900 "icmp4" drop
