package relations

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/ovn-org/libovsdb/model"
)

// newSwitchPortTable is the Logical_Switch_Port table, whose rows the
// program holds without their up column, and that column as an input of
// its own: the _uuid of the switch ports that are up. northd writes up
// itself once a port is bound, and only the ARP/ND responder reads it; left
// in the row, the echo of that write would replace the row, and so every
// tuple made from it (the port's flows, its router link).
func newSwitchPortTable(c *engine.Circuit, inputs nbInputs) (Table[nb.LogicalSwitchPort], engine.Rel[string]) {
	const name = nb.LogicalSwitchPortTable
	t := newTable[nb.LogicalSwitchPort](c, name, inputs)
	up, upRel := engine.NewInput[string](c, name+" up")
	fed := map[string]*nb.LogicalSwitchPort{} // the table's rows, by _uuid
	// In place of newTable's feed, which would feed the rows whole.
	inputs.feeds[name] = func(old, new model.Model) error {
		o, n, err := rowsOf[nb.LogicalSwitchPort](name, old, new)
		if err != nil {
			return err
		}
		var prev, next *nb.LogicalSwitchPort
		if o != nil {
			prev = fed[o.UUID]
			delete(fed, o.UUID)
			up.Delete(o.UUID)
		}
		if n != nil {
			next = withoutUp(n)
			if prev != nil && prev.Equals(next) {
				next = prev
			}
			fed[n.UUID] = next
			up.Set(n.UUID, n.Up != nil && *n.Up)
		}
		if prev != next {
			t.replace(prev, next)
		}
		return nil
	}
	return t, upRel
}

// withoutUp is p with no up column.
func withoutUp(p *nb.LogicalSwitchPort) *nb.LogicalSwitchPort {
	if p.Up == nil {
		return p
	}
	c := *p
	c.Up = nil
	return &c
}
