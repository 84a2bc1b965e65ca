# lb_bad_vip: malformed load balancer VIPs are skipped whole with a warning:
# a key that is not an address, a backend of the other address family, a
# backend without port for a VIP with one, a bad port; the other VIPs of the
# load balancer work, and the switch still counts as having a VIP.
ovn-nbctl ls-add sw0 -- lr-add lr0
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.5:80 tcp
ovn-nbctl set Load_Balancer lb0 vips:\"foo:80\"=\"10.0.0.5:80\" vips:\"10.0.0.102:80\"=\"[fd00::5]:80\" vips:\"10.0.0.103:80\"=\"10.0.0.5\" vips:\"10.0.0.104:99999\"=\"10.0.0.5:80\" vips:\"10.0.0.105\"=\"10.0.0.5:80\"
lb=$(ovn-nbctl create Load_Balancer name=lbbad protocol=tcp vips:\"not-an-ip\"=\"10.0.0.5\")
ovn-nbctl ls-lb-add sw0 lb0 -- lr-lb-add lr0 lb0 -- ls-lb-add sw0 lbbad
