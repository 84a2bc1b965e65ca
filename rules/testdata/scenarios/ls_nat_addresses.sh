# Switch ports of type router with an explicit options:nat-addresses list,
# which Port_Binding nat_addresses carries before the router port's own
# GARP entry: on a gateway router's switch (with a localnet port), on a
# distributed gateway port's switch (is_chassis_resident of its
# chassisredirect port), on a plain router's switch (ignored), unreadable
# (ignored), and with content after the addresses (kept).
ovn-nbctl lr-add gw -- set Logical_Router gw options:chassis=hv1
ovn-nbctl lrp-add gw gw-ext 00:00:00:00:ee:01 172.16.0.1/24
ovn-nbctl ls-add ext
ovn-nbctl lsp-add ext ext-gw -- lsp-set-type ext-gw router -- lsp-set-addresses ext-gw router \
  -- lsp-set-options ext-gw router-port=gw-ext nat-addresses="00:00:00:00:ee:01 172.16.0.10 172.16.0.11"
ovn-nbctl lsp-add ext ln-ext -- lsp-set-type ln-ext localnet -- lsp-set-addresses ln-ext unknown \
  -- lsp-set-options ln-ext network_name=phys
ovn-nbctl lr-add dr
ovn-nbctl lrp-add dr dr-pub 00:00:00:00:dd:01 172.17.0.1/24 -- lrp-set-gateway-chassis dr-pub hv1 10
ovn-nbctl lrp-add dr dr-in 00:00:00:00:dd:02 10.0.0.1/24
ovn-nbctl ls-add pub
ovn-nbctl lsp-add pub pub-dr -- lsp-set-type pub-dr router -- lsp-set-addresses pub-dr router \
  -- lsp-set-options pub-dr router-port=dr-pub nat-addresses="00:00:00:00:dd:01 172.17.0.20 junk"
ovn-nbctl ls-add in
ovn-nbctl lsp-add in in-dr -- lsp-set-type in-dr router -- lsp-set-addresses in-dr router \
  -- lsp-set-options in-dr router-port=dr-in nat-addresses="00:00:00:00:dd:02 10.0.0.100"
ovn-nbctl lr-add plain
ovn-nbctl lrp-add plain plain-s 00:00:00:00:cc:01 10.1.0.1/24
ovn-nbctl ls-add s
ovn-nbctl lsp-add s s-plain -- lsp-set-type s-plain router -- lsp-set-addresses s-plain router \
  -- lsp-set-options s-plain router-port=plain-s nat-addresses="00:00:00:00:cc:01 10.1.0.100"
ovn-nbctl lr-add gw2 -- set Logical_Router gw2 options:chassis=hv2
ovn-nbctl lrp-add gw2 gw2-t 00:00:00:00:bb:01 10.2.0.1/24
ovn-nbctl ls-add t
ovn-nbctl lsp-add t t-gw2 -- lsp-set-type t-gw2 router -- lsp-set-addresses t-gw2 router \
  -- lsp-set-options t-gw2 router-port=gw2-t nat-addresses="not-a-mac 10.2.0.100"
