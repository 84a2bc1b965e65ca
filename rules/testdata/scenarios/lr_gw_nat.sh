# A gateway router (options:chassis) with SNAT, DNAT and DNAT_and_SNAT
# rules in both families: a subnet SNAT and a host SNAT sharing one
# external IP, a port range, a stateless rule, allowed_ext_ips and
# exempted_ext_ips address sets.
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv1
ovn-nbctl lrp-add gw gw-ext 00:00:00:00:ee:01 172.16.0.1/24 2001:db8::1/64
ovn-nbctl lrp-add gw gw-int 00:00:00:00:ee:02 10.0.0.1/24 fd00::1/64
ovn-nbctl ls-add ext -- ls-add int
ovn-nbctl lsp-add ext ext-gw -- lsp-set-type ext-gw router -- lsp-set-addresses ext-gw router -- lsp-set-options ext-gw router-port=gw-ext
ovn-nbctl lsp-add int int-gw -- lsp-set-type int-gw router -- lsp-set-addresses int-gw router -- lsp-set-options int-gw router-port=gw-int
ovn-nbctl lsp-add int vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:11 10.0.0.11 fd00::11"
ovn-nbctl lr-nat-add gw snat 172.16.0.100 10.0.0.0/24
ovn-nbctl lr-nat-add gw snat 172.16.0.100 10.0.0.128/25
ovn-nbctl lr-nat-add gw snat 172.16.0.1 10.0.1.0/24
ovn-nbctl lr-nat-add gw dnat 172.16.0.110 10.0.0.12
ovn-nbctl --portrange lr-nat-add gw dnat_and_snat 172.16.0.111 10.0.0.11 1000-2000
ovn-nbctl --stateless lr-nat-add gw dnat_and_snat 172.16.0.112 10.0.0.13
ovn-nbctl lr-nat-add gw snat 2001:db8::100 fd00::/64
ovn-nbctl lr-nat-add gw dnat_and_snat 2001:db8::111 fd00::11
ovn-nbctl create Address_Set name=allowed addresses='"1.1.1.1", "2.2.2.0/24"'
ovn-nbctl create Address_Set name=exempt addresses='"3.3.3.3"'
ovn-nbctl lr-nat-add gw dnat_and_snat 172.16.0.120 10.0.0.20
ovn-nbctl lr-nat-add gw dnat_and_snat 172.16.0.121 10.0.0.21
ovn-nbctl lr-nat-add gw snat 172.16.0.122 10.0.2.0/24
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.120)
ovn-nbctl set NAT $n allowed_ext_ips=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=allowed)
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.121)
ovn-nbctl set NAT $n exempted_ext_ips=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=exempt)
n=$(ovn-nbctl --bare --columns=_uuid find NAT external_ip=172.16.0.122)
ovn-nbctl set NAT $n exempted_ext_ips=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=exempt)
