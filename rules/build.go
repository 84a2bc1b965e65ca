package rules

import "github.com/northlog/northlog/relations"

// on names the datapath a rule writes flows for, so a rule reads as a list
// of (stage, priority, match, actions).
type on string

// flow is one logical flow on datapath dp.
func (dp on) flow(stage Stage, priority int, match, actions string) Flow {
	return Flow{Datapath: string(dp), Stage: stage, Priority: priority, Match: match, Actions: actions}
}

// flowTarget is what a rule writes flows for: a datapath (on) or a
// switch port (onPort).
type flowTarget interface {
	flow(stage Stage, priority int, match, actions string) Flow
}

// from names the NB row (its _uuid) that the flows a rule writes on dp
// come from, their Hint: "these flows come from that ACL".
func (dp on) from(row string) onRow { return onRow{dp, row} }

// onLRP names a router port's router as the datapath and the port as the
// NB row its flows come from.
func onLRP(p relations.LRP) onRow { return on(p.Router).from(p.Port.UUID) }

// onPort names a switch port that a rule writes flows about, as their
// InOutPort, on the port's switch.
type onPort struct{ Switch, Port string }

// flow is one logical flow about port p.
func (p onPort) flow(stage Stage, priority int, match, actions string) Flow {
	f := on(p.Switch).flow(stage, priority, match, actions)
	f.InOutPort = p.Port
	return f
}

// from names the NB row that the flows about p come from.
func (p onPort) from(row string) onRow { return onRow{p, row} }

// onRow names what a rule writes flows for and the NB row they come from.
type onRow struct {
	target flowTarget
	row    string
}

// flow is one logical flow for the target, from the row.
func (r onRow) flow(stage Stage, priority int, match, actions string) Flow {
	f := r.target.flow(stage, priority, match, actions)
	f.Hint = r.row
	return f
}

// because gives a drop flow northd's description of why it drops
// (Flow.Desc).
func (f Flow) because(desc string) Flow {
	f.Desc = desc
	return f
}

// drop is northd's debug_drop_action() with no debug drop sampling configured.
const drop = "drop;"
