# releases: 26.03
# dhcp_relay: DHCP relay (NB DHCP_Relay, Logical_Router_Port dhcp_relay,
# Logical_Switch other_config:dhcp_relay_port). A router port with a relay
# whose switch names a relay port checks DHCP requests from its peer
# switch port (lr_in_ip_input 110, dhcp_relay_req_chk, metered by the
# router's CoPP dhcpv4-relay meter), rewrites them to the server
# (lr_in_dhcp_relay_req), and checks and sends back the server's replies
# (lr_in_dhcp_relay_resp_chk, lr_in_dhcp_relay_resp); the switch sends its
# VIFs' DHCP requests straight to the router port (ls_in_l2_lkup 100) and
# answers none itself, though its ports have DHCP options. sw1 relays
# through r0-sw1, sw2 through r0-sw2 to a server written with its port;
# sw3 names a VIF as its relay port and sw5 a port that does not exist
# (the router port relays, the switch sends nothing to it but answers no
# DHCP either); sw4's relay has a bad servers string (no flows, logged at
# ERR); sw6's router port has a relay but the switch names no relay port
# (the router port gets nothing, the switch keeps its DHCP replies).
# (A relay with no servers on a port its switch names kills 26.03.2's
# northd: build_lswitch_dhcp_relay_flows parses the servers unchecked.)
ovn-nbctl meter-add m-relay drop 10 pktps -- copp-add copp0 dhcpv4-relay m-relay
ovn-nbctl lr-add r0 -- lr-copp-add copp0 r0
rl1=$(ovn-nbctl create DHCP_Relay name=rl1 servers=172.16.0.10)
rl2=$(ovn-nbctl create DHCP_Relay name=rl2 servers='"172.16.0.20:67"')
rl4=$(ovn-nbctl create DHCP_Relay name=rl4 servers=not-an-ip)
rl6=$(ovn-nbctl create DHCP_Relay name=rl6 servers=172.16.0.60)
opts=$(ovn-nbctl create DHCP_Options cidr=10.0.0.0/8 options='"lease_time"="3600" "router"="10.0.1.1" "server_id"="10.0.1.1" "server_mac"="00:00:00:00:01:01"')
for i in 1 2 3 4 5 6; do
  ovn-nbctl lrp-add r0 r0-sw$i 00:00:00:00:0$i:01 10.0.$i.1/24 fd00:$i::1/64
  ovn-nbctl ls-add sw$i
  ovn-nbctl lsp-add sw$i sw$i-r0 -- lsp-set-type sw$i-r0 router -- lsp-set-addresses sw$i-r0 router \
    -- lsp-set-options sw$i-r0 router-port=r0-sw$i
  ovn-nbctl lsp-add sw$i vm$i -- lsp-set-addresses vm$i "00:00:00:00:0$i:10 10.0.$i.10"
  ovn-nbctl lsp-set-dhcpv4-options vm$i $opts
  ovn-nbctl lsp-add sw$i vm$i-b -- lsp-set-addresses vm$i-b "00:00:00:00:0$i:11 10.0.$i.11" "00:00:00:00:0$i:12"
  ovn-nbctl lsp-add sw$i ln$i -- lsp-set-type ln$i localnet -- lsp-set-addresses ln$i unknown -- lsp-set-options ln$i network_name=phys
done
ovn-nbctl set Logical_Router_Port r0-sw1 dhcp_relay=$rl1 -- set Logical_Switch sw1 other_config:dhcp_relay_port=sw1-r0
ovn-nbctl set Logical_Router_Port r0-sw2 dhcp_relay=$rl2 -- set Logical_Switch sw2 other_config:dhcp_relay_port=sw2-r0
ovn-nbctl set Logical_Router_Port r0-sw3 dhcp_relay=$rl1 -- set Logical_Switch sw3 other_config:dhcp_relay_port=vm3
ovn-nbctl set Logical_Router_Port r0-sw4 dhcp_relay=$rl4 -- set Logical_Switch sw4 other_config:dhcp_relay_port=sw4-r0
ovn-nbctl set Logical_Router_Port r0-sw5 dhcp_relay=$rl1 -- set Logical_Switch sw5 other_config:dhcp_relay_port=nope
ovn-nbctl set Logical_Router_Port r0-sw6 dhcp_relay=$rl6
