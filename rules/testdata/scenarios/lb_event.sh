# lb_event: a VIP without backends raises an empty_lb_backends controller
# event when its load balancer sets options:event=true or when NB_Global sets
# options:controller_event=true, on switches (ls_in_pre_lb) and routers
# (lr_in_dnat); a rejecting VIP does not.
ovn-nbctl ls-add sw0 -- lr-add lr0 -- ls-add sw1
lb=$(ovn-nbctl create Load_Balancer name=lbev protocol=udp options:event=true vips:\"10.0.0.30:53\"=\"\" vips:\"[fd00::30]:53\"=\"\")
lb=$(ovn-nbctl create Load_Balancer name=lbrej protocol=tcp options:event=true options:reject=true vips:\"10.0.0.31:80\"=\"\")
lb=$(ovn-nbctl create Load_Balancer name=lbplain protocol=tcp vips:\"10.0.0.32\"=\"\")
ovn-nbctl ls-lb-add sw0 lbev -- ls-lb-add sw0 lbrej -- ls-lb-add sw0 lbplain -- lr-lb-add lr0 lbev -- lr-lb-add lr0 lbplain
