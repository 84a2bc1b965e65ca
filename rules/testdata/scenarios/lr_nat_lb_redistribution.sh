# releases: 26.03
# lr_nat_lb_redistribution: routers with dynamic routing that redistribute
# NAT and load balancer addresses (ovn-northd.at "dynamic-routing - nat
# sync to sb", "LB sync to sb", "NAT/LB sync - different peer types"):
# gateway router lr0 advertises, through lr0-join, its own NAT and VIP
# addresses (following no port) and those of the routers on ls-join
# (following their port there, or a distributed rule's logical port when
# that port exists), through lr0-ext its direct peer's, and through
# lr0-sw0, with connected-as-host, lr1's NAT addresses but the one already
# advertised as lr1's port address. Distributed router dr advertises its
# VIPs following each of its two gateway ports; lr2 redistributes without
# dynamic routing and advertises nothing.
ovn-nbctl lr-add lr0 -- set Logical_Router lr0 options:chassis=hv1 options:dynamic-routing=true
ovn-nbctl lrp-add lr0 lr0-join 00:00:00:00:ff:02 10.42.0.1/24 -- lrp-set-options lr0-join dynamic-routing-redistribute=nat,lb
ovn-nbctl lr-nat-add lr0 dnat_and_snat 172.16.1.10 192.168.1.10
ovn-nbctl lb-add lb0 172.16.1.20:80 192.168.1.10:80,192.168.1.11:80 -- lr-lb-add lr0 lb0
ovn-nbctl lb-add lb0v6 [2001:db1::20]:80 [2001:db2::10]:80 -- lr-lb-add lr0 lb0v6
ovn-nbctl ls-add ls-join -- lsp-add-router-port ls-join lsp-join-to-lr0 lr0-join
ovn-nbctl lr-add lr-guest0 -- lrp-add lr-guest0 lrp-guest0-sw0 00:00:00:00:fe:01 10.51.0.1/24 \
  -- lrp-add lr-guest0 lrp-guest0-join 00:00:00:00:fe:02 10.42.0.2/24 \
  -- lsp-add-router-port ls-join lsp-join-to-guest0 lrp-guest0-join -- lrp-set-gateway-chassis lrp-guest0-join hv1
ovn-nbctl lr-nat-add lr-guest0 dnat_and_snat 172.16.2.10 192.168.2.10
ovn-nbctl lr-nat-add lr-guest0 snat 10.42.0.2 10.51.0.0/24
ovn-nbctl lb-add lb1 172.16.2.20:80 192.168.2.10:80 -- lb-add lb1g 172.16.2.30:80 192.168.2.11:80
ovn-nbctl create Load_Balancer_Group name=lbg1 load_balancer=$(ovn-nbctl --bare --columns=_uuid find Load_Balancer name=lb1g)
ovn-nbctl lr-lb-add lr-guest0 lb1 -- set Logical_Router lr-guest0 load_balancer_group=$(ovn-nbctl --bare --columns=_uuid find Load_Balancer_Group name=lbg1)
ovn-nbctl lr-add lr-guest1 -- lrp-add lr-guest1 lrp-guest1-sw0 00:00:00:00:fd:01 10.51.1.1/24 \
  -- lrp-add lr-guest1 lrp-guest1-join 00:00:00:00:fd:02 10.42.0.3/24 \
  -- lsp-add-router-port ls-join lsp-join-to-guest1 lrp-guest1-join -- lrp-set-gateway-chassis lrp-guest1-join hv2
ovn-nbctl ls-add sw-guest1 -- lsp-add-router-port sw-guest1 sw-guest1-lr lrp-guest1-sw0 -- lsp-add sw-guest1 vm -- lsp-set-addresses vm "00:00:00:00:fd:10 10.51.1.10"
ovn-nbctl lr-nat-add lr-guest1 dnat_and_snat 172.16.3.10 10.51.1.10 vm 00:00:00:00:fd:03
ovn-nbctl lr-nat-add lr-guest1 dnat_and_snat 2001:db3::10 2001:db4::10
ovn-nbctl lr-add lr-ext -- set Logical_Router lr-ext options:chassis=hv1 \
  -- lrp-add lr-ext lrp-ext 00:00:00:00:02:01 21.0.0.2/24 peer=lr0-ext \
  -- lrp-add lr0 lr0-ext 00:00:00:00:01:01 21.0.0.1/24 peer=lrp-ext -- lrp-set-options lr0-ext dynamic-routing-redistribute=nat,lb
ovn-nbctl lr-nat-add lr-ext dnat_and_snat 21.0.0.42 2.2.2.2 -- lb-add lb-ext 31.0.0.1 2.2.2.2 -- lr-lb-add lr-ext lb-ext
ovn-nbctl lr-add lr1 -- lrp-add lr1 lr1-sw0 00:00:00:01:ff:01 10.0.0.10/24 \
  -- lrp-add lr0 lr0-sw0 00:00:00:00:ff:01 10.0.0.1/24 -- lrp-set-options lr0-sw0 dynamic-routing-redistribute=connected-as-host,nat
ovn-nbctl ls-add sw0 -- lsp-add-router-port sw0 sw0-lr0 lr0-sw0 -- lsp-add-router-port sw0 sw0-lr1 lr1-sw0
ovn-nbctl lr-nat-add lr1 dnat_and_snat 10.0.0.100 192.168.0.1 -- lr-nat-add lr1 snat 10.0.0.10 192.168.0.0/24
ovn-nbctl lr-add dr -- set Logical_Router dr options:dynamic-routing=true options:dynamic-routing-redistribute=lb \
  -- lrp-add dr lrp-dr-pub 00:00:00:00:fc:02 10.43.0.4/24 -- lrp-set-gateway-chassis lrp-dr-pub hv1 \
  -- lrp-add dr lrp-dr-pub2 00:00:00:00:fc:03 10.44.0.4/24 -- lrp-set-gateway-chassis lrp-dr-pub2 hv2 \
  -- lrp-add dr lrp-dr-sw 00:00:00:00:fc:01 10.52.1.1/24
ovn-nbctl lb-add lb-dr 172.16.5.10:80 10.52.1.10:80 -- lr-lb-add dr lb-dr
ovn-nbctl lr-add lr2 -- set Logical_Router lr2 options:chassis=hv1 options:dynamic-routing-redistribute=nat,lb \
  -- lrp-add lr2 lr2-p 00:00:00:00:fb:01 10.45.0.1/24 -- lr-nat-add lr2 dnat_and_snat 172.16.6.10 10.45.0.10
