# lb_ipv6: IPv6 VIPs with and without a port, written uncompressed in NB:
# flows print them as northd does (compressed, brackets with ports).
ovn-nbctl ls-add sw0 -- lr-add lr0
ovn-nbctl lb-add lb6 "[fd00:0:0::100]:80" "[fd00::5]:8080,[fd00:0::6]:8080" udp
ovn-nbctl lb-add lb6 fd00::101 fd00::5
ovn-nbctl ls-lb-add sw0 lb6 -- lr-lb-add lr0 lb6
