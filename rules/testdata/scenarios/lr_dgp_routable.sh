# Routable NAT addresses (options:add_route) of a router with two
# distributed gateway ports, each on a transit switch shared with a
# gateway router: northd gathers them while it counts the gateway ports,
# so the first port (in _uuid order) offers every rule's address, the
# second only those of the rules that apply on it. An external IP with an
# out-of-range octet (10.1.0.300) is read as northd's scanner reads it.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-a 00:00:00:00:aa:01 10.1.0.1/24 -- lrp-set-gateway-chassis lr0-a gw1 1
ovn-nbctl lrp-add lr0 lr0-b 00:00:00:00:aa:02 10.2.0.1/24 -- lrp-set-gateway-chassis lr0-b gw2 1
ovn-nbctl ls-add ts1 -- ls-add ts2
ovn-nbctl lsp-add ts1 ts1-lr0 -- lsp-set-type ts1-lr0 router -- lsp-set-addresses ts1-lr0 router -- lsp-set-options ts1-lr0 router-port=lr0-a
ovn-nbctl lsp-add ts2 ts2-lr0 -- lsp-set-type ts2-lr0 router -- lsp-set-addresses ts2-lr0 router -- lsp-set-options ts2-lr0 router-port=lr0-b
for i in 1 2; do
  ovn-nbctl lr-add gw$i -- set Logical_Router gw$i options:chassis=hv$i
  ovn-nbctl lrp-add gw$i gw$i-ts 00:00:00:00:bb:0$i 10.$i.0.2/24
  ovn-nbctl lsp-add ts$i ts$i-gw$i -- lsp-set-type ts$i-gw$i router -- lsp-set-addresses ts$i-gw$i router -- lsp-set-options ts$i-gw$i router-port=gw$i-ts
done
nat() { ovn-nbctl -- --id=@n create NAT "$@" options:add_route=true -- add Logical_Router lr0 nat @n; }
nat type=dnat_and_snat external_ip=10.1.0.100 logical_ip=192.168.0.5
nat type=dnat_and_snat external_ip=10.2.0.100 logical_ip=192.168.0.6
nat type=dnat external_ip=10.2.0.101 logical_ip=192.168.0.7 gateway_port=$(ovn-nbctl --bare --columns=_uuid find Logical_Router_Port name=lr0-a)
nat type=dnat_and_snat external_ip=10.2.0.102 logical_ip=192.168.0.8 logical_port=vm1 external_mac='"0a:00:00:00:00:08"'
nat type=dnat_and_snat external_ip=10.1.0.1 logical_ip=192.168.0.9
nat type=dnat external_ip=10.1.0.300 logical_ip=192.168.0.10
