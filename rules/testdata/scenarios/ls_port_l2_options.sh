# releases: 26.03
# ls_port_l2_options: 26.03's switch port options of L2 lookup and the ARP
# responder (ovn-northd.at "check options: force_fdb_lookup for LSP",
# "check options:pkt_clone_type for LSP", "check options:disable_arp_nd_rsp
# for LSP", "check broadcast-arps-to-all-routers option"). A VIF with an
# unknown address and force_fdb_lookup has no unicast flow (a localnet
# port's option is ignored); traffic to a VIF with pkt_clone_type=mc_unknown
# is cloned to the unknown ports where the switch has some; a VIF with
# disable_arp_nd_rsp gets no ARP/ND replies (a router port's option is
# ignored); a switch with broadcast-arps-to-all-routers=false floods ARP
# requests and solicitations to its ports only.
ovn-nbctl ls-add S1
ovn-nbctl lsp-add S1 S1-vm1 -- lsp-set-addresses S1-vm1 "50:54:00:00:00:01 192.168.0.1" unknown \
  -- lsp-set-options S1-vm1 force_fdb_lookup=true
ovn-nbctl lsp-add S1 S1-vm2 -- lsp-set-addresses S1-vm2 "50:54:00:00:00:02 192.168.0.2" \
  -- lsp-set-options S1-vm2 pkt_clone_type=MC_unknown
ovn-nbctl lsp-add S1 S1-vm3 -- lsp-set-addresses S1-vm3 "50:54:00:00:00:03 192.168.0.3 fd00::3" \
  -- lsp-set-options S1-vm3 disable_arp_nd_rsp=true
ovn-nbctl lsp-add S1 S1-vm4 -- lsp-set-addresses S1-vm4 "50:54:00:00:00:04 192.168.0.4" \
  -- lsp-set-options S1-vm4 force_fdb_lookup=true disable_arp_nd_rsp=false
ovn-nbctl lsp-add S1 S1-localnet -- lsp-set-type S1-localnet localnet -- lsp-set-addresses S1-localnet unknown \
  -- lsp-set-options S1-localnet network_name=phys force_fdb_lookup=true
ovn-nbctl ls-add S2 -- set Logical_Switch S2 other_config:broadcast-arps-to-all-routers=false
ovn-nbctl lsp-add S2 S2-vm1 -- lsp-set-addresses S2-vm1 "50:54:00:00:01:01 192.168.1.1" \
  -- lsp-set-options S2-vm1 pkt_clone_type=mc_unknown
ovn-nbctl lr-add R1 -- lrp-add R1 R1-S2 00:00:00:00:ff:01 192.168.1.254/24
ovn-nbctl lsp-add-router-port S2 S2-R1 R1-S2
ovn-nbctl lsp-set-options S2-R1 router-port=R1-S2 disable_arp_nd_rsp=true
ovn-nbctl ls-add S3 -- set Logical_Switch S3 other_config:broadcast-arps-to-all-routers=true
ovn-nbctl lsp-add S3 S3-vm1 -- lsp-set-addresses S3-vm1 "50:54:00:00:02:01 192.168.2.1"
