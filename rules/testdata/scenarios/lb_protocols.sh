# lb_protocols: UDP and SCTP load balancers and a load balancer with no
# protocol set (TCP) name their protocol in the VIP matches.
ovn-nbctl ls-add sw0 -- lr-add lr0
ovn-nbctl lb-add lbu 10.0.0.10:53 10.0.0.5:5353 udp
ovn-nbctl lb-add lbs 10.0.0.11:3868 10.0.0.5:3868,10.0.0.6:3868 sctp
lb=$(ovn-nbctl create Load_Balancer name=lbn vips:\"10.0.0.12:8080\"=\"10.0.0.7:80\")
ovn-nbctl ls-lb-add sw0 lbu -- ls-lb-add sw0 lbs -- ls-lb-add sw0 lbn
ovn-nbctl lr-lb-add lr0 lbu -- lr-lb-add lr0 lbs -- lr-lb-add lr0 lbn
