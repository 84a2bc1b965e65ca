# releases: 26.03
# nat_match_common_zone: as nat_match's distributed router, with SNAT and
# DNAT in one conntrack zone (NB_Global options:use_common_zone): the
# rules with a match have both their ct_snat_in_czone flow and the one
# for locally DNATed traffic narrowed, at 300 plus their priority (and
# one above).
ovn-nbctl set NB_Global . options:use_common_zone=true
ovn-nbctl create Address_Set name=exempt addresses='"3.3.3.3"'
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-pub 00:00:00:00:ff:01 172.16.1.1/24 2001:db8::1/64
ovn-nbctl lrp-set-gateway-chassis lr0-pub gw1 20
ovn-nbctl lrp-add lr0 lr0-sw0 00:00:00:00:ff:02 10.1.0.1/24 fd00::1/64
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.1.0.11"
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0
ovn-nbctl lr-nat-add lr0 snat 172.16.1.100 10.1.0.0/24
ovn-nbctl --match="ip4.dst == 192.168.0.0/16" --priority=20 lr-nat-add lr0 snat 172.16.1.101 10.1.0.0/24
ovn-nbctl --match="tcp" --priority=4 lr-nat-add lr0 dnat_and_snat 172.16.1.110 10.1.0.11 vm1 0a:00:00:00:aa:01
ovn-nbctl --stateless --match="udp" --priority=6 lr-nat-add lr0 dnat_and_snat 172.16.1.112 10.1.0.13
ovn-nbctl --match="icmp4" --priority=2 lr-nat-add lr0 dnat_and_snat 172.16.1.111 10.1.0.12
ovn-nbctl --match="ip6.dst == 2001:db8:1::/48" lr-nat-add lr0 snat 2001:db8::100 fd00::/64
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.1.111)
ovn-nbctl set NAT $n exempted_ext_ips=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=exempt)
