# lb_selection_fields: selection_fields become ct_lb_mark hash_fields (tp_src
# and tp_dst named after the protocol when it is set), on switches and
# routers.
ovn-nbctl ls-add sw0 -- lr-add lr0
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80,10.0.0.6:80 tcp
ovn-nbctl set Load_Balancer lb0 selection_fields=ip_src,ip_dst,tp_src,tp_dst
lb=$(ovn-nbctl create Load_Balancer name=lb1 vips:\"10.0.0.101:80\"=\"10.0.0.7:80\" selection_fields=tp_dst,eth_src)
ovn-nbctl ls-lb-add sw0 lb0 -- ls-lb-add sw0 lb1 -- lr-lb-add lr0 lb0 -- lr-lb-add lr0 lb1
