# Switch ports of type router with options:nat-addresses=router: Port_Binding
# nat_addresses carries the peer router's NAT external addresses (not the
# router port's own, not IPv6 ones) and load balancer addresses (IPv4 then
# IPv6, each once) with the router port's MAC, unless
# exclude-lb-vips-from-garp; a distributed NAT rule gets an entry of its
# own. On gateway routers' switches (one with a localnet port, so the
# router port's own entry follows), on a distributed gateway port's switch
# (resident on its chassisredirect port) and on another port of that router
# (not resident), and on a plain router's switch (nothing). A router has
# at most one NAT address that goes into an entry with others: 23.03 lists
# them in _uuid order, which two NBs built alike do not share.
ovn-nbctl lr-add R1 -- set Logical_Router R1 options:chassis=hv1
ovn-nbctl lrp-add R1 R1-S1 02:ac:10:01:00:01 172.16.1.1/24 fd00::1/64
ovn-nbctl ls-add S1
ovn-nbctl lsp-add S1 S1-R1 -- lsp-set-type S1-R1 router -- lsp-set-addresses S1-R1 02:ac:10:01:00:01 \
  -- lsp-set-options S1-R1 router-port=R1-S1 nat-addresses=router
ovn-nbctl lsp-add S1 ln-S1 -- lsp-set-type ln-S1 localnet -- lsp-set-addresses ln-S1 unknown \
  -- lsp-set-options ln-S1 network_name=phys
ovn-nbctl lr-nat-add R1 snat 172.16.1.1 10.0.0.0/24
ovn-nbctl lr-nat-add R1 dnat 172.16.1.2 10.0.0.1
ovn-nbctl lr-nat-add R1 dnat_and_snat fd00::5 fd01::5
ovn-nbctl lb-add lb0 172.16.1.10:80 10.0.0.1:80
ovn-nbctl lr-lb-add R1 lb0
ovn-nbctl lb-add lb1 172.16.1.10:8080 10.0.0.1:8080
ovn-nbctl lr-lb-add R1 lb1
ovn-nbctl lb-add lb6 [fd00::10]:80 [fd01::1]:80
ovn-nbctl lr-lb-add R1 lb6
ovn-nbctl lr-add R2 -- set Logical_Router R2 options:chassis=hv2
ovn-nbctl lrp-add R2 R2-S2 02:ac:10:02:00:01 172.16.2.1/24
ovn-nbctl ls-add S2
ovn-nbctl lsp-add S2 S2-R2 -- lsp-set-type S2-R2 router -- lsp-set-addresses S2-R2 router \
  -- lsp-set-options S2-R2 router-port=R2-S2 nat-addresses=router exclude-lb-vips-from-garp=true
ovn-nbctl lr-nat-add R2 dnat 172.16.2.2 10.0.0.1
ovn-nbctl lb-add lb2 172.16.2.10:80 10.0.0.1:80
ovn-nbctl lr-lb-add R2 lb2
ovn-nbctl lr-add dr
ovn-nbctl lrp-add dr dr-pub 00:00:00:00:dd:01 172.17.0.1/24 -- lrp-set-gateway-chassis dr-pub hv1 10
ovn-nbctl lrp-add dr dr-in 00:00:00:00:dd:02 10.0.0.1/24
ovn-nbctl ls-add pub
ovn-nbctl lsp-add pub pub-dr -- lsp-set-type pub-dr router -- lsp-set-addresses pub-dr router \
  -- lsp-set-options pub-dr router-port=dr-pub nat-addresses=router
ovn-nbctl ls-add in
ovn-nbctl lsp-add in in-dr -- lsp-set-type in-dr router -- lsp-set-addresses in-dr router \
  -- lsp-set-options in-dr router-port=dr-in nat-addresses=router
ovn-nbctl lsp-add in vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:05 10.0.0.5"
ovn-nbctl lr-nat-add dr dnat_and_snat 172.17.0.50 10.0.0.5 vm1 00:00:00:00:dd:50
ovn-nbctl lr-nat-add dr dnat 172.17.0.60 10.0.0.6
ovn-nbctl lb-add lbd 172.17.0.100:80 10.0.0.5:80
ovn-nbctl lr-lb-add dr lbd
ovn-nbctl lr-add plain
ovn-nbctl lrp-add plain plain-s 00:00:00:00:cc:01 10.1.0.1/24
ovn-nbctl ls-add s
ovn-nbctl lsp-add s s-plain -- lsp-set-type s-plain router -- lsp-set-addresses s-plain router \
  -- lsp-set-options s-plain router-port=plain-s nat-addresses=router
ovn-nbctl lr-nat-add plain dnat 10.1.0.50 10.2.0.5
