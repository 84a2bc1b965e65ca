# releases: 26.03
# lr_ecmp_selection_fields: Logical_Router_Static_Route selection_fields.
# An ECMP group hashes the fields its members all select (ip_proto comes
# with tp_src or tp_dst): select(values=(...); hash_fields="...") in
# lr_in_ip_routing. With tp_src or tp_dst a group also gets one flow per
# protocol (tcp, udp, sctp), a priority higher, matching it and hashing
# its ports (tcp_src, ...); the plain flow hashes the rest. Groups: 10/8
# with ip_src and ip_dst on both members, 20/8 whose members select
# different fields (the common ip_dst only), 30/8 with tp_src and tp_dst,
# 40/8 with tp_dst on one member only (no protocol flows), fd00:50::/64
# IPv6 fields and tp_dst, 60/8 where one member selects nothing (plain
# select), a lone route 70/8 with selection fields (no group), and a
# symmetric-reply group 80/8 with tp_src on gateway router gw.
ovn-nbctl lr-add r0
ovn-nbctl lrp-add r0 r0-a 00:00:00:00:00:01 192.168.1.1/24 fd00:1::1/64
ovn-nbctl lrp-add r0 r0-b 00:00:00:00:00:02 192.168.2.1/24 fd00:2::1/64
ovn-nbctl --ecmp lr-route-add r0 10.0.0.0/8 192.168.1.2 -- --ecmp lr-route-add r0 10.0.0.0/8 192.168.2.2
ovn-nbctl --ecmp lr-route-add r0 20.0.0.0/8 192.168.1.2 -- --ecmp lr-route-add r0 20.0.0.0/8 192.168.2.2
ovn-nbctl --ecmp lr-route-add r0 30.0.0.0/8 192.168.1.2 -- --ecmp lr-route-add r0 30.0.0.0/8 192.168.2.2 \
  -- --ecmp lr-route-add r0 30.0.0.0/8 192.168.2.3
ovn-nbctl --ecmp lr-route-add r0 40.0.0.0/8 192.168.1.2 -- --ecmp lr-route-add r0 40.0.0.0/8 192.168.2.2
ovn-nbctl --ecmp lr-route-add r0 fd00:50::/64 fd00:1::2 -- --ecmp lr-route-add r0 fd00:50::/64 fd00:2::2
ovn-nbctl --ecmp lr-route-add r0 60.0.0.0/8 192.168.1.2 -- --ecmp lr-route-add r0 60.0.0.0/8 192.168.2.2
ovn-nbctl lr-route-add r0 70.0.0.0/8 192.168.1.2
for r in $(ovn-nbctl --bare --columns=_uuid,ip_prefix,nexthop find Logical_Router_Static_Route | paste -d' ' - - - - | tr -s ' ' | sed 's/ /,/g'); do
  uuid=${r%%,*}; rest=${r#*,}; prefix=${rest%%,*}; nexthop=${rest#*,}
  case $prefix,$nexthop in
    10.0.0.0/8,*) fields='ip_src,ip_dst' ;;
    20.0.0.0/8,192.168.1.2) fields='ip_src,ip_dst' ;;
    20.0.0.0/8,*) fields='ip_dst,eth_src' ;;
    30.0.0.0/8,*) fields='ip_src,tp_src,tp_dst' ;;
    40.0.0.0/8,192.168.1.2) fields='ip_dst,tp_dst' ;;
    40.0.0.0/8,*) fields='ip_dst' ;;
    fd00:50::/64,*) fields='ipv6_src,ipv6_dst,tp_dst' ;;
    60.0.0.0/8,192.168.1.2) fields='ip_src' ;;
    70.0.0.0/8,*) fields='ip_src,tp_src' ;;
    *) continue ;;
  esac
  ovn-nbctl set Logical_Router_Static_Route $uuid selection_fields="$fields"
done
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv1
ovn-nbctl lrp-add gw gw-a 00:00:00:00:01:01 172.16.1.1/24 -- lrp-add gw gw-b 00:00:00:00:01:02 172.16.2.1/24
ovn-nbctl --ecmp-symmetric-reply lr-route-add gw 80.0.0.0/8 172.16.1.2 \
  -- --ecmp-symmetric-reply lr-route-add gw 80.0.0.0/8 172.16.2.2
for uuid in $(ovn-nbctl --bare --columns=_uuid find Logical_Router_Static_Route ip_prefix=\"80.0.0.0/8\"); do
  ovn-nbctl set Logical_Router_Static_Route $uuid selection_fields=ip_dst,tp_src
done
