package ovsdb

import (
	"slices"
	"strings"

	"github.com/northlog/northlog/ovsdb/sbwriter"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// ipv6PrefixOp copies the prefix delegated to router port name, which
// ovn-controller writes in its Port_Binding's options:ipv6_ra_pd_list,
// into the port's ipv6_prefix when the port asks for one (options:prefix)
// and holds another (ovn_update_ipv6_prefix).
func (d *Northd) ipv6PrefixOp(name string) (lovsdb.Operation, bool) {
	lrp := d.feed.lrpByName[name]
	pb, bound := d.w.PortBinding(name)
	if lrp == nil || !bound || !relations.SmapBool(lrp.Options, "prefix", false) {
		return lovsdb.Operation{}, false
	}
	prefix, ok := delegatedPrefix(pb.Options["ipv6_ra_pd_list"])
	if !ok || !slices.Contains(sbwriter.RouterPortTypes, pb.Type) || slices.Equal(lrp.Ipv6Prefix, []string{prefix}) {
		return lovsdb.Operation{}, false
	}
	return lovsdb.Operation{Op: lovsdb.OperationUpdate, Table: nb.LogicalRouterPortTable,
		Row: lovsdb.Row{"ipv6_prefix": wire.StrSet([]string{prefix})}, Where: wire.WhereUUID(lrp.UUID)}, true
}

// delegatedPrefix reads an ipv6_ra_pd_list as 23.03 does (ovs_scan's
// "%u:%s"): an IAID, a colon, and the prefix, up to the first space.
func delegatedPrefix(list string) (string, bool) {
	iaid, rest, ok := strings.Cut(strings.TrimLeft(list, " \t\n\v\f\r"), ":")
	if !ok || iaid == "" || strings.Trim(iaid, "0123456789") != "" {
		return "", false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", false
	}
	return fields[0], true
}
