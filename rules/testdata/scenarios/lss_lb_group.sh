# lss_lb_group: a load balancer with a VIP reaches a switch through a load
# balancer group (has_lb_vip: pre-LB NAT, hairpin, ACL hints, stateful
# ACL defaults); a load balancer without VIPs, direct or in a group,
# changes nothing.
ovn-nbctl ls-add sw0 -- ls-add sw1
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80 tcp
lbe=$(ovn-nbctl create Load_Balancer name=empty protocol=tcp)
g=$(ovn-nbctl create Load_Balancer_Group name=g0)
lb=$(ovn-nbctl --bare --columns=_uuid find Load_Balancer name=lb0)
ovn-nbctl add Load_Balancer_Group g0 load_balancer $lb
g1=$(ovn-nbctl create Load_Balancer_Group name=g1 load_balancer=$lbe)
ovn-nbctl add Logical_Switch sw0 load_balancer_group $g
ovn-nbctl add Logical_Switch sw1 load_balancer_group $g1 -- add Logical_Switch sw1 load_balancer $lbe
