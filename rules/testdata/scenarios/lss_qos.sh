# lss_qos: QoS rules on a switch: DSCP marking and metering (rate, and
# rate with burst) in both directions; another switch without QoS rules
# keeps the defaults.
ovn-nbctl ls-add sw0 -- ls-add sw1
ovn-nbctl qos-add sw0 from-lport 100 "ip4.src == 10.0.0.1" dscp=12
ovn-nbctl qos-add sw0 to-lport 200 "ip4.dst == 10.0.0.2" rate=1000 burst=200
ovn-nbctl qos-add sw0 from-lport 300 "ip4.src == 10.0.0.3" rate=500 dscp=8
