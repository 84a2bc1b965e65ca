# releases: 26.03
# nat_match: NAT rules with their own match (NAT.match and NAT.priority):
# their DNAT and SNAT flows are narrowed by the match, last, and sit at
# 300 plus the rule's priority; the exemption flow of exempted_ext_ips
# two above, without the match. On a gateway router (gw) and on a
# router with a distributed gateway port (lr0, separate SNAT and DNAT
# zones, so the reverse flows of its SNAT rules too), next to rules
# without a match for the same addresses; the v6 rule has the default
# priority 0.
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv1
ovn-nbctl lrp-add gw gw-ext 00:00:00:00:ee:01 172.16.0.1/24 2001:db8::1/64
ovn-nbctl lrp-add gw gw-int 00:00:00:00:ee:02 10.0.0.1/24 fd00::1/64
ovn-nbctl create Address_Set name=exempt addresses='"3.3.3.3"'
ovn-nbctl lr-nat-add gw snat 172.16.0.100 10.0.0.0/24
ovn-nbctl --match="ip4.dst == 192.168.0.0/16" --priority=10 lr-nat-add gw snat 172.16.0.101 10.0.0.0/24
ovn-nbctl --match="tcp.dst == 80" --priority=5 lr-nat-add gw dnat_and_snat 172.16.0.110 10.0.0.11
ovn-nbctl --stateless --match="inport == \"gw-ext\"" --priority=7 lr-nat-add gw dnat_and_snat 172.16.0.111 10.0.0.12
ovn-nbctl --match="ip6.dst == 2001:db8:1::/48" lr-nat-add gw snat 2001:db8::100 fd00::/64
ovn-nbctl --match="udp" --priority=3 lr-nat-add gw dnat 172.16.0.112 10.0.0.13
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.112)
ovn-nbctl set NAT $n exempted_ext_ips=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=exempt)
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-pub 00:00:00:00:ff:01 172.16.1.1/24
ovn-nbctl lrp-set-gateway-chassis lr0-pub gw1 20
ovn-nbctl lrp-add lr0 lr0-sw0 00:00:00:00:ff:02 10.1.0.1/24
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "0a:00:00:00:00:01 10.1.0.11"
ovn-nbctl lsp-add sw0 sw0-lr0 -- lsp-set-type sw0-lr0 router -- lsp-set-addresses sw0-lr0 router -- lsp-set-options sw0-lr0 router-port=lr0-sw0
ovn-nbctl lr-nat-add lr0 snat 172.16.1.100 10.1.0.0/24
ovn-nbctl --match="ip4.dst == 192.168.0.0/16" --priority=20 lr-nat-add lr0 snat 172.16.1.101 10.1.0.0/24
ovn-nbctl --match="tcp" --priority=4 lr-nat-add lr0 dnat_and_snat 172.16.1.110 10.1.0.11 vm1 0a:00:00:00:aa:01
ovn-nbctl --match="icmp4" --priority=2 lr-nat-add lr0 dnat_and_snat 172.16.1.111 10.1.0.12
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.1.111)
ovn-nbctl set NAT $n exempted_ext_ips=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=exempt)
