# lb_group: a load balancer group on several switches and routers (one of
# them a gateway router) and a load balancer both in the group and attached
# directly: every datapath gets the VIP flows once.
ovn-nbctl ls-add sw0 -- ls-add sw1 -- ls-add sw2 -- lr-add lr0 -- lr-add gw0 -- set Logical_Router gw0 options:chassis=hv1
ovn-nbctl lb-add lb0 10.96.0.1:443 172.18.0.2:6443 tcp
ovn-nbctl lb-add lb1 10.96.0.10:53 10.244.0.3:53,10.244.1.3:53 udp
g=$(ovn-nbctl create Load_Balancer_Group name=cluster)
ovn-nbctl add Load_Balancer_Group cluster load_balancer $(ovn-nbctl --bare --columns=_uuid find Load_Balancer name=lb0)
ovn-nbctl add Load_Balancer_Group cluster load_balancer $(ovn-nbctl --bare --columns=_uuid find Load_Balancer name=lb1)
for dp in sw0 sw1; do ovn-nbctl add Logical_Switch $dp load_balancer_group $g; done
for dp in lr0 gw0; do ovn-nbctl add Logical_Router $dp load_balancer_group $g; done
ovn-nbctl ls-lb-add sw1 lb0 -- ls-lb-add sw2 lb1 -- lr-lb-add gw0 lb1
