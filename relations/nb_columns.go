package relations

import (
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
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
	// In place of newTable's feed, which would feed the rows whole.
	feedWithout(t, name, inputs, withoutUp, func(o, n *nb.LogicalSwitchPort) {
		if o != nil {
			up.Delete(o.UUID)
		}
		if n != nil {
			up.Set(n.UUID, n.Up != nil && *n.Up)
		}
	})
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

// newSwitchTable is the Logical_Switch table, whose rows the program holds
// without the columns Refs holds (refs.go), and the length of their ports
// column as an input of its own: adding a port to a switch rewrites its
// ports alone, and left in the row that would replace the switch's tuple,
// and so run every rule that reads switches, for nothing.
func newSwitchTable(c *engine.Circuit, inputs nbInputs) (Table[nb.LogicalSwitch], engine.Rel[engine.KV[string, int]]) {
	const name = nb.LogicalSwitchTable
	t := newTable[nb.LogicalSwitch](c, name, inputs)
	nPorts, nPortsRel := engine.NewInput[engine.KV[string, int]](c, name+" ports length")
	feedWithout(t, name, inputs, withoutRefs, func(o, n *nb.LogicalSwitch) {
		if o != nil {
			nPorts.Delete(engine.KV[string, int]{Key: o.UUID, Value: len(o.Ports)})
		}
		if n != nil {
			nPorts.Insert(engine.KV[string, int]{Key: n.UUID, Value: len(n.Ports)})
		}
	})
	return t, nPortsRel
}

// withoutRefs is ls without the columns Refs holds.
func withoutRefs(ls *nb.LogicalSwitch) *nb.LogicalSwitch {
	c := *ls
	c.Ports, c.ACLs, c.LoadBalancer, c.LoadBalancerGroup, c.ForwardingGroups = nil, nil, nil, nil, nil
	return &c
}
