package relations

import (
	"github.com/northlog/northlog/engine"
	"github.com/ovn-org/libovsdb/model"
)

// Ref says that row Owner lists Target (a row _uuid, or any string) in one of
// its set columns.
type Ref struct {
	Owner  string
	Target string
}

// refsOf adds to c an input relation holding a Ref for every element of one
// set column of table. It is fed with set differences as the table's rows
// change, so rewriting a large set (a switch's ports when one port is added)
// costs one map diff, not a retraction and re-insertion of every element.
func refsOf[M any](c *engine.Circuit, n *NB, table string, id func(*M) string, column func(*M) []string) engine.Rel[Ref] {
	in, refs := engine.NewInput[Ref](c, table+" refs")
	rowFeed := n.feeds[table]
	n.feeds[table] = func(old, new model.Model) error {
		if err := rowFeed(old, new); err != nil {
			return err
		}
		var before, after []string
		var owner string
		if o, ok := old.(*M); ok {
			before, owner = column(o), id(o)
		}
		if nw, ok := new.(*M); ok {
			after, owner = column(nw), id(nw)
		}
		before, after = trimCommon(before, after)
		stays := make(map[string]bool, len(after))
		for _, t := range after {
			stays[t] = true
		}
		for _, t := range before {
			if !stays[t] {
				in.Delete(Ref{owner, t})
			}
			delete(stays, t)
		}
		for t := range stays {
			in.Insert(Ref{owner, t})
		}
		return nil
	}
	return refs
}

// trimCommon drops the common prefix and suffix of two versions of a set
// column. OVSDB sends sets sorted, so one element added or removed leaves a
// difference of one element to look at.
func trimCommon(a, b []string) ([]string, []string) {
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	return a, b
}
