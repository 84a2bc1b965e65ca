# lb_no_backends: a VIP without backends drops new connections, or rejects
# them with options:reject=true (the error coming back through egress
# table ls_out_qos_mark on switches, lr_out_snat on routers); backends
# separated by empty list items still count.
ovn-nbctl ls-add sw0 -- lr-add lr0
lb=$(ovn-nbctl create Load_Balancer name=lbdrop protocol=tcp vips:\"10.0.0.20:80\"=\"\")
lb=$(ovn-nbctl create Load_Balancer name=lbrej protocol=udp options:reject=true vips:\"10.0.0.21:80\"=\"\" vips:\"10.0.0.22\"=\"\")
ovn-nbctl set Load_Balancer lbdrop vips:\"10.0.0.23:80\"=\"10.0.0.5:80,,10.0.0.6:80\"
ovn-nbctl ls-lb-add sw0 lbdrop -- ls-lb-add sw0 lbrej -- lr-lb-add lr0 lbdrop -- lr-lb-add lr0 lbrej
