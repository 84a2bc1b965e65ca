# Chassis_Template_Var: northd copies each chassis' template variables to
# the SB, and a template load balancer uses them in its flows.
ovn-nbctl create chassis_template_var chassis=hv1 variables:vip=10.0.0.10 variables:vport=80 variables:backends=10.0.0.2:8080
ovn-nbctl create chassis_template_var chassis=hv2 variables:vip=10.0.0.20 variables:vport=81
ovn-nbctl ls-add sw0
ovn-nbctl lsp-add sw0 p0 -- lsp-set-addresses p0 "00:00:00:00:00:01 10.0.0.2"
ovn-nbctl --template lb-add lbt "^vip:^vport" "^backends" tcp ipv4
ovn-nbctl ls-lb-add sw0 lbt
