# releases: 26.03
# lr_datapath_settings: router settings that 26.03 hands ovn-controller in
# the router's Datapath_Binding external_ids (checked by the live take-over
# tests; no flow changes): the smallest positive threshold of
# options:mac_binding_age_threshold, whose "[CIDR:]THRESHOLD" entries
# apply per network and of whose entries without a prefix (or with a /0
# one) only the last counts, nothing when one entry is unreadable; a
# positive dynamic-routing-vrf-id; non-empty dynamic-routing-v4- and
# -v6-prefix-nexthop.
ovn-nbctl lr-add lr0 -- set Logical_Router lr0 options:mac_binding_age_threshold='"192.168.0.0/16:300;fd00::/64:200;60;120"' \
  options:dynamic-routing-vrf-id=1001 options:dynamic-routing-v4-prefix-nexthop=192.0.2.1 \
  options:dynamic-routing-v6-prefix-nexthop='"fd00::1"'
ovn-nbctl lr-add lr1 -- set Logical_Router lr1 options:mac_binding_age_threshold='"10.0.0.0/8:0;0.0.0.0/0:50;10.1.0.1:70"' \
  options:dynamic-routing-vrf-id=0 options:dynamic-routing-v4-prefix-nexthop='""'
ovn-nbctl lr-add lr2 -- set Logical_Router lr2 options:mac_binding_age_threshold='"10.0.0.0/8:30;bogus:10"' \
  options:dynamic-routing-vrf-id=x
ovn-nbctl lr-add lr3 -- set Logical_Router lr3 options:mac_binding_age_threshold=45
ovn-nbctl lrp-add lr0 lr0-p 00:00:00:00:01:01 10.0.1.1/24
