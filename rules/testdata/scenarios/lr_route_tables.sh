# Route tables: ports that select a route table (options:route_table), routes
# in those tables and in tables no port selects, ECMP inside a route table,
# src-ip routes in a route table, and a port whose table has no routes.
ovn-nbctl lr-add lr0
ovn-nbctl lrp-add lr0 lr0-a 00:00:00:00:01:01 10.0.1.1/24 -- set Logical_Router_Port lr0-a options:route_table=rtb-a
ovn-nbctl lrp-add lr0 lr0-b 00:00:00:00:02:01 10.0.2.1/24 fd00:2::1/64 -- set Logical_Router_Port lr0-b options:route_table=rtb-b
ovn-nbctl lrp-add lr0 lr0-c 00:00:00:00:03:01 10.0.3.1/24 -- set Logical_Router_Port lr0-c options:route_table=rtb-empty
ovn-nbctl lrp-add lr0 lr0-d 00:00:00:00:04:01 10.0.4.1/24
ovn-nbctl --route-table=rtb-a lr-route-add lr0 0.0.0.0/0 10.0.4.254
ovn-nbctl --route-table=rtb-b lr-route-add lr0 0.0.0.0/0 10.0.3.254
ovn-nbctl --route-table=rtb-b lr-route-add lr0 ::/0 fd00:2::fe
ovn-nbctl --route-table=rtb-b --ecmp lr-route-add lr0 10.50.0.0/16 10.0.1.50
ovn-nbctl --route-table=rtb-b --ecmp lr-route-add lr0 10.50.0.0/16 10.0.3.50
ovn-nbctl --route-table=rtb-b --policy=src-ip lr-route-add lr0 10.0.2.0/24 10.0.4.2
ovn-nbctl --route-table=rtb-x lr-route-add lr0 10.60.0.0/16 10.0.4.60
ovn-nbctl --route-table=rtb-y --policy=src-ip lr-route-add lr0 10.0.1.0/24 10.0.4.61
ovn-nbctl lr-route-add lr0 0.0.0.0/0 10.0.4.1
