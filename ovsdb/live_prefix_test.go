package ovsdb

import (
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/schema"
)

// routerPortPrefixes is each router port's name and ipv6_prefix in the NB
// at remote, one sorted line each.
func routerPortPrefixes(s *servers, remote string) string {
	out := s.run("ovn-nbctl", "--db="+remote, "--format=csv", "--data=bare", "--no-headings", "--columns=name,ipv6_prefix", "list", "Logical_Router_Port")
	return strings.Join(slices.Sorted(strings.Lines(out)), "")
}

// TestLivePrefixDelegation: ovn-controller writes the prefix it was
// delegated in a router port's Port_Binding options:ipv6_ra_pd_list; a
// port that asks for one (options:prefix) gets it in its NB ipv6_prefix,
// and its periodic router advertisements announce it
// (ipv6_ra_prefixes). The NB router ports and the SB Port_Bindings are
// those the real ovn-northd 23.03 ends with, as the list changes, turns
// to junk, and the port stops asking.
func TestLivePrefixDelegation(t *testing.T) {
	t.Parallel()
	comparePrefixDelegation(t, reference.BuildOf(schema.OVN2303))
}

// TestLive2603PrefixDelegation is TestLivePrefixDelegation against
// 26.03.2, whose advertisements announce the NB ipv6_prefix rather than
// the SB list: a prefix stays announced once the list turns to junk or
// goes, as long as the NB keeps it.
func TestLive2603PrefixDelegation(t *testing.T) {
	t.Parallel()
	comparePrefixDelegation(t, reference.BuildOf(schema.OVN2603))
}

// comparePrefixDelegation runs the steps of TestLivePrefixDelegation on
// the reference build and on northlog.
func comparePrefixDelegation(t *testing.T, build *reference.Build) {
	ref, s, _ := startWithReferenceOf(t, build)
	check := func(what string) {
		t.Helper()
		if want, got := routerPortPrefixes(s, ref.NBRemote()), routerPortPrefixes(s, s.NBRemote()); got != want {
			t.Errorf("%s: NB router ports:\n%s\nwant (%s):\n%s", what, got, build.Release(), want)
		}
		if r := reference.Compare(sbRows(t, ref.SBRemote(), false), sbRows(t, s.SBRemote(), false)); !r.Equal() {
			t.Errorf("%s: SB rows differ (- %s, + northlog):\n%s", what, build.Release(), rowDiff(r))
		}
	}
	applyBoth(t, ref, s, `ovn-sbctl chassis-add hv1 geneve 192.0.2.1
ovn-nbctl lr-add R1 -- ls-add sw0 -- ls-add sw1 -- ls-add public
ovn-nbctl lrp-add R1 rp-sw0 00:00:01:01:02:03 192.168.1.1/24 fd00:1::1/64
ovn-nbctl lrp-add R1 rp-sw1 00:00:03:01:02:03 192.168.2.1/24 fd00:2::1/64
ovn-nbctl lrp-add R1 rp-public 00:00:02:01:02:03 172.16.1.1/24 2001:1db8:3333::1/64
ovn-nbctl lrp-set-gateway-chassis rp-public hv1
for p in sw0 sw1 public; do
  ovn-nbctl lsp-add $p $p-rp -- set Logical_Switch_Port $p-rp type=router options:router-port=rp-$p -- lsp-set-addresses $p-rp router
done
ovn-nbctl set Logical_Router_Port rp-public options:prefix_delegation=true options:prefix=true
ovn-nbctl set Logical_Router_Port rp-sw0 options:prefix=true ipv6_ra_configs:address_mode=slaac ipv6_ra_configs:send_periodic=true
ovn-nbctl set Logical_Router_Port rp-sw1 options:prefix=true ipv6_ra_configs:address_mode=dhcpv6_stateless ipv6_ra_configs:send_periodic=true`)
	check("no prefix delegated yet")
	// The SB's lists change in one transaction: a northd that rewrites a
	// binding's options from what it has seen so far would otherwise race
	// the next ovn-sbctl (23.03 does, and then drops that port's list).
	applyBoth(t, ref, s, `ovn-sbctl set Port_Binding rp-public options:ipv6_ra_pd_list='"1:2001:1db8:3333:100::/64"' \
  -- set Port_Binding rp-sw0 options:ipv6_ra_pd_list='"2:2001:1db8:3333:101::/64"' \
  -- set Port_Binding rp-sw1 options:ipv6_ra_pd_list='"3:2001:1db8:3333:102::/64 2001:1db8:3333:103::/64"'`)
	check("prefixes delegated")
	applyBoth(t, ref, s, `ovn-sbctl set Port_Binding rp-sw0 options:ipv6_ra_pd_list='"2:2001:1db8:3333:111::/64"' -- set Port_Binding rp-sw1 options:ipv6_ra_pd_list=junk
ovn-nbctl set Logical_Router_Port rp-public options:prefix=false`)
	check("prefix renewed, list junk, port stops asking")
	applyBoth(t, ref, s, `ovn-sbctl set Port_Binding rp-public options:ipv6_ra_pd_list='"1:2001:1db8:3333:120::/64"' -- remove Port_Binding rp-sw0 options ipv6_ra_pd_list`)
	check("list removed")
}
