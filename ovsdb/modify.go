package ovsdb

import (
	"slices"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/sb"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// fastModifiers apply an update2 "modify" to a row of their table, when
// they can (ok false leaves it to libovsdb): adding a port to a switch of
// thousands changes the switch's ports and its flood groups by that port,
// which libovsdb's set arithmetic pays for with the whole column.
var fastModifiers = map[string]wire.Modifier{
	nb.LogicalSwitchTable:  modifyPorts(func(ls *nb.LogicalSwitch) *[]string { return &ls.Ports }),
	sb.MulticastGroupTable: modifyPorts(func(mc *sb.MulticastGroup) *[]string { return &mc.Ports }),
}

// modifyPorts applies a modify of the ports column alone of a row of type
// M, whose ports column ports points to.
func modifyPorts[M any](ports func(*M) *[]string) func(model.Model, lovsdb.Row) (model.Model, bool) {
	return func(old model.Model, diff lovsdb.Row) (model.Model, bool) {
		row, ok := old.(*M)
		if !ok || len(diff) != 1 {
			return nil, false
		}
		next := *row
		col := ports(&next)
		set, ok := toggled(*col, diff["ports"])
		if !ok {
			return nil, false
		}
		*col = set
		return &next, true
	}
}

// toggled is a copy of set with an update2 diff of a set of uuid atoms
// applied: each element the diff lists goes if set has it, else comes
// last. The others keep their order, so that the two versions of the
// column share a prefix and a suffix (relations.refsOf trims them). ok is
// false when diff is not such a value.
func toggled(set []string, diff any) ([]string, bool) {
	us, ok := wire.UUIDsOf(diff)
	if !ok {
		return nil, false
	}
	out := slices.Clone(set)
	for _, u := range us {
		if i := indexUUID(out, u); i >= 0 {
			out = slices.Delete(out, i, i+1)
		} else {
			out = append(out, u)
		}
	}
	return out, true
}

// indexUUID is slices.Index for non-empty strings of one length, UUIDs:
// their first bytes tell most apart without a call to the runtime's
// comparison.
func indexUUID(set []string, u string) int {
	for i, x := range set {
		if len(x) == len(u) && x[0] == u[0] && x == u {
			return i
		}
	}
	return -1
}
