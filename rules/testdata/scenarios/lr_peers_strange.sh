# releases: 26.03
# Router ports peered in odd ways (ovn-northd.at "configure LRP peers
# strange" and "LSP using LRP with peer"): lrp0, lrp1 and lrp2 name each
# other's peers in a circle, none naming back; lrp3 and lrp4 name each
# other, and a switch port of type "router" names lrp4 too; another names
# lrp5, whose peer names no port. (23.03's northd asserts on this NB.)
ovn-nbctl lr-add lr0 -- lr-add lr1 -- lr-add lr2 -- lr-add lr3 -- ls-add ls
ovn-nbctl lrp-add lr0 lrp0 00:00:00:02:ff:01 10.10.0.1/24 peer=lrp1
ovn-nbctl lrp-add lr1 lrp1 00:00:00:02:ff:02 10.10.0.2/24 peer=lrp2
ovn-nbctl lrp-add lr2 lrp2 00:00:00:02:ff:03 10.10.0.3/24 peer=lrp0
ovn-nbctl lrp-add lr3 lrp3 00:00:00:02:ff:04 10.20.0.1/24 peer=lrp4
ovn-nbctl lrp-add lr3 lrp4 00:00:00:02:ff:05 10.20.0.2/24 peer=lrp3
ovn-nbctl lrp-add lr3 lrp5 00:00:00:02:ff:06 10.30.0.1/24 peer=nothing
for p in lrp4 lrp5; do
  ovn-nbctl lsp-add ls ls-$p -- lsp-set-type ls-$p router -- lsp-set-options ls-$p router-port=$p -- lsp-set-addresses ls-$p router
done
