# releases: 26.03
# lr_transit_router: transit routers (26.03): a router port whose
# options:requested-chassis names a remote chassis (other_config:is-remote,
# found by name or hostname) is bound to it as a Port_Binding of type
# "remote", and its router floods ARP replies and neighbour advertisements
# to the remote chassis (ovn-northd.at "Transit router - remote ports").
# A port requesting a local or unknown chassis stays a patch port, and a
# gateway router's ports are l3gateway ones whatever they request.
ovn-sbctl chassis-add hv2 geneve 192.168.0.12 -- set chassis hv2 other_config:is-remote=true
ovn-sbctl chassis-add hv3 geneve 192.168.0.13 -- set chassis hv3 other_config:is-remote=true hostname=host3
ovn-sbctl chassis-add hv4 geneve 192.168.0.14
ovn-nbctl lr-add tr
ovn-nbctl lrp-add tr tr-local 00:00:00:00:30:01 192.168.100.1/31
ovn-nbctl lrp-add tr tr-az2 00:00:00:00:30:03 192.168.100.3/31 -- set Logical_Router_Port tr-az2 options:requested-chassis=hv2
ovn-nbctl lrp-add tr tr-az3 00:00:00:00:30:05 192.168.100.5/31 -- set Logical_Router_Port tr-az3 options:requested-chassis=host3
ovn-nbctl lrp-add tr tr-az4 00:00:00:00:30:07 192.168.100.7/31 -- set Logical_Router_Port tr-az4 options:requested-chassis=hv4
ovn-nbctl lr-add tr2 -- set Logical_Router tr2 options:always_learn_from_arp_request=false
ovn-nbctl lrp-add tr2 tr2-az2 00:00:00:00:31:03 fd00::3/64 -- set Logical_Router_Port tr2-az2 options:requested-chassis=hv2
ovn-nbctl lr-add local -- lrp-add local local-p 00:00:00:00:32:01 192.168.101.1/24 \
  -- set Logical_Router_Port local-p options:requested-chassis=hv4
ovn-nbctl lrp-add local local-q 00:00:00:00:32:02 192.168.102.1/24 -- set Logical_Router_Port local-q options:requested-chassis=nowhere
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv4 \
  -- lrp-add gw gw-az2 00:00:00:00:33:01 192.168.103.1/24 -- set Logical_Router_Port gw-az2 options:requested-chassis=hv2
