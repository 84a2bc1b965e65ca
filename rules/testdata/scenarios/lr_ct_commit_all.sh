# releases: 26.03
# lr_ct_commit_all: Logical_Router options:ct-commit-all. A stateful
# router (a NAT rule that is not stateless, a load balancer VIP, a
# force-SNAT address) with it commits every new connection in the DNAT zone
# on the way in and the SNAT zone on the way out (priority 10 of
# lr_in_defrag, lr_in_dnat, lr_in_post_unsnat, lr_out_post_undnat,
# lr_out_snat): all its traffic on a gateway router, which then no longer
# commits new connections at lr_out_post_undnat 50, and that through each
# distributed gateway port otherwise, whose separate-zone SNAT flows go.
# gw1 has NAT, gw2 only a load balancer, gw3 only a stateless NAT rule (not
# stateful: nothing changes), gw4 a force-SNAT address; dr1 has two
# distributed gateway ports and NAT, dr2 one port and no NAT; gw5 has
# ct-commit-all=false.
ovn-nbctl ls-add pub
for r in gw1 gw2 gw3 gw4 gw5; do
  ovn-nbctl lr-add $r -- set Logical_Router $r options:chassis=hv1 options:ct-commit-all=true
done
ovn-nbctl set Logical_Router gw5 options:ct-commit-all=false
ovn-nbctl lrp-add gw1 gw1-pub 00:00:00:00:01:01 172.16.0.1/24 -- lrp-add gw1 gw1-in 00:00:00:00:01:02 10.0.1.1/24
ovn-nbctl lr-nat-add gw1 snat 172.16.0.1 10.0.1.0/24 -- lr-nat-add gw1 dnat_and_snat 172.16.0.11 10.0.1.11
ovn-nbctl lrp-add gw2 gw2-pub 00:00:00:00:02:01 172.16.0.2/24
ovn-nbctl lb-add lb0 172.16.0.100:80 10.0.2.10:8080 tcp -- lr-lb-add gw2 lb0
ovn-nbctl lrp-add gw3 gw3-pub 00:00:00:00:03:01 172.16.0.3/24
ovn-nbctl --stateless lr-nat-add gw3 dnat_and_snat 172.16.0.33 10.0.3.33
ovn-nbctl lrp-add gw4 gw4-pub 00:00:00:00:04:01 172.16.0.4/24 -- set Logical_Router gw4 options:lb_force_snat_ip=172.16.0.4
ovn-nbctl lrp-add gw5 gw5-pub 00:00:00:00:05:01 172.16.0.5/24 -- lr-nat-add gw5 snat 172.16.0.5 10.0.5.0/24
ovn-nbctl lr-add dr1 -- set Logical_Router dr1 options:ct-commit-all=true
ovn-nbctl lrp-add dr1 dr1-pub 00:00:00:00:06:01 172.16.0.6/24 -- lrp-set-gateway-chassis dr1-pub hv1
ovn-nbctl lrp-add dr1 dr1-pub2 00:00:00:00:06:02 172.17.0.6/24 -- lrp-set-gateway-chassis dr1-pub2 hv2
ovn-nbctl lrp-add dr1 dr1-in 00:00:00:00:06:03 10.0.6.1/24
ovn-nbctl --gateway-port=dr1-pub lr-nat-add dr1 snat 172.16.0.6 10.0.6.0/24
ovn-nbctl --gateway-port=dr1-pub2 lr-nat-add dr1 dnat_and_snat 172.17.0.66 10.0.6.66
ovn-nbctl lr-add dr2 -- set Logical_Router dr2 options:ct-commit-all=true
ovn-nbctl lrp-add dr2 dr2-pub 00:00:00:00:07:01 172.16.0.7/24 -- lrp-set-gateway-chassis dr2-pub hv1
