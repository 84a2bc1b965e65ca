# releases: 26.03
# ls_routing_protocol_redirect: router ports that redirect routing
# protocol traffic to a switch port on their peer switch (ovn-northd.at
# "Routing protocol control plane redirect"): lr-ls sends BGP to lsp-bgp,
# for its IPv4, IPv6 and link-local addresses; lr-ls2 sends BGP and BFD,
# BFD cloned to the router as the port runs a BFD session; lr-ls3's
# target is on another switch, lr-ls4's does not exist and lr-ls5 names
# no known protocol: none of those redirect anything.
ovn-nbctl lr-add lr -- set Logical_Router lr options:chassis=hv1
ovn-nbctl lrp-add lr lr-ls 02:ac:10:01:00:01 172.16.1.1/24 2001:db8::1/64 -- \
  set Logical_Router_Port lr-ls options:routing-protocol-redirect=lsp-bgp options:routing-protocols=BGP
ovn-nbctl ls-add ls -- lsp-add-router-port ls ls-lr lr-ls -- lsp-add ls lsp-bgp -- lsp-set-addresses lsp-bgp unknown
ovn-nbctl lrp-add lr lr-ls2 02:ac:10:02:00:01 172.16.2.1/24 -- \
  set Logical_Router_Port lr-ls2 options:routing-protocol-redirect=lsp-bgp2 options:routing-protocols=BGP,BFD,OSPF
ovn-nbctl ls-add ls2 -- lsp-add-router-port ls2 ls2-lr lr-ls2 -- lsp-add ls2 lsp-bgp2 -- lsp-set-addresses lsp-bgp2 unknown
ovn-nbctl create BFD logical_port=lr-ls2 dst_ip=172.16.2.2
ovn-nbctl lrp-add lr lr-ls3 02:ac:10:03:00:01 172.16.3.1/24 -- \
  set Logical_Router_Port lr-ls3 options:routing-protocol-redirect=lsp-bgp options:routing-protocols=BGP
ovn-nbctl ls-add ls3 -- lsp-add-router-port ls3 ls3-lr lr-ls3
ovn-nbctl lrp-add lr lr-ls4 02:ac:10:04:00:01 172.16.4.1/24 -- \
  set Logical_Router_Port lr-ls4 options:routing-protocol-redirect=ghost options:routing-protocols=BFD
ovn-nbctl ls-add ls4 -- lsp-add-router-port ls4 ls4-lr lr-ls4
ovn-nbctl lrp-add lr lr-ls5 02:ac:10:05:00:01 172.16.5.1/24 -- \
  set Logical_Router_Port lr-ls5 options:routing-protocol-redirect=lsp-bgp5 options:routing-protocols=OSPF
ovn-nbctl ls-add ls5 -- lsp-add-router-port ls5 ls5-lr lr-ls5 -- lsp-add ls5 lsp-bgp5
