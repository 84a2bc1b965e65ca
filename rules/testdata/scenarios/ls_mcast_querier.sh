# releases: 26.03
# ls_mcast_querier: a snooping switch's querier and table settings
# (other_config mcast_eth_src, mcast_ip4_src, mcast_ip6_src,
# mcast_idle_timeout, mcast_query_interval, mcast_query_max_response,
# mcast_table_size), which 26.03 hands ovn-controller in the SB
# IP_Multicast row (checked by the live take-over tests), not in flows:
# values in range on sw0, out of range and unreadable on sw1 (clamped or
# the defaults), none on sw2 (the query interval half the idle timeout).
ovn-nbctl ls-add sw0 -- set Logical_Switch sw0 other_config:mcast_snoop=true other_config:mcast_querier=true \
  other_config:mcast_eth_src=00:00:00:00:00:aa other_config:mcast_ip4_src=10.0.0.254 \
  other_config:mcast_ip6_src='"fe80::aa"' other_config:mcast_idle_timeout=400 other_config:mcast_query_interval=30 \
  other_config:mcast_query_max_response=5 other_config:mcast_table_size=1024
ovn-nbctl ls-add sw1 -- set Logical_Switch sw1 other_config:mcast_snoop=true other_config:mcast_idle_timeout=4294967311 \
  other_config:mcast_query_interval=-1 other_config:mcast_query_max_response=x other_config:mcast_table_size=abc
ovn-nbctl ls-add sw2 -- set Logical_Switch sw2 other_config:mcast_snoop=true
ovn-nbctl lsp-add sw0 p0 -- lsp-set-addresses p0 "0a:00:00:00:00:01 10.0.0.1"
