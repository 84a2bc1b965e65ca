# lss_empty_switch: one switch with no ports: the default flows of the
# conntrack stages (pre-ACL to stateful), DHCP and DNS.
ovn-nbctl ls-add sw0
