# lb_health_none: a health-checked VIP none of whose backends can be
# monitored drops new connections, or rejects them with options:reject.
ovn-nbctl ls-add sw0 -- lr-add lr0
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80 tcp
hc=$(ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="10.0.0.100\:80" -- add Load_Balancer lb0 health_check @hc)
ovn-nbctl lb-add lb1 10.0.0.101:80 10.0.0.6:80 tcp
ovn-nbctl set Load_Balancer lb1 options:reject=true
hc=$(ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="10.0.0.101\:80" -- add Load_Balancer lb1 health_check @hc)
ovn-nbctl ls-lb-add sw0 lb0 -- ls-lb-add sw0 lb1 -- lr-lb-add lr0 lb0 -- lr-lb-add lr0 lb1
