# releases: 26.03
# features_ignore_chassis: with NB_Global options:ignore_chassis_features
# northd assumes every chassis feature, even with a chassis that reports
# none: the gateway_mtu port's too-large replies are committed for SNAT
# (ct-commit-nat-v2) and the persist-established ACL writes its ACL_ID
# (ct-label-flush).
ovn-sbctl chassis-add hv-old geneve 192.0.2.1
ovn-nbctl set NB_Global . options:ignore_chassis_features=true
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl acl-add sw0 to-lport 1002 "outport == \"vm1\" && ip4 && tcp.dst == 22" allow-related
ovn-nbctl set ACL $(ovn-nbctl --bare --columns=_uuid find ACL priority=1002) options:persist-established=true
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv-old
ovn-nbctl lrp-add gw gw-ext1 00:00:00:00:e1:01 172.16.1.1/24 fd01::1/64
ovn-nbctl lrp-add gw gw-in 00:00:00:00:e3:01 10.0.0.1/24
ovn-nbctl lr-nat-add gw snat 172.16.1.100 10.0.0.0/24
ovn-nbctl set Logical_Router_Port gw-ext1 options:gateway_mtu=1400
ovn-nbctl lsp-add sw0 sw0-gw -- lsp-set-type sw0-gw router -- lsp-set-addresses sw0-gw router -- lsp-set-options sw0-gw router-port=gw-in
