# lb_event_global: NB_Global options:controller_event=true makes every VIP
# without backends raise an empty_lb_backends event.
ovn-nbctl set NB_Global . options:controller_event=true
ovn-nbctl ls-add sw0 -- lr-add lr0
lb=$(ovn-nbctl create Load_Balancer name=lbplain protocol=tcp vips:\"10.0.0.32\"=\"\" vips:\"10.0.0.33:80\"=\"10.0.0.5:80\")
ovn-nbctl ls-lb-add sw0 lbplain -- lr-lb-add lr0 lbplain
