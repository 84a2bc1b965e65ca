# A router with NAT rules on a switch with VMs: ARP for NAT external IPs
# goes to the router (not for SNAT), and the router's own ARP requests from
# its NAT external MACs are flooded; northd prints the MACs in the order of
# its string set.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.0.0.11"
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.1/24 fd00::1/64
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lrp0
for i in 1 2 3 4 5 6 7 8 9; do
  ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.1$i 10.0.0.1$i vm1 0a:00:00:00:bb:0$i
done
ovn-nbctl lr-nat-add lr0 dnat 172.16.0.50 10.0.0.50
ovn-nbctl lr-nat-add lr0 snat 172.16.0.60 10.0.0.0/24
ovn-nbctl lr-nat-add lr0 dnat_and_snat fd01::5 fd00::5
ovn-nbctl -- --id=@n create nat type=dnat external_ip='"172.16.0.70 172.16.0.71"' logical_ip=10.0.0.70 -- add logical_router lr0 nat @n
ovn-nbctl -- --id=@n create nat type=snat external_ip='"172.16.0.80"' external_mac='"0a:00:00:00:cc:01"' logical_ip=10.0.0.80 -- add logical_router lr0 nat @n
