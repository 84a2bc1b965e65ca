# Malformed addresses and port security, written past ovn-nbctl's checks:
# entries without a MAC are skipped, trailing junk after the addresses is
# ignored, odd but accepted forms (an octet of 300, short MAC octets) are
# read as northd reads them.
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p1 -- set logical_switch_port p1 'addresses=["zz:00:00:00:00:01 10.0.0.1", "0a:00:00:00:00:01 10.0.0.1"]'
ovn-nbctl lsp-add sw0 p2 -- set logical_switch_port p2 'addresses=["0a:00:00:00:00:02 10.0.0.2 junk 10.0.0.22"]'
ovn-nbctl lsp-add sw0 p3 -- set logical_switch_port p3 'addresses=["0a:00:00:00:00:03 10.0.0.300 fd00::zz"]'
ovn-nbctl lsp-add sw0 p4 -- set logical_switch_port p4 'addresses=["10.0.0.4"]' 'port_security=["bad 10.0.0.4"]'
ovn-nbctl lsp-add sw0 p5 -- set logical_switch_port p5 'addresses=[unknown]' 'port_security=["not-a-mac"]'
ovn-nbctl lsp-add sw0 p6 -- set logical_switch_port p6 'addresses=["a:0:0:0:0:6 10.0.0.6/33 10.0.0.66", "0a:00:00:00:00:16 fd00::1/129"]'
