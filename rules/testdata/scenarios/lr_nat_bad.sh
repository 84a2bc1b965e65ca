# Malformed NAT rules, logged and skipped by northd: external and logical
# IPs of different families, an unreadable logical IP, a network as a DNAT
# logical IP, an external IP with a mask, two external IPs, a word, both
# allowed and exempted external IPs, an unreadable external MAC, and a
# gateway_port that is not a distributed gateway port. A snat rule with a
# non-CIDR mask is kept. Rules on a router with neither a gateway chassis
# nor a gateway port get only ARP/ND responders. A gateway router with a
# port that has gateway chassis ("bad configuration": the port is not a
# distributed gateway port).
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv1
ovn-nbctl lrp-add gw gw-ext 00:00:00:00:ee:01 172.16.0.1/24 2001:db8::1/64 -- lrp-set-gateway-chassis gw-ext hv2 1
ovn-nbctl lrp-add gw gw-int 00:00:00:00:ee:02 10.0.0.1/24 fd00::1/64
ovn-nbctl ls-add ext -- lsp-add ext ext-gw -- lsp-set-type ext-gw router -- lsp-set-addresses ext-gw router -- lsp-set-options ext-gw router-port=gw-ext
ovn-nbctl lsp-add ext ln -- lsp-set-type ln localnet -- lsp-set-addresses ln unknown -- lsp-set-options ln network_name=phys
nat() { ovn-nbctl -- --id=@n create NAT "$@" -- add Logical_Router $R nat @n; }
R=gw
nat type=dnat_and_snat external_ip=172.16.0.10 logical_ip='"fd00::10"'
nat type=snat external_ip='"2001:db8::11"' logical_ip=10.0.0.0/24
nat type=dnat external_ip=172.16.0.12 logical_ip=10.0.0.300
nat type=dnat external_ip=172.16.0.13 logical_ip=10.0.0.0/24
nat type=snat external_ip=172.16.0.14 logical_ip=10.0.0.0/255.0.255.0
nat type=dnat external_ip=172.16.0.15/24 logical_ip=10.0.0.15
nat type=dnat external_ip='"172.16.0.16 172.16.0.17"' logical_ip=10.0.0.16
nat type=dnat external_ip=foo logical_ip=10.0.0.18
nat type=snat external_ip=172.16.0.19 logical_ip=10.0.1.0/24 gateway_port=$(ovn-nbctl --bare --columns=_uuid find Logical_Router_Port name=gw-ext)
ovn-nbctl create Address_Set name=as1 addresses='"1.1.1.1"'
a=$(ovn-nbctl --bare --columns=_uuid find Address_Set name=as1)
nat type=dnat_and_snat external_ip=172.16.0.20 logical_ip=10.0.0.20 allowed_ext_ips=$a exempted_ext_ips=$a
ovn-nbctl lr-add dr
ovn-nbctl lrp-add dr dr-pub 00:00:00:00:dd:01 172.17.0.1/24 -- lrp-set-gateway-chassis dr-pub hv1 1
ovn-nbctl lrp-add dr dr-in 00:00:00:00:dd:02 10.1.0.1/24
R=dr
nat type=dnat_and_snat external_ip=172.17.0.10 logical_ip=10.1.0.10 logical_port=vm1 external_mac='"zz:00"'
nat type=dnat_and_snat external_ip=172.17.0.11 logical_ip=10.1.0.11 gateway_port=$(ovn-nbctl --bare --columns=_uuid find Logical_Router_Port name=dr-in)
nat type=snat external_ip=172.17.0.12 logical_ip=10.1.0.0/16
ovn-nbctl lr-add plain
ovn-nbctl lrp-add plain plain-p 00:00:00:00:ab:01 172.18.0.1/24 2001:db8:18::1/64
R=plain
nat type=snat external_ip=172.18.0.1 logical_ip=10.2.0.0/16
nat type=dnat_and_snat external_ip='"2001:db8:18::5"' logical_ip='"fd00:18::5"'
